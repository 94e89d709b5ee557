"""The mirrored 256 px pass as a second opinion on the first mask, measured on tuning data only.

Why it exists. On real studio car photos the first (int8, 256 px) pass joins the studio wall's large
"CARVANA" letters behind the roof to the car, half-confident but touching it (``bench/README.md``, "A fifth
set"). Run on the mirrored photo, the same network mostly does not. This script measures what that second
opinion gives through the whole refinement (:func:`retouch.pipeline.product_matte`) and what it costs. It
chose the rule and trigger (:func:`retouch.pick.second_opinion`, :data:`retouch.pick.MIRROR_SHARE` 0.05) that
``bench/confirm_mirror.py`` then tried on fresh composites; by its rule the pass is off (``MIRROR_SHARE`` inf).

For every tuning photo (the GT tuning fold, ``--composites`` tuning composites of each ``--seeds`` seed, never
the held-out seed; and, with ``--gt-dir``, a folder of real photos with masks) it computes the matte without
the mirrored pass and with the first mask replaced by a combination with its mirrored pass (:data:`RULES`):

* ``min``: the lower of the two masks everywhere;
* ``lower``: the mirrored mask may only lower pixels the first mask holds below
  :data:`retouch.pick.MIRROR_KEEP` (confident product pixels are left alone);
* ``lower-defer``: ``lower``, but a small product that the zoom looks at again gets the mirrored pass
  only when the zoom gives no mask (:data:`retouch.pick.MIRROR_DEFER_SMALL`);
* ``sureB-defer`` (B = 0.1, 0.2, 0.3): ``lower-defer``, lowering only where the mirrored mask is below B.

A rule applied only when the first mask's *wide half-confident share* (:func:`retouch.pick.wide_half_confident_share`) is
above a trigger gives, for that photo, either the rule's matte or the one without the pass (the pipeline is
deterministic given the first mask), so each trigger in ``--triggers`` is scored from the same runs. Printed per
set: mean IoU with the hand mask at the working resolution, the photos more than 0.05 IoU below plain rembg
(its 320 px mask, computed as rembg computes it), and how many photos pay for the extra pass; then how many of
the 53 photos of ``make bench-speed`` each rule and trigger would send to it (each is one more int8 evaluation,
~0.09 s on one core).

Usage: ``python -m bench.tune_mirror [--composites 30] [--seeds 1 3 4 5] [--triggers -1 0.02 0.05 0.08]
[--gt-dir DIR] [--rules NAME ...]`` (trigger -1 = every photo; ~5 min with the defaults, 7 min with the 144 car views of the lead).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench._common import PHOTOS, list_images, print_table, require_photos, setup
else:
    from ._common import PHOTOS, list_images, print_table, require_photos, setup

setup()

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from retouch.pick import second_opinion  # noqa: E402


def _min(first: np.ndarray, mirrored: np.ndarray) -> np.ndarray:
    return np.minimum(first, mirrored)


#: Ways to combine the first mask with the mirrored one: float32 (H, W) in [0, 1] -> the same. ``lower`` and
#: ``lower-defer`` are :func:`retouch.pick.second_opinion` (the latter with
#: :data:`retouch.pick.MIRROR_DEFER_SMALL`), switched off in the pipeline (``bench/confirm_mirror.py``).
def _lower_where_sure(background_below: float) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``lower``, but only where the mirrored pass is sure of background (below ``background_below``): a part the
    mirrored pass is merely unsure of keeps the first mask's value."""

    def rule(first: np.ndarray, mirrored: np.ndarray) -> np.ndarray:
        from retouch.pick import MIRROR_KEEP

        lowered = (first < MIRROR_KEEP) & (mirrored < background_below)
        return np.where(lowered, np.minimum(first, mirrored), first).astype(np.float32)

    return rule


RULES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "min": _min,
    "lower": second_opinion,
    "lower-defer": second_opinion,
    **{f"sure{b:g}-defer": _lower_where_sure(b) for b in (0.1, 0.2, 0.3)},
}


@contextmanager
def first_pass_rule(rule: str | None, trigger: float = -1.0) -> Iterator[None]:
    """Within the block, :func:`retouch.pick.pick_product` runs the mirrored 256 px pass on every photo whose
    first mask's share is above ``trigger`` (default -1: every photo; deferred for small products with the
    ``-defer`` rules) and combines it with the first mask by ``RULES[rule]``; with ``rule`` ``None`` it never
    runs it (as shipped). With a rule, the first mask's share is in the pick's signals (``mirror_share``), and
    ``mirror`` says whether the pass ran.
    """
    import retouch.pick as pick_module

    saved = pick_module.MIRROR_SHARE, pick_module.second_opinion, pick_module.MIRROR_DEFER_SMALL
    pick_module.MIRROR_SHARE = math.inf if rule is None else trigger
    pick_module.MIRROR_DEFER_SMALL = rule is not None and rule.endswith("-defer")
    if rule is not None:
        pick_module.second_opinion = RULES[rule]  # type: ignore[assignment]
    try:
        yield
    finally:
        pick_module.MIRROR_SHARE, pick_module.second_opinion, pick_module.MIRROR_DEFER_SMALL = saved


