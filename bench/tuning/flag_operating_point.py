"""Research tool: the review flag's operating point, chosen on recorded tuning signals only.

Reads per-photo rows recorded by ``python -m bench.tuning.flag_signals ... --out FILE`` (``name``, ``iou``,
``signals`` with ``fs_so``: the second look run on every photo, and ``fs_sides``: the frame sides the matte covers)
and replays :func:`retouch.pick.confidence` under variants of :class:`retouch.pick.PickConfig`: the second look
``second_iou`` is taken from ``fs_so`` exactly where the variant's :func:`retouch.pick.second.wants_second_opinion`
runs it, so each variant's flags and its count of looks are what the product would give on those photos (the
mattes do not depend on these thresholds).

For every variant it counts results under IoU 0.8 flagged (failures caught) and results at IoU >= 0.95 flagged
(good results flagged by mistake). The operating point is the variant that catches the most failures with at most
``--budget`` of the good results flagged (ties: fewer good results flagged, fewer looks, the variant nearest
main's thresholds). Out of fold: the product-grouped folds of :func:`bench.tuning.tune_pick.grouped_folds`; the
point is chosen on the other folds and applied to each fold in turn.

Usage: ``python -m bench.tuning.flag_operating_point A.json B.json [--budget 0.075]``. Not product code; the review
flags' operating point record in ``docs/decisions/`` says what was kept.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

from bench.tuning.tune_pick import grouped_folds  # noqa: E402
from retouch.pick import PickConfig  # noqa: E402
from retouch.pick.confidence import confidence  # noqa: E402
from retouch.pick.config import SHIPPED_PICK  # noqa: E402
from retouch.pick.second import wants_second_opinion  # noqa: E402

#: Failures: IoU against the hand mask below this. Good results: at least :data:`GOOD`.
BAD = 0.8
GOOD = 0.95


def replay(signals: dict[str, float], config: PickConfig) -> tuple[bool, bool]:
    """``(needs_review, second look run)`` of one recorded photo under ``config``: the recorded signals without
    ``second_iou``, plus ``second_iou = fs_so`` where ``config``'s gate runs the look."""
    sig = {k: v for k, v in signals.items() if k != "second_iou"}
    sig.setdefault("frame_sides", float(signals.get("fs_sides", 0.0)))
    looked = wants_second_opinion(sig, config=config)
    if looked:
        sig["second_iou"] = float(signals["fs_so"])
    return confidence(sig, config=config)[1], looked


def variants() -> Iterable[PickConfig]:
    """The grid searched: review threshold, second-look cap, frame-sides cap (0: off), openings-doubt share."""
    for rb, so, sides, doubt in itertools.product(
        [round(0.6 + 0.02 * i, 2) for i in range(19)],
        [0.69, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97],
        [0, 2, 3],
        [0.05, 0.03, 0.02],
    ):
        yield dataclasses.replace(
            SHIPPED_PICK,
            review_below=rb,
            second_opinion_iou=so,
            review_frame_sides=sides,
            openings_review_doubt=doubt,
        )


def score(rows: list[dict], config: PickConfig) -> tuple[int, int, int, np.ndarray]:
    """``(failures flagged, good flagged, looks, flags as a bool array)`` of ``rows`` under ``config``."""
    flags = np.zeros(len(rows), bool)
    looks = 0
    for i, r in enumerate(rows):
        f, lk = replay(r["signals"], config)
        flags[i] = f
        looks += lk
    iou = np.array([r["iou"] for r in rows])
    return int((flags & (iou < BAD)).sum()), int((flags & (iou >= GOOD)).sum()), looks, flags


def key(config: PickConfig) -> tuple[float, float, int, float]:
    """Distance from main's thresholds, for ties."""
    sides = config.review_frame_sides
    return (
        config.review_below,
        config.second_opinion_iou,
        0 if sides == 0 else 5 - sides,
        -config.openings_review_doubt,
    )


def describe(config: PickConfig) -> str:
    """The searched thresholds of ``config``, short."""
    return (
        f"review_below {config.review_below:.2f}, second_opinion_iou {config.second_opinion_iou:.2f}, "
        f"review_frame_sides {config.review_frame_sides}, openings_review_doubt {config.openings_review_doubt}"
    )


def choose(
    table: list[tuple[PickConfig, np.ndarray, np.ndarray]], idx: np.ndarray, iou: np.ndarray, budget: float
):
    """The best variant on rows ``idx`` (flags and looks precomputed per variant)."""
    good = iou[idx] >= GOOD
    bad = iou[idx] < BAD
    best = None
    for cfg, flags, looked in table:
        f = flags[idx]
        caught, false = int((f & bad).sum()), int((f & good).sum())
        over = max(0, false - int(budget * good.sum()))  # nothing within the budget: the fewest over it
        k = (over, -caught, false, int(looked[idx].sum()), key(cfg))
        if best is None or k < best[0]:
            best = (k, cfg)
    assert best is not None
    return best[1]


