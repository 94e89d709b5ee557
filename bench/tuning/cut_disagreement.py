"""Research tool: the graph cut disagreement review cap, chosen on recorded tuning photos only.

Reads recordings made by ``bench/tuning/flag_signals.py`` with ``FLAG_SIGNALS_DUMP`` (rows ``name``, ``iou``,
``signals``; a folder of ``NNNN.npz`` with each photo's working image ``small`` and final matte ``alpha`` in the
rows' order), given as ``ROWS.json:NPZ_DIR`` pairs, a pair marked ``control`` (``ROWS.json:NPZ_DIR:control``)
holding real studio views of cars: any flag the new cap adds there is a false flag.

Main's flag is replayed as the product computes it: :func:`retouch.pick.confidence` on the recorded signals with
the backdrop-through and another-object signals recomputed on the recorded matte
(:func:`retouch.pick.with_backdrop_through`, :func:`retouch.pick.with_joined_object`), the graph cut cap off. On
the photos main leaves unflagged :func:`retouch.pick.cut.cut_backdrop` is measured once per variant of its
colour models (:func:`model_variants`: the rim's depth and the ring's width; CPU per photo with
``time.process_time``); every threshold of :data:`THRESHOLDS` is replayed on each. The operating point: the
variant and threshold flagging the most results under IoU 0.8 with at most ``--spare-good`` new results at
IoU >= 0.95 and no control photo (ties: the fewest photos flagged, then the earliest), in sample and on
product-grouped folds (:func:`bench.tuning.tune_pick.grouped_folds`, chosen on the other folds). The range of
thresholds flagging the same photos as the operating point is printed: the shipped value is its middle.

Needs OpenCV (``opencv-python-headless``). Usage: ``python -m bench.tuning.cut_disagreement
/work/rec/A.json:/work/rec/A-npz ... /work/rec/C.json:/work/rec/C-npz:control``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

from bench.tuning.backdrop_through import GOOD, choose, counts  # noqa: E402
from bench.tuning.recordings import kind, out_of_fold, recorded_photos, replayed_flag  # noqa: E402
from retouch.pick.config import SHIPPED_PICK  # noqa: E402
from retouch.pick.cut import cut_backdrop  # noqa: E402

#: Main's flag: the graph cut cap off.
MAIN = dataclasses.replace(SHIPPED_PICK, review_cut_backdrop=0.0)
#: Thresholds of ``cut_backdrop`` replayed (share of the matte; a photo is flagged at or above).
THRESHOLDS = tuple(round(0.02 + 0.0025 * k, 4) for k in range(53))


def model_variants() -> list[tuple[float, float]]:
    """``(cut_rim, cut_ring)`` pairs measured, the shipped pair first."""
    pairs = [(SHIPPED_PICK.cut_rim, SHIPPED_PICK.cut_ring)]
    pairs += [(r, g) for r in (0.04, 0.05, 0.06, 0.08) for g in (0.2, 0.3, 0.4)]
    return list(dict.fromkeys(pairs))


def flag_table(shares: np.ndarray, main: np.ndarray, thresholds: Sequence[float]) -> np.ndarray:
    """Bool (len(thresholds), photos): main's flag or ``shares`` (float (photos,), NaN where not measured) at or
    above each threshold."""
    measured = np.nan_to_num(shares, nan=-1.0)
    return np.stack([main | (measured >= t) for t in thresholds])


def same_range(table: np.ndarray, k: int, thresholds: Sequence[float]) -> tuple[float, float]:
    """Lowest and highest threshold whose flags equal row ``k``'s (the thresholds ascending, rows in their order;
    only the contiguous run around ``k``)."""
    lo = hi = k
    while lo > 0 and (table[lo - 1] == table[k]).all():
        lo -= 1
    while hi < len(thresholds) - 1 and (table[hi + 1] == table[k]).all():
        hi += 1
    return thresholds[lo], thresholds[hi]


def load(specs: Sequence[str]) -> tuple[list[dict], list[tuple[np.ndarray, np.ndarray] | None]]:
    """Rows (with ``control`` and ``main``: main's replayed flag) and, per row, the photo and matte where main
    leaves it unflagged (``None`` elsewhere), from ``ROWS.json:NPZ_DIR[:control]`` pairs."""
    rows: list[dict] = []
    photos: list[tuple[np.ndarray, np.ndarray] | None] = []
    for r, control, small, alpha in recorded_photos(specs):
        main_flag = replayed_flag(small, alpha, r["signals"], config=MAIN)
        rows.append({"name": r["name"], "iou": r["iou"], "control": control, "main": main_flag})
        photos.append(None if main_flag else (small, alpha))
    return rows, photos


def measure(
    photos: Sequence[tuple[np.ndarray, np.ndarray] | None], rim: float, ring: float
) -> tuple[np.ndarray, list[float]]:
    """``cut_backdrop`` per photo (NaN where ``None``) with the given rim and ring, and the CPU seconds each took."""
    config = dataclasses.replace(SHIPPED_PICK, cut_rim=rim, cut_ring=ring)
    shares = np.full(len(photos), np.nan)
    cpu: list[float] = []
    for j, p in enumerate(photos):
        if p is None:
            continue
        t = time.process_time()
        shares[j] = cut_backdrop(p[0], p[1], config=config)
        cpu.append(time.process_time() - t)
    return shares, cpu


def main(argv: list[str] | None = None) -> int:
    """Measure, replay, print main's and the new flag's counts in sample and out of fold."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recordings", nargs="+", help="ROWS.json:NPZ_DIR[:control]")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--spare-good", type=int, default=1, help="new good results allowed at the choice")
    parser.add_argument(
        "--main-flags", nargs="*", default=(), help="JSON lists of rows with 'flag' to check main"
    )
    args = parser.parse_args(argv)
    rows, photos = load(args.recordings)
    main_flags = np.array([r["main"] for r in rows])
    if args.main_flags:
        given = [bool(x["flag"]) for p in args.main_flags for x in json.loads(Path(p).read_text())]
        print("main's replayed flag equals the given flags:", given == list(main_flags))
    print(f"{len(rows)} photos, {sum(p is not None for p in photos)} left unflagged by main")
    print("main:", counts(rows, main_flags))
    iou = np.array([r["iou"] for r in rows])
    variants = model_variants()
    tables, shares_of = [], []
    for rim, ring in variants:
        shares, cpu = measure(photos, rim, ring)
        ms = 1000 * np.array(cpu)
        print(
            f"rim {rim} ring {ring}: CPU median {np.median(ms):.1f} ms, p90 {np.percentile(ms, 90):.1f} ms, "
            f"max {ms.max():.1f} ms"
        )
        tables.append(flag_table(shares, main_flags, THRESHOLDS))
        shares_of.append(shares)
    table = np.concatenate(tables)
    described = [(rim, ring, t) for rim, ring in variants for t in THRESHOLDS]
    v = choose(rows, table, main_flags, np.ones(len(rows), bool), args.spare_good)
    rim, ring, thr = described[v]
    k = v % len(THRESHOLDS)
    lo, hi = same_range(tables[v // len(THRESHOLDS)], k, THRESHOLDS)
    print(f"operating point in sample: rim {rim} ring {ring} threshold {thr} (same photos {lo}-{hi}):")
    print("  ", counts(rows, table[v]))
    for r, s, m, x in zip(rows, table[v], main_flags, shares_of[v // len(THRESHOLDS)], strict=True):
        if s and not m:
            print(f"  newly flagged: {r['name']} (IoU {r['iou']:.3f}, cut_backdrop {x:.4f})")
    ctl = np.array([r["control"] for r in rows])
    for (rim_, ring_), shares, sub in zip(variants, shares_of, tables, strict=True):
        best = choose(rows, sub, main_flags, np.ones(len(rows), bool), args.spare_good)
        print(
            f"  rim {rim_} ring {ring_}: best threshold {THRESHOLDS[best]} {counts(rows, sub[best])}; highest "
            f"control {np.nanmax(np.where(ctl, shares, np.nan)):.4f}, highest good "
            f"{np.nanmax(np.where(~ctl & (iou >= GOOD), shares, np.nan)):.4f}"
        )
    oof, chosen = out_of_fold(
        rows, table, args.folds, lambda use: choose(rows, table, main_flags, use, args.spare_good)
    )
    for f, vf in enumerate(chosen):
        print(f"  fold {f}: rim {described[vf][0]} ring {described[vf][1]} threshold {described[vf][2]}")
    print("out of fold:", counts(rows, oof))
    for r, o, m in zip(rows, oof, main_flags, strict=True):
        if o and not m:
            tag = kind(r)
            print(f"  newly flagged out of fold: {r['name']} (IoU {r['iou']:.3f}) {tag}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
