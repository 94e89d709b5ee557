"""A graph cut that disagrees with the matte: inside the product's outline, pixels a colour model calls backdrop.

An opening kept whole whose inside shows a busy, textured or blurred backdrop (a wheel's disc between its spokes,
the hole of a ring on a photographed backdrop) is predicted neither by a surface nor by the ring near it, and a
plain colour model of the backdrop inside the matte cannot tell it from a product painted in the backdrop's colour
(a silver car beside a grey turntable). :func:`cut_backdrop` asks a graph cut (OpenCV's ``grabCut``) instead, with
both colour models learned from places whose label the matte gets right almost always:

* the **product** model from the matte's rim (matte pixels within :attr:`~retouch.pick.PickConfig.cut_rim` of
  ``scale`` of its outer outline, at least 2 px): the product's own paint, glass and tyres where it meets the
  backdrop. The outer outline only (the matte's holes filled first): around a hole the openings step cleared in
  part, the matte that is left is often the rest of the same opening, backdrop kept, and a rim there would teach
  the product model the backdrop's colours;
* the **backdrop** model from the ring of clear background (``alpha < 0.05``) more than 2 px and at most
  :attr:`~retouch.pick.PickConfig.cut_ring` of ``scale`` outside the matte.

The models are fitted once (OpenCV's five-component Gaussian mixtures, k-means++ seeded with :data:`CUT_SEED`)
and frozen; one cut then labels the box: the rim is product for sure, the rest of the matte probably product, a
band of 10 % of ``scale`` outside it probably backdrop, the rest backdrop for sure. The share of the matte the cut
gives to the backdrop is the signal ``cut_backdrop``. Backdrop colours in the interior that the rim does not
carry, bounded by edges weak enough for the cut's smoothness term, go; paint in the backdrop's colour that
the rim carries too (a silver car's doors and its silver rim) stays.

Works on the matte's box of :func:`retouch.pick.box.matte_box` (:data:`~retouch.pick.box.WORK_SIDE` px
long side). Cost: about 5 ms CPU per photo (OpenCV loads once per process, ~0.1 s); :func:`with_cut_disagreement`
runs it only on results the confidence does not already flag.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage as ndi

from ..colors import fit_colour_mixture, masked_pixels, mixture_log_density
from .box import MatteBox, matte_box
from .confidence import confidence
from .config import PickConfig
from .signals import Pick

__all__ = [
    "CUT_SEED",
    "BackdropPieces",
    "CutLayout",
    "backdrop_pieces",
    "clear_backdrop_pieces",
    "clear_pieces",
    "cut_backdrop",
    "cut_layout",
    "frozen_cut",
    "frozen_models",
    "with_cut_disagreement",
]

#: Seed of OpenCV's random generator before the colour models are fitted (their k-means++ start): the signal is
#: the same for the same photo and matte. Fixed before tuning; other seeds move single photos across the
#: threshold (the graph cut record lists them).
CUT_SEED = 0
#: Fewest rim and ring pixels to fit a five-component mixture to (fewer: no signal).
MIN_SAMPLES = 16
#: Width of the band outside the matte the cut may still call product, as a share of ``scale``.
BAND = 0.1
#: ``grabCut``'s rectangle, unused: the cut starts from the labels (``GC_INIT_WITH_MASK``, ``GC_EVAL_FREEZE_MODEL``).
NO_RECT = (0, 0, 0, 0)


@dataclass(frozen=True)
class CutLayout:
    """Where the graph cut learns its colour models, on the matte's box (:func:`retouch.pick.box.matte_box`).

    Attributes:
        box: the matte's box.
        filled: bool (h, w) the matte with its holes filled (its outer outline).
        d_in: float (h, w) distance (px) to the outer outline, inside it.
        d_out: float (h, w) distance (px) to the matte, outside it (0 on it).
        rim: bool (h, w) matte pixels within :attr:`~PickConfig.cut_rim` of ``scale`` (at least 2 px) of the outer
            outline: where the product model is fitted.
        ring: bool (h, w) clear background (``alpha < 0.05``) more than 2 px and at most
            :attr:`~PickConfig.cut_ring` of ``scale`` (at least 4 px) outside the matte: where the backdrop model
            is fitted.
    """

    box: MatteBox
    filled: np.ndarray
    d_in: np.ndarray
    d_out: np.ndarray
    rim: np.ndarray
    ring: np.ndarray


def cut_layout(small: np.ndarray, alpha: np.ndarray, *, config: PickConfig) -> CutLayout | None:
    """The graph cut's rim and ring (:class:`CutLayout`) for ``small`` uint8 (H, W, 3) and ``alpha`` float32 (H, W);
    None where :func:`retouch.pick.box.matte_box` has no box (an empty matte, no clear-background ring)."""
    box = matte_box(small, alpha)
    if box is None:
        return None
    m, scale = box.matte, box.scale
    filled = ndi.binary_fill_holes(m)
    d_in = ndi.distance_transform_edt(filled)
    d_out = ndi.distance_transform_edt(~m)
    rim = m & (d_in <= max(2.0, config.cut_rim * scale))
    ring = (box.alpha < 0.05) & (d_out > 2.0) & (d_out <= max(4.0, config.cut_ring * scale))
    return CutLayout(box, filled, d_in, d_out, rim, ring)


def cut_backdrop(small: np.ndarray, alpha: np.ndarray, *, config: PickConfig) -> float:
    """Share (0-1) of the matte (``alpha >= 0.5``, on its box) that the graph cut gives to the backdrop.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) final matte in [0, 1] at the same resolution.
        config: :attr:`~PickConfig.cut_rim` and :attr:`~PickConfig.cut_ring`.

    Returns:
        The share rounded to 4 decimals; 0.0 for an empty matte, one without a clear-background ring, or one
        whose rim, interior or ring are too small to model (:data:`MIN_SAMPLES`).

    Raises:
        ModuleNotFoundError: OpenCV (``opencv-python-headless``) is not installed.
    """
    cut = _backdrop_of_matte(small, alpha, config)
    if cut is None:
        return 0.0
    layout, backdrop = cut
    return round(float(backdrop.sum() / layout.box.matte.sum()), 4)


def _backdrop_of_matte(
    small: np.ndarray, alpha: np.ndarray, config: PickConfig
) -> tuple[CutLayout, np.ndarray] | None:
    """The cut's layout (:func:`cut_layout`) and the bool (h, w) part of the matte on its box that :func:`frozen_cut` gives to the backdrop; None for
    an empty matte, one without a clear-background ring, or one whose rim, interior or ring are too small to model
    (:data:`MIN_SAMPLES`)."""
    layout = cut_layout(small, alpha, config=config)
    if layout is None:
        return None
    m, rim, ring = layout.box.matte, layout.rim, layout.ring
    if min(int(rim.sum()), int((m & ~rim).sum()), int(ring.sum())) < MIN_SAMPLES:
        return None
    return layout, m & ~frozen_cut(layout.box.rgb, m, rim, ring, layout.d_out, layout.box.scale)


def frozen_models(
    img: np.ndarray, product: np.ndarray, backdrop: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV ``grabCut``'s colour models (five-component Gaussian mixtures, float64 (1, 65) each), fitted on the
    pixels of ``img`` (uint8 (h, w, 3)) under bool (h, w) ``product`` and ``backdrop`` alone, k-means++ seeded with
    :data:`CUT_SEED`: ``(backdrop_model, product_model)``, to be used frozen (``GC_EVAL_FREEZE_MODEL``).

    Raises:
        ModuleNotFoundError: OpenCV (``opencv-python-headless``) is not installed.
    """
    import cv2

    # a one-column image of the two sets of pixels, each labelled for sure
    samples = np.ascontiguousarray(np.concatenate([img[product], img[backdrop]])[:, None, :])
    labels = np.concatenate(
        [
            np.full(int(product.sum()), cv2.GC_FGD, np.uint8),
            np.full(int(backdrop.sum()), cv2.GC_BGD, np.uint8),
        ]
    )[:, None]
    backdrop_model, product_model = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.setRNGSeed(CUT_SEED)
    cv2.grabCut(samples, labels, NO_RECT, backdrop_model, product_model, 0, cv2.GC_INIT_WITH_MASK)
    return backdrop_model, product_model


