"""Does each step pay its way? Every stage of the pick and of the openings switched off in turn.

Each variant is the shipped configuration with one stage off, through the configuration only
(:class:`retouch.pick.PickConfig` and :class:`retouch.openings.OpeningsConfig`, passed to
:func:`retouch.retouch` as ``pick_config=`` / ``openings=``; ``openings=None`` skips the openings step):
no product function is replaced. Every variant runs on the same photos of the held-out sets, the
cross-recipe ones first (``bench/pipeline/quality.py`` and :mod:`validation_sets.cross_recipes`), on one
network path (``--int8``, default the process's ``RETOUCH_NETWORK_INT8``).

Per set and variant it prints, against the shipped pipeline in the same run: the change in mean IoU, in the
share of opening pixels kept as product (see-through sets), the results under IoU 0.8 flagged for review
(failures) and those at IoU >= 0.95 flagged (good results), the failures the shipped pipeline flags that the
variant leaves unflagged, and the wall-clock ms per photo of the whole :func:`retouch.retouch`.

The deletion rule (the issue's, written in the ablation record of ``docs/decisions/`` before its run): a stage
whose removal costs less than 0.003 mean IoU on every set and leaves no flagged failure unflagged is deleted.

Usage: ``python -m bench.pipeline.ablation [--sets cut-holdout staged-holdout open-holdout comp-holdout]
[--photos N] [--int8 0|1|auto] [--only VARIANT...] [--json FILE]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench._common import print_table, require_photos, setup
else:
    from .._common import print_table, require_photos, setup

setup()

import numpy as np  # noqa: E402

#: (variant, PickConfig fields, OpeningsConfig fields or ``None`` = the openings step skipped). The first is
#: the shipped pipeline; each other switches one stage off.
VARIANTS: list[tuple[str, dict[str, Any], dict[str, Any] | None]] = [
    ("shipped", {}, {}),
    ("pick: second look", {"second_look": False}, {}),
    ("pick: zoom", {"zoom_area": 0.0}, {}),
    ("pick: guard", {"empty_share": 0.0, "disagree_iou": 0.0}, {}),
    ("pick: refocus", {"refocus": False}, {}),
    ("pick: refocus after fallback", {"refocus_fallback": False}, {}),
    ("pick: graph cut clearing", {"cut_clear_share": 0.0}, {}),
    ("review: focus cap", {"review_focus": 0.0}, {}),
    ("review: openings doubt cap", {"openings_review_doubt": 2.0}, {}),
    ("review: second opinion", {"second_opinion": False}, {}),
    ("review: frame sides cap", {"review_frame_sides": 0}, {}),
    ("review: backdrop through cap", {"review_through": 0.0}, {}),
    ("review: frame join cap", {"review_frame_join": 0.0}, {}),
    ("review: blurred outline cap", {"review_blurred_outline": 0.0}, {}),
    ("review: graph cut cap", {"review_cut_backdrop": 0.0}, {}),
    ("review: busy backdrop cap", {"review_busy_backdrop": 0.0}, {}),
    ("openings: whole step", {}, None),
    ("openings: wheels", {}, {"wheels": False}),
    ("openings: clutter", {}, {"clutter": False}),
    ("openings: holes", {}, {"holes": False}),
    ("openings: hysteresis", {}, {"grow": 2.0}),
    ("openings: ghosts", {}, {"ghosts": False}),
    ("openings: thin parts", {}, {"keep_thin": False}),
]
SETS = ("cut-holdout", "staged-holdout", "open-holdout", "comp-holdout")
#: The deletion rule's bounds.
MAX_IOU_COST = 0.003


def together(names: list[str]) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
    """One variant with every variant of :data:`VARIANTS` whose name contains one of ``names`` switched off at
    once (their fields merged; the openings step skipped if one of them skips it).

    Raises:
        SystemExit: a name matches no variant.
    """
    pick: dict[str, Any] = {}
    openings: dict[str, Any] | None = {}
    chosen = []
    for n in names:
        found = [v for v in VARIANTS[1:] if n in v[0]]
        if not found:
            raise SystemExit(f"no variant named {n!r}")
        for name, p, o in found:
            chosen.append(name)
            pick.update(p)
            openings = None if (o is None or openings is None) else {**openings, **o}
    return ("together: " + ", ".join(dict.fromkeys(chosen)), pick, openings)


def run_variant(
    data: bytes, gt: np.ndarray, opening: np.ndarray | None, variant: int, network: Any
) -> list[float]:
    """One photo through variant ``variant`` of :data:`VARIANTS`: [IoU, opening kept, flagged, ms]."""
    from retouch import RetouchOptions, retouch
    from retouch import metrics as M
    from retouch.openings import DEFAULT_OPENINGS
    from retouch.pick import SHIPPED_PICK

    _, pick_fields, open_fields = VARIANTS[variant]
    pick_config = dataclasses.replace(SHIPPED_PICK, **pick_fields)
    openings = None if open_fields is None else dataclasses.replace(DEFAULT_OPENINGS, **open_fields)
    t = time.perf_counter()
    res = retouch(
        data,
        RetouchOptions(preset="amazon", shadow=False),
        pick_config=pick_config,
        network=network,
        openings=openings,
    )
    ms = (time.perf_counter() - t) * 1000.0
    kept = float("nan")
    if opening is not None and opening.any():
        kept = float(np.count_nonzero(res.matte[opening] >= 128)) / float(np.count_nonzero(opening))
    return [M.iou(res.matte, gt), kept, float(bool(res.details["needs_review"])), ms]


def verdicts(results: dict[str, np.ndarray]) -> dict[str, dict[str, Any]]:
    """Per variant: the worst IoU cost over the sets, the flagged failures lost, and whether the rule deletes
    it. ``results``: set -> float array (photos, variants, 4) of :func:`run_variant` rows."""
    out: dict[str, dict[str, Any]] = {}
    for v, (name, _, _) in enumerate(VARIANTS[1:], start=1):
        cost, lost = 0.0, 0
        for acc in results.values():
            cost = max(cost, float(acc[:, 0, 0].mean() - acc[:, v, 0].mean()))
            lost += int(((acc[:, 0, 0] < 0.8) & (acc[:, 0, 2] > 0.5) & (acc[:, v, 2] < 0.5)).sum())
        out[name] = {
            "iou_cost": cost,
            "flagged_failures_lost": lost,
            "delete": cost < MAX_IOU_COST and lost == 0,
        }
    return out


def report(set_name: str, names: list[str], acc: np.ndarray) -> None:
    """Print one set's table: per variant the changes against the shipped pipeline."""
    base = acc[:, 0]
    rows: list[list[object]] = []
    for v, (name, _, _) in enumerate(VARIANTS):
        cur = acc[:, v]
        fail, good = cur[:, 0] < 0.8, cur[:, 0] >= 0.95
        lost = int(((base[:, 0] < 0.8) & (base[:, 2] > 0.5) & (cur[:, 2] < 0.5)).sum())
        kept = "" if np.isnan(cur[:, 1]).all() else f"{np.nanmean(cur[:, 1]) - np.nanmean(base[:, 1]):+.4f}"
        rows.append(
            [
                name,
                float(cur[:, 0].mean()) if v == 0 else f"{cur[:, 0].mean() - base[:, 0].mean():+.4f}",
                (f"{np.nanmean(cur[:, 1]):.4f}" if v == 0 and kept else kept),
                f"{int((fail & (cur[:, 2] > 0.5)).sum())} / {int(fail.sum())}",
                f"{int((good & (cur[:, 2] > 0.5)).sum())} / {int(good.sum())}",
                lost,
                f"{cur[:, 3].mean():.0f}",
                int((np.abs(cur[:, 0] - base[:, 0]) > 0.02).sum()),
            ]
        )
    print(f"\n## {set_name}: {len(names)} photos\n")
    print_table(
        [
            "stage off",
            "mean IoU (change)",
            "opening kept (change)",
            "IoU < 0.8 flagged",
            "IoU >= 0.95 flagged",
            "flagged failures lost",
            "ms / photo",
            "photos moved > 0.02",
        ],
        rows,
        floatfmt=".4f",
    )


