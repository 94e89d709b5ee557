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

__all__ = ["wheel_sectors", "wheel_features"]


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
    for g in groups:
        measured = wheel_features(g, fg, bg_like, typical_px)
        if measured is None or not _is_wheel(measured[0], cfg):
            continue
        (y0, y1, x0, x1), ell = measured[1], measured[2]
        if cut is None:
            cut = np.zeros_like(fg)
        cut[y0:y1, x0:x1] |= g[y0:y1, x0:x1] & ell
    return cut


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
