"""How sure we are that the matte holds the product, and whether a designer should check it."""

from __future__ import annotations

import math
from typing import Any

from .config import SHIPPED_PICK, PickConfig
from .signals import Pick

__all__ = ["confidence", "details"]


def confidence(signals: dict[str, float], *, config: PickConfig = SHIPPED_PICK) -> tuple[float, bool]:
    """Confidence that the matte is right (IoU >= 0.9 against a careful hand mask), and the review flag.

    A logistic model over :func:`retouch.pick.mask_signals`-style features
    (:attr:`PickConfig.confidence_weights`, fitted on the
    tuning GT fold and the tuning composites by ``bench/tuning/tune_pick.py``), capped at
    :attr:`~PickConfig.fallback_confidence` (so flagged) where the guard fell back to the safe mask or where the kept
    mask is smoother inside than around it (``focus`` below :attr:`~PickConfig.review_focus`), and where at least
    :attr:`~PickConfig.openings_review_doubt` of the matte looks like the background around it but was not
    cut as an opening (``openings_doubtful``) unless the second look confirms the outline (``second_iou`` at least
    :attr:`~PickConfig.openings_doubt_look_iou`), and where the network's second look at the matte's box, mirrored,
    overlaps the matte by less than :attr:`~PickConfig.second_opinion_iou` (``second_iou``,
    :func:`retouch.pick.second.second_opinion`), and where the matte runs out of the frame on at least
    :attr:`~PickConfig.review_frame_sides` sides (``frame_sides``, :func:`retouch.pick.signals.frame_sides`; 0: never), and where a region of at least
    :attr:`~PickConfig.review_through` of the matte continues the backdrop seen around it (``through``,
    :func:`retouch.pick.through.backdrop_through`; 0: never), and where the matte covers a long run of a frame
    side with another object at that end (``frame_join`` at least :attr:`~PickConfig.review_frame_join`) or its
    outline follows blurred edges (``blurred_outline`` at least :attr:`~PickConfig.review_blurred_outline`;
    :func:`retouch.pick.joined.joined_signals`; 0: never), and where a graph cut with colour models from the matte's
    rim and the backdrop ring gives at least :attr:`~PickConfig.review_cut_backdrop` of the matte to the backdrop
    (``cut_backdrop``, :func:`retouch.pick.cut.cut_backdrop`; 0: never), and where the backdrop is busy
    (``backdrop_busy`` at least :attr:`~PickConfig.review_busy_backdrop`, :func:`retouch.pick.busy.backdrop_busy`;
    0: never) and the confidence is below :attr:`~PickConfig.review_below_busy`.

    Args:
        signals: :attr:`Pick.signals`.
        config: the weights and thresholds.

    Returns:
        ``(confidence in [0, 1] rounded to 3 decimals, needs_review)``.
    """
    weights = config.confidence_weights
    z = weights.get("bias", 0.0)
    for k, wgt in weights.items():
        if k != "bias":
            z += wgt * float(signals.get(k, 0.0))
    c = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
    if signals.get("fallback", 0.0) >= 0.5:  # our own matte was given up for the safe mask: doubtful
        c = min(c, config.fallback_confidence)
    if (
        signals.get("focus", math.inf) < config.review_focus
    ):  # the kept mask is a soft object among sharp ones
        c = min(c, config.fallback_confidence)
    if (
        signals.get("openings_doubtful", 0.0) >= config.openings_review_doubt
        and signals.get("second_iou", 0.0) < config.openings_doubt_look_iou
    ):
        # part of the matte looks like the background seen around it but could not be cut safely, and the
        # network's second look (where it ran) does not confirm the outline
        c = min(c, config.fallback_confidence)
    if config.review_frame_sides and signals.get("frame_sides", 0.0) >= config.review_frame_sides:
        # the matte runs out of the frame on several sides: it has often kept the surface or the wall behind
        c = min(c, config.fallback_confidence)
    if config.review_through > 0 and signals.get("through", 0.0) >= config.review_through:
        # a region inside the product's outline continues the backdrop seen around it: an opening kept whole
        c = min(c, config.fallback_confidence)
    if config.review_frame_join > 0 and signals.get("frame_join", 0.0) >= config.review_frame_join:
        # a long run of the frame is matte whose end there is another object than its far end
        c = min(c, config.fallback_confidence)
    if (
        config.review_blurred_outline > 0
        and signals.get("blurred_outline", 0.0) >= config.review_blurred_outline
    ):
        # the outline follows defocused edges: the matte holds a blurred backdrop object
        c = min(c, config.fallback_confidence)
    if config.review_cut_backdrop > 0 and signals.get("cut_backdrop", 0.0) >= config.review_cut_backdrop:
        # a graph cut, its colour models taken from the matte's rim and the backdrop around it, gives part of
        # the matte to the backdrop: an opening kept whole
        c = min(c, config.fallback_confidence)
    if signals.get("second_iou", 1.0) < config.second_opinion_iou:
        # the network, looking again at the matte's box mirrored, draws another outline
        c = min(c, config.fallback_confidence)
    if (
        config.review_busy_backdrop > 0
        and signals.get("backdrop_busy", 0.0) >= config.review_busy_backdrop
        and c < config.review_below_busy
    ):
        # on a busy backdrop the network's certainty means less: another object kept, a part left out
        c = min(c, config.fallback_confidence)
    return round(c, 3), bool(c < config.review_below)


def details(pick: Pick, *, config: PickConfig) -> dict[str, Any]:
    """The ``processing_details`` entries of a pick: ``confidence``, ``needs_review`` (:func:`confidence`
    with ``config``) and ``segmentation`` (``source``, ``network_evaluations``, ``signals`` rounded to 4
    decimals)."""
    c, review = confidence(pick.signals, config=config)
    return {
        "confidence": c,
        "needs_review": review,
        "segmentation": {
            "source": pick.source,
            "network_evaluations": pick.evaluations,
            "signals": {k: round(float(v), 4) for k, v in pick.signals.items()},
        },
    }
