"""The product pick: the first network pass, the doubt test and the second look.

U^2-Net answers "what is salient". In a product photo that is usually the product, but a large,
soft-focus object behind it (a cup and saucer under a banana, a sofa behind a lamp) can win, and then
the whole blob is kept. The product a seller photographs is the *sharp*, in-focus object.
:func:`pick_product` runs the network once at :data:`retouch.segment.NETWORK_INPUT_PX` (256 px) and:

1. measures cheap signals on that mask (:func:`retouch.pick.signals.mask_signals`);
2. when those signals raise a doubt (:func:`in_doubt`), and only then, runs the network again at 320 px
   (rembg's own size) and at 320 px on the mirrored photo (two more evaluations) and keeps the candidate
   masks whose outline follows in-focus edges about as well as the best one, averaged: a mask that
   swallowed a soft-focus object has a long blurred stretch of outline and is dropped; candidates that
   are equally sharp are averaged (test-time augmentation over sizes and mirroring), the safe choice
   when the evidence does not separate them;
3. when they raise none but the product is small in the frame, runs it once more on a crop around the
   product (:func:`retouch.pick.crops.zoom`); a kept mask that fails the focus test is looked at again
   on its in-focus part (:func:`retouch.pick.crops.refocus`).

:func:`retouch.pick.guard` then makes sure the refined result is never much less than plain rembg, and
:func:`retouch.pick.confidence` turns the signals into a confidence and a review flag.
"""

from __future__ import annotations

import numpy as np

from ..models import NetworkConfig
from ..segment import DEFAULT_MODEL, NETWORK_INPUT_PX, U2NET_FAMILY, predict_mask
from .config import PickConfig
from .crops import ZOOM_SOURCE, focus_crop, refocus, wants_zoom, zoom
from .signals import Pick, edge_sharpness, iou, luma, mask_signals, sharpness_near, with_focus

__all__ = ["in_doubt", "pick_product"]


def in_doubt(signals: dict[str, float], *, config: PickConfig) -> bool:
    """The cheap doubt test on the first mask: is a second look worth its network evaluations?

    True when the mask's outline is mostly blurred (:attr:`~PickConfig.doubt_sharp`), it covers much of the frame
    (:attr:`~PickConfig.doubt_area`) or of its border (:attr:`~PickConfig.doubt_border`), it falls into several large parts
    (:attr:`~PickConfig.doubt_components`) or into none (the network found almost nothing: no part reaches 0.5 % of
    the frame, the held-out composites' empty-matte failure mode).

    A trigger on half-confident masks (``uncertain`` > 0.2, ``bench/tuning/tune_guard.py``) was tried on the
    tuning data (80 photos): it sends 29 instead of 15 of them to the second look for one
    photo fewer more than 0.05 IoU below rembg (at a value on the threshold) and a lower mean IoU, and on
    ``make bench-speed``'s 53 photos it would send 11 instead of 3 (~15 % more CPU, under the 1.5x target);
    it is not used.
    """
    return (
        signals["sharp"] < config.doubt_sharp
        or signals["area"] > config.doubt_area
        or signals["border"] > config.doubt_border
        or signals["components"] >= config.doubt_components
        or signals["components"] < 1
    )


def pick_product(
    small: np.ndarray,
    model_name: str = DEFAULT_MODEL,
    *,
    force: bool = False,
    config: PickConfig,
    network: NetworkConfig,
) -> Pick:
    """Network mask of the product at the working resolution, with a second look when in doubt.

    Args:
        small: uint8 (H, W, 3) sRGB photo at the working resolution.
        model_name: rembg model; the multi-size look needs a :data:`retouch.segment.U2NET_FAMILY` model
            (others get their single native-size mask).
        force: run the second look whatever the doubt test says (benchmarks, tuning).
        config: the pick's thresholds and switches.
        network: where the model files are and which copy runs the 256 px passes
            (:func:`retouch.segment.predict_mask`).

    Returns:
        :class:`Pick`. ``signals`` holds the chosen mask's signals (:func:`mask_signals`), ``doubt``
        (0/1), ``zoom`` (1.0 when the zoomed mask was chosen), ``first_sharp`` (the 256 px mask's sharp
        share), ``focus`` (the kept mask's focus contrast, capped at 99), ``agreement`` (the lowest IoU
        at 0.5 between the 256 px, 320 px and mirrored 320 px masks; 1.0 when the second look did not
        run) and ``sharp_gain`` (sharp share of the chosen mask minus the first's).

    Raises:
        as :func:`retouch.segment.predict_mask`.
    """
    first = predict_mask(small, model_name, network=network)
    grey = luma(small)
    # the first mask's outline is all the doubt test looks at: sharpness around its box only
    ratio, contrast = sharpness_near(grey, first >= 0.5)
    sig = mask_signals(first, ratio, contrast, config=config)
    doubt = in_doubt(sig, config=config)
    signals: dict[str, float] = {
        **sig,
        "doubt": float(doubt),
        "first_sharp": sig["sharp"],
        "agreement": 1.0,
        "sharp_gain": 0.0,
    }
    if not ((doubt and config.second_look) or force) or model_name not in U2NET_FAMILY:
        pick = Pick(first, str(NETWORK_INPUT_PX), 1, signals, first=first)
        if model_name in U2NET_FAMILY and wants_zoom(sig, config=config):
            mask = zoom(small, first, model_name, config=config, network=network)
            if mask is not None:
                ratio, contrast = sharpness_near(grey, mask >= 0.5)
                signals.update(mask_signals(mask, ratio, contrast, config=config))
                signals["zoom"] = 1.0
                pick = Pick(mask, ZOOM_SOURCE, 2, signals, first=first)
        pick = with_focus(pick, grey, config=config)
        if model_name in U2NET_FAMILY and config.refocus and pick.signals["focus"] < config.refocus_below:
            pick = refocus(small, grey, pick, model_name, config=config, network=network)
        return pick
    return _second_look(small, grey, first, sig, signals, model_name, config, network)