def main(argv: list[str] | None = None) -> int:
    """Print main's replayed flags, the in-sample operating point, the out-of-fold figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", type=Path, nargs="+")
    p.add_argument("--budget", type=float, default=0.075, help="largest share of good results flagged")
    p.add_argument("--curve", action="store_true", help="print every variant's figures")
    args = p.parse_args(argv)
    rows = [r for f in args.files for r in json.loads(f.read_text())]
    iou = np.array([r["iou"] for r in rows])
    bad, good = iou < BAD, iou >= GOOD
    print(f"{len(rows)} photos, {bad.sum()} under IoU {BAD}, {good.sum()} at >= {GOOD}")
    recorded = np.array([bool(r["needs_review"]) for r in rows])
    main_cfg = dataclasses.replace(SHIPPED_PICK, review_frame_sides=0)
    c, fl, lk, mflags = score(rows, main_cfg)
    print(
        f"main recorded: {int((recorded & bad).sum())}/{bad.sum()} and {int((recorded & good).sum())}/{good.sum()}"
    )
    print(
        f"main replayed: {c}/{bad.sum()} and {fl}/{good.sum()}, looks {lk}; equal to recorded on "
        f"{int((mflags == recorded).sum())} of {len(rows)}"
    )
    table = []
    for cfg in variants():
        flags = np.zeros(len(rows), bool)
        looked = np.zeros(len(rows), bool)
        for i, r in enumerate(rows):
            flags[i], looked[i] = replay(r["signals"], cfg)
        table.append((cfg, flags, looked))
    families = {
        "(a) thresholds only": lambda c: c.review_frame_sides == 0 and c.openings_review_doubt == 0.05,
        "(b) frame sides only": lambda c: (
            c.review_below == 0.6 and c.second_opinion_iou == 0.69 and c.openings_review_doubt == 0.05
        ),
        "(c) openings doubt share only": lambda c: (
            c.review_below == 0.6 and c.second_opinion_iou == 0.69 and c.review_frame_sides == 0
        ),
        "(a) + (b)": lambda c: c.openings_review_doubt == 0.05,
        "(a) + (b) + (c)": lambda c: c is not None,
    }
    kinds = {
        "GT": lambda n: not re.match(r"^[co]\d+-\d+-", n),
        "composite": lambda n: bool(re.match(r"^c\d+-\d+-", n)),
        "see-through": lambda n: bool(re.match(r"^o\d+-\d+-", n)),
    }
    masks = {kind: np.array([test(str(r["name"])) for r in rows]) for kind, test in kinds.items()}
    folds = grouped_folds(rows)
    allidx = np.arange(len(rows))
    for fam, keep in families.items():
        sub = [t for t in table if keep(t[0])]
        best = choose(sub, allidx, iou, args.budget)
        _, bflags, blooked = next(t for t in sub if t[0] is best)
        print(f"{fam}: {len(sub)} variants; chosen {describe(best)}")
        print(
            f"  in sample: {int((bflags & bad).sum())}/{bad.sum()} and {int((bflags & good).sum())}/{good.sum()}, "
            f"looks {int(blooked.sum())} (main {lk})"
        )
        oof = np.zeros(len(rows), bool)
        chosen = []
        for k in range(folds.max() + 1):
            cfg = choose(sub, np.nonzero(folds != k)[0], iou, args.budget)
            flags = next(t[1] for t in sub if t[0] is cfg)
            oof[folds == k] = flags[folds == k]
            chosen.append(describe(cfg))
        print(
            f"  out of fold: {int((oof & bad).sum())}/{bad.sum()} and {int((oof & good).sum())}/{good.sum()}"
        )
        print("  fold choices: " + "; ".join(chosen))
        for kind, m in masks.items():
            print(
                f"  {kind}: main {int((mflags & bad & m).sum())}/{int((bad & m).sum())} and "
                f"{int((mflags & good & m).sum())}/{int((good & m).sum())}; chosen {int((bflags & bad & m).sum())} "
                f"and {int((bflags & good & m).sum())}; out of fold {int((oof & bad & m).sum())} and "
                f"{int((oof & good & m).sum())}"
            )
        for i, r in enumerate(rows):
            if (bad[i] or good[i]) and (bflags[i] != mflags[i]):
                sg = r["signals"]
                print(
                    f"    {r['name']}: IoU {r['iou']:.3f} main {mflags[i]} -> {bflags[i]} (conf {r['confidence']}, "
                    f"look {sg.get('fs_so', 0):.3f}, sides {sg.get('fs_sides', 0):.0f}, "
                    f"doubt {sg.get('openings_doubtful', 0)})"
                )
    if args.curve:
        for cfg, flags, looked in table:
            print(
                f"  {describe(cfg)}: {int((flags & bad).sum())} and {int((flags & good).sum())}, looks {int(looked.sum())}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
