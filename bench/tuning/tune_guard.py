"""Tuning of the doubt test's new triggers and of the safe-mask guard (``retouch.pick.guard``), tuning data only.

Reads the tuning GT fold and tuning composites (``validation_sets/composites.py``) made from tuning-fold products with
:data:`validation_sets.composites.TUNE_SEED` and, with ``--extra-seeds``, further seeds that are not
:data:`validation_sets.composites.HOLDOUT_SEED`; never the held-out data. For every photo, at the working resolution, it
records the first (256 px) mask's signals and the IoU against the ground truth of: the single-pass matte, the
matte of the forced second look, plain rembg's 320 px mask (raw, the baseline) and the guard's fallback (that
mask itself; the refined one is recorded too). The guard's inputs (our matte's IoU with rembg's mask,
outline sharpness of both, areas) are recorded too, so every combination of a threshold on ``uncertain`` (tried, not used), ``PickConfig.empty_share``,
``disagree_iou`` and ``decisive_sharp`` can be scored offline: mean IoU,
photos more than 0.05 IoU below rembg, and how many photos pay for the second look.

Usage: ``python -m bench.tuning.tune_guard [--composites N] [--extra-seeds S ...] [--rows rows.json] [--small-area]``
(default seeds 1, 3, 4 and 5: 20 GT + 120 composites; ``--small-area`` prints only the table of a
small-product doubt trigger, ``simulate(small_area=...)``).

The small-product trigger (a first mask covering less than ``small_area`` of the frame takes the second
look) was tried (the doubt test and guard record in ``docs/decisions/``): on the 140 tuning photos 0.04
looked best (photos more than 0.05 IoU below rembg 6 -> 3, mean IoU 0.9052 -> 0.9114), but on the held-out composites it turned one good first pass
(a memorial in front of a large blurred object, IoU 0.919) into rembg's wrong mask (0.147) through the
guard's fallback, lowering their mean IoU from 0.839 to 0.808; the held-out GT fold did not change. It is
not used.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench._common import GT, list_images, require_photos, setup
else:
    from .._common import GT, list_images, require_photos, setup

setup()

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402


def _iou(a: np.ndarray, b: np.ndarray, valid: np.ndarray) -> float:
    a, b = a[valid], b[valid]
    union = int((a | b).sum())
    return 1.0 if union == 0 else int((a & b).sum()) / union


def _inputs(n: int, seeds: list[int]) -> Iterator[tuple[str, bytes, np.ndarray]]:
    """(name, file bytes, GT mask) of the tuning GT fold, then ``n`` tuning composites per seed (lazily)."""
    from validation_sets.composites import HOLDOUT_SEED, composites, gt_folds, make_composite

    tune = set(gt_folds()["tune"])
    for p in list_images(GT / "images"):
        if p.stem in tune:
            yield p.stem, p.read_bytes(), np.asarray(Image.open(GT / "masks" / f"{p.stem}.png").convert("L"))
    for seed in seeds:
        if seed == HOLDOUT_SEED:
            raise SystemExit(f"seed {seed} is the held-out seed")
        for stem, i, kind in composites("tune", n, seed):
            c = make_composite(stem, seed, i, kind)
            yield c.name, c.data, c.gt


def record(name: str, data: bytes, gt: np.ndarray) -> dict[str, float | str]:
    """One photo's row (see the module docstring)."""
    from retouch.decode import decode_image
    from retouch.matte import refine_matte
    from retouch.models import DEFAULT_NETWORK
    from retouch.pick import SHIPPED_PICK, mask_signals, pick_product
    from retouch.pipeline import _resize, _working_size

    rgb = decode_image(data).rgb
    h, w = rgb.shape[:2]
    ww, wh = _working_size(w, h)
    small = rgb if (ww, wh) == (w, h) else _resize(rgb, (ww, wh), Image.Resampling.BILINEAR)
    g = np.asarray(Image.fromarray(gt).resize((ww, wh), Image.Resampling.NEAREST))
    valid, gb = g != 128, g >= 128
    forced = pick_product(
        small, force=True, config=SHIPPED_PICK, network=DEFAULT_NETWORK
    )  # the second look, whatever the doubt test says
    assert forced.safe is not None and forced.first is not None
    first_sig = mask_signals(
        forced.first, *_sharp(small), config=SHIPPED_PICK
    )  # what the doubt test looks at
    first_alpha = refine_matte(small, forced.first)
    look_alpha = refine_matte(small, forced.mask)
    safe = forced.safe
    safe_b = safe >= 0.5
    refined_safe = refine_matte(small, safe, ghosts=False, trapped=False)  # a fallback tried and left out
    sig = {
        k: float(v)
        for k, v in first_sig.items()
        if k in ("sharp", "area", "border", "components", "uncertain")
    }
    look_b = look_alpha >= 0.5
    valid_all = np.ones_like(valid)
    return {
        "name": name,
        **{f"first_{k}": v for k, v in sig.items()},
        "iou_first": _iou(first_alpha >= 0.5, gb, valid),
        "iou_look": _iou(look_b, gb, valid),
        "iou_rembg": _iou(safe_b, gb, valid),
        "iou_fallback": _iou(safe_b, gb, valid),  # the guard falls back to rembg's mask as it is
        "iou_fallback_refined": _iou(refined_safe >= 0.5, gb, valid),
        "iou_first_fallback": _iou(forced.first >= 0.5, gb, valid),
        "look_safe_iou": _iou(look_b, safe_b, valid_all),
        "look_area": float(look_b.mean()),
        "first_alpha_area": float((first_alpha >= 0.5).mean()),
        "first_mask_area": float((forced.first >= 0.5).mean()),
        "safe_area": float(safe_b.mean()),
        "look_sharp": float(forced.signals["sharp"]),
        "safe_sharp": float(forced.signals["safe_sharp"]),
        "source": forced.source,
    }