def frozen_cut(
    rgb: np.ndarray, matte: np.ndarray, rim: np.ndarray, ring: np.ndarray, d_out: np.ndarray, scale: float
) -> np.ndarray:
    """The graph cut with frozen colour models: the product model fitted on ``rim``, the backdrop model on ``ring``.

    Args:
        rgb: float32 or uint8 (h, w, 3) box image (0-255).
        matte: bool (h, w) the matte on the box.
        rim: bool (h, w) matte pixels the product model is fitted to; the cut keeps them product.
        ring: bool (h, w) clear-background pixels the backdrop model is fitted to.
        d_out: float (h, w) distance (px) to the matte, 0 on it.
        scale: the matte's long side (px) on the box; a band of :data:`BAND` of it outside the matte may stay
            product.

    Returns:
        bool (h, w): what the cut calls product.

    Raises:
        ModuleNotFoundError: OpenCV (``opencv-python-headless``) is not installed.
    """
    import cv2  # imported here: only results left unflagged by the other caps pay for loading it

    img = np.clip(np.round(rgb), 0, 255).astype(np.uint8)
    backdrop_model, product_model = frozen_models(img, rim, ring)
    mask = np.full(matte.shape, cv2.GC_BGD, np.uint8)
    mask[~matte & (d_out <= max(3.0, BAND * scale))] = cv2.GC_PR_BGD
    mask[matte & ~rim] = cv2.GC_PR_FGD
    mask[rim] = cv2.GC_FGD
    cv2.grabCut(img, mask, NO_RECT, backdrop_model, product_model, 1, cv2.GC_EVAL_FREEZE_MODEL)
    return np.asarray((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD))


