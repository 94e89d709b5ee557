"""See-through openings: background seen through a handle, a hoop, a frame or a wheel.

The network often fills an opening of the product with product (a bicycle's rear wheel holding the
boardwalk seen between its spokes, a mug handle holding the table). After the product's matte is
chosen, :func:`clear_openings` looks for regions *inside the matte* whose colours are explained by the
background seen outside the product and not by the product's own colours, and cuts them out; inside
every opening (found here or left open by the network) it keeps the thin product structures that cross
it (spokes, chains, straps) where their colour is the product's.

Colour models are small Gaussian mixtures (k-means centres, per-component diagonal variances and
weights, as in GrabCut's colour model: Rother, Kolmogorov, Blake, "GrabCut", SIGGRAPH 2004), learned from
the confident background in a ring around the product and from the matte's pixels that the background
model does not explain. The colour work runs at <= ~0.12 MP, the texture test of the candidate regions at
the working resolution; a matte with no background-like interior stops after one pass over its pixels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image
from scipy import ndimage as ndi

from .colors import fit_colour_mixture, masked_pixels, mixture_log_density
from .ring_openings import round_holes
from .wheel_openings import wheel_sectors

__all__ = ["DEFAULT_OPENINGS", "Openings", "OpeningsConfig", "clear_openings"]


@dataclass(frozen=True)
class OpeningsConfig:
    """Constants of :func:`clear_openings`, all chosen on tuning photos only (GT tuning fold, tuning
    composites, tuning see-through photos, ``nomask/bike.jpg`` and the ``nomask`` cars;
    the see-through openings records in ``docs/decisions/``).

    Attributes:
        work_pixels: work resolution of the colour tests (pixels).
        posterior: posterior probability of "background" (smoothed over 5 x 5 px) above which a matte
            pixel is a candidate opening pixel.
        min_share: smallest opening cleared, as a share of the matte's area.
        soft_min_share: smallest opening cleared where the matte is half-transparent (mean alpha below
            ``soft_alpha``) and the network unsure (mean below ``unsure``).
        soft_alpha: see ``soft_min_share``.
        max_share: largest share of the matte cleared at once (more: the product itself looks like the
            background; nothing is cleared and the result is reported as doubtful).
        texture: median local texture of the background around the product (grey standard deviation
            over 5 x 5 px at ``work_pixels``, grey in [0, 1]; 0.008 = 2 levels of 255) from which the
            background's texture is evidence. On a plainer backdrop colour alone proves little: only
            regions the network was unsure of are cut.
        texture_ratio: the range of a region's median fine texture (5 x 5 px grey standard deviation at
            the working resolution) over the background ring's, within which a confidently matted,
            background-coloured region on a textured background is cut. The fine scale tells gravel,
            grass and foliage from a car's smooth paint that the coarse scale confuses.
        unsure: mean network confidence under which a flat background-coloured region is also cleared.
        outer_contact: largest share of a candidate region's outline that may run along the outside
            background (an opening is bounded mostly by the product).
        typical: share of a candidate region's pixels whose colour is as typical of the background as
            70 % of the background's own pixels (log density under the background mixture).
        grow: smoothed posterior of "background" down to which matte pixels joined to a cut opening are
            cut too (hysteresis).
        grow_max: largest growth factor of that hysteresis: a cut region whose joined component is more
            than this many times its own size spreads into the product (a car's panel, a shrub) and is
            not cut at all but counted as doubtful.
        thin_posterior: pixel posterior of "product" from which a pixel inside an opening is kept as a
            thin structure.
        thin_contrast: grey-level contrast (in [0, 1], top-hat over 5 x 5 px) of a thin structure
            against its surroundings.
        wheels: whether wheels are recognised by their shape (:func:`retouch.wheel_openings.wheel_sectors`);
            False gives the region tests alone. The ``wheel_*`` constants (the wheel
            openings record in ``docs/decisions/``; colour tests' resolution) are:
        wheel_posterior: unsmoothed posterior of "background" from which a matte pixel can be a sector's.
        wheel_sector_px: smallest sector piece (px).
        wheel_sectors: fewest sectors (runs of angles) around the wheel's centre.
        wheel_radius: smallest minor semi-axis of the wheel's ellipse (px).
        wheel_aspect: smallest minor / major axis ratio (a wheel seen at an angle).
        wheel_fit: smallest IoU of the filled sectors and their fitted ellipse.
        wheel_cover: smallest share of the ellipse covered by the sectors.
        wheel_gaps: largest share of the angles taken by the lines between sectors.
        wheel_radial: smallest share of the non-sector pixels of the band 0.3-0.9 of the radius lying in
            those lines' angles (spokes run toward the centre; clutter and a rim's pattern do not).
        wheel_rim: smallest matte share of the annulus 1.1-1.35 of the radius (a tyre or the body).
        wheel_rim_bg: largest background-like share of that annulus.
        wheel_typical: smallest share of the sectors' pixels as typical of the background as 70 % of its
            own (a smooth studio backdrop makes few pixels "typical": the shape carries the evidence).
        early_share: the step stops after the background model (before the product model is fitted) when
            fewer than this share of the matte, divided by ``typical``, is as typical of the background as
            70 % of its own pixels: too few for any opening (a wheel on a studio backdrop has 0.4 %; the
            see-through openings' fourth-round record in ``docs/decisions/``).
        clutter: whether flat pieces of a colour found nowhere else on the product, lying against a cut
            opening, are cut with it (:func:`_clutter`); False leaves them to the region tests. The
            ``clutter_*`` constants (the fourth-round record in ``docs/decisions/``;
            colour tests' resolution, colours in [0, 1]) are:
        clutter_step: largest colour step (max over R, G, B, to a 4-neighbour, after a 3 x 3 mean) inside a
            flat piece.
        clutter_px: smallest flat piece (px).
        clutter_max: largest flat piece, as a multiple of the area cut so far.
        clutter_cut: smallest share of the band 3-5 px around the piece that is cut opening.
        clutter_colour: colour distance (max over R, G, B) within which another matte pixel has the piece's
            colour.
        clutter_similar: largest share of the rest of the matte (beyond 5 px of the piece) having the piece's
            colour: a colour found nowhere else on the product.
        holes: whether holes punched through the product (a ring, a hoop, a frame) are recognised by their
            shape and surface around the enclosed regions the colour tests refuse on a plain backdrop or as
            atypical (:func:`retouch.ring_openings.round_holes`); False gives the step without it. The
            ``hole_*`` constants (the ring and frame openings record in ``docs/decisions/``; shape at the
            colour tests' resolution, colours in [0, 1], texture at the working resolution) are:
        hole_fit: smallest IoU of a piece (holes filled) and the ellipse of its second moments.
        hole_solidity: smallest area over convex hull area (a frame's rectangle), instead of ``hole_fit``.
        hole_radius: smallest minor semi-axis of that ellipse (px).
        hole_band: smallest share of the band 4-6 px around the piece that is product (matte, not typical
            of the background).
        hole_colour: largest median distance (max over R, G, B) of the piece's pixels to the backdrop's
            quadratic surface fitted over the background ring (a studio sweep's gradient continues behind
            the product) ...
        hole_typical: ... or smallest share of its pixels typical of the background's colour mixture (a
            patterned backdrop no smooth surface follows).
        hole_pixel: distance to that surface within which a matte pixel has the backdrop's colour (it, or
            being typical of the background, makes a pixel part of a piece).
        hole_core: smallest share of a piece that is refused candidate region (the rest: backdrop-coloured
            matte pixels joined to it, which the product's colour model claimed).
        hole_texture: range of the piece's median fine texture over the background ring's.
        hole_busy: largest share of the piece's pixels whose fine texture exceeds 3 times the background
            ring's median (a hubcap's bolts, a window's reflections).
        ghosts: whether half-transparent background-coloured pixels inside the outline are cleared
            (:func:`_clear_ghosts`).
        keep_thin: whether thin product parts crossing a cut opening are kept (:func:`_keep_thin`).
    """

    work_pixels: int = 120_000
    posterior: float = 0.75
    min_share: float = 0.01
    soft_min_share: float = 0.001
    soft_alpha: float = 0.75
    max_share: float = 0.8
    texture: float = 0.008
    texture_ratio: tuple[float, float] = (0.6, 1.8)
    unsure: float = 0.85
    outer_contact: float = 0.15
    typical: float = 0.5
    grow: float = 0.5
    grow_max: float = 4.0
    thin_posterior: float = 0.4
    thin_contrast: float = 0.035
    wheels: bool = True
    wheel_posterior: float = 0.5
    wheel_sector_px: int = 12
    wheel_sectors: int = 4
    wheel_radius: float = 6.0
    wheel_aspect: float = 0.6
    wheel_fit: float = 0.65
    wheel_cover: float = 0.5
    wheel_gaps: float = 0.35
    wheel_radial: float = 0.35
    wheel_rim: float = 0.9
    wheel_rim_bg: float = 0.1
    wheel_typical: float = 0.1
    early_share: float = 0.0025
    clutter: bool = True
    clutter_step: float = 0.04
    clutter_px: int = 20
    clutter_max: float = 1.0
    clutter_cut: float = 0.3
    clutter_colour: float = 0.08
    clutter_similar: float = 0.02
    holes: bool = True
    hole_fit: float = 0.85
    hole_solidity: float = 0.9
    hole_radius: float = 4.0
    hole_band: float = 0.9
    hole_colour: float = 0.03
    hole_texture: tuple[float, float] = (0.7, 1.25)
    hole_busy: float = 0.02
    hole_pixel: float = 0.06
    hole_core: float = 0.2
    hole_typical: float = 0.5
    ghosts: bool = True
    keep_thin: bool = True


#: The configuration the pipeline uses.
DEFAULT_OPENINGS = OpeningsConfig()


@dataclass
class Openings:
    """What :func:`clear_openings` found.

    Attributes:
        alpha: float32 (H, W) in [0, 1], the matte with openings cleared and thin structures kept.
        cleared: share of the input matte's area (alpha >= 0.5) cut out as openings.
        kept_thin: share of the input matte's area added back as thin structures inside openings.
        doubtful: share of the input matte's area that the background model explains but that was left
            as product (too large, too much on the outline, of another texture, or spreading too far to be
            cut safely), on a textured background or where the network was unsure; 1.0 when the
            background model explains the whole product.
        ran: whether colour models were fitted (False: no confident background or product to learn from).
        ghosts: share of the input matte's area of half-transparent background-coloured pixels inside
            the product's outline set to 0.
        bg_like: share of the input matte's pixels whose colour is as typical of the background as 70 %
            of the background's own pixels (0 when the models were not fitted).
        fg_outside: share of the background ring's pixels (outside the matte) that the product's colour
            model explains better than the background's: where the matte and the colours disagree (0
            when the product model was not fitted).
    """

    alpha: np.ndarray
    cleared: float = 0.0
    kept_thin: float = 0.0
    doubtful: float = 0.0
    ran: bool = False
    bg_like: float = 0.0
    ghosts: float = 0.0
    fg_outside: float = 0.0

    def signals(self) -> dict[str, float]:
        """The entries this step adds to :attr:`retouch.pick.Pick.signals` (shares rounded to 4 decimals):
        ``openings_cleared``, ``openings_thin`` and ``openings_doubtful``, which
        :func:`retouch.pick.confidence` reads."""
        return {
            "openings_cleared": round(self.cleared, 4),
            "openings_thin": round(self.kept_thin, 4),
            "openings_doubtful": round(self.doubtful, 4),
        }


def _resize_f(x: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Bilinear resize of a float32 (H, W) array to ``size`` = (width, height)."""
    if (x.shape[1], x.shape[0]) == size:
        return x.astype(np.float32, copy=False)
    src = np.ascontiguousarray(x, dtype=np.float32)  # a copy only when strided or of another dtype
    return np.asarray(Image.fromarray(src, "F").resize(size, Image.Resampling.BILINEAR))


def _texture(grey: np.ndarray) -> np.ndarray:
    """Local grey standard deviation over 5 x 5 px of a float32 (H, W) grey image in [0, 1]."""
    m1 = ndi.uniform_filter(grey, size=5, mode="nearest")
    return np.sqrt(np.maximum(ndi.uniform_filter(grey * grey, size=5, mode="nearest") - m1 * m1, 0.0))


def _grey(rgb: np.ndarray) -> np.ndarray:
    """Mean of the 3 channels of an (H, W, 3) uint8 or float32 array as float32 (H, W): bit for bit
    ``rgb.astype(np.float32).mean(-1)`` (channels added left to right in float32, the sum divided by the
    integer count as numpy's mean divides), without numpy's slow reduction over a 3-long last axis."""
    s = rgb[..., 0].astype(np.float32)
    s += rgb[..., 1]
    s += rgb[..., 2]
    np.true_divide(s, np.intp(3), out=s, casting="unsafe")
    return s


def _unit(channel: np.ndarray) -> np.ndarray:
    """uint8 (H, W) -> float32 in [0, 1]: ``channel.astype(np.float32) / 255.0`` in one pass."""
    return np.divide(channel, np.float32(255.0), dtype=np.float32)


def _upsample_mask(mask: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``_resize_f(mask.astype(np.float32), size) > 0.5`` for a bool (H, W) mask, ``size`` = (width,
    height); an empty mask is empty at any size (bilinear weights times 0), so it is not resampled."""
    if not mask.any():
        return np.zeros((size[1], size[0]), bool)
    return _resize_f(mask.astype(np.float32), size) > 0.5


def _grown_box(mask: np.ndarray, margin: int) -> tuple[slice, slice]:
    """Row and column slices of the bounding box of a non-empty bool (H, W) ``mask``, grown by ``margin``
    px on every side and clipped to the array."""
    rows, cols = np.flatnonzero(mask.any(1)), np.flatnonzero(mask.any(0))
    return (
        slice(max(0, int(rows[0]) - margin), min(mask.shape[0], int(rows[-1]) + margin + 1)),
        slice(max(0, int(cols[0]) - margin), min(mask.shape[1], int(cols[-1]) + margin + 1)),
    )


def _band_outside(fg: np.ndarray, near: float, far: float) -> np.ndarray:
    """Pixels whose Euclidean distance ``d`` to the nearest ``fg`` pixel (bool (H, W)) has
    ``near < d <= far``: ``(d > near) & (d <= far)`` with ``d = ndi.distance_transform_edt(~fg)``.

    The transform runs on ``fg``'s bounding box grown by ``far`` + 1 px: every pixel outside it is
    farther than ``far``, and the exact transform gives the box's pixels the same distances (their
    nearest ``fg`` pixel lies in the box).
    """
    if not fg.any():
        d = ndi.distance_transform_edt(~fg)
        return (d > near) & (d <= far)
    box = _grown_box(fg, int(np.ceil(far)) + 1)
    d = ndi.distance_transform_edt(~fg[box])
    band = np.zeros(fg.shape, bool)
    band[box] = (d > near) & (d <= far)
    return band


def _two_px_from_solid(loose: np.ndarray) -> np.ndarray:
    """``ndi.distance_transform_edt(loose) >= 2`` for a bool (H, W) array (True: not solid): no solid
    pixel on the pixel itself or among its 8 neighbours (the only offsets shorter than 2 px have squared
    lengths 0, 1 and 2), by a 3 x 3 dilation instead of the distance transform. Without any solid pixel
    the transform itself is returned (it then measures from outside the array)."""
    if loose.all():
        return ndi.distance_transform_edt(loose) >= 2
    return ~ndi.binary_dilation(~loose, structure=np.ones((3, 3), bool))


def _label_means(values: np.ndarray, flat_labels: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Mean of ``values`` (any (H, W) numeric or bool) per label 0..n of ``flat_labels`` (the labels
    raveled, every label present): float64 (n + 1,), what ``ndi.mean(values, labels, np.arange(n + 1))``
    computes (a float64 bincount of the values over the float64 pixel counts ``counts``), without its
    three passes over the labels for every call."""
    return np.bincount(flat_labels, weights=values.ravel(), minlength=len(counts)) / counts


def _label_medians(values: np.ndarray, labels: np.ndarray, n: int) -> np.ndarray:
    """Median of ``values`` (float (H, W)) over each label 1..n of ``labels`` (int (H, W), 0 = none):
    float64 (n + 1,), index 0 and labels without pixels 0. Sorts only the labelled pixels (cheaper than
    :func:`scipy.ndimage.median` over the whole image)."""
    out = np.zeros(n + 1, np.float64)
    sel = labels > 0
    lab, val = labels[sel], values[sel]
    if not len(lab):
        return out
    order = np.lexsort((val, lab))
    lab, val = lab[order], val[order]
    starts = np.searchsorted(lab, np.arange(1, n + 1), side="left")
    ends = np.searchsorted(lab, np.arange(1, n + 1), side="right")
    for j, (a, b) in enumerate(zip(starts, ends, strict=True), start=1):
        if b > a:
            mid = (a + b - 1) / 2.0
            out[j] = 0.5 * (float(val[int(np.floor(mid))]) + float(val[int(np.ceil(mid))]))
    return out


def clear_openings(
    small: np.ndarray,
    alpha: np.ndarray,
    coarse: np.ndarray | None = None,
    cfg: OpeningsConfig = DEFAULT_OPENINGS,
) -> Openings:
    """Cut the background seen through the product's openings out of its matte, keep thin parts.

    Steps (colour models and regions at <= ``cfg.work_pixels``): (1) a background mixture (6 components)
    from the pixels in a ring outside the matte (alpha < 0.05, 2 px to ~12 % of the diagonal from it);
    (2) a product mixture (6 components) from the matte's pixels (alpha >= 0.5) that the background
    model does not explain (log density under the 30th percentile of the ring's own); a matte with too
    few background-like pixels for any opening (``cfg.early_share``) stops here; (3) each matte pixel's posterior of
    "background", averaged over 5 x 5 px (an opening is a region, not a pixel); (4) regions above
    ``cfg.posterior`` are cut (:func:`_select`), and with them the sectors of the wheels recognised by their
    shape (:func:`retouch.wheel_openings.wheel_sectors`, from the unsmoothed posterior); pixels joined to them down to
    ``cfg.grow`` go with them, product-coloured pixels never, and a region whose joined component is
    more than ``cfg.grow_max`` times its size is not cut at all (doubtful); flat pieces of clutter of a
    colour found nowhere else on the product, lying against a cut opening, go with it (:func:`_clutter`,
    ``cfg.clutter``); (5) half-transparent
    background-coloured pixels inside the outline are cleared (:func:`_clear_ghosts`); (6) thin product
    parts crossing a cut opening are kept (:func:`_keep_thin`).

    Args:
        small: uint8 (H, W, 3) sRGB photo at the working resolution.
        alpha: float32 (H, W) in [0, 1], the product's matte at the same size.
        coarse: float32 (H, W) in [0, 1], the network mask the matte was refined from (default: ``alpha``).
        cfg: the step's constants (:class:`OpeningsConfig`).

    Returns:
        :class:`Openings` with the new matte (``alpha`` itself when nothing changed) and what was found.
    """
    h, w = alpha.shape
    area0 = int((alpha >= 0.5).sum())
    out = Openings(alpha)
    if area0 < 100:
        return out
    f = min(1.0, (cfg.work_pixels / (h * w)) ** 0.5)
    size = (max(1, round(w * f)), max(1, round(h * f)))
    a_s = _resize_f(alpha, size)
    p_s = _resize_f(coarse if coarse is not None else alpha, size)
    rgb_s = np.stack([_resize_f(_unit(small[..., c]), size) for c in range(3)], axis=-1)
    fg = a_s >= 0.5
    ring = (a_s < 0.05) & _band_outside(fg, 2, 0.12 * float(np.hypot(*fg.shape)))
    if ring.sum() < 200 or fg.sum() < 200:
        return out
    rng = np.random.default_rng(0)
    ring_rgb = masked_pixels(rgb_s, ring)
    bg_gmm = fit_colour_mixture(ring_rgb, 6, rng)
    fg_px = masked_pixels(rgb_s, fg)
    fg_ld_bg = mixture_log_density(fg_px, bg_gmm)
    ring_ld_bg = mixture_log_density(ring_rgb, bg_gmm)
    typical = float(np.percentile(ring_ld_bg, 30))
    unexplained = fg_ld_bg < typical
    out.ran = True
    out.bg_like = 1.0 - float(unexplained.mean())
    if unexplained.sum() < 50:
        # the background model explains the whole product: no way to tell them apart by colour
        out.doubtful = 1.0
        return out
    if (~unexplained).sum() * cfg.typical < cfg.early_share * len(fg_px):
        # too few background-like pixels in the matte for any opening: nothing more to do
        return out
    fg_gmm = fit_colour_mixture(fg_px[unexplained], 6, rng)
    ring_px, ring_px_bg = ring_rgb, ring_ld_bg
    if len(ring_px) > 4000:
        drawn = rng.choice(len(ring_px), size=4000, replace=False)
        # the densities are computed pixel by pixel: those of the drawn pixels are already known
        ring_px, ring_px_bg = ring_px[drawn], ring_ld_bg[drawn]
    # the colour models' disagreement with the matte outside it: background that looks like product
    out.fg_outside = float((mixture_log_density(ring_px, fg_gmm) > ring_px_bg).mean())
    # posterior of background of every matte pixel (0 outside the matte)
    typical_px = np.zeros(fg.shape, bool)
    typical_px[fg] = fg_ld_bg >= typical
    post_bg = np.zeros(fg.shape, np.float32)
    post_bg[fg] = 1.0 / (1.0 + np.exp(np.clip(mixture_log_density(fg_px, fg_gmm) - fg_ld_bg, -30.0, 30.0)))
    smooth = ndi.uniform_filter(post_bg, size=5, mode="nearest")
    outside_lab, _ = ndi.label(~fg)
    border = np.unique(
        np.concatenate([outside_lab[0], outside_lab[-1], outside_lab[:, 0], outside_lab[:, -1]])
    )
    outer = np.isin(outside_lab, border[border > 0])
    fg_area = float(fg.sum())
    cand = fg & (smooth >= cfg.posterior)
    wheels = wheel_sectors(fg, post_bg, typical_px, cfg) if cfg.wheels else None
    if wheels is not None:
        cand &= ~wheels  # a wheel's sectors are cut together, not judged one by one
    cut, doubt, holes = _select(cand, outer, ring, rgb_s, p_s, a_s, typical_px, fg_area, small, cfg)
    if wheels is not None:
        cut |= wheels
    if cut.any():
        # hysteresis: background-like matte pixels joined to a cut opening go with it (the specks of
        # boardwalk left between the spokes)
        low_lab, n_low = ndi.label(fg & (smooth >= cfg.grow))
        seed_n = np.bincount(low_lab[cut], minlength=n_low + 1)
        all_n = np.bincount(low_lab.ravel(), minlength=n_low + 1)
        ok = (seed_n > 0) & (all_n <= cfg.grow_max * seed_n)
        ok[0] = False
        spread = (seed_n > 0) & ~ok
        spread[0] = False
        if spread.any():
            doubt += float(all_n[spread].sum())
            cut &= ~spread[low_lab]
        cut |= ok[low_lab]
        # a product-coloured pixel inside an opening (a chain, a spoke) is not cut on its neighbours' word
        cut &= (post_bg >= 0.5) | holes  # a hole's pixels follow the backdrop's own colour surface
        if cfg.clutter:
            # clutter seen through the opening, of colours the product model took for its own
            hubs = (
                None if wheels is None else ndi.binary_fill_holes(ndi.binary_dilation(wheels, iterations=2))
            )
            cut |= _clutter(cut, fg, rgb_s, cfg, hubs)
    out.cleared = float(cut.sum()) / fg_area
    if out.cleared > cfg.max_share:
        doubt += float(cut.sum())
        cut[:] = False
        out.cleared = 0.0
    out.doubtful = doubt / fg_area
    return _finish(out, small, cut, outer, bg_gmm, fg_gmm, area0, cfg)


def _finish(
    out: Openings,
    small: np.ndarray,
    cut: np.ndarray,
    outer: np.ndarray,
    bg_gmm: tuple[np.ndarray, np.ndarray, np.ndarray],
    fg_gmm: tuple[np.ndarray, np.ndarray, np.ndarray],
    area0: int,
    cfg: OpeningsConfig,
) -> Openings:
    """The last steps of :func:`clear_openings` at the working resolution: the cut (bool, colour tests'
    resolution) applied to ``out.alpha``, the ghosts cleared inside the outline (``outer``: bool, the
    background reached from the frame's border) and the thin parts kept (``cfg.ghosts``,
    ``cfg.keep_thin``); ``out`` updated and returned."""
    h, w = out.alpha.shape
    new = out.alpha.copy()
    cut_w = _upsample_mask(cut, (w, h))
    new[cut_w] = 0.0
    inner = _resize_f((~outer).astype(np.float32), (w, h)) > 0.5
    if cfg.ghosts:
        out.ghosts = _clear_ghosts(small, new, inner, bg_gmm, fg_gmm) / float(area0)
    if cut.any():
        if cfg.keep_thin:
            out.kept_thin = _keep_thin(small, new, cut_w, bg_gmm, fg_gmm, cfg) / float(area0)
    elif out.ghosts == 0:
        return out
    out.alpha = new.astype(np.float32, copy=False)  # new is already a copy of the matte
    return out


def _clutter(
    cut: np.ndarray, fg: np.ndarray, rgb_s: np.ndarray, cfg: OpeningsConfig, wheels: np.ndarray | None = None
) -> np.ndarray:
    """Flat pieces of clutter seen through a cut opening, to cut with it.

    Clutter behind an opening (a poster, a toy, a coloured box) whose colour the ring around the product
    does not show is explained by neither colour model; the product model, fitted to every matte pixel
    the background model does not explain, takes it for product. Such a piece is flat (one colour), lies
    against the cut opening and has a colour found nowhere else on the product. At the colour tests'
    resolution: a *flat piece* is a connected region of the remaining matte (``fg`` and not ``cut``) whose
    colour step to every 4-neighbour, after a 3 x 3 mean, is under ``cfg.clutter_step``; one is cut, with
    the seam (pixels within 3 px of both the piece and the cut) between them, when it holds at least ``cfg.clutter_px`` px and at most
    ``cfg.clutter_max`` times the area cut so far, is not thin (a 3 x 3 erosion keeps half of it: spokes and
    straps are thin), at least ``cfg.clutter_cut`` of the band 3-5 px around it is cut opening, and under
    ``cfg.clutter_similar`` of the rest of the matte (beyond 5 px of it) is within ``cfg.clutter_colour``
    of its median colour. A piece reaching into a recognised wheel (``wheels``) is its hub and stays.

    Args:
        cut: bool (H, W), the openings cut so far.
        fg: bool (H, W), the matte (alpha >= 0.5).
        rgb_s: float32 (H, W, 3) in [0, 1], the photo.
        cfg: the step's constants.
        wheels: bool (H, W), the recognised wheels' discs (sectors, spokes and hub), or ``None``.

    Returns:
        bool (H, W): the pixels to cut as well (all False when there are none).
    """
    sm = ndi.uniform_filter(rgb_s, size=(3, 3, 1), mode="nearest")
    step = np.zeros(fg.shape, np.float32)
    dy = np.abs(np.diff(sm, axis=0)).max(-1)
    dx = np.abs(np.diff(sm, axis=1)).max(-1)
    step[1:] = np.maximum(step[1:], dy)
    step[:-1] = np.maximum(step[:-1], dy)
    step[:, 1:] = np.maximum(step[:, 1:], dx)
    step[:, :-1] = np.maximum(step[:, :-1], dx)
    rest = fg & ~cut
    flat = rest & (step < cfg.clutter_step)
    lab, n = ndi.label(flat)
    if n == 0:
        return np.zeros_like(cut)
    near = ndi.binary_dilation(cut, iterations=5)
    near3 = ndi.binary_dilation(cut, iterations=3)
    touch = np.unique(lab[near & flat])
    sizes = np.bincount(lab.ravel(), minlength=n + 1)
    boxes = ndi.find_objects(lab)
    add = np.zeros_like(cut)
    cut_area = float(cut.sum())
    h, w = fg.shape
    for j in touch[touch > 0]:
        area = float(sizes[j])
        if area < cfg.clutter_px or area > cfg.clutter_max * cut_area:
            continue
        ys, xs = boxes[j - 1]
        y0, y1 = max(0, ys.start - 6), min(h, ys.stop + 6)
        x0, x1 = max(0, xs.start - 6), min(w, xs.stop + 6)
        mm = lab[y0:y1, x0:x1] == j
        if ndi.binary_erosion(mm).sum() < 0.5 * area or (
            wheels is not None and wheels[y0:y1, x0:x1][mm].any()
        ):
            continue
        band = ndi.binary_dilation(mm, iterations=5) & ~ndi.binary_dilation(mm, iterations=2)
        share = float((band & cut[y0:y1, x0:x1]).sum()) / max(float(band.sum()), 1.0)
        if share < cfg.clutter_cut:
            continue
        colour = np.median(rgb_s[y0:y1, x0:x1][mm], axis=0)
        far = rest.copy()
        far[y0:y1, x0:x1] &= ~ndi.binary_dilation(mm, iterations=5)
        similar = float((np.abs(rgb_s[far] - colour).max(-1) < cfg.clutter_colour).mean())
        if similar < cfg.clutter_similar:
            # with the piece, the blurred seam between it and the opening (not the one along the product)
            seam = ndi.binary_dilation(mm, iterations=3) & near3[y0:y1, x0:x1] & rest[y0:y1, x0:x1]
            add[y0:y1, x0:x1] |= mm | seam
    return add


def _select(
    cand: np.ndarray,
    outer: np.ndarray,
    ring: np.ndarray,
    rgb_s: np.ndarray,
    p_s: np.ndarray,
    a_s: np.ndarray,
    typical_px: np.ndarray,
    fg_area: float,
    small: np.ndarray,
    cfg: OpeningsConfig,
) -> tuple[np.ndarray, float, np.ndarray]:
    """The candidate regions to cut as openings, the area of those left in doubt, and the holes.

    A connected region of ``cand`` (bool, the matte's background-like pixels at the colour tests'
    resolution) is cut when it covers at least ``cfg.min_share`` of the matte (or
    ``cfg.soft_min_share`` where the matte ``a_s`` averages under ``cfg.soft_alpha`` and the
    network was unsure), touches the outside background
    (``outer``) along at most ``cfg.outer_contact`` of its outline, has at least
    ``cfg.typical`` of its pixels ``typical_px`` and, either the network was unsure of it (mean
    ``p_s`` < ``cfg.unsure``), or the
    background around the product (``ring``) is textured (median 5 x 5 grey standard deviation >=
    ``cfg.texture``) and the region's median fine texture is within ``cfg.texture_ratio`` of the
    background's. A region fully enclosed by the matte that these tests refuse on a plain backdrop, or as
    not typical of the background, is cut when its shape and surface are a hole's
    (:func:`retouch.ring_openings.round_holes`, ``cfg.holes``). Regions large enough but refused count
    as doubtful.

    Returns:
        ``(cut, doubtful_pixels, holes)``: bool array like ``cand``, a pixel count, and the part of
        ``cut`` that is holes (a separate bool array like ``cand``).
    """
    cut = np.zeros_like(cand)
    if not cand.any():
        return cut, 0.0, np.zeros_like(cand)
    # the regions are labelled and measured on the candidates' box grown by 1 px: the same labels (in the
    # same raster order), outlines (every neighbour of a candidate is in the box) and sums (each region's
    # pixels in the same order) as on the whole image
    box = _grown_box(cand, 1)
    cand_b = cand[box]
    lab_b, n = ndi.label(cand_b)
    flat = lab_b.ravel()
    sizes = np.bincount(flat, minlength=n + 1)
    counts = sizes.astype(np.float64)
    counts[0] = max(counts[0], 1.0)  # label 0 (no candidate) is never read
    edge = cand_b & ~ndi.binary_erosion(cand_b)
    edge_n = np.bincount(flat, weights=edge.ravel(), minlength=n + 1)
    edge_outer = np.bincount(
        flat, weights=(edge & ndi.binary_dilation(outer[box], iterations=1)).ravel(), minlength=n + 1
    )
    mean_p = _label_means(p_s[box], flat, counts)
    mean_a = _label_means(a_s[box], flat, counts)
    typical_share = _label_means(typical_px[box].astype(np.float32), flat, counts)
    # local texture (grey standard deviation over 5 x 5 px): whether the background around the product is
    # textured at all (at the colour tests' resolution; on a plain backdrop colour alone proves little),
    # and each region's median texture over the background ring's at the working resolution (fine
    # enough to tell gravel or leaves from a car's smooth paint)
    bg_tex = float(np.median(_texture(_grey(rgb_s))[ring]))
    lo, hi = cfg.texture_ratio
    # (label, enclosed, background-like, no contact with the outside at all) of regions large enough
    tests: list[tuple[int, bool, bool, bool]] = []
    for j in range(1, n + 1):
        # a region the matte itself leaves half-transparent and the network was unsure of may be smaller
        # (the leaves in a frame's narrow corner)
        soft = mean_a[j] < cfg.soft_alpha and mean_p[j] < cfg.unsure
        if sizes[j] >= (cfg.soft_min_share if soft else cfg.min_share) * fg_area:
            enclosed = bool(edge_outer[j] <= cfg.outer_contact * max(edge_n[j], 1.0))
            tests.append((j, enclosed, bool(typical_share[j] >= cfg.typical), bool(edge_outer[j] == 0)))
    fine_cache: list[tuple[np.ndarray, np.ndarray, float]] = []

    def fine() -> tuple[np.ndarray, np.ndarray, float]:
        # the fine texture of the whole working image (the step's largest single cost on photos whose
        # candidates fail the cheaper tests), the labels at its resolution and the ring's median texture
        if not fine_cache:
            tex_f = _texture(_grey(small) / 255.0)
            size_f = (small.shape[1], small.shape[0])
            lab = np.zeros(cand.shape, np.int32)
            lab[box] = lab_b
            lab_f = np.asarray(Image.fromarray(lab, "I").resize(size_f, Image.Resampling.NEAREST))
            ring_f = _resize_f(ring.astype(np.float32), size_f) > 0.99
            fine_bg = max(float(np.median(tex_f[ring_f])) if ring_f.any() else 0.0, 1e-9)
            fine_cache.append((tex_f, lab_f, fine_bg))
        return fine_cache[0]

    tex_ratio = np.zeros(n + 1, np.float64)
    if bg_tex >= cfg.texture and any(e and b and mean_p[j] >= cfg.unsure for j, e, b, _ in tests):
        # only where the texture decides
        tex_f, lab_f, fine_bg = fine()
        tex_ratio = _label_medians(tex_f, lab_f, n) / fine_bg
    holes = np.zeros(cand.shape, bool)
    if cfg.holes:
        # fully enclosed regions refused on a plain backdrop with a confident network, or as atypical
        refused = [
            j
            for j, _, like_bg, closed in tests
            if closed and (not like_bg or (bg_tex < cfg.texture and mean_p[j] >= cfg.unsure))
        ]
        if refused:
            # on the whole image: the band around a region may reach beyond the candidates' box
            lab = np.zeros(cand.shape, np.int32)
            lab[box] = lab_b
            product = (a_s >= 0.5) & ~typical_px

            def fine_size() -> tuple[np.ndarray, tuple[int, int], float]:
                tex_f, _, fine_bg = fine()
                return tex_f, (small.shape[1], small.shape[0]), fine_bg

            holes = round_holes(lab, refused, product, rgb_s, ring, typical_px, a_s >= 0.5, fine_size, cfg)
    holed = np.unique(lab_b[holes[box]]) if holes.any() else np.zeros(0, np.int32)
    cut |= holes
    doubt = 0.0
    for j, enclosed, like_bg, _ in tests:
        textured = bg_tex >= cfg.texture and lo <= tex_ratio[j] <= hi
        if enclosed and like_bg and (textured or mean_p[j] < cfg.unsure):
            cut[box] |= lab_b == j
        elif j in holed:
            continue
        elif bg_tex >= cfg.texture or mean_p[j] < cfg.unsure:
            # on a plain backdrop a confidently matted region of its colour (a silver car in a grey
            # studio, a white label) is no evidence of an opening either way
            doubt += float(sizes[j])
    return cut, doubt, holes


def _clear_ghosts(
    small: np.ndarray,
    new: np.ndarray,
    inner: np.ndarray,
    bg_gmm: tuple[np.ndarray, np.ndarray, np.ndarray],
    fg_gmm: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> int:
    """Set half-transparent background left inside the product's outline to 0, in place.

    Leaves seen through a frame triangle at alpha 0.2-0.5: pixels of ``new`` (float32 (H, W) matte at the
    working resolution) inside the outline (``inner``, bool), with 0.02 < alpha < 0.5, at least 2 px from
    the solid matte (alpha >= 0.5: an edge's own soft band is left to the edge refinement) and better
    explained by the background's colour mixture than by the product's. Returns how many were set to 0.
    """
    ghost = inner & (new > 0.02) & (new < 0.5)
    if not ghost.any():
        return 0
    ys, xs = np.nonzero(ghost)
    y0, y1, x0, x1 = max(0, ys.min() - 2), ys.max() + 3, max(0, xs.min() - 2), xs.max() + 3
    sub, g = new[y0:y1, x0:x1], ghost[y0:y1, x0:x1]
    # 2 px or more from the solid matte (the box reaches 2 px beyond every candidate, so no nearer solid
    # pixel lies outside it)
    g &= _two_px_from_solid(sub < 0.5)
    if not g.any():
        return 0
    x = small[y0:y1, x0:x1][g].astype(np.float32) / 255.0
    is_bg = mixture_log_density(x, bg_gmm) >= mixture_log_density(x, fg_gmm)
    gy, gx = np.nonzero(g)
    sub[gy[is_bg], gx[is_bg]] = 0.0
    return int(is_bg.sum())


def _keep_thin(
    small: np.ndarray,
    new: np.ndarray,
    cut_w: np.ndarray,
    bg_gmm: tuple[np.ndarray, np.ndarray, np.ndarray],
    fg_gmm: tuple[np.ndarray, np.ndarray, np.ndarray],
    cfg: OpeningsConfig,
) -> int:
    """Put back thin product parts crossing a cut opening (spokes, a chain), in place; returns their px.

    Decided pixel by pixel at the working resolution inside the cut openings' box (``cut_w``, bool):
    product posterior >= ``cfg.thin_posterior``, standing out from its surroundings (grey top-hat, dark or
    light, over 5 x 5 px >= ``cfg.thin_contrast``), no wider than 2 px (gone after an opening with a 3 x 3
    square), joined (8-connected) to the product and at least 6 px in all.
    """
    h, w = new.shape
    ys, xs = np.nonzero(cut_w)
    y0, y1, x0, x1 = max(0, ys.min() - 3), min(h, ys.max() + 4), max(0, xs.min() - 3), min(w, xs.max() + 4)
    open_w = cut_w[y0:y1, x0:x1]
    box = small[y0:y1, x0:x1]
    x = box[open_w].astype(np.float32) / 255.0
    d = mixture_log_density(x, fg_gmm) - mixture_log_density(x, bg_gmm)
    prod = np.zeros(open_w.shape, bool)
    prod[open_w] = d >= np.log(cfg.thin_posterior / (1.0 - cfg.thin_posterior))
    grey = _grey(box) / 255.0
    line = np.maximum(ndi.grey_closing(grey, size=(5, 5)) - grey, grey - ndi.grey_opening(grey, size=(5, 5)))
    prod &= line >= cfg.thin_contrast
    thin = prod & ~ndi.binary_opening(prod, structure=np.ones((3, 3), bool))
    sub = new[y0:y1, x0:x1]
    body = sub >= 0.5
    eight = np.ones((3, 3), bool)
    lab, _ = ndi.label(thin | body, structure=eight)
    joined = np.unique(lab[body])
    thin &= np.isin(lab, joined[joined > 0])
    if not thin.any():
        return 0
    tl, tn = ndi.label(thin, structure=eight)
    big = np.bincount(tl.ravel(), minlength=tn + 1) >= 6
    big[0] = False
    thin = big[tl]
    sub[thin] = 1.0
    return int(thin.sum())