def _sharp(small: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    from retouch.pick import edge_sharpness
    from retouch.pick.signals import luma

    return edge_sharpness(luma(small))


def simulate(
    rows: list[dict],
    uncertain: float,
    empty: float,
    disagree: float,
    decisive: float,
    small_area: float = 0.0,
) -> dict[str, float]:
    """Score one parameter combination on recorded rows (same rules as ``retouch.pick``).

    ``small_area`` > 0 adds a doubt trigger that ``retouch.pick`` does not have: a first mask covering less
    than that share of the frame (a small product) takes the second look. Tried and rejected (see the
    module docstring and ``--small-area``).
    """
    from retouch.pick import SHIPPED_PICK as P

    ious, below, looks, fallbacks = [], 0, 0, 0
    for r in rows:
        doubt = (
            r["first_sharp"] < P.doubt_sharp
            or r["first_area"] > P.doubt_area
            or r["first_area"] < small_area
            or r["first_border"] > P.doubt_border
            or r["first_components"] >= P.doubt_components
            or r["first_components"] < 1
            or r["first_uncertain"] > uncertain
        )
        if doubt:
            looks += 1
            iou = r["iou_look"]
            if r["safe_area"] >= P.min_area and (
                r["look_area"] < empty * r["safe_area"]
                or (r["look_safe_iou"] < disagree and r["look_sharp"] - r["safe_sharp"] < decisive)
            ):
                iou = r["iou_fallback"]
                fallbacks += 1
        else:
            iou = r["iou_first"]
            if r["first_mask_area"] >= P.min_area and r["first_alpha_area"] < empty * r["first_mask_area"]:
                iou = r["iou_first_fallback"]
                fallbacks += 1
        ious.append(iou)
        below += iou < r["iou_rembg"] - 0.05
    return {"mean": float(np.mean(ious)), "below": below, "looks": looks, "fallbacks": fallbacks}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--composites", type=int, default=30, help="tuning composites per seed")
    parser.add_argument("--extra-seeds", type=int, nargs="*", default=[3, 4, 5], help="more tuning seeds")
    parser.add_argument(
        "--small-area",
        action="store_true",
        help="print the table of a small-product doubt trigger (not used) with the guard as configured",
    )
    parser.add_argument("--rows", default=None, help="read/write the recorded rows here (JSON)")
    args = parser.parse_args(argv)
    require_photos()
    from validation_sets.composites import TUNE_SEED

    rows: list[dict]
    if args.rows and Path(args.rows).is_file():
        rows = json.loads(Path(args.rows).read_text())
    else:
        rows = []
        for name, data, gt in _inputs(args.composites, [TUNE_SEED, *args.extra_seeds]):
            rows.append(record(name, data, gt))
            r = rows[-1]
            print(
                f"  {name}: first {r['iou_first']:.3f} look {r['iou_look']:.3f} rembg {r['iou_rembg']:.3f} "
                f"fallback {r['iou_fallback']:.3f} look/rembg {r['look_safe_iou']:.3f} "
                f"sharp {r['look_sharp']:.2f}/{r['safe_sharp']:.2f} unc {r['first_uncertain']:.2f}",
                file=sys.stderr,
                flush=True,
            )
        if args.rows:
            Path(args.rows).write_text(json.dumps(rows))
    print(f"{len(rows)} tuning photos; rembg 320 px mean IoU {np.mean([r['iou_rembg'] for r in rows]):.4f}")
    if args.small_area:
        from retouch.pick import SHIPPED_PICK as P

        print("small-area | mean IoU  below  looks  fallbacks")
        for a in (0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08):
            m = simulate(rows, 9.0, P.empty_share, P.disagree_iou, P.decisive_sharp, small_area=a)
            print(f"{a:10.2f} | {m['mean']:.4f}  {m['below']:5d}  {m['looks']:5d}  {m['fallbacks']:9d}")
        return 0
    print("uncertain empty disagree decisive | mean IoU  below  looks  fallbacks")
    for u, e, d, s in itertools.product(
        (0.2, 0.3, 0.5, 9.0), (0.0, 0.05, 0.1), (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 1.01), (0.1, 0.15, 0.3)
    ):
        m = simulate(rows, u, e, d, s)
        print(
            f"{u:9.2f} {e:5.2f} {d:8.2f} {s:8.2f} | {m['mean']:.4f}  {m['below']:5d}  {m['looks']:5d}  {m['fallbacks']:9d}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
