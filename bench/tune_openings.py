"""Choose the review rule of the openings evidence on tuning data only.

Runs the pipeline (openings on) over the tuning sets only: the GT tuning fold, tuning composites
(seed :data:`bench.composites.TUNE_SEED`) and tuning see-through photos (seed
:data:`bench.see_through.TUNE_SEED`); records per photo the IoU against the GT, the shipped confidence and
the colour-model signals of :func:`retouch.openings.clear_openings` (``openings_doubtful``,
``colour_bg_like``, ``colour_fg_outside``); then scores a grid of review rules offline: a result is also
flagged when ``openings_doubtful >= D`` or ``colour_fg_outside >= F``.

The rule (fixed before the grid was looked at): among the grid points that flag at most 10 % of the
tuning results at IoU >= 0.95, take the one that flags the most results under IoU 0.8; ties go to the
fewest flags overall, then to the larger thresholds. Held-out sets are refused.

Usage: ``python -m bench.tune_openings [--composites 12] [--openings 24] [--rows rows.json]``
(``--rows`` re-scores a saved recording, or saves one when the file does not exist).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from ._common import require_photos, setup

setup()

import numpy as np  # noqa: E402

#: Grid of the doubtful-share and colour-disagreement thresholds (``inf`` = that test off).
DOUBT_GRID = (math.inf, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3)
OUTSIDE_GRID = (math.inf, 0.05, 0.1, 0.15, 0.2, 0.3)


def record(n_comp: int, n_open: int, model: str) -> list[dict[str, Any]]:
    """Run the pipeline over the tuning sets; one dict per photo (name, set, iou, confidence, signals)."""
    from retouch import RetouchOptions, retouch
    from retouch import metrics as M

    from .quality import _inputs

    rows: list[dict[str, Any]] = []
    for set_name, n in (("gt-tune", 0), ("comp-tune", n_comp), ("open-tune", n_open)):
        for name, load in _inputs(set_name, n, None, None):
            data, gt, _ = load()
            res = retouch(data, RetouchOptions(preset="amazon", shadow=False), model_name=model)
            sig = res.details.get("segmentation", {}).get("signals", {})
            row = {
                "name": name,
                "set": set_name,
                "iou": M.iou(res.matte, gt),
                "confidence": float(res.details["confidence"]),
                "review": bool(res.details["needs_review"]),
                "signals": sig,
            }
            print(
                f"  {name}: IoU {row['iou']:.3f} conf {row['confidence']:.2f} "
                f"doubt {sig.get('openings_doubtful', 0):.3f} out {sig.get('colour_fg_outside', 0):.3f} "
                f"cleared {sig.get('openings_cleared', 0):.3f}",
                file=sys.stderr,
                flush=True,
            )
            rows.append(row)
    return rows


def score(rows: list[dict[str, Any]]) -> None:
    """Print the grid's flag counts and the rule's choice."""
    iou = np.array([float(r["iou"]) for r in rows])
    from retouch.pick import confidence

    sig: list[dict[str, float]] = [r["signals"] for r in rows]
    # the shipped flag without the openings' own test, which the grid below replaces
    review = np.array([confidence({k: v for k, v in s.items() if k != "openings_doubtful"})[1] for s in sig])
    doubt = np.array([float(s.get("openings_doubtful", 0.0)) for s in sig])
    outside = np.array([float(s.get("colour_fg_outside", 0.0)) for s in sig])
    poor, good = iou < 0.8, iou >= 0.95
    print(f"{len(rows)} tuning photos: {int(poor.sum())} under IoU 0.8, {int(good.sum())} at IoU >= 0.95\n")
    print("| D | F | IoU < 0.8 flagged | IoU >= 0.95 flagged | all flagged |")
    print("|---|---|---|---|---|")
    best: tuple[float, float, float, float, float] | None = None
    for d in DOUBT_GRID:
        for f in OUTSIDE_GRID:
            flag = review | (doubt >= d) | (outside >= f)
            bad_hit, good_hit, total = int((flag & poor).sum()), int((flag & good).sum()), int(flag.sum())
            print(f"| {d} | {f} | {bad_hit} / {int(poor.sum())} | {good_hit} / {int(good.sum())} | {total} |")
            if good_hit <= 0.1 * max(1, int(good.sum())):
                key = (bad_hit, -total, d, f)
                if best is None or key > best[:4]:
                    best = (*key, 0.0)
    if best is not None:
        print(
            f"\nrule's choice: D = {best[2]}, F = {best[3]} ({best[0]} of {int(poor.sum())} under 0.8 flagged)"
        )


def main(argv: list[str] | None = None) -> int:
    """Record (or load) the tuning rows and print the grid."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--composites", type=int, default=12)
    parser.add_argument("--openings", type=int, default=24)
    parser.add_argument("--model", default="u2netp")
    parser.add_argument("--rows", type=Path, default=None, help="JSON recording to re-score or to write")
    args = parser.parse_args(argv)
    require_photos()
    if args.rows is not None and args.rows.is_file():
        rows = json.loads(args.rows.read_text())
    else:
        rows = record(args.composites, args.openings, args.model)
        if args.rows is not None:
            args.rows.write_text(json.dumps(rows))
    score(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
