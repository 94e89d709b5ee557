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
With ``--seen``, the third round (the backdrop seen inside the product record): the product's flag or the
*seen* test (colours the ring shows and the product's rim does not), searched on :func:`seen_variants` at each
candidate definition the same way (not shipped: the measure, :func:`seen_regions`, lives here); the product's
``retouch.pick.through`` holds the three tests.

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
from collections.abc import Iterable, Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from scipy import ndimage as ndi  # noqa: E402
from scipy.spatial import cKDTree  # noqa: E402

from bench.tuning.tune_pick import grouped_folds  # noqa: E402
from retouch.pick.confidence import confidence  # noqa: E402
from retouch.pick.config import SHIPPED_PICK, PickConfig  # noqa: E402
from retouch.pick.through import Through, backdrop_through, matte_box, through_regions  # noqa: E402

FIRST_ROUND = dataclasses.replace(SHIPPED_PICK, through_local_share=float("inf"))
"""The first round's flag: the product's smooth and like tests with their shipped thresholds, the local test off
(no region reaches an infinite share). Its held-out run failed; the second round ships them with the local test."""

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


def choose(rows: Sequence[dict], table: np.ndarray, main: np.ndarray, use: np.ndarray) -> int:
    """Index of the operating point among the variants (rows of bool ``table`` (variants, photos)) on the photos
    in ``use``: the most failures flagged with no good result nor control photo flagged beyond ``main``'s (ties: the
    fewest photos flagged, then the earliest variant)."""
    iou = np.array([r["iou"] for r in rows])
    ctl = np.array([r["control"] for r in rows])
    bad = use & ~ctl & (iou < BAD)
    spare = use & (ctl | (iou >= GOOD)) & ~main
    best, best_key = 0, (-1, 0, 0)
    for v in range(table.shape[0]):
        if (table[v] & spare).any():
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
    s = SHIPPED_PICK
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
    table = np.stack(columns)
    v = choose(rows, table, main_flags, np.ones(len(rows), bool))
    print("local, in sample:", counts(rows, table[v]), describe_local(configs[v]))
    newly = [
        f"{r['name']} ({r['iou']:.2f})" for r, s, f in zip(rows, table[v], first, strict=True) if s and not f
    ]
    print("  newly flagged beyond the first round:", ", ".join(newly))
    fold = grouped_folds(rows, folds)
    oof = np.zeros(len(rows), bool)
    for k in range(folds):
        vk = choose(rows, table, main_flags, fold != k)
        oof[fold == k] = table[vk][fold == k]
        print(f"  fold {k}: {describe_local(configs[vk])}")
    print("local, out of fold:", counts(rows, oof))
    spare = [
        r["name"]
        for r, o, m in zip(rows, oof, main_flags, strict=True)
        if o and not m and (r["control"] or r["iou"] >= GOOD)
    ]
    print("  good results or control views flagged out of fold:", ", ".join(spare))


# --- the third round: colours seen in the backdrop and not on the product's rim ---------------------------------
#
# An opening deep inside the product on a blurred or busy backdrop is predicted neither by one surface nor by the
# ring near it, but the colours it shows are found in the ring and not on the product's own rim (the backdrop seen
# inside the product record).

SEEN_TOLS = (8.0, 12.0, 16.0)
SEEN_RIMS = (4.0, 8.0, 12.0, 16.0)


@dataclasses.dataclass(frozen=True)
class Seen:
    """The seen test's thresholds (the record's values by default, chosen on tuning; not shipped: its held-out run
    flagged no more failures).

    Attributes:
        tol: a matte pixel's colour is seen in the backdrop when a ring pixel lies within this RGB distance
            (levels).
        rim: ... and not on the product's rim when no rim pixel lies within this RGB distance (levels).
        share: smallest region counted, as a share of the matte.
        enclosed: largest share of the pixels around a region outside the matte.
    """

    tol: float = 12.0
    rim: float = 4.0
    share: float = 0.12
    enclosed: float = 0.0


def seen_regions(small: np.ndarray, alpha: np.ndarray, tol: float, rim: float) -> np.ndarray:
    """The seen test's candidate regions on the product's box (:func:`retouch.pick.through.matte_box`): matte
    pixels (not clipped, below 250 on every channel) whose colour some ring pixel shows within ``tol`` RGB levels
    and no pixel of the product's rim (matte pixels more than 1 px and at most 6 % of the matte's long side, at
    least 3 px, inside the outline) within ``rim`` levels; 8-connected regions of at least 9 px and 0.3 % of the
    matte.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) final matte in [0, 1].
        tol: the colour tolerance to the ring (levels).
        rim: the margin from the rim's colours (levels).

    Returns:
        float64 (n, 2): per region its share of the matte and the share of the pixels around it outside the matte
        (8-neighbours not in the region); (0, 2) for an empty matte or one without a ring.
    """
    box = matte_box(small, alpha)
    if box is None:
        return np.zeros((0, 2))
    rgb, b, ring = box.rgb, box.matte, box.ring
    d_in = ndi.distance_transform_edt(b)
    rim_px = b & (d_in > 1.0) & (d_in <= max(3.0, 0.06 * box.scale))
    cand = b & (rgb.max(-1) < 250)
    pix = rgb[cand]
    if not len(pix):
        return np.zeros((0, 2))
    d_bg, _ = cKDTree(rgb[ring]).query(pix, k=1, distance_upper_bound=tol + 1e-3)
    ok = d_bg <= tol
    if ok.any() and rim_px.any():
        d_rim, _ = cKDTree(rgb[rim_px]).query(pix[ok], k=1, distance_upper_bound=rim + 1e-3)
        ok[ok] = d_rim > rim
    cand[cand] = ok
    area = int(b.sum())
    labels, n = ndi.label(cand, structure=np.ones((3, 3), bool))
    if n == 0:
        return np.zeros((0, 2))
    sizes = np.bincount(labels.ravel(), minlength=n + 1)
    grown = ndi.maximum_filter(labels, size=3, mode="constant")
    around = (grown > 0) & ~cand
    b_count = np.bincount(grown[around], minlength=n + 1)
    e_count = np.bincount(grown[around & ~b], minlength=n + 1)
    keep = np.flatnonzero(sizes >= max(9.0, 0.003 * area))
    keep = keep[keep > 0]
    return np.stack([sizes[keep] / area, e_count[keep] / np.maximum(b_count[keep], 1)], -1).astype(np.float64)


def seen_passes(regions: np.ndarray, t: Seen) -> bool:
    """Whether any seen region (float64 (n, 2) of :func:`seen_regions`) passes the thresholds ``t``."""
    return bool(len(regions)) and bool(((regions[:, 0] >= t.share) & (regions[:, 1] <= t.enclosed)).any())


def seen_variants(tol: float, rim: float) -> list[Seen]:
    """The grid searched at one candidate definition (colour tolerance ``tol``, rim margin ``rim``): shares and
    enclosures, the record's first."""
    s = Seen()
    grid = itertools.product(
        _values(s.share, 0.03, 0.05, 0.08, 0.1, 0.12, 0.15, 0.2), _values(s.enclosed, 0.0, 0.05, 0.1)
    )
    return [Seen(tol, rim, share, enc) for share, enc in grid]


def seen_main(rows: list[dict], found: list[Through], smalls: list[tuple[str, int]], folds: int) -> None:
    """The third round: the product's flag (the three shipped tests) or the seen test, searched on a grid of
    candidate definitions (:data:`SEEN_TOLS` x :data:`SEEN_RIMS`) and thresholds (:func:`seen_variants`) by
    :func:`choose`; prints in-sample and product-grouped out-of-fold counts against main without the cap and the
    product, and the CPU of :func:`seen_regions` per photo it runs on."""
    main_flags = np.array([r["main"] for r in rows])
    shipped = flags(rows, found, SHIPPED_PICK)
    print("main without the through cap:", counts(rows, main_flags))
    print("the product (three tests):", counts(rows, shipped))
    configs: list[Seen] = []
    columns: list[np.ndarray] = []
    cpu: list[float] = []
    for tol, rim in itertools.product(SEEN_TOLS, SEEN_RIMS):
        measured: list[np.ndarray | None] = []
        for i, (path, j) in enumerate(smalls):
            if shipped[i]:
                measured.append(None)
                continue
            z = np.load(Path(path) / f"{j:04d}.npz")
            alpha = z["alpha"].astype(np.float32) / 255.0
            t = time.process_time()
            measured.append(seen_regions(z["small"], alpha, tol, rim))
            if (tol, rim) == (Seen().tol, Seen().rim):
                cpu.append(time.process_time() - t)
        for c in seen_variants(tol, rim):
            configs.append(c)
            columns.append(shipped | np.array([m is not None and seen_passes(m, c) for m in measured]))
    table = np.stack(columns)
    v = choose(rows, table, shipped, np.ones(len(rows), bool))
    print("seen, in sample:", counts(rows, table[v]), describe_seen(configs[v]))
    newly = [
        f"{r['name']} ({r['iou']:.2f})"
        for r, s, f in zip(rows, table[v], shipped, strict=True)
        if s and not f
    ]
    print("  newly flagged beyond the product:", ", ".join(newly))
    for c, col in zip(configs, table, strict=True):
        if c.enclosed == Seen().enclosed:
            print(f"    {describe_seen(c)}: {counts(rows, col)}")
    fold = grouped_folds(rows, folds)
    oof = np.zeros(len(rows), bool)
    for k in range(folds):
        vk = choose(rows, table, shipped, fold != k)
        oof[fold == k] = table[vk][fold == k]
        print(f"  fold {k}: {describe_seen(configs[vk])}")
    print("seen, out of fold:", counts(rows, oof))
    spare = [
        r["name"]
        for r, o, m in zip(rows, oof, shipped, strict=True)
        if o and not m and (r["control"] or r["iou"] >= GOOD)
    ]
    print("  good results or control views flagged out of fold:", ", ".join(spare))
    ms = 1000 * np.array(cpu)
    print(
        f"seen_regions CPU per photo (record's definition): median {np.median(ms):.1f} ms, p90 "
        f"{np.percentile(ms, 90):.1f} ms on {len(cpu)} photos"
    )


def describe_seen(c: Seen) -> str:
    """The seen thresholds of a variant, short."""
    return f"seen tol<={c.tol} rim>{c.rim} share>={c.share} enc<={c.enclosed}"


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
