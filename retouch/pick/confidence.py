"""How sure we are that the matte holds the product, and whether a designer should check it."""

from __future__ import annotations

import math
from typing import Any

from .config import SHIPPED_PICK, PickConfig
from .signals import Pick

__all__ = ["confidence", "details"]


def confidence(signals: dict[str, float], *, config: PickConfig = SHIPPED_PICK) -> tuple[float, bool]:
    """Confidence that the matte is right (IoU >= 0.95 rather than under 0.8 against a careful hand mask), and the
    review flag.

    A logistic model (:attr:`PickConfig.confidence_weights`, fitted by ``bench/tuning/tune_pick.py`` on the tuning
    GT fold, tuning composites and tuning see-through photos) over signals of the pick
    (:func:`retouch.pick.mask_signals`: half-confident share, measurable outline, area, frame border, agreement of
    the passes; :func:`retouch.pick.focus_contrast`) and of the openings step
    (:meth:`retouch.openings.Openings.signals`: share of the matte whose colour the background explains, openings
    cut, openings left in doubt), each capped at its :attr:`~PickConfig.confidence_clip` bound; a missing signal
    reads as 0 (``focus``: as its bound). The result is capped at :attr:`~PickConfig.fallback_confidence` (so
    flagged) where the guard fell back to the safe mask and where the kept mask is smoother inside than around
    it (``focus`` below :attr:`~PickConfig.review_focus`).

    Args:
        signals: :attr:`Pick.signals`.
        config: the weights and thresholds.

    Returns:
        ``(confidence in [0, 1] rounded to 3 decimals, needs_review)``.
    """
    weights, clip = config.confidence_weights, config.confidence_clip
    z = weights.get("bias", 0.0)
    for k, wgt in weights.items():
        if k != "bias":
            # a missing focus is no focus doubt (as in the focus cap below): it reads as its bound
            v = float(signals.get(k, clip.get(k, 0.0) if k == "focus" else 0.0))
            z += wgt * (min(v, clip[k]) if k in clip else v)
    c = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
    if signals.get("fallback", 0.0) >= 0.5:  # our own matte was given up for the safe mask: doubtful
        c = min(c, config.fallback_confidence)
    if (
        signals.get("focus", math.inf) < config.review_focus
    ):  # the kept mask is a soft object among sharp ones
        c = min(c, config.fallback_confidence)
    return round(c, 3), bool(c < config.review_below)


def details(pick: Pick, *, config: PickConfig = SHIPPED_PICK) -> dict[str, Any]:
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
