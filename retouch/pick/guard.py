"""Never much less than plain rembg: the safe-mask guard, and the refocus after its fallback.

The guard's constants (:attr:`PickConfig.empty_share`, :attr:`~PickConfig.disagree_iou`,
:attr:`~PickConfig.decisive_sharp`) were chosen by ``bench/tuning/tune_guard.py`` on the 20 photos of the GT
tuning fold plus 30 tuning composites of seed 1 and 30 of seed 3 (tuning-fold products only).
"""

from __future__ import annotations

import numpy as np

from ..models import NetworkConfig
from ..segment import NETWORK_INPUT_PX, U2NET_FAMILY
from .config import PickConfig
from .crops import REFOCUS_SOURCE, refocus
from .signals import Pick, focus_contrast, iou, luma

__all__ = ["guard", "refocus_fallback"]


def guard(
    small: np.ndarray,  # noqa: ARG001
    alpha: np.ndarray,
    pick: Pick,
    *,
    config: PickConfig,
) -> tuple[np.ndarray, str | None]:
    """Never return much less than plain rembg: fall back to the safe mask when our matte is in doubt.

    The reference is plain rembg's mask (:attr:`Pick.safe`, 320 px) when the second look ran, else the
    first network mask. Our refined matte falls back to the refined reference when

    * it is (nearly) empty: it covers less than :attr:`~PickConfig.empty_share` of the reference's area while the
      reference holds a product (at least :attr:`~PickConfig.min_area` of the frame): the pick or the refinement
      removed what the network found;
    * or, with rembg's mask at hand, the two disagree (IoU < :attr:`~PickConfig.disagree_iou`) and the evidence for
      ours is not decisive: the chosen mask's outline is not at least :attr:`~PickConfig.decisive_sharp` sharper than
      rembg's (a mask that kept a soft-focus cup has a blurred outline; a product has a sharp one).

    The fallback is the reference mask itself (with rembg's mask: plain rembg's answer at the working
    resolution). It sets the signal ``fallback`` (1.0) and records ``safe_iou`` (IoU of our matte and
    rembg's, 1.0 without the second look); :func:`retouch.pick.confidence` flags every fallback.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) refined matte (:func:`retouch.matte.refine_matte` of ``pick.mask``).
        pick: the :class:`Pick` it came from; its ``signals`` and ``source`` are updated.
        config: the guard's thresholds.

    Returns:
        ``(alpha, reason)``: the matte to use and ``None``, ``"empty"`` or ``"disagree"``.
    """
    ref = pick.safe if pick.safe is not None else pick.first
    ours = alpha >= 0.5
    pick.signals["fallback"] = 0.0
    pick.signals["safe_iou"] = 1.0
    if ref is None:
        return alpha, None
    ref_b = ref >= 0.5
    if pick.safe is not None:
        pick.signals["safe_iou"] = iou(ours, ref_b)
    ref_area = float(ref_b.mean())
    if ref_area < config.min_area:  # the network found (almost) nothing there either: nothing safer to offer
        return alpha, None
    reason: str | None = None
    if float(ours.mean()) < config.empty_share * ref_area:
        reason = "empty"
    elif (
        pick.safe is not None
        and pick.signals["safe_iou"] < config.disagree_iou
        and pick.signals["sharp"] - pick.signals.get("safe_sharp", 0.0) < config.decisive_sharp
    ):
        reason = "disagree"
    if reason is None:
        return alpha, None
    # the safe mask as the network gave it: refining it (even without ghost fading and trapped-background
    # cuts) can lose what rembg kept: on the tuning data it averages +0.006 IoU but loses up to 0.064
    fallback = ref.astype(np.float32)
    pick.signals["fallback"] = 1.0
    pick.source = config.safe_source if pick.safe is not None else str(NETWORK_INPUT_PX)
    return fallback, reason


def refocus_fallback(
    small: np.ndarray,
    fallback: np.ndarray,
    pick: Pick,
    model_name: str,
    *,
    config: PickConfig,
    network: NetworkConfig,
) -> np.ndarray | None:
    """After :func:`guard` fell back: the product inside the safe mask, when one sharp object stands out.

    The safe mask is plain rembg's answer, and where the guard falls back on a salient photo it is often
    as wrong as rembg: the large blurred object with the product on it. The refocus (:func:`retouch.pick.crops.refocus`) is
    tried on it whatever its focus: one more network evaluation on the box of the in-focus detail inside
    it, used when the crop's mask stays inside its crop and passes the focus test. On the tuning photos
    (12 fallbacks among 220) it turned 6 of them from IoU 0.03-0.21 into 0.95-0.99 and left
    the other 6 unchanged. The result stays flagged for review (:func:`retouch.pick.confidence`).

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        fallback: float32 (H, W) the guard's fallback mask.
        pick: the :class:`Pick` the guard fell back from; on success its ``source`` becomes
            :data:`retouch.pick.crops.REFOCUS_SOURCE` and its signals gain ``refocus`` (1.0, or 0.0 when tried but not used),
            ``kept_focus`` and the crop mask's :func:`mask_signals` and ``focus``; ``evaluations`` counts
            the extra pass.
        model_name: rembg model (others than :data:`retouch.segment.U2NET_FAMILY` are left alone).
        config: the refocus's switch (:attr:`~PickConfig.refocus_fallback`) and thresholds.
        network: as :func:`retouch.segment.predict_mask`.

    Returns:
        float32 (H, W) the crop's network mask (0 outside the crop), to be refined; ``None`` when it is not
        used.
    """
    if not config.refocus_fallback or model_name not in U2NET_FAMILY:
        return None
    grey = luma(small)
    kept = Pick(fallback, pick.source, pick.evaluations, dict(pick.signals))
    kept.signals["focus"] = min(focus_contrast(grey, fallback >= 0.5, config=config), 99.0)
    new = refocus(small, grey, kept, model_name, config=config, network=network)
    pick.evaluations = new.evaluations
    if "refocus" in new.signals:
        pick.signals.update(new.signals)
    if new.source != REFOCUS_SOURCE:
        return None
    pick.source = new.source
    return new.mask