def main(argv: list[str] | None = None) -> int:
    """Run the ablation and print its tables; returns 0 (figures are reported, not asserted)."""
    from .quality import _inputs, network_path

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="*", default=list(SETS), choices=SETS)
    parser.add_argument("--photos", type=int, default=12, help="photos of each set")
    parser.add_argument("--int8", choices=("auto", "0", "1"), default=None)
    parser.add_argument(
        "--only", nargs="*", default=None, help="variants (names or parts of them) besides shipped"
    )
    parser.add_argument("--json", type=Path, default=None, help="save every photo's rows (JSON)")
    parser.add_argument(
        "--together",
        nargs="*",
        default=None,
        help="also switch these variants (names or parts of them) off together, as one more variant",
    )
    args = parser.parse_args(argv)
    require_photos()
    from retouch.models import NetworkConfig

    global VARIANTS
    combined = together(args.together) if args.together else None
    if args.only is not None:
        VARIANTS = [VARIANTS[0]] + [v for v in VARIANTS[1:] if any(o in v[0] for o in args.only)]
    if combined is not None:
        VARIANTS.append(combined)
    network = NetworkConfig(int8=args.int8)
    print(f"network path: {network_path(args.int8)}; {len(VARIANTS) - 1} stages switched off in turn")
    t_all = time.perf_counter()
    results: dict[str, np.ndarray] = {}
    dump: dict[str, Any] = {
        "network": network_path(args.int8),
        "variants": [v[0] for v in VARIANTS],
        "sets": {},
    }
    for set_name in args.sets:
        names: list[str] = []
        rows: list[list[list[float]]] = []
        for name, load in _inputs(set_name, args.photos, None, None):
            data, gt, opening = load()
            per = [run_variant(data, gt, opening, v, network) for v in range(len(VARIANTS))]
            names.append(name)
            rows.append(per)
            print(
                f"  {name}: IoU {per[0][0]:.3f}, off: "
                + " ".join(f"{r[0] - per[0][0]:+.3f}" for r in per[1:]),
                file=sys.stderr,
                flush=True,
            )
        if not rows:
            continue
        acc = np.array(rows)
        results[set_name] = acc
        dump["sets"][set_name] = {"names": names, "rows": acc.tolist()}
        report(set_name, names, acc)
        if args.json is not None:
            args.json.write_text(json.dumps(dump))
    if results:
        print(
            f"\n## The rule: delete a stage whose removal costs < {MAX_IOU_COST} mean IoU on every set and no flagged failure\n"
        )
        vs = verdicts(results)
        print_table(
            ["stage off", "worst mean IoU cost", "flagged failures lost", "verdict"],
            [
                [n, v["iou_cost"], v["flagged_failures_lost"], "delete" if v["delete"] else "keep"]
                for n, v in vs.items()
            ],
            floatfmt=".4f",
        )
        dump["verdicts"] = vs
        if args.json is not None:
            args.json.write_text(json.dumps(dump))
    print(f"\nnetwork path {network_path(args.int8)}; total {time.perf_counter() - t_all:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
