"""The product's matte at the working resolution: the pick, the refinement, the guard, the openings, the review.

:func:`product_matte` is steps 3-7 of ``docs/retouch.md``; :func:`retouch.pipeline.retouch` calls it with the
configuration it was given (no default below it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .matte import refine_matte
from .models import NetworkConfig
from .openings import OpeningsConfig, clear_openings
from .pick import (
    Pick,
    PickConfig,
    clear_backdrop_pieces,
    frame_sides,
    guard,
    pick_product,
    refocus_fallback,
    with_backdrop_busy,
    with_backdrop_through,
    with_cut_disagreement,
    with_joined_object,
    with_second_opinion,
)

__all__ = ["MatteObserver", "product_matte"]

#: ``observe(small, alpha, pick)`` of :func:`retouch.retouch`: sees the working-resolution photo, its final matte and
#: the pick before the confidence is computed (research tools record candidate signals in ``pick.signals``).
MatteObserver = Callable[[np.ndarray, np.ndarray, Pick], None]


def product_matte(
    small: np.ndarray,
    model_name: str,
    *,
    pick_config: PickConfig,
    network: NetworkConfig,
    openings: OpeningsConfig | None,
    **kw: Any,
) -> tuple[np.ndarray, str | None, Pick]:
    """The product's refined alpha matte at the working resolution: pick, refinement, guard, refocus.

    :func:`retouch.pick.pick_product` -> :func:`retouch.matte.refine_matte` -> :func:`retouch.pick.guard`
    (never much less than plain rembg); after a fallback, :func:`retouch.pick.refocus_fallback` may find
    the product inside the safe mask, whose crop mask is then refined and used; then the background seen
    through the product's openings is cleared (:func:`retouch.openings.clear_openings`, then the large
    backdrop-coloured pieces a graph cut gives to the backdrop: :func:`retouch.pick.cut.clear_backdrop_pieces`, the
    signal ``cut_cleared``); a small product's result
    the confidence would not flag gets a second opinion (:func:`retouch.pick.with_second_opinion`; a large one too
    where its first mask was half-confident); a result still unflagged is checked for a region that continues the
    backdrop through the product (:func:`retouch.pick.with_backdrop_through`, the signal ``through``), and one
    still unflagged for another object in the matte (:func:`retouch.pick.with_joined_object`, the signals
    ``frame_join`` and ``blurred_outline``), and one still unflagged for a graph cut that gives part of the matte
    to the backdrop (:func:`retouch.pick.with_cut_disagreement`, the signal ``cut_backdrop``), and one still
    unflagged with a confidence under :attr:`~retouch.pick.PickConfig.review_below_busy` for a busy backdrop
    (:func:`retouch.pick.with_backdrop_busy`, the signal ``backdrop_busy``).

    Args:
        small: uint8 (H, W, 3) sRGB photo at the working resolution.
        model_name: rembg model.
        pick_config: the pick's thresholds and switches (:class:`retouch.pick.PickConfig`).
        network: where the model files are, which copy runs the 256 px passes
            (:class:`retouch.models.NetworkConfig`).
        openings: constants of the openings step; ``None`` skips it (before/after measurements).
        **kw: passed to :func:`retouch.matte.refine_matte`.

    Returns:
        ``(alpha, fell_back, pick)``: float32 (H, W) matte in [0, 1]; the guard's reason (``"empty"``,
        ``"disagree"``) when the matte is its fallback, else ``None``; the :class:`retouch.pick.Pick`
        with its signals.
    """
    pick = pick_product(small, model_name, config=pick_config, network=network)
    coarse = pick.mask
    alpha, fell_back = guard(small, refine_matte(small, coarse, **kw), pick, config=pick_config)
    if fell_back is not None:
        coarse = pick.safe if pick.safe is not None else alpha
        refocused = refocus_fallback(small, alpha, pick, model_name, config=pick_config, network=network)
        if refocused is not None:
            alpha, fell_back, coarse = refine_matte(small, refocused, **kw), None, refocused
    cut_share: float | None = None
    if openings is not None:
        found = clear_openings(small, alpha, coarse, openings)
        pick.signals.update(found.signals())
        alpha, pick.signals["cut_cleared"], cut_share = clear_backdrop_pieces(
            small, found.alpha, config=pick_config
        )
        if pick.signals["cut_cleared"] > 0:
            cut_share = None  # the matte changed: the review cap measures the cut again
    pick.signals["frame_sides"] = frame_sides(alpha, config=pick_config)
    pick = with_second_opinion(small, alpha, pick, model_name, config=pick_config, network=network)
    pick = with_backdrop_through(small, alpha, pick, config=pick_config)
    pick = with_joined_object(small, alpha, pick, config=pick_config)
    pick = with_cut_disagreement(small, alpha, pick, config=pick_config, measured=cut_share)
    pick = with_backdrop_busy(small, alpha, pick, config=pick_config)
    return alpha, fell_back, pick