@dataclass(frozen=True)
class BackdropPieces:
    """The pieces of the matte that the graph cut of :func:`cut_backdrop` gives to the backdrop, on the matte's box.

    Attributes:
        labels: int32 (h, w) on the box of :func:`retouch.pick.box.matte_box`: 0 elsewhere, 1..n the pieces
            (8-connected) of the matte the cut calls backdrop. The cut keeps the matte's outer rim product, so every
            piece lies inside the product's outline.
        share: float64 (n + 1,): each piece's share of the matte's area on the box; index 0 is 0.
        typical: float64 (n + 1,): each piece's share of pixels whose colour is as typical of the backdrop ring as
            70 % of the ring's own pixels (log density under a six-component mixture of the ring's colours,
            :func:`retouch.colors.fit_colour_mixture`, as :func:`retouch.openings.clear_openings` tests a candidate
            opening); index 0 is 0.
        bounds: ``(y0, y1, x0, x1)``: the box in the working image.
        total: the pieces' share of the matte together, rounded to 4 decimals: :func:`cut_backdrop` of the same
            matte.
    """

    labels: np.ndarray
    share: np.ndarray
    typical: np.ndarray
    bounds: tuple[int, int, int, int]
    total: float


def backdrop_pieces(small: np.ndarray, alpha: np.ndarray, *, config: PickConfig) -> BackdropPieces | None:
    """The pieces of the matte that :func:`cut_backdrop`'s graph cut (same box, rim, ring, :func:`frozen_cut`)
    gives to the backdrop.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) matte in [0, 1] at the same resolution.
        config: :attr:`~PickConfig.cut_rim` and :attr:`~PickConfig.cut_ring`.

    Returns:
        The pieces, or None where :func:`cut_backdrop` reads 0 without cutting (an empty matte, no
        clear-background ring, a rim, interior or ring too small to model) or the cut keeps the whole matte.

    Raises:
        ModuleNotFoundError: OpenCV (``opencv-python-headless``) is not installed.
    """
    cut = _backdrop_of_matte(small, alpha, config)
    if cut is None or not cut[1].any():
        return None
    layout, backdrop = cut
    box, ring = layout.box, layout.ring
    m = box.matte
    labels, n = ndi.label(backdrop, structure=np.ones((3, 3), bool))
    sizes = np.bincount(labels.ravel(), minlength=n + 1).astype(np.float64)
    share = sizes / float(m.sum())
    share[0] = 0.0
    rgb = box.rgb / np.float32(255.0)
    ring_px = masked_pixels(rgb, ring)
    ring_gmm = fit_colour_mixture(ring_px, 6, np.random.default_rng(CUT_SEED))
    typical_ld = float(np.percentile(mixture_log_density(ring_px, ring_gmm), 30))
    is_typical = mixture_log_density(masked_pixels(rgb, backdrop), ring_gmm) >= typical_ld
    typical = np.bincount(labels[backdrop], weights=is_typical, minlength=n + 1) / np.maximum(1.0, sizes)
    typical[0] = 0.0
    total = round(float(backdrop.sum() / m.sum()), 4)
    return BackdropPieces(labels.astype(np.int32), share, typical, box.bounds, total)


