"""Research tool: a per-photo patch classifier of colour and texture for the review flag, on recorded tuning photos.

The question: does an enclosed region inside the matte whose small *patches* (colour and texture together) are
nearer the backdrop's patches than the product's own reveal an opening kept whole over a busy or textured backdrop
(checkers, wood grain, noise with shapes seen through a spoked disc), where the single-pixel colour tests of
:mod:`retouch.pick.through` fail because the product shares some of the backdrop's colours?

Per photo, on the matte's box (:func:`retouch.pick.through.matte_box`, at most 128 px on its long side) every pixel
gets a patch description (:func:`patch_features`: over ``size`` x ``size`` px, taken only from pixels on the
same side of the outline, its mean CIELAB colour, the spread of each channel, the gradient energy of lightness and
its dominant orientation). Backdrop patches: the box's backdrop ring (or, with ``--background box``, all clear
background of the box more than 2 px from the matte). Product patches: the matte's rim (1 px to 10 % of the
matte's long side inside the outline), in two passes: rim pixels nearer the backdrop than the rim itself are left
out of the second (an opening that reaches the outline must not teach the product's look); or, with
``--product far``, the product's patches are the whole matte's but a pixel's own neighbourhood is left out (the
nearest matte patch more than 10 % of the matte's long side away in the image: a look the product repeats
elsewhere is the product's, an opening's look is found only in the opening). Each matte pixel's ratio
``distance to the nearest product patch / distance to the nearest backdrop patch`` (k-d tree through
:func:`retouch.pick.through._nearest`, in the default floating-point environment); matte pixels with a ratio above
``thr`` form regions (closed by 3 x 3 to bridge a spoke; :func:`retouch.pick.through._regions`), each with its
share of the matte, the share of the pixels around it outside the matte (enclosed: 0), its median ratio, its median
texture over the backdrop's and its median distance to the backdrop.

The replay: main's flag is recomputed per recorded photo as the product does it (the recorded
signals without ``through``, ``frame_join`` and ``blurred_outline``, then
:func:`retouch.pick.with_backdrop_through`, :func:`retouch.pick.with_joined_object`,
:func:`retouch.pick.confidence`); the patch regions are measured on the photos it leaves unflagged; every variant of
the thresholds (:func:`variants`) adds a flag where an enclosed region passes. Operating point: the variant flagging
the most results under IoU 0.8 with at most ``--good`` new results at IoU >= 0.95 and no control view (ties: the fewest new good results, the
fewest photos flagged, then the earliest variant), in sample and on product-grouped folds
(:func:`bench.tuning.tune_pick.grouped_folds`, chosen on the other folds). The patch classifier record in
``docs/decisions/`` holds the result.

Patch sides 5, 7 and 9 px are measured (the folds choose the side with the thresholds); the ``far`` model
measures 5 px only.

Usage: ``python -m bench.tuning.patch_backdrop /work/rec/A.json:/work/rec/A-npz ...
/work/rec/C.json:/work/rec/C-npz:control [--product far] [--background box] [--good N] [--main-flags current.json]``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from scipy import ndimage as ndi  # noqa: E402
from scipy.spatial import cKDTree  # noqa: E402
from skimage.color import rgb2lab  # noqa: E402

from bench.tuning.backdrop_through import BAD, GOOD, counts  # noqa: E402
from bench.tuning.recordings import out_of_fold, recorded_photos, replayed_flag  # noqa: E402
from retouch.pick.through import (  # noqa: E402
    _nearest,
    _regions,
    default_float_environment,
    matte_box,
)

#: Ratio thresholds at which candidate regions are measured (a variant picks one).
RATIOS = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0)
#: Patch sides (px at the box's scale) measured; a variant picks one, so the folds choose the size too.
SIZES = (5, 7, 9)
#: The ``far`` product model: a look counts as the product's where it recurs this share of the matte's long
#: side away (the rest of the product), searched among this many nearest looks.
FAR = 0.1
FAR_K = 32


def _masked_mean(values: np.ndarray, mask: np.ndarray, size: int) -> np.ndarray:
    """Mean of float32 ``values`` ((h, w) or (h, w, c)) over the ``size`` x ``size`` window, counting only the
    pixels of float32 ``mask`` (h, w) in {0, 1}; 0 where the window holds none."""
    den = np.maximum(ndi.uniform_filter(mask, size, mode="constant"), 1e-6)
    if values.ndim == 2:
        return ndi.uniform_filter(values * mask, size, mode="constant") / den
    return np.stack(
        [
            ndi.uniform_filter(values[..., c] * mask, size, mode="constant") / den
            for c in range(values.shape[-1])
        ],
        -1,
    )


def patch_features(lab: np.ndarray, mask: np.ndarray, size: int) -> np.ndarray:
    """Patch description of every pixel from the pixels of ``mask`` in its window.

    Args:
        lab: float32 (h, w, 3) CIELAB image (L in 0..100).
        mask: bool (h, w) the pixels a patch may use (one side of the outline).
        size: the window's side (px).

    Returns:
        float32 (h, w, 9): mean L, a, b; their standard deviations; the root mean squared gradient of L (per px);
        the dominant orientation of that gradient as ``5 * ((Jxx - Jyy), 2 Jxy) / (Jxx + Jyy + 1)`` from the
        window's structure tensor ``J`` (gradients only where both neighbours are in the mask). All in L units
        so one Euclidean distance compares them.
    """
    m = mask.astype(np.float32)
    mean = _masked_mean(lab, m, size)
    std = np.sqrt(np.maximum(_masked_mean(lab * lab, m, size) - mean * mean, 0.0))
    gy, gx = np.gradient(lab[..., 0])
    mg = ndi.binary_erosion(mask, np.ones((3, 3), bool)).astype(np.float32)
    jxx = np.maximum(_masked_mean(gx * gx, mg, size), 0.0)
    jyy = np.maximum(_masked_mean(gy * gy, mg, size), 0.0)
    jxy = _masked_mean(gx * gy, mg, size)
    energy = np.sqrt(jxx + jyy)
    orient = 5.0 * np.stack([jxx - jyy, 2.0 * jxy], -1) / (jxx + jyy + 1.0)[..., None]
    return np.concatenate([mean, std, energy[..., None], orient], -1).astype(np.float32)


def _nearest_other(points: np.ndarray, queries: np.ndarray, is_point: np.ndarray) -> np.ndarray:
    """Distance (float64, (m,)) from each of ``queries`` (float32 (m, f)) to the nearest of ``points`` (float32
    (n, f)) other than itself: where bool ``is_point`` (m,) is set the query is one of the points (in order) and
    its second nearest counts. k-d tree in the default floating-point environment."""
    with default_float_environment():
        d, _ = cKDTree(points).query(queries, k=2)
    d = np.asarray(d, np.float64)
    return np.where(is_point, d[:, 1], d[:, 0])


def _nearest_far(features: np.ndarray, yx: np.ndarray, radius: float) -> np.ndarray:
    """Per pixel (float32 ``features`` (n, f) at int positions ``yx`` (n, 2)) the feature distance (float64 (n,))
    to the nearest of the others more than ``radius`` px away in the image, searched among its :data:`FAR_K`
    nearest in feature space (1000.0 when none is that far: the pixel's look is found only around it). k-d tree
    in the default floating-point environment."""
    k = min(FAR_K, len(features))
    with default_float_environment():
        d, idx = cKDTree(features).query(features, k=k)
    d = np.asarray(d, np.float64).reshape(len(features), -1)
    idx = np.asarray(idx).reshape(len(features), -1)
    pos = yx.astype(np.float32)
    far = ((pos[idx] - pos[:, None, :]) ** 2).sum(-1) > radius * radius
    first = far.argmax(1)
    return np.where(far.any(1), d[np.arange(len(features)), first], 1000.0)


@dataclass(frozen=True)
class PatchRegions:
    """What one photo's patch classifier found.

    Attributes:
        bg_texture: median texture (L spread plus gradient energy) of the backdrop's patches.
        regions: per ratio threshold of :data:`RATIOS`, float64 (n, 5): per candidate region its share of the
            matte, the share of the pixels around it outside the matte, its median ratio, its median texture over
            ``bg_texture`` and its median distance to the nearest backdrop patch.
    """

    bg_texture: float
    regions: dict[float, np.ndarray]


def measure(
    small: np.ndarray,
    alpha: np.ndarray,
    *,
    size: int = 5,
    background: str = "ring",
    product: str = "rim",
) -> PatchRegions | None:
    """The candidate regions of the patch classifier (module docstring).

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) matte in [0, 1].
        size: the patch side (px at the box's scale).
        background: ``"ring"`` (the box's backdrop ring) or ``"box"`` (all clear background of the box).
        product: ``"rim"`` (the product's patches are the rim's, two passes) or ``"far"`` (each matte pixel's
            nearest product patch is the nearest matte patch more than :data:`FAR` of the matte's long side away in
            the image, among its :data:`FAR_K` nearest; none: a distance of 1000).

    Returns:
        :class:`PatchRegions`, or None when :func:`matte_box` finds no box.
    """
    box = matte_box(small, alpha)
    if box is None:
        return None
    b, clear = box.matte, box.alpha < 0.05
    lab = rgb2lab(box.rgb / 255.0).astype(np.float32)
    inside, outside = patch_features(lab, b, size), patch_features(lab, clear, size)
    bg = box.ring if background == "ring" else clear & (ndi.distance_transform_edt(~b) > 2.0)
    d_in = ndi.distance_transform_edt(b)
    rim = b & (d_in >= 1.0) & (d_in <= max(3.0, 0.1 * box.scale))
    d_bg = _nearest(outside[bg], inside[b], np.inf)
    ratio = np.zeros(b.shape, np.float32)
    if product == "far":
        ratio[b] = _nearest_far(inside[b], np.argwhere(b), max(3.0, FAR * box.scale)) / np.maximum(d_bg, 1e-3)
    for _ in range(
        2 if product == "rim" else 0
    ):  # the second pass leaves out rim pixels nearer the backdrop than the rest of the rim
        ratio[b] = _nearest_other(inside[rim], inside[b], rim[b]) / np.maximum(d_bg, 1e-3)
        kept = rim & (ratio <= 1.0)
        if int(kept.sum()) <= 8 or int(kept.sum()) == int(rim.sum()):
            break
        rim = kept
    dist = np.zeros(b.shape, np.float32)
    dist[b] = d_bg
    texture = inside[..., 3] + inside[..., 6]
    bg_texture = float(np.median((outside[..., 3] + outside[..., 6])[bg]))
    area = int(b.sum())
    regions: dict[float, np.ndarray] = {}
    for thr in RATIOS:
        cand = b & ndi.binary_closing(b & (ratio > thr), np.ones((3, 3), bool))
        labels, keep, st = _regions(cand, b, max(4.0, 0.002 * area))
        if not keep.size:
            regions[thr] = np.zeros((0, 5))
            continue
        regions[thr] = np.stack(
            [
                st[:, 0] / area,
                st[:, 1],
                np.asarray(ndi.median(ratio, labels, keep), np.float64),
                np.asarray(ndi.median(texture, labels, keep), np.float64) / max(bg_texture, 1e-3),
                np.asarray(ndi.median(dist, labels, keep), np.float64),
            ],
            -1,
        )
    return PatchRegions(bg_texture, regions)


class Variant(NamedTuple):
    """One set of thresholds: with patches of side ``size`` (of :data:`SIZES`), regions at ratio ``ratio`` (of :data:`RATIOS`) with at most ``enclosed`` of the
    pixels around them outside the matte, a median ratio of at least ``median_ratio``, a texture of at least
    ``texture`` times the backdrop's and a median backdrop distance of at most ``distance``; on a backdrop whose
    texture is at least ``bg_texture``, the largest (``mode`` ``"max"``) or all such regions together (``"sum"``)
    of at least ``share`` of the matte flag the result."""

    size: int
    ratio: float
    enclosed: float
    median_ratio: float
    texture: float
    distance: float
    mode: str
    bg_texture: float
    share: float


def variants(product: str = "rim") -> Iterable[Variant]:
    """The grid searched for the ``product`` model (``inf``: no limit)."""
    inf = float("inf")
    if product == "far":
        return itertools.starmap(
            Variant,
            itertools.product(
                (5,),
                RATIOS,
                (0.0, 0.1),
                (1.0,),
                (0.0, 0.5, 1.0, 1.5),
                (inf, 15.0, 20.0, 25.0, 30.0),
                ("max", "sum"),
                (0.0, 3.0, 4.0, 5.0, 6.0, 7.0),
                (0.01, 0.015, 0.02, 0.025, 0.03, 0.035, 0.04, 0.05, 0.06, 0.075),
            ),
        )
    return itertools.starmap(
        Variant,
        itertools.product(
            SIZES,
            RATIOS,
            (0.0, 0.1, 0.2),
            (1.0, 1.2, 1.5),
            (0.0, 0.5, 1.0, 1.5, 2.0),
            (inf, 5.0, 12.0),
            ("max", "sum"),
            (0.0, 2.0, 3.0, 4.0, 6.0, 8.0),
            (0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1),
        ),
    )


def region_share(found: PatchRegions | None, v: Variant) -> float:
    """The share of the matte ``v`` counts (0.0 when no region passes or ``found`` is None: main flags the
    photo already, or it has no box)."""
    if found is None or found.bg_texture < v.bg_texture:
        return 0.0
    t = found.regions[v.ratio]
    ok = (
        (t[:, 1] <= v.enclosed)
        & (t[:, 2] >= v.median_ratio)
        & (t[:, 3] >= v.texture)
        & (t[:, 4] <= v.distance)
    )
    if not ok.any():
        return 0.0
    return float(t[ok, 0].max() if v.mode == "max" else t[ok, 0].sum())


def flagged_by(found: PatchRegions | None, v: Variant) -> bool:
    """Whether variant ``v`` flags a photo main leaves unflagged (``found`` its regions; ``None``: main flags it
    already or the photo has no box)."""
    return region_share(found, v) >= v.share if found is not None else False


def flag_table(
    found: Sequence[dict[int, PatchRegions] | None], grid: Sequence[Variant], main: np.ndarray
) -> np.ndarray:
    """bool (variants, photos): main's flag or :func:`flagged_by` on the photo's regions of the variant's patch
    size (``found``: per photo the regions per size, ``None`` where main flags it), computed once per region filter
    (the share and the backdrop's texture are compared over all photos at once)."""
    per = {size: [f.get(size) if f is not None else None for f in found] for size in {v.size for v in grid}}
    bg = {size: np.array([f.bg_texture if f is not None else -np.inf for f in p]) for size, p in per.items()}
    cache: dict[tuple, np.ndarray] = {}
    table = np.zeros((len(grid), len(found)), bool)
    for n, v in enumerate(grid):
        key = v[:7]
        if key not in cache:
            cache[key] = np.array([region_share(f, v._replace(bg_texture=-np.inf)) for f in per[v.size]])
        table[n] = main | ((cache[key] >= v.share) & (bg[v.size] >= v.bg_texture) & (cache[key] > 0))
    return table


def load(
    specs: Sequence[str], *, background: str = "ring", product: str = "rim", sizes: Sequence[int] = SIZES
) -> tuple[list[dict], list[dict[int, PatchRegions] | None], dict[int, list[float]]]:
    """Rows (with ``control`` and ``main``: main's replayed flag), the patch regions per patch size of
    :data:`SIZES` on the photos main leaves unflagged (``None`` elsewhere; a size without box is left out) and
    the CPU seconds per size (``time.process_time``), from ``ROWS.json:NPZ_DIR[:control]`` pairs."""
    rows: list[dict] = []
    found: list[dict[int, PatchRegions] | None] = []
    cpu: dict[int, list[float]] = {size: [] for size in sizes}
    for r, control, small, alpha in recorded_photos(specs):
        flag = replayed_flag(small, alpha, r["signals"])
        rows.append({**r, "control": control, "main": flag})
        if flag:
            found.append(None)
            continue
        per: dict[int, PatchRegions] = {}
        for size in sizes:
            t = time.process_time()
            got = measure(small, alpha, size=size, background=background, product=product)
            cpu[size].append(time.process_time() - t)
            if got is not None:
                per[size] = got
        found.append(per if per else None)
    return rows, found, cpu


def choose(rows: Sequence[dict], table: np.ndarray, main: np.ndarray, use: np.ndarray, good: int) -> int:
    """Index of the operating point among the variants (rows of bool ``table`` (variants, photos)) on the photos in
    ``use``: the most failures flagged with at most ``good`` new good results and no control photo flagged beyond
    ``main``'s (ties: the fewest new good results, the fewest photos flagged, then the earliest variant)."""
    iou = np.array([r["iou"] for r in rows])
    ctl = np.array([r["control"] for r in rows])
    bad = use & ~ctl & (iou < BAD)
    new_good = use & ~ctl & (iou >= GOOD) & ~main
    spare_ctl = use & ctl & ~main
    n_bad = table[:, bad].sum(1)
    n_good = table[:, new_good].sum(1)
    allowed = ~table[:, spare_ctl].any(1) & (n_good <= good)
    if not allowed.any():
        return 0
    # lexicographic: the most failures, the fewest new good results, the fewest photos flagged, the earliest
    order = np.lexsort((np.arange(len(table)), table[:, use].sum(1), n_good, -n_bad))
    return int(order[allowed[order]][0])


def main(argv: list[str] | None = None) -> int:
    """Measure, replay, print main's and the new flag's counts in sample and out of fold."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recordings", nargs="+", help="ROWS.json:NPZ_DIR[:control]")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--background", choices=("ring", "box"), default="ring")
    parser.add_argument("--product", choices=("rim", "far"), default="rim")
    parser.add_argument("--good", type=int, default=1, help="new good results allowed in sample")
    parser.add_argument(
        "--main-flags", nargs="*", default=(), help="JSON lists of rows with 'flag' to check main"
    )
    args = parser.parse_args(argv)
    sizes = (5,) if args.product == "far" else SIZES
    rows, found, cpu = load(args.recordings, background=args.background, product=args.product, sizes=sizes)
    main_flags = np.array([r["main"] for r in rows])
    if args.main_flags:
        given = [bool(x["flag"]) for p in args.main_flags for x in json.loads(Path(p).read_text())]
        print("main's replayed flag equals the given flags:", given == list(main_flags))
    for size, secs in cpu.items():
        ms = 1000 * np.array(secs)
        print(
            f"{len(rows)} photos; patch classifier CPU ({size} px patches) on the {len(ms)} main leaves "
            f"unflagged: median {np.median(ms):.1f} ms, p90 {np.percentile(ms, 90):.1f} ms, max {ms.max():.1f} ms"
        )
    print("main:", counts(rows, main_flags))
    grid = list(variants(args.product))
    table = flag_table(found, grid, main_flags)
    iou = np.array([r["iou"] for r in rows])
    for good in sorted({0, args.good}):
        v = choose(rows, table, main_flags, np.ones(len(rows), bool), good)
        print(f"operating point in sample (<= {good} new good):", counts(rows, table[v]), grid[v])
        for r, s, m in zip(rows, table[v], main_flags, strict=True):
            if s and not m:
                print(f"  newly flagged: {r['name']} (IoU {r['iou']:.3f}, control {r['control']})")
    oof, chosen = out_of_fold(
        rows, table, args.folds, lambda use: choose(rows, table, main_flags, use, args.good)
    )
    for k, vk in enumerate(chosen):
        print(f"  fold {k}: {grid[vk]}")
    print("out of fold:", counts(rows, oof))
    for r, o, m in zip(rows, oof, main_flags, strict=True):
        if o and not m:
            print(f"  newly flagged out of fold: {r['name']} (IoU {r['iou']:.3f}, control {r['control']})")
    unflagged_bad = [
        i for i in range(len(rows)) if not main_flags[i] and iou[i] < BAD and not rows[i]["control"]
    ]
    print("largest enclosed region (ratio >= 1.25, median ratio >= 1) on main's unflagged failures:")
    probe = Variant(5, 1.25, 0.0, 1.0, 0.0, float("inf"), "max", 0.0, 0.0)
    for i in unflagged_bad:
        got = found[i]
        share = region_share(got.get(5) if got is not None else None, probe)
        print(f"  {rows[i]['name']} (IoU {iou[i]:.3f}): {share:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