def _measure(data: bytes, gt: np.ndarray, rules: list[str]) -> dict[str, float]:
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
    for rule in (None, *rules):
        with first_pass_rule(rule):
            alpha, _, pick = product_matte(small)
        row[rule or "off"] = _iou(alpha >= 0.5, truth, valid)
        if rule is not None:  # the pass is asked for on every photo: the first mask's share is in the signals
            row[f"{rule}_ran"] = pick.signals["mirror"]
            row["share"] = pick.signals["mirror_share"]
    return row


def _speed_photo_passes(rules: list[str]) -> dict[str, list[tuple[float, bool]]]:
    """For each rule, each ``make bench-speed`` photo's (first mask's ``mirror_share``, whether
    the mirrored pass ran when asked for on every photo): a trigger t sends the photos with share > t that ran."""
    from retouch.decode import decode_image
    from retouch.pick import pick_product
    from retouch.pipeline import _resize, _working_size

    paths = list_images(PHOTOS / "gt" / "images")
    if (PHOTOS / "nomask").is_dir():
        paths += list_images(PHOTOS / "nomask")
    smalls = []
    for p in paths:
        rgb = decode_image(p.read_bytes()).rgb
        smalls.append(_resize(rgb, _working_size(rgb.shape[1], rgb.shape[0]), Image.Resampling.BILINEAR))
    passes: dict[str, list[tuple[float, bool]]] = {}
    for rule in rules:
        with first_pass_rule(rule):
            signals = [pick_product(small).signals for small in smalls]
        passes[rule] = [(sg["mirror_share"], sg["mirror"] >= 0.5) for sg in signals]
    return passes


def main(argv: list[str] | None = None) -> int:
    """Measure every rule and trigger on the tuning photos; print one table per set."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--composites", type=int, default=30, help="tuning composites per seed")
    parser.add_argument("--seeds", type=int, nargs="*", default=[1, 3, 4, 5], help="tuning seeds")
    parser.add_argument("--triggers", type=float, nargs="*", default=[-1.0, 0.02, 0.05, 0.08])
    parser.add_argument(
        "--gt-dir", type=Path, default=None, help="also a folder of real photos (images/ + masks/)"
    )
    parser.add_argument(
        "--rules", nargs="*", choices=list(RULES), default=list(RULES), help="rules to measure"
    )
    args = parser.parse_args(argv)
    require_photos()
    from .quality import _folder_items
    from .tune_guard import _inputs as tuning_photos

    gt_tune = set(_gt_tune())
    sets: dict[str, list[dict[str, float]]] = {}
    for name, data, gt in tuning_photos(args.composites, args.seeds):
        sets.setdefault("GT tuning fold" if name in gt_tune else "tuning composites", []).append(
            _measure(data, gt, args.rules)
        )
    if args.gt_dir is not None:
        for _name, load in _folder_items(args.gt_dir):
            data, gt, _ = load()
            sets.setdefault(str(args.gt_dir), []).append(_measure(data, gt, args.rules))
    for title, rows in sets.items():
        table: list[list[object]] = [_row("no mirrored pass", None, -1.0, rows)]
        table += [_row(rule, rule, t, rows) for rule in args.rules for t in args.triggers]
        print(f"\n## {title} ({len(rows)} photos, rembg {np.mean([r['rembg'] for r in rows]):.4f})\n")
        print_table(
            ["first mask", "trigger", "mean IoU", "> 0.05 below rembg", "extra passes"], table, floatfmt=".4f"
        )
    passes = _speed_photo_passes(args.rules)
    n_speed = len(next(iter(passes.values())))
    print(f"\n## make bench-speed photos sent to the extra pass ({n_speed} photos)\n")
    print_table(
        ["trigger", *passes],
        [
            [_label(t), *(sum(share > t and ran for share, ran in rows) for rows in passes.values())]
            for t in args.triggers
        ],
    )
    return 0


def _gt_tune() -> list[str]:
    from .composites import gt_folds

    return gt_folds()["tune"]


def _label(trigger: float) -> str:
    return "every photo" if trigger < 0 else f"share > {trigger:g}"


def _row(label: str, rule: str | None, trigger: float, rows: list[dict[str, float]]) -> list[object]:
    """Table row of one rule under one trigger: the rule's IoU where the share passes the trigger."""
    fired = [rule is not None and r["share"] > trigger for r in rows]
    ious = [r[rule] if f and rule else r["off"] for r, f in zip(rows, fired, strict=True)]
    below = sum(i < r["rembg"] - 0.05 for i, r in zip(ious, rows, strict=True))
    ran = sum(r[f"{rule}_ran"] for r, f in zip(rows, fired, strict=True) if f)
    return [label, _label(trigger) if rule else "", float(np.mean(ious)), below, int(ran)]


if __name__ == "__main__":
    sys.exit(main())
