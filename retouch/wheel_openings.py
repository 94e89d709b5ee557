"""Wheels: the background seen between the spokes of a wheel, recognised by its shape.

A wheel's opening is split by its spokes into sectors. Each sector alone is small, and on a plain-ish
background its colour is weak evidence (a silver car in a grey studio has panels of the backdrop's
colour), so :func:`retouch.openings.clear_openings`'s region tests keep most wheels. Their arrangement is
strong evidence: several background-coloured sectors around a common centre, filling an ellipse (a
round wheel, or one seen at an angle), separated only by thin lines that run toward that centre, the
whole ringed by product (the tyre, or the body the wheel is set in). :func:`wheel_sectors` finds such
groups and returns their sectors, which the openings step then cuts as one opening (the spokes and the
hub are not candidates and stay product; thin spokes inside the cut are put back by its thin-structure
test).

A group that fails these tests because its background-like pixels spill beyond the wheel (product of the
background's colour around it) or cover only part of it is looked at again through the wheel's own
rim: :func:`located_wheel` tries the circles that the edges of the posterior draw around the group
(a circular Hough transform) and cuts the background-like pixels inside a circle that passes the same
tests measured on the circle instead of the group's moments. The search (edges and circle votes) is paid only
for a group around which some circle may pass the tests that need no edges (cover, rim, typical, taper),
looked at first on squares of the same areas read from summed-area tables: most groups on real photos
(cars' panels, foliage) stop there.

Works at the colour tests' resolution (<= ~0.12 MP) on the matte, the per-pixel posterior of
"background" and the "typical of the background" mask that :func:`retouch.openings.clear_openings`
computes. A matte with too few background-like pixels for several sectors returns at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import ndimage as ndi

if TYPE_CHECKING:
    from .openings import OpeningsConfig

__all__ = ["located_wheel", "wheel_features", "wheel_sectors"]


def _runs(flags: np.ndarray) -> list[int]:
    """Lengths of the runs of True in a circular bool vector (the whole vector if all True)."""
    n = len(flags)
    if not flags.any():
        return []
    if flags.all():
        return [n]
    start = int(np.argmin(flags))  # a False: rotate so no run wraps around
    f = np.roll(flags, -start)
    d = np.diff(np.concatenate([[0], f.astype(np.int8), [0]]))
    return (np.flatnonzero(d == -1) - np.flatnonzero(d == 1)).tolist()


def wheel_features(
    sectors: np.ndarray, fg: np.ndarray, bg_like: np.ndarray, typical_px: np.ndarray
) -> tuple[dict[str, float], tuple[int, int, int, int], np.ndarray] | None:
    """Shape measurements of one group of candidate sectors (bool (H, W) arrays, same shape).

    ``sectors``: the group's background-like pixels; ``fg``: the matte (alpha >= 0.5); ``bg_like``: every
    background-like matte pixel; ``typical_px``: matte pixels as typical of the background as 70 % of its
    own. An ellipse is fitted to the group filled (gaps of up to ~4 px closed, holes filled) by its second
    moments (a uniform ellipse of semi-axes a, b has variances a^2/4, b^2/4); inside it, in the band
    0.3-0.9 of its normalised radius, the angle around the centre (in the ellipse's own frame) is cut
    into bins ~1.5 px wide at 0.9 of the radius, and a bin is a *sector* bin when at least half its band
    pixels are the group's.

    Returns ``None`` for a group too small to measure, else ``(features, box, ellipse)``: the box
    ``(y0, y1, x0, x1)`` measured (the group's bounding box with a margin), the bool ellipse inside it, and
    the features, a dict: ``radius`` (b, px), ``aspect`` (b / a),
    ``fit`` (IoU of the filled group and the ellipse), ``cover`` (share of the ellipse that is the group),
    ``sectors`` (runs of sector bins around the circle), ``gaps`` (share of bins that are not sector
    bins), ``radial`` (share of the band's non-group pixels that fall in non-sector bins: spokes run
    along whole bins, clutter and a rim's pattern do not), ``rim_product`` (share of the annulus
    1.1-1.35 of the radius that is matte), ``rim_bg`` (share of that annulus that is background-like),
    ``typical`` (share of the group's pixels typical of the background), ``bins``.
    """
    ys, xs = np.nonzero(sectors)
    if len(ys) < 30:
        return None
    pad = int(0.6 * max(ys.max() - ys.min(), xs.max() - xs.min())) + 4
    h, w = sectors.shape
    y0, y1, x0, x1 = (
        max(0, ys.min() - pad),
        min(h, ys.max() + pad + 1),
        max(0, xs.min() - pad),
        min(w, xs.max() + pad + 1),
    )
    u = sectors[y0:y1, x0:x1]
    filled = ndi.binary_fill_holes(ndi.binary_closing(u, iterations=2, border_value=0))
    fy, fx = np.nonzero(filled)
    cy, cx = fy.mean(), fx.mean()
    cov = np.cov(np.stack([fy - cy, fx - cx]))
    evals, evecs = np.linalg.eigh(cov)
    if evals[0] <= 1.0:
        return None
    a, b = 2.0 * np.sqrt(evals[1]), 2.0 * np.sqrt(evals[0])
    yy, xx = np.mgrid[y0:y1, x0:x1]
    dy, dx = yy - (cy + y0), xx - (cx + x0)
    # coordinates along the ellipse's axes, each scaled to its semi-axis (unit circle = the ellipse)
    p0 = (dy * evecs[0, 0] + dx * evecs[1, 0]) / b
    p1 = (dy * evecs[0, 1] + dx * evecs[1, 1]) / a
    rho = np.hypot(p0, p1)
    ell = rho <= 1.0
    inter = float((filled & ell).sum())
    fit = inter / max(float((filled | ell).sum()), 1.0)
    cover = float((u & ell).sum()) / max(float(ell.sum()), 1.0)
    band = (rho >= 0.3) & (rho <= 0.9)
    nb = int(np.clip(round(2 * np.pi * 0.9 * b / 1.5), 24, 180))
    theta = ((np.arctan2(p0, p1) + np.pi) / (2 * np.pi) * nb).astype(np.int64) % nb
    tot = np.bincount(theta[band], minlength=nb).astype(np.float64)
    grp = np.bincount(theta[band & u], minlength=nb).astype(np.float64)
    frac = np.where(tot > 0, grp / np.maximum(tot, 1.0), 0.0)
    sector_bin = frac >= 0.5
    runs = _runs(sector_bin)
    other = band & ~u
    n_other = float(other.sum())
    radial = float((~sector_bin[theta[other]]).sum()) / n_other if n_other else 1.0
    rim = (rho >= 1.1) & (rho <= 1.35)
    n_rim = max(float(rim.sum()), 1.0)
    features = {
        "radius": float(b),
        "aspect": float(b / a),
        "fit": fit,
        "cover": cover,
        "sectors": float(len(runs)),
        "gaps": float(1.0 - sector_bin.mean()),
        "radial": radial,
        "rim_product": float(fg[y0:y1, x0:x1][rim].sum()) / n_rim,
        "rim_bg": float(bg_like[y0:y1, x0:x1][rim].sum()) / n_rim,
        "typical": float(typical_px[y0:y1, x0:x1][u].mean()),
        "bins": float(nb),
    }
    return features, (int(y0), int(y1), int(x0), int(x1)), ell


def _groups(
    fg: np.ndarray, post_bg: np.ndarray, cfg: OpeningsConfig
) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """The background-like matte pixels and their groups of at least ``cfg.wheel_sectors`` sectors."""
    bg_like = fg & (post_bg >= cfg.wheel_posterior)
    if int(bg_like.sum()) < cfg.wheel_sectors * cfg.wheel_sector_px:
        return None
    lab, n = ndi.label(bg_like)
    sizes = np.bincount(lab.ravel(), minlength=n + 1)
    big = sizes >= cfg.wheel_sector_px
    big[0] = False
    if int(big.sum()) < cfg.wheel_sectors:
        return None
    keep = big[lab]
    # sectors separated by spokes up to ~4 px wide form one group
    glab, gn = ndi.label(ndi.binary_dilation(keep, iterations=2) & fg)
    # how many sectors each group holds
    first = np.zeros(n + 1, np.int64)
    sel = keep
    first[lab[sel]] = glab[sel]
    members = np.bincount(first[big], minlength=gn + 1)
    out = []
    for g in np.flatnonzero(members >= cfg.wheel_sectors):
        if g == 0:
            continue
        out.append(keep & (glab == g))
    return bg_like, out


def wheel_sectors(
    fg: np.ndarray, post_bg: np.ndarray, typical_px: np.ndarray, cfg: OpeningsConfig
) -> np.ndarray | None:
    """The sectors of the wheels found in the matte, to cut as openings; ``None`` when there are none.

    Args:
        fg: bool (H, W), the matte (alpha >= 0.5) at the colour tests' resolution.
        post_bg: float32 (H, W), each matte pixel's posterior probability of "background" (unsmoothed).
        typical_px: bool (H, W), matte pixels as typical of the background as 70 % of its own.
        cfg: the openings step's constants (its ``wheel_*`` fields).

    A group of background-like pixels (posterior >= ``cfg.wheel_posterior``; connected pieces of at
    least ``cfg.wheel_sector_px`` px, grouped across gaps of up to ~4 px) is a wheel when
    (:func:`wheel_features`): it holds at least ``cfg.wheel_sectors`` sectors around its centre; it fills
    an ellipse (fit >= ``cfg.wheel_fit``, minor semi-axis >= ``cfg.wheel_radius`` px, axis ratio >=
    ``cfg.wheel_aspect``); it covers at least ``cfg.wheel_cover`` of it; the lines between its sectors take
    at most ``cfg.wheel_gaps`` of the angles and hold at least ``cfg.wheel_radial`` of the band's other
    pixels (they run toward the centre); the annulus outside it is product (matte share >=
    ``cfg.wheel_rim``, background-like share <= ``cfg.wheel_rim_bg``); and at least ``cfg.wheel_typical``
    of its pixels are typical of the background.

    Returns:
        bool (H, W): the wheels' sectors inside their ellipses, or ``None``.
    """
    found = _groups(fg, post_bg, cfg)
    if found is None:
        return None
    bg_like, groups = found
    cut: np.ndarray | None = None
    edges: np.ndarray | None = None
    sums: np.ndarray | None = None
    for g in groups:
        measured = wheel_features(g, fg, bg_like, typical_px)
        if measured is not None and _is_wheel(measured[0], cfg):
            (y0, y1, x0, x1), ell = measured[1], measured[2]
            if cut is None:
                cut = np.zeros_like(fg)
            cut[y0:y1, x0:x1] |= g[y0:y1, x0:x1] & ell
            continue
        if not cfg.wheel_locate:
            continue
        if sums is None:
            sums = _integral(np.stack([bg_like, fg, bg_like & typical_px]))
        if not _may_hold_wheel(g, sums, cfg):
            continue
        if edges is None:
            from skimage.feature import canny

            edges = canny(post_bg.astype(np.float64), sigma=1.0) & ndi.binary_dilation(fg, iterations=2)
        disc = located_wheel(g, fg, bg_like, typical_px, edges, cfg)
        if disc is not None:
            if cut is None:
                cut = np.zeros_like(fg)
            cut |= bg_like & disc
    return cut


def _circle_features(
    cy: float,
    cx: float,
    r: float,
    bg_like: np.ndarray,
    fg: np.ndarray,
    typical_px: np.ndarray,
    edges: np.ndarray,
    need: tuple[float, float] = (0.0, 0.0),
) -> tuple[dict[str, float], np.ndarray | None]:
    """The wheel tests' measurements on a given circle (centre ``(cy, cx)``, radius ``r``, px).

    Same bins and bands as :func:`wheel_features` with the circle in place of the moments' ellipse and
    every background-like pixel (``bg_like``) in place of one group's. Returns ``(features, disc)``:
    ``sectors``, ``gaps``, ``radial``, ``cover`` (share of the disc that is background-like),
    ``rim_product`` (matte share of the annulus 1.1-1.35 of the radius), ``typical`` (share of the disc's
    background-like pixels typical of the background), ``edge`` (share of the angle bins holding an
    ``edges`` pixel within 0.9-1.1 of the radius), ``taper`` (product share of the band 0.6-0.9 of the
    radius over that of the band 0.3-0.6); and the bool (H, W) disc ``rho <= 0.97`` (the cut stays off
    the rim's blended edge). When ``cover`` or ``rim_product`` falls below ``need`` (their smallest values
    for a wheel) the circle cannot pass: only those two are measured and the disc is ``None``.
    """
    h, w = fg.shape
    y0, y1 = max(0, int(cy - 1.4 * r) - 1), min(h, int(cy + 1.4 * r) + 2)
    x0, x1 = max(0, int(cx - 1.4 * r) - 1), min(w, int(cx + 1.4 * r) + 2)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    rho = np.hypot(yy - cy, xx - cx) / r
    u = bg_like[y0:y1, x0:x1]
    rim = (rho >= 1.1) & (rho <= 1.35)
    cheap = {
        "cover": float(u[rho <= 1.0].mean()),
        "rim_product": float(fg[y0:y1, x0:x1][rim].mean()) if rim.any() else 0.0,
    }
    if cheap["cover"] < need[0] or cheap["rim_product"] < need[1]:
        return cheap, None
    band = (rho >= 0.3) & (rho <= 0.9)
    nb = int(np.clip(round(2 * np.pi * 0.9 * r / 1.5), 24, 180))
    theta = ((np.arctan2(yy - cy, xx - cx) + np.pi) / (2 * np.pi) * nb).astype(np.int64) % nb
    tot = np.bincount(theta[band], minlength=nb).astype(np.float64)
    grp = np.bincount(theta[band & u], minlength=nb).astype(np.float64)
    sector_bin = np.where(tot > 0, grp / np.maximum(tot, 1.0), 0.0) >= 0.5
    other = band & ~u
    n_other = float(other.sum())
    inner, outer = (rho >= 0.3) & (rho < 0.6), (rho >= 0.6) & (rho <= 0.9)
    inside = (rho <= 1.0) & u
    ring = (rho >= 0.9) & (rho <= 1.1)
    features = {
        "sectors": float(len(_runs(sector_bin))),
        "gaps": float(1.0 - sector_bin.mean()),
        "radial": float((~sector_bin[theta[other]]).sum()) / n_other if n_other else 1.0,
        **cheap,
        "typical": float(typical_px[y0:y1, x0:x1][inside].mean()) if inside.any() else 0.0,
        "edge": float((np.bincount(theta[ring & edges[y0:y1, x0:x1]], minlength=nb) > 0).mean()),
        "taper": float((~u[outer]).mean()) / max(float((~u[inner]).mean()), 1e-3),
    }
    disc = np.zeros_like(fg)
    disc[y0:y1, x0:x1] = rho <= 0.97
    return features, disc


def _integral(planes: np.ndarray) -> np.ndarray:
    """Summed-area tables of bool (K, H, W) planes: int32 (K, H + 1, W + 1), ``t[k, y, x]`` = sum of
    ``planes[k, :y, :x]``."""
    k, h, w = planes.shape
    t = np.zeros((k, h + 1, w + 1), np.int32)
    t[:, 1:, 1:] = np.cumsum(np.cumsum(planes, axis=1, dtype=np.int32), axis=2)
    return t


def _box_sums(t: np.ndarray, cys: np.ndarray, cxs: np.ndarray, half: int) -> np.ndarray:
    """Sums over the squares of side ``2 * half + 1`` px centred on the grid ``cys`` x ``cxs`` (int64 pixel
    rows and columns; a square reaching beyond the image sums its part inside), read from the summed-area
    table ``t`` ((H + 1, W + 1), :func:`_integral`): float64 (len(cys), len(cxs))."""
    h, w = t.shape[0] - 1, t.shape[1] - 1
    ya, yb = np.clip(cys - half, 0, h)[:, None], np.clip(cys + half + 1, 0, h)[:, None]
    xa, xb = np.clip(cxs - half, 0, w)[None, :], np.clip(cxs + half + 1, 0, w)[None, :]
    return (t[yb, xb] - t[ya, xb] - t[yb, xa] + t[ya, xa]).astype(np.float64)


def _may_hold_wheel(group: np.ndarray, sums: np.ndarray, cfg: OpeningsConfig) -> bool:
    """Whether some circle that :func:`located_wheel` would try around ``group`` may pass its cover, rim,
    typical and taper tests: a cheap look before the edges and the circle search are paid for.

    Args:
        group: bool (H, W), one group of sectors that failed the moments' tests.
        sums: int32 (3, H + 1, W + 1), :func:`_integral` of the background-like pixels, the matte and the
            background-like pixels typical of the background.
        cfg: the openings step's constants (``wheel_gate_radii``, ``wheel_gate_step``, ``wheel_gate_slack``
            and the circle tests' ``wheel_cover``, ``wheel_rim``, ``wheel_typical``, ``wheel_taper``).

    Each disc and annulus of :func:`_circle_features` is replaced by a square of the same area (its sums
    read in constant time), on ``cfg.wheel_gate_radii`` radii spread over :func:`located_wheel`'s range and
    a grid of centres ``cfg.wheel_gate_step`` of the radius apart over its search box. True when some square
    "circle" comes within ``cfg.wheel_gate_slack`` of every one of the four thresholds; ``wheel_gate_radii``
    0 looks at every group. On the tuning inputs the groups whose rim search found a wheel pass with a
    margin of at least 0.04, and about two thirds of the groups that reach the search on real photos
    (cars' panels, foliage) do not.
    """
    if cfg.wheel_gate_radii <= 0:
        return True
    ys, xs = np.nonzero(group)
    extent = int(max(ys.max() - ys.min(), xs.max() - xs.min()))
    r_max = int(0.6 * extent)
    r_min = max(int(np.ceil(cfg.wheel_radius)), int(0.2 * extent))
    if r_max < r_min:
        return False
    h, w = group.shape
    y0, y1 = max(0, int(ys.min()) - r_max - 2), min(h, int(ys.max()) + r_max + 3)
    x0, x1 = max(0, int(xs.min()) - r_max - 2), min(w, int(xs.max()) + r_max + 3)
    # half the side of the square of a disc's area (sqrt(pi) / 2) at 0.3, 0.6, 0.9, 1, 1.1, 1.35 of the radius
    scale = np.array([0.3, 0.6, 0.9, 1.0, 1.1, 1.35]) * 0.886
    for r in np.unique(np.linspace(r_min, r_max, cfg.wheel_gate_radii).astype(np.int64)):
        step = max(1, int(cfg.wheel_gate_step * r))
        cys, cxs = np.arange(y0, y1, step), np.arange(x0, x1, step)
        half = np.maximum(1, np.round(scale * r).astype(np.int64))
        area = ((2 * half + 1) ** 2).astype(np.float64)
        bg = [_box_sums(sums[0], cys, cxs, int(half[i])) for i in range(4)]
        cover = bg[3] / area[3]
        rim = (_box_sums(sums[1], cys, cxs, int(half[5])) - _box_sums(sums[1], cys, cxs, int(half[4]))) / (
            area[5] - area[4]
        )
        typical = _box_sums(sums[2], cys, cxs, int(half[3])) / np.maximum(bg[3], 1.0)
        inner = 1.0 - (bg[1] - bg[0]) / max(area[1] - area[0], 1.0)
        outer = 1.0 - (bg[2] - bg[1]) / max(area[2] - area[1], 1.0)
        taper = outer / np.maximum(inner, 1e-3)
        margin = np.minimum(
            np.minimum(cover - cfg.wheel_cover, rim - cfg.wheel_rim),
            np.minimum(typical - cfg.wheel_typical, cfg.wheel_taper - taper),
        )
        if float(margin.max()) >= -cfg.wheel_gate_slack:
            return True
    return False


def located_wheel(
    group: np.ndarray,
    fg: np.ndarray,
    bg_like: np.ndarray,
    typical_px: np.ndarray,
    edges: np.ndarray,
    cfg: OpeningsConfig,
) -> np.ndarray | None:
    """The disc of a wheel located by its rim around a group of background-like pixels, or ``None``.

    Args:
        group: bool (H, W), one group of sectors (:func:`wheel_sectors`) that failed the moments' tests.
        fg: bool (H, W), the matte.
        bg_like: bool (H, W), every background-like matte pixel.
        typical_px: bool (H, W), matte pixels as typical of the background as 70 % of its own.
        edges: bool (H, W), edges of the posterior of "background" (Canny, sigma 1 px) on the matte.
        cfg: the openings step's constants.

    Circles of radius 0.2-0.6 of the group's larger extent (at least ``cfg.wheel_radius`` px; ~20 radii) are voted
    for by ``edges`` around the group (``skimage.transform.hough_circle``); the ``cfg.wheel_circles``
    strongest are measured in turn (:func:`_circle_features`) and the first that passes is the wheel:
    at least ``cfg.wheel_sectors`` sectors, lines between them taking at most ``cfg.wheel_gaps`` of the
    angles and holding at least ``cfg.wheel_radial`` of the band's other pixels, at least
    ``cfg.wheel_cover`` of the disc background-like, the annulus outside at least ``cfg.wheel_rim``
    matte, at least ``cfg.wheel_typical`` of the disc's background-like pixels typical, an edge on at
    least ``cfg.wheel_edge`` of the circle's angles, and a product share tapering outward
    (``cfg.wheel_taper``). Pixels beyond the circle are never returned: spill outside the wheel does not
    count against it and is not cut with it.

    Returns:
        bool (H, W): the disc (0.97 of the circle's radius), or ``None``.
    """
    from skimage.transform import hough_circle

    ys, xs = np.nonzero(group)
    extent = int(max(ys.max() - ys.min(), xs.max() - xs.min()))
    r_max = int(0.6 * extent)
    r_min = max(int(np.ceil(cfg.wheel_radius)), int(0.2 * extent))
    if r_max < r_min:
        return None
    radii = np.arange(r_min, r_max + 1, max(1, (r_max - r_min) // 20))  # ~20 radii: the votes' cost
    h, w = fg.shape
    y0, y1 = max(0, int(ys.min()) - r_max - 2), min(h, int(ys.max()) + r_max + 3)
    x0, x1 = max(0, int(xs.min()) - r_max - 2), min(w, int(xs.max()) + r_max + 3)
    votes = hough_circle(edges[y0:y1, x0:x1], radii, normalize=True)
    # the best radius at each centre, then the strongest centres at least 4 px apart
    best, best_r = votes.max(axis=0), votes.argmax(axis=0)
    for _ in range(cfg.wheel_circles):
        cy, cx = np.unravel_index(int(np.argmax(best)), best.shape)
        if best[cy, cx] <= 0:
            break
        r = float(radii[best_r[cy, cx]])
        best[max(0, cy - 3) : cy + 4, max(0, cx - 3) : cx + 4] = 0
        need = (cfg.wheel_cover, cfg.wheel_rim)
        f, disc = _circle_features(float(cy + y0), float(cx + x0), r, bg_like, fg, typical_px, edges, need)
        if (
            disc is not None
            and f["sectors"] >= cfg.wheel_sectors
            and f["gaps"] <= cfg.wheel_gaps
            and f["radial"] >= cfg.wheel_radial
            and f["cover"] >= cfg.wheel_cover
            and f["rim_product"] >= cfg.wheel_rim
            and f["typical"] >= cfg.wheel_typical
            and f["edge"] >= cfg.wheel_edge
            and f["taper"] <= cfg.wheel_taper
        ):
            return disc
    return None


def _is_wheel(f: dict[str, float], cfg: OpeningsConfig) -> bool:
    """Whether :func:`wheel_features`' measurements pass ``cfg``'s wheel tests."""
    return (
        f["sectors"] >= cfg.wheel_sectors
        and f["radius"] >= cfg.wheel_radius
        and f["aspect"] >= cfg.wheel_aspect
        and f["fit"] >= cfg.wheel_fit
        and f["cover"] >= cfg.wheel_cover
        and f["gaps"] <= cfg.wheel_gaps
        and f["radial"] >= cfg.wheel_radial
        and f["rim_product"] >= cfg.wheel_rim
        and f["rim_bg"] <= cfg.wheel_rim_bg
        and f["typical"] >= cfg.wheel_typical
    )
