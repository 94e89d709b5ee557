"""The mirrored 256 px pass as a second opinion on the first mask: a lead, measured on tuning data only.

Why it exists. On real studio car photos the first (int8, 256 px) pass joins the studio wall's large
"CARVANA" letters behind the roof to the car, half-confident but touching it (``bench/README.md``, "A fifth
set"). Run on the mirrored photo, the same network mostly does not. This script measures what that second
opinion would give through the whole refinement (:func:`retouch.pipeline.product_matte`) and what it would
cost, so a later change can start from figures rather than from the idea. Nothing here is shipped.

For every tuning photo (the GT tuning fold, ``--composites`` tuning composites of each ``--seeds`` seed, never
the held-out seed; and, with ``--gt-dir``, a folder of real photos with masks) it computes the matte as shipped
and with the first mask replaced by a combination with its mirrored pass (:data:`RULES`):

* ``min``: the lower of the two masks everywhere;
* ``lower``: the mirrored mask may only lower pixels the first mask holds below :data:`LOWER_BELOW`
  (confident product pixels are left alone).

A rule applied only when the first mask's *wide half-confident share* (:func:`wide_half_confident_share`) is
above a trigger gives, for that photo, either the rule's matte or the shipped one (the pipeline is
deterministic given the first mask), so each trigger in ``--triggers`` is scored from the same runs. Printed per
set: mean IoU with the hand mask at the working resolution, the photos more than 0.05 IoU below plain rembg
(its 320 px mask, computed as rembg computes it), and how many photos pay for the extra pass; then how many of
the 53 photos of ``make bench-speed`` each trigger would send to it (each is one more int8 evaluation,
~0.09 s on one core).

Usage: ``python -m bench.tune_mirror [--composites 30] [--seeds 1 3 4 5] [--triggers -1 0.02 0.05 0.08]
[--gt-dir DIR]`` (trigger -1 = every photo; ~5 min with the defaults, 7 min with the 144 car views of the lead).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench._common import PHOTOS, list_images, print_table, require_photos, setup
else:
    from ._common import PHOTOS, list_images, print_table, require_photos, setup

setup()

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402
from scipy import ndimage as ndi  # noqa: E402

#: The ``lower`` rule leaves first-mask pixels at or above this alone.
LOWER_BELOW = 0.9


def _min(first: np.ndarray, mirrored: np.ndarray) -> np.ndarray:
    return np.minimum(first, mirrored)


def _lower(first: np.ndarray, mirrored: np.ndarray) -> np.ndarray:
    return np.where(first >= LOWER_BELOW, first, np.minimum(first, mirrored)).astype(np.float32)


#: Ways to combine the first mask with the mirrored one: float32 (H, W) in [0, 1] -> the same.
RULES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {"min": _min, "lower": _lower}


def wide_half_confident_share(mask: np.ndarray) -> float:
    """Share of a mask that is half-confident in wide regions, relative to its size.

    The mask is resized to 256 x 256 px (bilinear); its pixels in (0.3, 0.8) are opened with a 5 x 5 square
    (a product's own soft outline, 1-3 px wide at that size, does not survive the opening), and their count is
    divided by the count of pixels >= 0.5 (at least 1). On the tuning car views that end below rembg
    it is 0.03-0.15; a first mask with no wide half-confident region gives 0.

    Args:
        mask: float32 (H, W) in [0, 1], a network mask.

    Returns:
        the share, >= 0 (can exceed 1 when the mask is mostly half-confident).
    """
    m = np.asarray(
        Image.fromarray(mask.astype(np.float32), "F").resize((256, 256), Image.Resampling.BILINEAR)
    )
    wide = ndi.binary_opening((m > 0.3) & (m < 0.8), structure=np.ones((5, 5), dtype=bool))
    return float(wide.sum() / max(int((m >= 0.5).sum()), 1))


@contextmanager
def first_pass_rule(rule: str | None) -> Iterator[dict[str, Any]]:
    """Within the block, :func:`retouch.pick.pick_product`'s first 256 px pass returns ``RULES[rule]`` of it
    and its mirrored pass (``rule`` ``None``: the first mask as shipped); later passes (zoom, 320 px, refocus)
    are untouched. The yielded dict receives ``share``, the first mask's :func:`wide_half_confident_share`."""
    import retouch.pick as pick_module
    from retouch.segment import NETWORK_INPUT_PX

    original = pick_module.predict_mask
    state: dict[str, Any] = {"seen": False}

    def first_pass(
        rgb: np.ndarray, model_name: str = "u2netp", input_px: int | None = NETWORK_INPUT_PX, **kw: Any
    ) -> Any:
        mask = original(rgb, model_name, input_px, **kw)
        if state["seen"] or input_px != NETWORK_INPUT_PX:
            return mask
        state["seen"] = True
        state["share"] = wide_half_confident_share(mask)
        if rule is None:
            return mask
        mirrored = original(np.ascontiguousarray(rgb[:, ::-1]), model_name, input_px)[:, ::-1]
        return RULES[rule](mask, np.ascontiguousarray(mirrored))

    pick_module.predict_mask = first_pass
    try:
        yield state
    finally:
        pick_module.predict_mask = original


def _measure(data: bytes, gt: np.ndarray) -> dict[str, float]:
    """One photo: IoU (working resolution) as shipped, with each rule, and of plain rembg; the share."""
    from retouch.decode import decode_image
    from retouch.pipeline import _resize, _working_size, product_matte
    from retouch.segment import predict_mask

    from .tune_guard import _iou

    rgb = decode_image(data).rgb
    h, w = rgb.shape[:2]
    ww, wh = _working_size(w, h)
    small = _resize(rgb, (ww, wh), Image.Resampling.BILINEAR)
    g = np.asarray(Image.fromarray(gt).resize((ww, wh), Image.Resampling.NEAREST))
    valid, truth = g != 128, g >= 128
    row = {"rembg": _iou(predict_mask(small, "u2netp", 320, lanczos=True) >= 0.5, truth, valid)}
    for rule in (None, *RULES):
        with first_pass_rule(rule) as state:
            alpha, _, _ = product_matte(small)
        row[rule or "shipped"] = _iou(alpha >= 0.5, truth, valid)
        row["share"] = state["share"]
    return row


def _speed_photo_shares() -> list[float]:
    """:func:`wide_half_confident_share` of the first mask of each ``make bench-speed`` photo."""
    from retouch.decode import decode_image
    from retouch.pipeline import _resize, _working_size
    from retouch.segment import predict_mask

    paths = list_images(PHOTOS / "gt" / "images")
    if (PHOTOS / "nomask").is_dir():
        paths += list_images(PHOTOS / "nomask")
    shares = []
    for p in paths:
        rgb = decode_image(p.read_bytes()).rgb
        ww, wh = _working_size(rgb.shape[1], rgb.shape[0])
        shares.append(
            wide_half_confident_share(predict_mask(_resize(rgb, (ww, wh), Image.Resampling.BILINEAR)))
        )
    return shares


def main(argv: list[str] | None = None) -> int:
    """Measure every rule and trigger on the tuning photos; print one table per set."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--composites", type=int, default=30, help="tuning composites per seed")
    parser.add_argument("--seeds", type=int, nargs="*", default=[1, 3, 4, 5], help="tuning seeds")
    parser.add_argument("--triggers", type=float, nargs="*", default=[-1.0, 0.02, 0.05, 0.08])
    parser.add_argument(
        "--gt-dir", type=Path, default=None, help="also a folder of real photos (images/ + masks/)"
    )
    args = parser.parse_args(argv)
    require_photos()
    from .quality import _folder_items
    from .tune_guard import _inputs as tuning_photos

    gt_tune = set(_gt_tune())
    sets: dict[str, list[dict[str, float]]] = {}
    for name, data, gt in tuning_photos(args.composites, args.seeds):
        sets.setdefault("GT tuning fold" if name in gt_tune else "tuning composites", []).append(
            _measure(data, gt)
        )
    if args.gt_dir is not None:
        for _name, load in _folder_items(args.gt_dir):
            data, gt = load()
            sets.setdefault(str(args.gt_dir), []).append(_measure(data, gt))
    for title, rows in sets.items():
        table: list[list[object]] = [_row("as shipped", None, -1.0, rows)]
        table += [_row(rule, rule, t, rows) for rule in RULES for t in args.triggers]
        print(f"\n## {title} ({len(rows)} photos, rembg {np.mean([r['rembg'] for r in rows]):.4f})\n")
        print_table(
            ["first mask", "trigger", "mean IoU", "> 0.05 below rembg", "extra passes"], table, floatfmt=".4f"
        )
    shares = np.array(_speed_photo_shares())
    print(f"\n## make bench-speed photos sent to the extra pass ({shares.size} photos)\n")
    print_table(["trigger", "photos"], [[_label(t), int((shares > t).sum())] for t in args.triggers])
    return 0


def _gt_tune() -> list[str]:
    from .composites import gt_folds

    return gt_folds()["tune"]


def _label(trigger: float) -> str:
    return "every photo" if trigger < 0 else f"share > {trigger:g}"


def _row(label: str, rule: str | None, trigger: float, rows: list[dict[str, float]]) -> list[object]:
    """Table row of one rule under one trigger: the rule's IoU where the share passes the trigger."""
    fired = [rule is not None and r["share"] > trigger for r in rows]
    ious = [r[rule] if f and rule else r["shipped"] for r, f in zip(rows, fired, strict=True)]
    below = sum(i < r["rembg"] - 0.05 for i, r in zip(ious, rows, strict=True))
    return [label, _label(trigger) if rule else "", float(np.mean(ious)), below, sum(fired)]


if __name__ == "__main__":
    sys.exit(main())