def _second_look(
    small: np.ndarray,
    grey: np.ndarray,
    first: np.ndarray,
    sig: dict[str, float],
    signals: dict[str, float],
    model_name: str,
    config: PickConfig,
    network: NetworkConfig,
) -> Pick:
    """:func:`pick_product` on a doubtful photo: the 320 px candidates, the in-focus crop, the average of
    the sharpest ones (``first`` and ``sig``: the 256 px mask and its signals; ``signals``: the pick's
    signals so far, updated)."""
    ratio, contrast = edge_sharpness(grey)  # the other candidates may reach anywhere
    # the 320 px passes shrink the photo as rembg does (Lanczos): ``alt`` is plain rembg's own mask
    alt_px = config.alt_input_px
    alt = predict_mask(small, model_name, alt_px, lanczos=True, network=network)
    mirrored = np.ascontiguousarray(small[:, ::-1])
    flipped = predict_mask(mirrored, model_name, alt_px, lanczos=True, network=network)[:, ::-1]
    first_key, alt_key, flip_key = str(NETWORK_INPUT_PX), str(alt_px), f"{alt_px}-flip"
    candidates = {first_key: first, alt_key: alt, flip_key: np.ascontiguousarray(flipped)}
    scores = {first_key: sig} | {
        k: mask_signals(candidates[k], ratio, contrast, config=config) for k in (alt_key, flip_key)
    }
    binary = {k: m >= 0.5 for k, m in candidates.items()}
    # a size at which the network found (almost) nothing is no candidate: averaging it in would halve the
    # product's mask (and the refinement would then empty it)
    for k in sorted(
        (k for k in candidates if scores[k]["area"] < config.min_area), key=lambda k: scores[k]["area"]
    ):
        if len(candidates) > 1:
            del candidates[k]
    # every candidate whose outline is about as sharp as the sharpest one is kept and they are averaged
    # (test-time augmentation over sizes and mirroring); a candidate clearly blurrier along its outline
    # (it swallowed a soft-focus object) is dropped
    best = max(scores[k]["sharp"] for k in candidates)
    evaluations = 3
    if best < config.doubt_sharp:
        # every mask swallowed something soft: look again at the in-focus part only
        crop = focus_crop(small, candidates, ratio, contrast, config=config)
        if crop is not None:
            evaluations += 1
            x0, y0, x1, y1 = crop
            inner = np.zeros_like(first)
            inner[y0:y1, x0:x1] = predict_mask(
                np.ascontiguousarray(small[y0:y1, x0:x1]), model_name, alt_px, network=network
            )
            candidates["crop"] = inner
            scores["crop"] = mask_signals(inner, ratio, contrast, config=config)
            binary["crop"] = inner >= 0.5
            if scores["crop"]["area"] < config.min_area:
                del candidates["crop"], scores["crop"], binary["crop"]
            best = max(scores[k]["sharp"] for k in candidates)
    members = [k for k in candidates if scores[k]["sharp"] >= best - config.pick_margin]
    key = "+".join(members)
    mask = candidates[members[0]] if len(members) == 1 else np.mean([candidates[k] for k in members], axis=0)
    mask = mask.astype(np.float32, copy=False)
    chosen = scores[members[0]] if len(members) == 1 else mask_signals(mask, ratio, contrast, config=config)
    signals.update(chosen)
    signals.update(
        first_sharp=sig["sharp"],
        agreement=min(
            iou(binary[a], binary[b])
            for a, b in ((first_key, alt_key), (alt_key, flip_key), (first_key, flip_key))
        ),
        sharp_gain=chosen["sharp"] - sig["sharp"],
        safe_sharp=scores[alt_key]["sharp"],
    )
    return with_focus(Pick(mask, key, evaluations, signals, safe=alt, first=first), grey, config=config)
