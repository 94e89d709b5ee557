"""The openings step (:func:`clear_openings`): colour models, candidates, the cut, ghosts and thin parts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage as ndi

from ..colors import fit_colour_mixture, masked_pixels, mixture_log_density
from ..wheel_openings import wheel_sectors
from .arrays import _band_outside, _resize_f, _unit, _upsample_mask
from .config import DEFAULT_OPENINGS, OpeningsConfig
from .regions import _clutter, _select
from .thin import _clear_ghosts, _keep_thin

__all__ = ["Openings", "clear_openings"]


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
    area0 = int((alpha >= 0.5).sum())
    out = Openings(alpha)
    if area0 < 100:
        return out
    a_s, p_s, rgb_s, fg, ring = _work_copies(small, alpha, coarse, cfg)
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
    out.fg_outside = _fg_outside(ring_rgb, ring_ld_bg, fg_gmm, rng)
    # posterior of background of every matte pixel (0 outside the matte)
    typical_px, post_bg = _posterior(fg, fg_px, fg_ld_bg, typical, fg_gmm)
    smooth = ndi.uniform_filter(post_bg, size=5, mode="nearest")
    outer = _reached_from_border(~fg)
    fg_area = float(fg.sum())
    cand = fg & (smooth >= cfg.posterior)
    wheels = wheel_sectors(fg, post_bg, typical_px, cfg) if cfg.wheels else None
    if wheels is not None:
        cand &= ~wheels  # a wheel's sectors are cut together, not judged one by one
    cut, doubt, holes, soft = _select(cand, outer, ring, rgb_s, p_s, a_s, typical_px, fg_area, small, cfg)
    if wheels is not None:
        cut |= wheels
    if cut.any():
        cut, spread = _grow_cut(cut, fg, smooth, post_bg, holes, soft, wheels, rgb_s, cfg)
        doubt += spread
    out.cleared = float(cut.sum()) / fg_area
    if out.cleared > cfg.max_share:
        doubt += float(cut.sum())
        cut[:] = False
        out.cleared = 0.0
    out.doubtful = doubt / fg_area
    return _finish(out, small, cut, outer, bg_gmm, fg_gmm, area0, cfg)


def _posterior(
    fg: np.ndarray,
    fg_px: np.ndarray,
    fg_ld_bg: np.ndarray,
    typical: float,
    fg_gmm: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel of the matte ``fg`` (bool (h, w); ``fg_px`` its colours, ``fg_ld_bg`` their log density under the
    background mixture): whether it is as typical of the background as 70 % of the ring (``typical``), and its
    posterior of background against the product mixture ``fg_gmm`` (float32, 0 outside the matte)."""
    typical_px = np.zeros(fg.shape, bool)
    typical_px[fg] = fg_ld_bg >= typical
    post_bg = np.zeros(fg.shape, np.float32)
    post_bg[fg] = 1.0 / (1.0 + np.exp(np.clip(mixture_log_density(fg_px, fg_gmm) - fg_ld_bg, -30.0, 30.0)))
    return typical_px, post_bg


def _work_copies(
    small: np.ndarray, alpha: np.ndarray, coarse: np.ndarray | None, cfg: OpeningsConfig
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The colour tests' copies at <= ``cfg.work_pixels``: matte, network mask, float32 RGB in [0, 1], the matte's
    pixels (``alpha >= 0.5``) and the background ring (``alpha < 0.05``, 2 px to 12 % of the diagonal outside)."""
    h, w = alpha.shape
    f = min(1.0, (cfg.work_pixels / (h * w)) ** 0.5)
    size = (max(1, round(w * f)), max(1, round(h * f)))
    a_s = _resize_f(alpha, size)
    p_s = _resize_f(coarse if coarse is not None else alpha, size)
    rgb_s = np.stack([_resize_f(_unit(small[..., c]), size) for c in range(3)], axis=-1)
    fg = a_s >= 0.5
    ring = (a_s < 0.05) & _band_outside(fg, 2, 0.12 * float(np.hypot(*fg.shape)))
    return a_s, p_s, rgb_s, fg, ring


def _fg_outside(
    ring_rgb: np.ndarray,
    ring_ld_bg: np.ndarray,
    fg_gmm: tuple[np.ndarray, np.ndarray, np.ndarray],
    rng: np.random.Generator,
) -> float:
    """Share of the background ring's pixels (at most 4000 drawn with ``rng``) the product's colour model explains
    better than the background's: the colour models' disagreement with the matte outside it."""
    ring_px, ring_px_bg = ring_rgb, ring_ld_bg
    if len(ring_px) > 4000:
        drawn = rng.choice(len(ring_px), size=4000, replace=False)
        # the densities are computed pixel by pixel: those of the drawn pixels are already known
        ring_px, ring_px_bg = ring_px[drawn], ring_ld_bg[drawn]
    return float((mixture_log_density(ring_px, fg_gmm) > ring_px_bg).mean())


def _reached_from_border(outside: np.ndarray) -> np.ndarray:
    """The pixels of bool ``outside`` connected to the frame's border: the background around the product, not its
    holes."""
    outside_lab, _ = ndi.label(outside)
    border = np.unique(
        np.concatenate([outside_lab[0], outside_lab[-1], outside_lab[:, 0], outside_lab[:, -1]])
    )
    return np.isin(outside_lab, border[border > 0])


def _grow_cut(
    cut: np.ndarray,
    fg: np.ndarray,
    smooth: np.ndarray,
    post_bg: np.ndarray,
    holes: np.ndarray,
    soft: np.ndarray,
    wheels: np.ndarray | None,
    rgb_s: np.ndarray,
    cfg: OpeningsConfig,
) -> tuple[np.ndarray, float]:
    """The cut grown by hysteresis (background-like matte pixels joined to a cut opening go with it: the specks of
    boardwalk left between the spokes), product-coloured pixels kept, the clutter added (``cfg.clutter``); returns
    the new cut and the pixels of the regions that would spread too far (doubtful, not cut). A cut holding a
    soft region (``soft``, from :func:`~retouch.openings.regions._select`) grows however far its joined pixels go."""
    low_lab, n_low = ndi.label(fg & (smooth >= cfg.grow))
    seed_n = np.bincount(low_lab[cut], minlength=n_low + 1)
    all_n = np.bincount(low_lab.ravel(), minlength=n_low + 1)
    soft_n = np.bincount(low_lab[soft], minlength=n_low + 1)
    ok = (seed_n > 0) & ((all_n <= cfg.grow_max * seed_n) | (soft_n > 0))
    ok[0] = False
    spread = (seed_n > 0) & ~ok
    spread[0] = False
    doubt = 0.0
    if spread.any():
        doubt = float(all_n[spread].sum())
        cut &= ~spread[low_lab]
    cut |= ok[low_lab]
    # a product-coloured pixel inside an opening (a chain, a spoke) is not cut on its neighbours' word
    cut &= (post_bg >= 0.5) | holes  # a hole's pixels follow the backdrop's own colour surface
    if cfg.clutter:
        # clutter seen through the opening, of colours the product model took for its own
        hubs = None if wheels is None else ndi.binary_fill_holes(ndi.binary_dilation(wheels, iterations=2))
        cut |= _clutter(cut, fg, rgb_s, cfg, hubs)
    return cut, doubt


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
