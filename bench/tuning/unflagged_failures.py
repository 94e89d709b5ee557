"""Research tool: where the review flag's misses are, by opening and backdrop, on recorded tuning photos.

Reads recordings (``ROWS.json:NPZ_DIR[:control]`` pairs, :func:`bench.tuning.recordings.recorded_photos`) whose
rows carry the flag the product gave (``needs_review``; ``--replay`` recomputes it with
:func:`bench.tuning.recordings.replayed_product` for recordings made before the graph cut's clearing step, and
takes that step's matte). Every photo gets its group (:func:`bench.tuning.cut_clears.group_of`) and kinds: a
see-through photo ``o{seed}-{i}-{stem}`` its opening and backdrop as the generator drew them
(:func:`validation_sets.see_through.opening_and_backdrop`), a composite ``c{seed}-{i}-{kind}-{stem}`` its backdrop
kind, a GT photo ``real``.

Printed: per group and opening kind, and per group and backdrop kind, the photos, the failures (IoU under
:data:`~bench.tuning.backdrop_through.BAD`), the failures left unflagged, the good results (IoU at least
:data:`~bench.tuning.backdrop_through.GOOD`) and the good results flagged; then every unflagged failure with its
kinds, IoU, plain rembg's IoU and confidence. ``--overlays DIR`` also writes, per unflagged failure,
``DIR/NAME.png``: the working image beside the same image with what the matte leaves out (alpha < 0.5) darkened to a
quarter, to sort the misses by eye.

Usage: ``python -m bench.tuning.unflagged_failures A.json:A-npz B.json:B-npz [--replay] [--overlays DIR]``. Not
product code; the record in ``docs/decisions/`` on the flag's misses says what it found.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from bench.tuning.backdrop_through import BAD, GOOD  # noqa: E402
from bench.tuning.cut_clears import group_of  # noqa: E402
from bench.tuning.recordings import recorded_photos, replayed_product  # noqa: E402

COLUMNS = ("photos", "failures", "unflagged", "good", "good flagged")


@dataclass(frozen=True)
class Kinds:
    """A recorded photo's group (``gt``, ``composites``, ``see-through``, ``cars``), opening kind
    (:data:`validation_sets.see_through.OPENINGS`; ``-`` off the see-through set) and backdrop kind (the generators'
    kinds; ``real`` for a real photo)."""

    group: str
    opening: str
    backdrop: str


def kinds_of(name: str, control: bool) -> Kinds:
    """The :class:`Kinds` of a recorded photo from its name (a see-through photo's drawn again from its seed)."""
    from validation_sets.see_through import opening_and_backdrop

    group = group_of(name, control)
    if group == "see-through":
        m = re.fullmatch(r"o(\d+)-(\d+)-(.+)", name)
        if m is None:
            raise ValueError(f"not a see-through photo's name: {name}")
        opening, backdrop = opening_and_backdrop(m[3], int(m[1]), int(m[2]))
        return Kinds(group, opening, backdrop)
    if group == "composites":
        return Kinds(group, "-", name.split("-")[2])
    return Kinds(group, "-", "real")


def overlay(small: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """uint8 (H, 2W, 3): ``small`` (uint8 (H, W, 3)) beside itself with what ``alpha`` (float32 (H, W)) leaves out
    (alpha < 0.5) darkened to a quarter."""
    kept = small.copy()
    out = alpha < 0.5
    kept[out] = (small[out].astype(np.uint16) // 4).astype(np.uint8)
    return np.concatenate([small, kept], axis=1)


def tally(rows: Sequence[tuple[dict, Kinds, bool]]) -> dict[tuple[str, str, str], Counter]:
    """Per ``(group, opening, "*")`` and ``(group, "*", backdrop)``: counts of :data:`COLUMNS` over ``(row, kinds,
    flagged)`` triples (``row["iou"]`` the photo's IoU)."""
    out: dict[tuple[str, str, str], Counter] = {}
    for row, k, flagged in rows:
        fail, good = row["iou"] < BAD, row["iou"] >= GOOD
        for key in ((k.group, k.opening, "*"), (k.group, "*", k.backdrop)):
            c = out.setdefault(key, Counter())
            c["photos"] += 1
            c["failures"] += fail
            c["unflagged"] += fail and not flagged
            c["good"] += good
            c["good flagged"] += good and flagged
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the table and the unflagged failures; write the overlays if asked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recordings", nargs="+", help="ROWS.json:NPZ_DIR[:control] pairs")
    parser.add_argument(
        "--replay", action="store_true", help="the flag and matte of the clearing step, replayed"
    )
    parser.add_argument(
        "--overlays", type=Path, default=None, help="folder for the unflagged failures' overlays"
    )
    args = parser.parse_args(argv)
    rows: list[tuple[dict, Kinds, bool]] = []
    for row, control, small, alpha in recorded_photos(args.recordings):
        flagged = bool(row["needs_review"])
        if args.replay:
            alpha, flagged = replayed_product(small, alpha, row["signals"])
        k = kinds_of(row["name"], control)
        rows.append((row, k, flagged))
        if args.overlays is not None and row["iou"] < BAD and not flagged:
            args.overlays.mkdir(parents=True, exist_ok=True)
            Image.fromarray(overlay(small, alpha)).save(args.overlays / f"{row['name']}.png")
    table = tally(rows)
    print("| group | opening | backdrop | " + " | ".join(COLUMNS) + " |")
    print("|---|---|---|" + "---|" * len(COLUMNS))
    for key in sorted(table):
        print("| " + " | ".join(key) + " | " + " | ".join(str(table[key][c]) for c in COLUMNS) + " |")
    fails = [(r, k) for r, k, f in rows if r["iou"] < BAD]
    unflagged = [(r, k) for r, k, f in rows if r["iou"] < BAD and not f]
    good = [f for r, k, f in rows if r["iou"] >= GOOD]
    print(
        f"\nall: {len(fails) - len(unflagged)} of {len(fails)} failures flagged, "
        f"{sum(good)} of {len(good)} good results flagged\n"
    )
    for r, k in unflagged:
        print(
            f"{r['name']:36s} {k.opening:7s} {k.backdrop:8s} IoU {r['iou']:.3f} rembg {r.get('iou_rembg', float('nan')):.3f} "
            f"recorded confidence {r['confidence']:.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
