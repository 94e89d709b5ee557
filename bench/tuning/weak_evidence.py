"""Research tool: weak evidence combined (two-signal conjunctions) and variants of the graph cut, on the recorded
tuning photos main's review flag leaves unflagged.

Input: main's flag replayed on the recorded tuning photos (a JSON list, per photo ``rec``, ``i`` (npz index),
``name``, ``iou``, ``flag``, ``signals``, as written by the lead's replay of :func:`bench.tuning.recordings.
replayed_flag`), and the recordings' npz folders (``REC=NPZ_DIR``; the rec ``C`` holds the control views).

``measure`` runs the graph cut of :func:`retouch.pick.cut.cut_backdrop` on each unflagged photo and writes, per
photo, the shares of these variants (JSON, one row per photo):

* ``total``: the shipped share (the matte the cut gives to the backdrop, as :func:`cut_backdrop`);
* ``largest``: the share of the largest 8-connected backdrop piece the cut finds;
* ``thin_total`` / ``thin_largest``: the same with the rim skipping thin parts: where the (hole-filled) matte is
  thinner than twice the rim width (not kept by a morphological opening with a disc of the rim's radius), the
  rim covers the whole part, so those pixels are only "probably product" there;
* ``cand_total`` / ``cand_largest``: the shipped cut's backdrop restricted to the openings step's candidate
  regions (:func:`retouch.openings.clear_openings` steps 1-3 redone on the final matte at the cut's box:
  matte pixels whose posterior of background, smoothed over 5 x 5 px, is at least its ``posterior``);
* ``cand``: the candidates' share of the matte.

``search`` replays thresholds of each variant alone and two-signal conjunctions (a cut variant in a band at
or above a threshold AND a recorded signal at or above / below a threshold), in sample and product-grouped out
of fold (:func:`bench.tuning.recordings.out_of_fold`, every threshold chosen on the other four folds), and
prints how many conjunctions were tried.

Usage: ``python -m bench.tuning.weak_evidence measure CURRENT.json OUT.json A=/work/rec/A-npz ...`` then
``python -m bench.tuning.weak_evidence search CURRENT.json OUT.json [--spare-good N] [--pair VARIANT,SIGNAL]``;
``python -m bench.tuning.weak_evidence shared FOLDER FOLDER ...`` runs the pipeline on real photos
(:func:`shared_check`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from scipy import ndimage as ndi  # noqa: E402

from bench.tuning.backdrop_through import choose, counts  # noqa: E402
from bench.tuning.recordings import kind, out_of_fold, shared_mattes  # noqa: E402
from retouch.colors import fit_colour_mixture, masked_pixels, mixture_log_density  # noqa: E402
from retouch.openings import DEFAULT_OPENINGS  # noqa: E402
from retouch.pick.config import SHIPPED_PICK, PickConfig  # noqa: E402
from retouch.pick.cut import MIN_SAMPLES, cut_layout, frozen_cut  # noqa: E402

VARIANTS = ("total", "largest", "thin_total", "thin_largest", "cand_total", "cand_largest")


def _largest(piece: np.ndarray) -> int:
    """Pixels in the largest 8-connected component of a bool mask (0 when empty)."""
    lab, n = ndi.label(piece, structure=np.ones((3, 3), bool))
    return int(np.bincount(lab.ravel())[1:].max()) if n else 0


def _candidates(rgb: np.ndarray, m: np.ndarray, ring: np.ndarray) -> np.ndarray:
    """The openings step's candidate regions on a matte (steps 1-3 of :func:`retouch.openings.clear_openings`:
    background mixture from ``ring``, product mixture from the matte pixels it does not explain, smoothed
    posterior of background at least ``DEFAULT_OPENINGS.posterior``). ``rgb`` float32 (H, W, 3) in 0-255."""
    unit = rgb / 255.0
    rng = np.random.default_rng(0)
    ring_rgb = masked_pixels(unit, ring)
    bg = fit_colour_mixture(ring_rgb, 6, rng)
    fg_px = masked_pixels(unit, m)
    fg_bg = mixture_log_density(fg_px, bg)
    typical = float(np.percentile(mixture_log_density(ring_rgb, bg), 30))
    unexplained = fg_bg < typical
    if unexplained.sum() < 50:
        return np.zeros(m.shape, bool)
    fg = fit_colour_mixture(fg_px[unexplained], 6, rng)
    post = np.zeros(m.shape, np.float32)
    post[m] = 1.0 / (1.0 + np.exp(np.clip(mixture_log_density(fg_px, fg) - fg_bg, -30.0, 30.0)))
    return m & (ndi.uniform_filter(post, size=5, mode="nearest") >= DEFAULT_OPENINGS.posterior)


def cut_variants(small: np.ndarray, alpha: np.ndarray, config: PickConfig = SHIPPED_PICK) -> dict[str, float]:
    """The shares of :data:`VARIANTS` and ``cand`` for one photo (uint8 (H, W, 3), float32 (H, W) matte); zeros
    where :func:`retouch.pick.cut.cut_backdrop` gives no signal."""

    out = dict.fromkeys((*VARIANTS, "cand"), 0.0)
    layout = cut_layout(small, alpha, config=config)
    if layout is None:
        return out
    box, filled, d_out, ring = layout.box, layout.filled, layout.d_out, layout.ring
    m, scale = box.matte, box.scale
    width = max(2.0, config.cut_rim * scale)
    rgb = np.clip(np.round(box.rgb), 0, 255).astype(np.uint8)
    area = float(m.sum())
    r = int(np.ceil(width))
    disc = np.hypot(*np.mgrid[-r : r + 1, -r : r + 1]) <= width
    thick = ndi.binary_opening(filled, structure=disc)
    for name, rim in (("", layout.rim), ("thin_", layout.rim & thick)):
        interior = m & ~rim
        if min(int(rim.sum()), int(interior.sum()), int(ring.sum())) < MIN_SAMPLES:
            continue
        back = m & ~frozen_cut(rgb, m, rim, ring, d_out, scale)
        out[name + "total"] = round(float(back.sum()) / area, 4)
        out[name + "largest"] = round(_largest(back) / area, 4)
        if not name and ring.sum() >= 200:
            cand = _candidates(box.rgb, m, ring)
            out["cand"] = round(float(cand.sum()) / area, 4)
            out["cand_total"] = round(float((back & cand).sum()) / area, 4)
            out["cand_largest"] = round(_largest(back & cand) / area, 4)
    return out


def measure(current: Sequence[dict], npz: dict[str, str]) -> list[dict | None]:
    """:func:`cut_variants` (with ``cpu`` seconds) per photo main leaves unflagged, ``None`` for the others."""
    out: list[dict | None] = []
    for row in current:
        if row["flag"]:
            out.append(None)
            continue
        z = np.load(Path(npz[row["rec"]]) / f"{row['i']:04d}.npz")
        t = time.process_time()
        v = cut_variants(z["small"], z["alpha"].astype(np.float32) / 255.0)
        v["cpu"] = time.process_time() - t
        out.append(v)
    return out


#: Recorded signals tried as the second half of a conjunction, with the side that would mean a failure
#: (+1: at or above the threshold, -1: at or below).
SECOND = {
    "uncertain": 1,
    "openings_cleared": 1,
    "openings_doubtful": 1,
    "blurred_outline": 1,
    "frame_join": 1,
    "second_iou": -1,
    "agreement": -1,
    "edge_cover": -1,
    "centre": 1,
    "area": 1,
    "conf": -1,
}


def _values(x: np.ndarray) -> list[float]:
    """Candidate thresholds: the midpoints between consecutive distinct finite values of ``x`` (at most 40, by
    quantile) plus one beyond each end."""
    u = np.unique(x[np.isfinite(x)])
    if u.size == 0:
        return []
    mids = list((u[1:] + u[:-1]) / 2) if u.size > 1 else []
    if len(mids) > 40:
        mids = list(np.unique(np.quantile(mids, np.linspace(0, 1, 40))))
    return [float(u[0]) - 1e-6, *mids, float(u[-1]) + 1e-6]


Rule = tuple[str, np.ndarray]


def report(
    title: str, rules: Sequence[Rule], rows: Sequence[dict], main: np.ndarray, spare_good: int, folds: int
) -> None:
    """Print the operating point of ``rules`` (description, bool (photos,) new flags) on top of ``main`` in
    sample (:func:`bench.tuning.backdrop_through.choose`) and product-grouped out of fold, with the photos each
    newly flags."""
    table = np.stack([main | f for _, f in rules])
    v = choose(rows, table, main, np.ones(len(rows), bool), spare_good)
    print(f"\n{title}: {len(rules)} rules tried")
    print(f"  in sample: {rules[v][0]} {counts(rows, table[v])}")
    same = [d for d, f in rules if ((main | f) == table[v]).all()]
    print(f"  {len(same)} rules flag the same photos, e.g. {same[len(same) // 2]}")
    for r, s in zip(rows, table[v], strict=True):
        if s and not r["main"]:
            print(f"    newly flagged {r['name']} IoU {r['iou']:.3f}")
    oof, chosen = out_of_fold(rows, table, folds, lambda use: choose(rows, table, main, use, spare_good))
    print(f"  out of fold: {counts(rows, oof)}; chosen {[rules[c][0] for c in chosen]}")
    for r, o in zip(rows, oof, strict=True):
        if o and not r["main"]:
            tag = kind(r)
            print(f"    oof newly flagged {r['name']} IoU {r['iou']:.3f} {tag}")


def columns(current: Sequence[dict], measured: Sequence[dict | None]) -> dict[str, np.ndarray]:
    """Float (photos,) per cut variant (:data:`VARIANTS`, ``cand``) and per signal of :data:`SECOND`, NaN on the
    photos main flags (``second_iou`` 1.0 where the second look did not run, other signals 0.0 where absent)."""
    cols = {k: np.array([np.nan if m is None else m[k] for m in measured]) for k in (*VARIANTS, "cand")}
    for key in SECOND:
        if key == "conf":
            cols[key] = np.array([np.nan if r["flag"] else r["conf"] for r in current])
            continue
        absent = 1.0 if key == "second_iou" else 0.0
        cols[key] = np.array([np.nan if r["flag"] else r["signals"].get(key, absent) for r in current])
    return cols


def conjunctions(cols: dict[str, np.ndarray], first: str, second: str) -> list[Rule]:
    """Every ``first >= t and second (>= or <=, :data:`SECOND`'s side) u`` over both grids (:func:`_values`)."""
    x = np.nan_to_num(cols[first], nan=-1.0)
    side = SECOND.get(second, 1)
    y = cols[second]
    op = ">=" if side > 0 else "<="
    hits = {u: (side * np.nan_to_num(y, nan=-side * np.inf)) >= side * u for u in _values(y)}
    return [
        (f"{first} >= {t:.4f} and {second} {op} {u:.4f}", (x >= t) & h)
        for t in _values(cols[first])
        for u, h in hits.items()
    ]


def search(
    current: Sequence[dict],
    measured: Sequence[dict | None],
    spare_good: int = 1,
    folds: int = 5,
    pair: tuple[str, str] | None = None,
) -> None:
    """Print, per family of rules, the operating point in sample and out of fold, and the number tried; with
    ``pair`` (a cut variant, a signal of :data:`SECOND`) only that conjunction, its two thresholds chosen per
    fold (the pair itself then chosen on all photos: not an honest out-of-fold figure for a searched pair)."""
    rows = [
        {"name": r["name"], "iou": r["iou"], "control": r["rec"] == "C", "main": bool(r["flag"])}
        for r in current
    ]
    main = np.array([r["main"] for r in rows])
    print("main:", counts(rows, main))
    cols = columns(current, measured)
    if pair is not None:
        report(f"{pair[0]} AND {pair[1]} alone", conjunctions(cols, *pair), rows, main, spare_good, folds)
        return
    every: list[Rule] = []
    for k in VARIANTS:
        x = np.nan_to_num(cols[k], nan=-1.0)
        alone = [(f"{k} >= {t:.4f}", x >= t) for t in _values(cols[k])]
        every += alone
        report(f"{k} alone", alone, rows, main, spare_good, folds)
    tried = 0
    for k in VARIANTS:
        rules = [rule for s in SECOND for rule in conjunctions(cols, k, s)]
        tried += len(rules)
        every += rules
        report(f"{k} AND another signal", rules, rows, main, spare_good, folds)
    pairs = [
        rule
        for a in ("total", "thin_total")
        for b in ("largest", "cand_total", "cand")
        for rule in conjunctions(cols, a, b)
    ]
    tried += len(pairs)
    every += pairs
    report("two cut measures together", pairs, rows, main, spare_good, folds)
    print(f"\nconjunctions tried in all: {tried}")
    report("every rule above pooled (one choice per fold among all)", every, rows, main, spare_good, folds)


def shared_check(folders: Sequence[Path]) -> None:
    """Run the pipeline's matte (:func:`retouch.pipeline.product_matte`) on real photos and print, for each one
    main leaves unflagged, its :func:`cut_variants` and ``edge_cover``; photos with a hand mask
    (``masks/NAME.png`` beside the folder ``images``) get their IoU."""
    from retouch.pick.confidence import confidence

    for name, small, alpha, pick, score in shared_mattes(folders):
        if confidence(pick.signals)[1]:
            print(f"  {name}: flagged by main{score}", flush=True)
            continue
        v = cut_variants(small, alpha)
        shown = " ".join(f"{k} {v[k]:.4f}" for k in (*VARIANTS, "cand"))
        edge = pick.signals.get("edge_cover", float("nan"))
        print(f"  {name}: unflagged{score} edge_cover {edge:.4f} {shown}", flush=True)


def main(argv: list[str] | None = None) -> int:
    """``measure`` or ``search`` (see the module's docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("measure", "search", "shared"))
    parser.add_argument("current")
    parser.add_argument("measured")
    parser.add_argument("npz", nargs="*", help="REC=NPZ_DIR")
    parser.add_argument("--spare-good", type=int, default=1)
    parser.add_argument("--pair", help="VARIANT,SIGNAL: that conjunction alone")
    args = parser.parse_args(argv)
    if args.what == "shared":  # CURRENT and MEASURED are the photo folders here
        shared_check([Path(args.current), Path(args.measured), *map(Path, args.npz)])
        return 0
    current = json.loads(Path(args.current).read_text())
    if args.what == "measure":
        npz = dict(s.split("=", 1) for s in args.npz)
        out = measure(current, npz)
        Path(args.measured).write_text(json.dumps(out))
        cpu = 1000 * np.array([m["cpu"] for m in out if m is not None])
        print(f"CPU per photo: median {np.median(cpu):.1f} ms, p90 {np.percentile(cpu, 90):.1f} ms")
        return 0
    pair = tuple(args.pair.split(",")) if args.pair else None
    search(current, json.loads(Path(args.measured).read_text()), args.spare_good, pair=pair)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
