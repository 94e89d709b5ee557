"""Research tool: the "another object in the matte" review caps, chosen on recorded tuning photos only.

Reads recordings made by ``bench/tuning/flag_signals.py`` with ``FLAG_SIGNALS_DUMP`` (rows ``name``, ``iou``,
``signals``, ``needs_review`` and a folder of ``NNNN.npz`` with each photo's working image ``small`` and final
matte ``alpha`` in the rows' order), given as ``ROWS.json:NPZ_DIR`` pairs, a pair marked ``control``
(``ROWS.json:NPZ_DIR:control``) holding real studio views of cars: any flag the new caps add there is a false flag.

Main's flag is replayed as the backdrop through the product tool does: :func:`retouch.pick.confidence` on the
recorded signals with the backdrop-through signal recomputed on the recorded matte
(:func:`retouch.pick.with_backdrop_through`). On the photos main leaves unflagged the product's
:func:`retouch.pick.joined.joined_evidence` is measured once (CPU per photo with ``time.process_time``); every
variant of the thresholds (:func:`variants`) is replayed with :func:`retouch.pick.joined.joined_signals` and the two
caps. The operating point: the variant flagging the most results under IoU 0.8 with no new result at IoU >= 0.95
and no control photo (ties: the fewest photos flagged, then the earliest variant, the shipped values first), in
sample and on product-grouped folds (:func:`bench.tuning.tune_pick.grouped_folds`, chosen on the other folds).

Usage: ``python -m bench.tuning.joined_object /work/rec/A.json:/work/rec/A-npz ...
/work/rec/C.json:/work/rec/C-npz:control``.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

from bench.tuning.backdrop_through import BAD, GOOD, choose, counts  # noqa: E402
from bench.tuning.recordings import out_of_fold, recorded_photos  # noqa: E402
from retouch.pick.confidence import confidence  # noqa: E402
from retouch.pick.config import SHIPPED_PICK, PickConfig  # noqa: E402
from retouch.pick.joined import Joined, joined_evidence, joined_signals  # noqa: E402
from retouch.pick.signals import Pick  # noqa: E402
from retouch.pick.through import with_backdrop_through  # noqa: E402

#: Main's flag: the caps of this tool off.
MAIN = dataclasses.replace(SHIPPED_PICK, review_frame_join=0.0, review_blurred_outline=0.0)
OFF = float("inf")


def _values(first: float, *others: float) -> list[float]:
    """``first`` (the shipped value), then the ``others`` not equal to it."""
    return list(dict.fromkeys([first, *others]))


def variants() -> Iterable[PickConfig]:
    """The grid searched, the shipped thresholds first (``inf``: that cap off)."""
    s = SHIPPED_PICK
    grid = itertools.product(
        _values(s.review_frame_join, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, OFF),
        _values(s.frame_join_overlap, 0.3, 0.4, 0.5, 0.55, 0.6, 0.7, 1.0),
        _values(s.review_blurred_outline, 0.12, 0.15, 0.18, 0.2, 0.23, 0.25, 0.3, 0.35, 0.4, OFF),
        _values(s.blur_contrast, 20.0, 30.0, 40.0),
        _values(s.blur_width, 3.5, 4.0, 4.5, 5.0),
    )
    for join, overlap, blurred, contrast, width in grid:
        yield dataclasses.replace(
            s,
            review_frame_join=join,
            frame_join_overlap=overlap,
            review_blurred_outline=blurred,
            blur_contrast=contrast,
            blur_width=width,
        )


def flagged_by(found: Joined | None, config: PickConfig) -> bool:
    """Whether the two caps of ``config`` flag a photo main leaves unflagged (``found`` its measures; ``None``:
    main flags it, the caps never run)."""
    if found is None:
        return False
    sig = joined_signals(found, config=config)
    return bool(confidence(sig, config=dataclasses.replace(config, confidence_weights={"bias": 30.0}))[1])


def load(specs: Sequence[str]) -> tuple[list[dict], list[Joined | None], list[float]]:
    """Rows (with ``control`` and ``main``: main's replayed flag), the measures on the photos main leaves unflagged
    (``None`` elsewhere) and their CPU seconds, from ``ROWS.json:NPZ_DIR[:control]`` pairs.

    Raises:
        ValueError: main's flag from the recorded signals alone differs from the recorded one.
    """
    rows: list[dict] = []
    found: list[Joined | None] = []
    cpu: list[float] = []
    for r, control, small, alpha in recorded_photos(specs):
        if confidence(r["signals"], config=MAIN)[1] != bool(r["needs_review"]):
            raise ValueError(f"{r['name']}: main's flag recomputed differs from the recorded one")
        pick = Pick(mask=alpha, source="recorded", evaluations=0, signals=dict(r["signals"]))
        pick = with_backdrop_through(small, alpha, pick, config=MAIN)
        main_flag = confidence(pick.signals, config=MAIN)[1]
        rows.append({**r, "control": control, "main": main_flag, "through": pick.signals.get("through", 0.0)})
        if main_flag:
            found.append(None)
            continue
        t = time.process_time()
        found.append(joined_evidence(small, alpha))
        cpu.append(time.process_time() - t)
    return rows, found, cpu


def main(argv: list[str] | None = None) -> int:
    """Measure, replay, print main's and the new flag's counts in sample and out of fold."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recordings", nargs="+", help="ROWS.json:NPZ_DIR[:control]")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument(
        "--main-flags", nargs="*", default=(), help="JSON lists of rows with 'flag' to check main"
    )
    args = parser.parse_args(argv)
    rows, found, cpu = load(args.recordings)
    main_flags = np.array([r["main"] for r in rows])
    if args.main_flags:
        given = [bool(x["flag"]) for p in args.main_flags for x in json.loads(Path(p).read_text())]
        print("main's replayed flag equals the given flags:", given == list(main_flags))
    ms = 1000 * np.array(cpu)
    print(
        f"{len(rows)} photos; joined_evidence CPU on the {len(cpu)} main leaves unflagged: median "
        f"{np.median(ms):.1f} ms, p90 {np.percentile(ms, 90):.1f} ms, max {ms.max():.1f} ms"
    )
    print("main:", counts(rows, main_flags))
    configs = list(variants())
    table = np.stack([main_flags | np.array([flagged_by(f, c) for f in found]) for c in configs])
    shipped = table[0]
    print("shipped values, in sample:", counts(rows, shipped), describe(configs[0]))
    for r, s, m in zip(rows, shipped, main_flags, strict=True):
        if s and not m:
            print(f"  newly flagged: {r['name']} (IoU {r['iou']:.3f})")
    v = choose(rows, table, main_flags, np.ones(len(rows), bool))
    print("operating point in sample:", counts(rows, table[v]), describe(configs[v]))
    best = int((table[v] & ~main_flags & (np.array([r["iou"] for r in rows]) < BAD)).sum())
    ties = [
        describe(c)
        for c, t in zip(configs, table, strict=True)
        if int((t & ~main_flags & (np.array([r["iou"] for r in rows]) < BAD)).sum()) == best
        and not (t & ~main_flags & np.array([r["control"] or r["iou"] >= GOOD for r in rows])).any()
    ]
    print(f"  {len(ties)} variants reach {best} new failures with no new good result nor control view")
    oof, chosen = out_of_fold(rows, table, args.folds, lambda use: choose(rows, table, main_flags, use))
    for k, vk in enumerate(chosen):
        print(f"  fold {k}: {describe(configs[vk])}")
    print("out of fold:", counts(rows, oof))
    for r, o, m in zip(rows, oof, main_flags, strict=True):
        if o and not m:
            print(f"  newly flagged out of fold: {r['name']} (IoU {r['iou']:.3f}, control {r['control']})")
    return 0


def describe(c: PickConfig) -> str:
    """The thresholds of a variant, short."""
    return (
        f"frame join >= {c.review_frame_join} overlap <= {c.frame_join_overlap}; blurred outline >= "
        f"{c.review_blurred_outline} (contrast >= {c.blur_contrast}, width > {c.blur_width})"
    )


if __name__ == "__main__":
    raise SystemExit(main())
