"""Tuning of the refocus trigger (``PickConfig.refocus_below``) on the tuning data only.

Why it exists. The refocus (:func:`retouch.pick.crops.refocus`) runs when the kept mask fails the focus test
(its inside smoother than its surroundings). A mask that holds a sharp product *and* a large blurred
object (a pick-up truck on a soft-focus car) passes that test, because the product's detail lifts the
inside's mean: it keeps the blurred object, unflagged. The refocus itself only runs its network pass
when :func:`retouch.pick.crops.focus_crop` finds a separate in-focus object (its box under half the mask's),
and only replaces the mask when the crop's mask stays inside the crop and passes the focus test. This
script runs every tuning photo (GT tuning fold and tuning composites, never seed 2) with the trigger as
shipped and with candidate triggers, and prints, per candidate, the photos whose IoU changes, the extra
network passes and the review flags.

Usage: ``python -m bench.tuning.tune_refocus_trigger [--composites 35] [--seeds 1 3 4 5 8 9] [--below 1 2 inf]``
(~15 min on 2 cores).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench._common import require_photos, setup
else:
    from .._common import require_photos, setup

setup()


def main(argv: list[str] | None = None) -> int:
    """Run ours on the tuning photos with each trigger; print the changes against the shipped one."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--composites", type=int, default=35, help="tuning composites per seed")
    parser.add_argument("--seeds", type=int, nargs="*", default=[1, 3, 4, 5, 8, 9], help="tuning seeds")
    parser.add_argument("--below", type=float, nargs="*", default=[2.0, float("inf")], help="triggers to try")
    args = parser.parse_args(argv)
    require_photos()
    import dataclasses

    from retouch import RetouchOptions, retouch
    from retouch import metrics as M
    from retouch.pick import SHIPPED_PICK

    from .tune_pick import tuning_inputs

    shipped = SHIPPED_PICK.refocus_below
    triggers = [shipped, *args.below]
    opts = RetouchOptions(preset="amazon", shadow=False)
    runs: dict[float, list[tuple[str, float, bool, int, str]]] = {t: [] for t in triggers}
    for name, data, gt in tuning_inputs(args.composites, args.seeds):
        line = [name]
        for t in triggers:
            res = retouch(data, opts, pick_config=dataclasses.replace(SHIPPED_PICK, refocus_below=t))
            seg = res.details["segmentation"]
            iou = M.iou(res.matte, gt)
            runs[t].append(
                (name, iou, bool(res.details["needs_review"]), seg["network_evaluations"], seg["source"])
            )
            line.append(
                f"[{t:g}] IoU {iou:.3f} {seg['source']} n{seg['network_evaluations']} "
                f"{'REVIEW' if res.details['needs_review'] else ''}"
            )
        print(" ".join(line), flush=True)
    base = runs[shipped]
    n = len(base)
    print(f"\n{n} tuning photos; shipped trigger focus < {shipped:g}:")
    for t in triggers:
        rows = runs[t]
        bad = [r for r in rows if r[1] < 0.9]
        good = [r for r in rows if r[1] >= 0.9]
        changed = [(b, r) for b, r in zip(base, rows, strict=True) if abs(b[1] - r[1]) > 0.005]
        print(
            f"focus < {t:g}: mean IoU {sum(r[1] for r in rows) / n:.4f}, network passes {sum(r[3] for r in rows)}, "
            f"IoU < 0.9 {len(bad)} (flagged {sum(r[2] for r in bad)}), good flagged {sum(r[2] for r in good)}"
        )
        for b, r in changed:
            print(f"    {r[0]}: IoU {b[1]:.3f} -> {r[1]:.3f} ({r[4]}, flagged {b[2]} -> {r[2]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
