"""A second opinion on a small product's matte, or on one with doubtful openings: the network looks again at the
matte's box, mirrored.

Most results the confidence does not flag but that are wrong show a small product (the zoom was taken,
:func:`retouch.pick.crops.zoom`) whose matte holds the wrong object, clutter beside the product, or only part
of it, while the network was sure and the outline sharp: every signal of the one view looks good. The
network's answer on the same region seen mirrored is a second view of the same evidence: where the matte is
right it draws (almost) the same outline; where the first view was a fragile guess it often draws another.

:func:`second_opinion` measures that agreement (one network evaluation at
:data:`retouch.segment.NETWORK_INPUT_PX`, on the crop only); :func:`with_second_opinion` runs it where it can
change the flag and stores it as the signal ``second_iou``, which :func:`retouch.pick.confidence` caps below
:attr:`~retouch.pick.PickConfig.second_opinion_iou`. A matte with doubtful openings gets the same look, which
decides whether that doubt flags it (:attr:`~retouch.pick.PickConfig.openings_doubt_look_iou`).
"""

from __future__ import annotations

import numpy as np

from ..models import NetworkConfig
from ..segment import U2NET_FAMILY, predict_mask
from .confidence import confidence
from .config import PickConfig
from .crops import zoom_box
from .signals import Pick, iou

__all__ = ["second_opinion", "wants_second_opinion", "with_second_opinion"]


def wants_second_opinion(signals: dict[str, float], *, config: PickConfig) -> bool:
    """Whether the second opinion can change the review flag and is worth its network evaluation: it is
    switched on (:attr:`~PickConfig.second_opinion`), the zoom was taken (signal ``zoom``: a small product) or at
    least :attr:`~PickConfig.openings_review_doubt` of the matte is doubtful openings (the look decides whether
    that doubt flags it, :attr:`~PickConfig.openings_doubt_look_iou`), and :func:`retouch.pick.confidence` would not
    flag the result even with a look that agrees fully."""
    if not config.second_opinion:
        return False
    small = signals.get("zoom", 0.0) >= 0.5
    doubtful_openings = signals.get("openings_doubtful", 0.0) >= config.openings_review_doubt
    if not (small or doubtful_openings):
        return False
    # flagged whatever the look says (a look that agrees fully still leaves the result flagged): not worth it
    return not confidence({**signals, "second_iou": 1.0}, config=config)[1]


def second_opinion(
    small: np.ndarray,
    alpha: np.ndarray,
    model_name: str,
    *,
    config: PickConfig,
    network: NetworkConfig,
) -> float:
    """IoU between the matte and the network's mask of the matte's box seen mirrored.

    The box is the matte's (``alpha >= 0.5``) grown by :attr:`~PickConfig.zoom_margin` of its size on every
    side (at least 16 px), as the zoom grows the first mask's box; its mirror image goes through the network
    at :data:`retouch.segment.NETWORK_INPUT_PX` (the first pass's copy of the model), the mask is mirrored back
    and both are compared at 0.5 inside the box.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) final matte in [0, 1] at the same resolution.
        model_name: a :data:`retouch.segment.U2NET_FAMILY` model.
        config: the box's margin.
        network: as :func:`retouch.segment.predict_mask`.

    Returns:
        IoU in [0, 1]; 1.0 for an empty matte (nothing to judge: the guard and the confidence deal with it).

    Raises:
        as :func:`retouch.segment.predict_mask`.
    """
    b = alpha >= 0.5
    box = zoom_box(b, config=config)
    if box is None:
        return 1.0
    x0, y0, x1, y1 = box
    mirrored = np.ascontiguousarray(small[y0:y1, x0:x1, :][:, ::-1])
    look = predict_mask(mirrored, model_name, network=network)[:, ::-1] >= 0.5
    return iou(b[y0:y1, x0:x1], look)


def with_second_opinion(
    small: np.ndarray,
    alpha: np.ndarray,
    pick: Pick,
    model_name: str,
    *,
    config: PickConfig,
    network: NetworkConfig,
) -> Pick:
    """``pick`` with the signal ``second_iou`` (:func:`second_opinion`, one more network evaluation counted)
    where :func:`wants_second_opinion` says so and ``model_name`` is a :data:`retouch.segment.U2NET_FAMILY`
    model; else ``pick`` unchanged. ``alpha``: the final matte (after the openings step)."""
    if model_name not in U2NET_FAMILY or not wants_second_opinion(pick.signals, config=config):
        return pick
    pick.signals["second_iou"] = second_opinion(small, alpha, model_name, config=config, network=network)
    pick.evaluations += 1
    return pick
