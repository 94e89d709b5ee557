"""Research tool: the "backdrop continues through the product" review cap, chosen on recorded tuning photos only.

Reads recordings made by ``bench/tuning/flag_signals.py`` with ``FLAG_SIGNALS_DUMP`` (or any run writing the same
rows: ``name``, ``iou``, ``signals``, ``needs_review``, and a folder of ``NNNN.npz`` with each photo's working
image ``small`` and final matte ``alpha`` in the rows' order), given as ``ROWS.json:NPZ_DIR`` pairs. Each pair
may be marked ``control`` (``ROWS.json:NPZ_DIR:control``): its photos have no opening (real studio views of
cars), so any flag the new cap adds there is a false flag whatever their IoU.

For every photo it measures :func:`through_regions` once (CPU per photo with ``time.process_time``), then flags,
for each variant of the thresholds (:func:`variants`), the photos main's flag (the recorded signals alone,
:func:`retouch.pick.confidence`) leaves unflagged and whose ``through`` reaches the variant's
:attr:`~retouch.pick.PickConfig.review_through` (a cap below the review threshold, as tried in the product). Main's recomputed
flag must equal the recorded one.

Counts, per variant: results under IoU 0.8 flagged (failures caught), results at IoU >= 0.95 flagged, control
photos flagged. The operating point is the variant that newly flags the most failures while newly flagging no
result at IoU >= 0.95 and no control photo (ties: the fewest photos flagged, then the earliest variant, the
record's thresholds first). Out of fold: the product-grouped folds of :func:`bench.tuning.tune_pick.grouped_folds`;
the point is chosen on the other folds and applied to each fold in turn.

Usage: ``python -m bench.tuning.backdrop_through /work/rec/A.json:/work/rec/A-npz /work/rec/B.json:/work/rec/B-npz
/work/rec/C.json:/work/rec/C-npz:control``. The first round's cap (the smooth and like tests below) failed its
held-out rule (the backdrop through the product record in ``docs/decisions/``). With ``--local``, the second
round: the first round's flag (its record thresholds) or the *local* test (the backdrop predicted from the ring
pixels near each pixel), searched on a grid (:func:`local_variants`) by the same rule, in sample and out of fold.
With ``--seen``, the third round (the backdrop seen inside the product record): the second round's flag or the
*seen* test (colours the ring shows and the product's rim does not), searched on :func:`seen_variants` at each
candidate definition the same way; the product's ``retouch.pick.through`` holds the four tests.

The measure is the product's own (:func:`retouch.pick.through.through_regions` and
:func:`retouch.pick.through.backdrop_through`, whose module docstring describes the smooth, like and local
tests); this tool only replays it under other thresholds (:class:`retouch.pick.PickConfig`'s ``through_*``).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

from bench.tuning.tune_pick import grouped_folds  # noqa: E402
from retouch.pick.confidence import confidence  # noqa: E402
from retouch.pick.config import SHIPPED_PICK, PickConfig  # noqa: E402
from retouch.pick.through import Through, backdrop_through, through_regions  # noqa: E402

SECOND_ROUND = dataclasses.replace(SHIPPED_PICK, through_seen_share=float("inf"))
"""The second round's flag: the product's smooth, like and local tests with their shipped thresholds, the seen
test off (no region reaches an infinite share)."""
FIRST_ROUND = dataclasses.replace(SECOND_ROUND, through_local_share=float("inf"))
"""The first round's flag: the smooth and like tests alone. Its held-out run failed; the second round ships them
with the local test."""

#: Failures: IoU against the hand mask below this. Good results: at least :data:`GOOD`.
BAD = 0.8
GOOD = 0.95


def _values(first: float, *others: float) -> list[float]:
    """``first`` (the record's value), then the ``others`` not equal to it."""
    return list(dict.fromkeys([first, *others]))


def variants() -> Iterable[PickConfig]:
    """The grid searched, the record's thresholds first."""
    s = FIRST_ROUND
    grid = itertools.product(
        _values(s.through_smooth_ring),
        _values(s.through_smooth_share, 0.005, 0.01, 0.02, 0.05),
        _values(s.through_smooth_enclosed, 0.0, 0.1, 0.2),
        _values(s.through_like_share, 0.005, 0.01, 0.02, 0.05),
        _values(s.through_like_enclosed, 0.0, 0.05),
        _values(s.through_like_residual, 1.0, 1.2, 1.5),
        _values(s.through_like_noise, 1.2, 1.3, 1.4, 1.5, 2.0, 3.0),
    )
    for ring, ss, se, ls, le, lr, ln in grid:  # the ring's smoothness is not searched: see the record
        yield dataclasses.replace(
            s,
            through_smooth_ring=ring,
            through_smooth_share=ss,
            through_smooth_enclosed=se,
            through_like_share=ls,
            through_like_enclosed=le,
            through_like_residual=lr,
            through_like_noise=ln,
        )


def gated(found: Through, config: PickConfig) -> Through:
    """``found`` (measured with the smooth test always on) as ``config`` would have measured it: no smooth regions
    where the ring's residual is above :attr:`~retouch.pick.PickConfig.through_smooth_ring`."""
    if found.ring_residual <= config.through_smooth_ring:
        return found
    return dataclasses.replace(found, smooth=np.zeros((0, 2)))


def flags(rows: Sequence[dict], found: Sequence[Through], config: PickConfig) -> np.ndarray:
    """The new review flag (bool per row) under ``config``: main's flag, or ``through`` at least
    :attr:`~retouch.pick.PickConfig.review_through` where main's is not raised."""
    out = np.zeros(len(rows), bool)
    for i, (row, f) in enumerate(zip(rows, found, strict=True)):
        out[i] = bool(row["main"]) or (
            config.review_through > 0
            and backdrop_through(gated(f, config), config=config) >= config.review_through
        )
    return out


def counts(rows: Sequence[dict], flagged: np.ndarray, use: np.ndarray | None = None) -> dict[str, int]:
    """Flagged / total of failures (``bad``), good results (``good``, control photos left out) and control photos
    (``control``) among the rows in ``use`` (all by default)."""
    use = np.ones(len(rows), bool) if use is None else use
    iou = np.array([r["iou"] for r in rows])
    ctl = np.array([r["control"] for r in rows])
    bad, good = use & ~ctl & (iou < BAD), use & ~ctl & (iou >= GOOD)
    cu = use & ctl
    return {
        "bad": int((flagged & bad).sum()),
        "bad_n": int(bad.sum()),
        "good": int((flagged & good).sum()),
        "good_n": int(good.sum()),
        "control": int((flagged & cu).sum()),
        "control_n": int(cu.sum()),
    }


def choose(
    rows: Sequence[dict], table: np.ndarray, main: np.ndarray, use: np.ndarray, spare_good: int = 0
) -> int:
    """Index of the operating point among the variants (rows of bool ``table`` (variants, photos)) on the photos
    in ``use``: the most failures flagged with at most ``spare_good`` good results and no control photo flagged
    beyond ``main``'s (ties: the fewest photos flagged, then the earliest variant)."""
    iou = np.array([r["iou"] for r in rows])
    ctl = np.array([r["control"] for r in rows])
    bad = use & ~ctl & (iou < BAD)
    spare = use & (ctl | (iou >= GOOD)) & ~main
    best, best_key = 0, (-1, 0, 0)
    for v in range(table.shape[0]):
        if (table[v] & spare & ctl).any() or int((table[v] & spare & ~ctl).sum()) > spare_good:
            continue
        key = (int((table[v] & bad).sum()), -int((table[v] & use).sum()), -v)
        if key > best_key:
            best, best_key = v, key
    return best


def load(specs: Sequence[str]) -> tuple[list[dict], list[Through], list[float], list[tuple[str, int]]]:
    """Rows (with ``control`` and ``main``: the recomputed main flag), their measured regions, CPU seconds of
    :func:`through_regions` per photo and where each photo's npz is (folder, index), from
    ``ROWS.json:NPZ_DIR[:control]`` pairs.

    Raises:
        ValueError: main's flag recomputed from the recorded signals differs from the recorded one.
    """
    always = dataclasses.replace(FIRST_ROUND, through_smooth_ring=float("inf"))
    rows: list[dict] = []
    found: list[Through] = []
    cpu: list[float] = []
    where: list[tuple[str, int]] = []
    for spec in specs:
        parts = spec.split(":")
        recorded = json.loads(Path(parts[0]).read_text())
        control = len(parts) > 2 and parts[2] == "control"
        for i, r in enumerate(recorded):
            main_flag = confidence(r["signals"])[1]
            if main_flag != bool(r["needs_review"]):
                raise ValueError(
                    f"{r['name']}: main's flag recomputed {main_flag}, recorded {r['needs_review']}"
                )
            z = np.load(Path(parts[1]) / f"{i:04d}.npz")
            small, alpha = z["small"], z["alpha"].astype(np.float32) / 255.0
            t = time.process_time()
            found.append(through_regions(small, alpha, config=always))
            cpu.append(time.process_time() - t)
            rows.append({**r, "control": control, "main": main_flag})
            where.append((parts[1], i))
    return rows, found, cpu, where


def main(argv: list[str] | None = None) -> int:
    """Measure, replay, print main's and the new flag's counts in sample and out of fold."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recordings", nargs="+", help="ROWS.json:NPZ_DIR[:control]")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--local", action="store_true", help="the second round: the local backdrop model")
    parser.add_argument("--seen", action="store_true", help="the third round: colours seen in the backdrop")
    args = parser.parse_args(argv)
    rows, found, cpu, where = load(args.recordings)
    if args.local:
        local_main(rows, found, where, args.folds)
        return 0
    if args.seen:
        seen_main(rows, found, where, args.folds)
        return 0
    main_flags = np.array([r["main"] for r in rows])
    configs = list(variants())
    table = np.stack([flags(rows, found, c) for c in configs])
    ms = 1000 * np.array(cpu)
    ran = ~main_flags
    print(
        f"{len(rows)} photos; through_regions CPU per photo it runs on ({int(ran.sum())}): "
        f"median {np.median(ms[ran]):.1f} ms, p90 {np.percentile(ms[ran], 90):.1f} ms"
    )
    print("main:", counts(rows, main_flags))
    shipped = flags(rows, found, FIRST_ROUND)
    print("the record's thresholds, in sample:", counts(rows, shipped))
    newly = [
        f"{r['name']} ({r['iou']:.2f})"
        for r, s, m in zip(rows, shipped, main_flags, strict=True)
        if s and not m
    ]
    print("  newly flagged:", ", ".join(newly))
    everywhere = np.ones(len(rows), bool)
    v = choose(rows, table, main_flags, everywhere)
    print("operating point in sample:", counts(rows, table[v]), describe(configs[v]))
    fold = grouped_folds(rows, args.folds)
    oof = np.zeros(len(rows), bool)
    for k in range(args.folds):
        v = choose(rows, table, main_flags, fold != k)
        oof[fold == k] = table[v][fold == k]
        print(f"  fold {k}: {describe(configs[v])}")
    print("out of fold:", counts(rows, oof))
    return 0


# --- the second round: a local model of the backdrop ------------------------------------------------------------
#
# A single surface over the whole ring cannot predict a blurred or photographed backdrop; the local model predicts
# each pixel of the box from the ring pixels nearest it (a normalised Gaussian spread of the ring, per channel)
# and judges a region against the residual of the ring near it, not the ring's median (the backdrop through the
# product record, section "Second round: local backdrop").


def local_variants(sigma_share: float) -> list[PickConfig]:
    """The grid searched at one spread of the local test (the product's ``through_local_*``; its own thresholds
    first), each with the first round's smooth and like tests as shipped."""
    s = SECOND_ROUND
    grid = itertools.product(
        _values(s.through_local_share, 0.02, 0.05, 0.2),
        _values(s.through_local_enclosed, 0.0, 0.05, 0.2, 0.3),
        _values(s.through_local_residual, 0.6, 0.8, 1.2, 1.5, 2.0),
        _values(s.through_local_noise, 1.3, 1.5, 2.0, 1e9),
    )
    return [
        dataclasses.replace(
            s,
            through_local_sigma=sigma_share,
            through_local_share=share,
            through_local_enclosed=enclosed,
            through_local_residual=residual,
            through_local_noise=noise,
        )
        for share, enclosed, residual, noise in grid
    ]


def report(
    name: str,
    rows: list[dict],
    table: np.ndarray,
    base: np.ndarray,
    configs: Sequence[PickConfig],
    describe_config: Callable[[PickConfig], str],
    folds: int,
    earlier: np.ndarray,
    earlier_name: str,
) -> None:
    """Print a round's operating point (:func:`choose` against the flags ``base``) in sample, the failures it
    flags beyond the ``earlier`` flags, and the product-grouped out-of-fold counts with the good results or control
    photos flagged out of fold beyond ``base``.

    Args:
        name: the round's test ("local", "seen").
        rows: recorded rows (``name``, ``iou``, ``control``).
        table: bool (variants, photos), each variant's flag.
        base: bool (photos,), the flag a variant must not add good results or control photos to.
        configs: the variants, in ``table``'s order.
        describe_config: one variant's thresholds as text.
        folds: number of product-grouped folds.
        earlier: bool (photos,), the earlier round's flag, for the "newly flagged" line.
        earlier_name: its name in that line.
    """
    v = choose(rows, table, base, np.ones(len(rows), bool))
    print(f"{name}, in sample:", counts(rows, table[v]), describe_config(configs[v]))
    newly = [
        f"{r['name']} ({r['iou']:.2f})"
        for r, s, f in zip(rows, table[v], earlier, strict=True)
        if s and not f
    ]
    print(f"  newly flagged beyond the {earlier_name}:", ", ".join(newly))
    fold = grouped_folds(rows, folds)
    oof = np.zeros(len(rows), bool)
    for k in range(folds):
        vk = choose(rows, table, base, fold != k)
        oof[fold == k] = table[vk][fold == k]
        print(f"  fold {k}: {describe_config(configs[vk])}")
    print(f"{name}, out of fold:", counts(rows, oof))
    spare = [
        r["name"]
        for r, o, m in zip(rows, oof, base, strict=True)
        if o and not m and (r["control"] or r["iou"] >= GOOD)
    ]
    print("  good results or control views flagged out of fold:", ", ".join(spare))


def local_main(rows: list[dict], found: list[Through], smalls: list[tuple[str, int]], folds: int) -> None:
    """The second round: the first round's flag (:data:`FIRST_ROUND`) or the local test, searched on a grid at two
    spreads; prints in-sample and product-grouped out-of-fold counts against main and the first round."""
    main_flags = np.array([r["main"] for r in rows])
    first = flags(rows, found, FIRST_ROUND)
    print("main:", counts(rows, main_flags))
    print("first round:", counts(rows, first))
    configs: list[PickConfig] = []
    columns: list[np.ndarray] = []
    for sigma_share in (0.1, 0.05):
        at = dataclasses.replace(SHIPPED_PICK, through_local_sigma=sigma_share)
        measured: list[Through | None] = []
        cpu: list[float] = []
        for i, (path, j) in enumerate(smalls):
            if main_flags[i]:
                measured.append(None)
                continue
            z = np.load(Path(path) / f"{j:04d}.npz")
            alpha = z["alpha"].astype(np.float32) / 255.0
            t = time.process_time()
            measured.append(through_regions(z["small"], alpha, config=at))
            cpu.append(time.process_time() - t)
        ms = 1000 * np.array(cpu)
        print(
            f"through_regions (local spread {sigma_share}) CPU per photo: median {np.median(ms):.1f} ms, p90 "
            f"{np.percentile(ms, 90):.1f} ms on {len(cpu)} photos"
        )
        for c in local_variants(sigma_share):
            configs.append(c)
            columns.append(
                main_flags
                | np.array(
                    [m is not None and backdrop_through(m, config=c) >= c.review_through for m in measured]
                )
            )
    report("local", rows, np.stack(columns), main_flags, configs, describe_local, folds, first, "first round")


# --- the third round: colours seen in the backdrop and not on the product's rim ---------------------------------
#
# An opening deep inside the product on a blurred or busy backdrop is predicted neither by one surface nor by the
# ring near it, but the colours it shows are found in the ring and not on the product's own rim (the backdrop seen
# inside the product record).

SEEN_TOLS = (8.0, 12.0, 16.0)
SEEN_RIMS = (4.0, 8.0, 12.0, 16.0)


def seen_variants(tol: float, rim: float) -> list[PickConfig]:
    """The grid searched at one candidate definition of the seen test (colour tolerance ``tol``, rim margin
    ``rim``; the product's own share and enclosure first), each with the second round's three tests as
    shipped."""
    s = SHIPPED_PICK
    grid = itertools.product(
        _values(s.through_seen_share, 0.03, 0.05, 0.08, 0.1, 0.12, 0.15, 0.2),
        _values(s.through_seen_enclosed, 0.0, 0.05, 0.1),
    )
    return [
        dataclasses.replace(
            s, through_seen_tol=tol, through_seen_rim=rim, through_seen_share=share, through_seen_enclosed=enc
        )
        for share, enc in grid
    ]


def seen_main(rows: list[dict], found: list[Through], smalls: list[tuple[str, int]], folds: int) -> None:
    """The third round: the second round's flag (:data:`SECOND_ROUND`) or the seen test, searched on a grid of
    candidate definitions (:data:`SEEN_TOLS` x :data:`SEEN_RIMS`) and thresholds (:func:`seen_variants`); prints
    in-sample and product-grouped out-of-fold counts against main and the second round, and the CPU of the seen
    test alone per photo it runs on."""
    main_flags = np.array([r["main"] for r in rows])
    second = flags(rows, found, SECOND_ROUND)
    print("main:", counts(rows, main_flags))
    print("second round:", counts(rows, second))
    configs: list[PickConfig] = []
    columns: list[np.ndarray] = []
    for tol, rim in itertools.product(SEEN_TOLS, SEEN_RIMS):
        at = dataclasses.replace(SHIPPED_PICK, through_seen_tol=tol, through_seen_rim=rim)
        measured: list[np.ndarray | None] = []
        for i, (path, j) in enumerate(smalls):
            if second[i]:
                measured.append(None)
                continue
            z = np.load(Path(path) / f"{j:04d}.npz")
            measured.append(
                through_regions(z["small"], z["alpha"].astype(np.float32) / 255.0, config=at).seen
            )
        for c in seen_variants(tol, rim):
            configs.append(c)
            columns.append(
                second
                | np.array(
                    [
                        m is not None and backdrop_through(seen_only(m), config=c) >= c.review_through
                        for m in measured
                    ]
                )
            )
    table = np.stack(columns)
    for c, col in zip(configs, table, strict=True):
        if c.through_seen_enclosed == SHIPPED_PICK.through_seen_enclosed:
            print(f"    {describe_seen(c)}: {counts(rows, col)}")
    report("seen", rows, table, second, configs, describe_seen, folds, second, "second round")
    cpu: list[float] = []
    for i, (path, j) in enumerate(smalls):
        if second[i]:
            continue
        z = np.load(Path(path) / f"{j:04d}.npz")
        alpha = z["alpha"].astype(np.float32) / 255.0
        on = time.process_time()
        through_regions(z["small"], alpha)
        t_on = time.process_time() - on
        off = time.process_time()
        through_regions(z["small"], alpha, config=SECOND_ROUND)
        cpu.append(t_on - (time.process_time() - off))
    ms = 1000 * np.array(cpu)
    print(
        f"seen test CPU per photo (all four tests minus the three, same run): median {np.median(ms):.1f} ms, "
        f"p90 {np.percentile(ms, 90):.1f} ms on {len(cpu)} photos"
    )


def seen_only(seen: np.ndarray) -> Through:
    """A :class:`Through` holding only the seen regions ``seen`` (float64 (n, 2)): the other tests find nothing."""
    return Through(np.inf, 0.0, np.zeros((0, 2)), np.zeros((0, 4)), np.zeros((0, 4)), seen)


def describe_seen(c: PickConfig) -> str:
    """The ``through_seen_*`` thresholds of a variant, short."""
    return (
        f"seen tol<={c.through_seen_tol} rim>{c.through_seen_rim} share>={c.through_seen_share} "
        f"enc<={c.through_seen_enclosed}"
    )


def describe_local(c: PickConfig) -> str:
    """The ``through_local_*`` thresholds of a variant, short."""
    return (
        f"local sigma {c.through_local_sigma} share>={c.through_local_share} enc<={c.through_local_enclosed} "
        f"res<={c.through_local_residual} noise x{c.through_local_noise}"
    )


def describe(c: PickConfig) -> str:
    """The ``through_*`` thresholds of a variant, short."""
    return (
        f"smooth ring<={c.through_smooth_ring} share>={c.through_smooth_share} enc<={c.through_smooth_enclosed}; "
        f"like share>={c.through_like_share} enc<={c.through_like_enclosed} res<={c.through_like_residual} "
        f"noise x{c.through_like_noise}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
