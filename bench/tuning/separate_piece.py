"""Research tool: the separate piece review cap, chosen on recorded tuning photos only.

A matte that keeps a backdrop object as a separate piece (a disc or a blob of a busy backdrop, a wheel of a car
standing behind) reads ``cut_backdrop`` 0: the piece's own rim teaches the graph cut's product model its colours.
:func:`piece_backdrop` learns the product model from the largest piece's rim alone and measures
the share of the matte in the other pieces that the cut then gives to the backdrop.

Reads recordings made by ``bench/tuning/flag_signals.py`` with ``FLAG_SIGNALS_DUMP`` as
:mod:`bench.tuning.cut_disagreement` does (``ROWS.json:NPZ_DIR[:control]`` pairs, ``control``: real studio views
of cars, where any new flag is false). Main's flag is replayed as the product computes it
(:func:`bench.tuning.recordings.replayed_flag`, graph cut cap included); on the photos
main leaves unflagged ``piece_backdrop`` is measured once (CPU per photo with ``time.process_time``, and how many
photos have a matte in pieces, the only ones that pay for the cut) and every threshold of :data:`THRESHOLDS`
replayed. The operating point: the threshold flagging the most results under IoU 0.8 with at most
``--spare-good`` new results at IoU >= 0.95 and no control photo (ties: the fewest photos flagged), in sample and on
product-grouped folds (:func:`bench.tuning.recordings.out_of_fold`, chosen on the other folds); the range of
thresholds flagging the same failures, good results and controls is printed: the candidate value (:data:`CANDIDATE`) is its middle.

Needs OpenCV (``opencv-python-headless``). Usage: ``python -m bench.tuning.separate_piece
/work/rec/A.json:/work/rec/A-npz ... /work/rec/C.json:/work/rec/C-npz:control``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from scipy import ndimage as ndi  # noqa: E402

from bench.tuning.backdrop_through import choose, counts  # noqa: E402
from bench.tuning.cut_disagreement import flag_table  # noqa: E402
from bench.tuning.recordings import kind, out_of_fold, recorded_photos, replayed_flag  # noqa: E402
from retouch.pick.config import SHIPPED_PICK, PickConfig  # noqa: E402
from retouch.pick.cut import MIN_SAMPLES, cut_layout, frozen_cut  # noqa: E402

#: Main's flag (the separate piece cap was not shipped: the combined held-out record of the separate piece and
#: hoop-arc caps).
MAIN = SHIPPED_PICK
#: The candidate's threshold (share of the matte), chosen on tuning photos (the separate piece record).
CANDIDATE = 0.045
#: Thresholds of ``piece_backdrop`` replayed (share of the matte; a photo is flagged at or above).
THRESHOLDS = tuple(round(0.005 + 0.0025 * k, 4) for k in range(79))


def piece_backdrop(small: np.ndarray, alpha: np.ndarray, *, config: PickConfig = SHIPPED_PICK) -> float:
    """Share (0-1) of the matte (``alpha >= 0.5``, on its box) in pieces apart from its largest one that the graph
    cut gives to the backdrop when the product's colour model is learned from the largest piece's rim alone.

    A backdrop object the matte keeps as a separate piece (a disc or a blob of a busy backdrop, the wheel of a
    car standing behind) carries the backdrop's colours on its own rim, so :func:`cut_backdrop`, whose product
    model learns from every piece's rim, keeps it. Learned from the main piece's rim (the outer rim as in
    :func:`cut_backdrop`: :attr:`~PickConfig.cut_rim` of ``scale``) the product model no longer knows those colours
    while the backdrop ring (:attr:`~PickConfig.cut_ring`) does; the second shoe of a pair, or any other part of the
    product, has the main piece's colours and stays. Pieces are 8-connected at the box's resolution. A small piece
    whose edge to the backdrop is weak may go even in the product's colours (the cut's smoothness term outweighs
    its few pixels' colour evidence), but such a piece is a small share of the matte.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) final matte in [0, 1] at the same resolution.
        config: :attr:`~PickConfig.cut_rim` and :attr:`~PickConfig.cut_ring`.

    Returns:
        The share rounded to 4 decimals; 0.0 for an empty matte, a matte in one piece, one without a
        clear-background ring, or one whose main rim or ring are too small to model (:data:`MIN_SAMPLES`).

    Raises:
        ModuleNotFoundError: OpenCV (``opencv-python-headless``) is not installed (only for a matte in pieces).
    """
    layout = cut_layout(small, alpha, config=config)
    if layout is None:
        return 0.0
    m = layout.box.matte
    pieces, n = ndi.label(m, structure=np.ones((3, 3), bool))
    if n < 2:
        return 0.0
    main = pieces == 1 + int(np.argmax(np.bincount(pieces.ravel())[1:]))
    rim, ring = main & layout.rim, layout.ring
    if min(int(rim.sum()), int(ring.sum())) < MIN_SAMPLES:
        return 0.0
    product = frozen_cut(layout.box.rgb, m, rim, ring, layout.d_out, layout.box.scale)
    return round(float((m & ~main & ~product).sum() / m.sum()), 4)


def outcome_range(rows: Sequence[dict], table: np.ndarray, k: int) -> tuple[float, float]:
    """Lowest and highest threshold (the contiguous run around row ``k`` of bool ``table`` (thresholds, photos))
    flagging the same failures, good results and control photos as row ``k``."""
    counted = np.array([kind(r) != "" for r in rows])
    lo = hi = k
    while lo > 0 and (table[lo - 1] == table[k])[counted].all():
        lo -= 1
    while hi < len(THRESHOLDS) - 1 and (table[hi + 1] == table[k])[counted].all():
        hi += 1
    return THRESHOLDS[lo], THRESHOLDS[hi]


def measure(specs: Sequence[str]) -> tuple[list[dict], np.ndarray, np.ndarray, list[float]]:
    """Rows (``name``, ``iou``, ``control``), main's replayed flag, ``piece_backdrop`` per photo (NaN where main
    flags it) and the CPU seconds each measured photo took, from ``ROWS.json:NPZ_DIR[:control]`` pairs."""
    rows: list[dict] = []
    main: list[bool] = []
    shares: list[float] = []
    cpu: list[float] = []
    for r, control, small, alpha in recorded_photos(specs):
        flag = replayed_flag(small, alpha, r["signals"], config=MAIN)
        rows.append({"name": r["name"], "iou": r["iou"], "control": control})
        main.append(flag)
        if flag:
            shares.append(float("nan"))
            continue
        t = time.process_time()
        shares.append(piece_backdrop(small, alpha, config=SHIPPED_PICK))
        cpu.append(time.process_time() - t)
    return rows, np.array(main), np.array(shares), cpu


def main(argv: list[str] | None = None) -> int:
    """Measure, replay, print main's and the new flag's counts in sample and out of fold."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recordings", nargs="+", help="ROWS.json:NPZ_DIR[:control]")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--spare-good", type=int, default=1, help="new good results allowed at the choice")
    args = parser.parse_args(argv)
    rows, main_flags, shares, cpu = measure(args.recordings)
    ms = 1000 * np.array(cpu)
    measured = ~np.isnan(shares)
    print(f"{len(rows)} photos, {int(measured.sum())} left unflagged by main")
    print(
        f"CPU per unflagged photo: median {np.median(ms):.1f} ms, p90 {np.percentile(ms, 90):.1f} ms, "
        f"max {ms.max():.1f} ms"
    )
    print("main:", counts(rows, main_flags))
    for r, x in sorted(zip(rows, shares, strict=True), key=lambda p: -np.nan_to_num(p[1], nan=-1.0))[:15]:
        print(f"  piece_backdrop {x:.4f} {r['name']} (IoU {r['iou']:.3f}) {kind(r)}")
    table = flag_table(shares, main_flags, THRESHOLDS)
    everyone = np.ones(len(rows), bool)
    k = choose(rows, table, main_flags, everyone, args.spare_good)
    lo, hi = outcome_range(rows, table, k)
    print(
        f"operating point in sample: threshold {THRESHOLDS[k]} (same outcome {lo}-{hi}):",
        counts(rows, table[k]),
    )
    for r, s, m, x in zip(rows, table[k], main_flags, shares, strict=True):
        if s and not m:
            print(f"  newly flagged: {r['name']} (IoU {r['iou']:.3f}, piece_backdrop {x:.4f}) {kind(r)}")
    oof, chosen = out_of_fold(
        rows, table, args.folds, lambda use: choose(rows, table, main_flags, use, args.spare_good)
    )
    for f, v in enumerate(chosen):
        print(f"  fold {f}: threshold {THRESHOLDS[v]}")
    print("out of fold:", counts(rows, oof))
    for r, o, m in zip(rows, oof, main_flags, strict=True):
        if o and not m:
            print(f"  newly flagged out of fold: {r['name']} (IoU {r['iou']:.3f}) {kind(r)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