def clear_pieces(alpha: np.ndarray, pieces: BackdropPieces, chosen: np.ndarray) -> np.ndarray:
    """``alpha`` with the ``chosen`` pieces cleared.

    The pieces' mask is brought from the box to the working resolution bilinearly, as the openings step brings
    its cut openings up (:func:`retouch.openings.clear_openings`); where it reads 0.5 or more the matte is set
    to 0, and within the half-box-pixel band below that the matte is scaled by ``1 - 2 * mask``, a soft edge a few
    working pixels wide instead of the box's staircase.

    Args:
        alpha: float32 (H, W) matte in [0, 1].
        pieces: :func:`backdrop_pieces` of this matte.
        chosen: bool (n + 1,) the pieces to clear (index 0 ignored).

    Returns:
        A new float32 (H, W) matte; ``alpha`` itself when nothing is chosen.
    """
    from PIL import Image

    pick = chosen.copy()
    pick[0] = False
    if not pick.any():
        return alpha
    y0, y1, x0, x1 = pieces.bounds
    mask = pick[pieces.labels].astype(np.float32)
    up = np.asarray(Image.fromarray(mask, "F").resize((x1 - x0, y1 - y0), Image.Resampling.BILINEAR))
    out = alpha.astype(np.float32, copy=True)
    out[y0:y1, x0:x1] *= np.clip(1.0 - 2.0 * up, 0.0, 1.0)
    return out


def clear_backdrop_pieces(
    small: np.ndarray, alpha: np.ndarray, *, config: PickConfig
) -> tuple[np.ndarray, float, float | None]:
    """Clear from the matte the large, backdrop-coloured pieces the graph cut gives to the backdrop.

    An opening kept whole whose inside shows a busy or blurred backdrop (a wheel's disc between its spokes, a
    hoop on a photographed backdrop) is left by :func:`retouch.openings.clear_openings`, whose colour models
    cannot tell it from product on such a backdrop. Of :func:`backdrop_pieces`, each piece of at least
    :attr:`~PickConfig.cut_clear_share` of the matte with at least :attr:`~PickConfig.cut_clear_typical` of its
    pixels typical of the backdrop ring is cleared (:func:`clear_pieces`): a product part whose colours the rim does
    not carry (a dark plate on a light body) is rarely that large and that backdrop-coloured at once.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) matte in [0, 1] at the same resolution.
        config: the two thresholds (:attr:`~PickConfig.cut_clear_share` 0: never), ``cut_rim`` and ``cut_ring``.

    Returns:
        ``(alpha, cleared, cut)``: the new float32 (H, W) matte (``alpha`` itself when nothing is cleared), the share
        of the matte's area on the box cleared (0.0 when nothing is), and :func:`cut_backdrop` of the input matte
        (None when the step is switched off), which :func:`with_cut_disagreement` reuses when nothing was cleared.

    Raises:
        ModuleNotFoundError: OpenCV (``opencv-python-headless``) is not installed.
    """
    if config.cut_clear_share <= 0:
        return alpha, 0.0, None
    pieces = backdrop_pieces(small, alpha, config=config)
    if pieces is None:
        return alpha, 0.0, 0.0
    chosen = (pieces.share >= config.cut_clear_share) & (pieces.typical >= config.cut_clear_typical)
    chosen[0] = False
    if not chosen.any():
        return alpha, 0.0, pieces.total
    return clear_pieces(alpha, pieces, chosen), round(float(pieces.share[chosen].sum()), 4), pieces.total


def with_cut_disagreement(
    small: np.ndarray,
    alpha: np.ndarray,
    pick: Pick,
    *,
    config: PickConfig,
    measured: float | None = None,
) -> Pick:
    """``pick`` with the signal ``cut_backdrop`` (:func:`cut_backdrop`) added where it can change the review flag:
    the cap is switched on (:attr:`~PickConfig.review_cut_backdrop` above 0) and :func:`confidence` does not flag
    the result already. Nothing else changes (the matte is never touched).

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) final matte in [0, 1].
        pick: the result's :class:`Pick` (its ``signals`` are updated in place and it is returned).
        config: the thresholds.
        measured: :func:`cut_backdrop` of this very matte when already known (:func:`clear_backdrop_pieces` measured
            it and cleared nothing); None: measured here.

    Raises:
        ModuleNotFoundError: OpenCV is not installed (only when the signal is measured).
    """
    if config.review_cut_backdrop <= 0:
        return pick
    if confidence(pick.signals, config=config)[1]:
        return pick
    pick.signals["cut_backdrop"] = (
        measured if measured is not None else cut_backdrop(small, alpha, config=config)
    )
    return pick
