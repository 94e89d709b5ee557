"""Research tool: the "backdrop continues through the product" review cap, chosen on recorded tuning photos only.

Reads recordings made by ``bench/tuning/flag_signals.py`` with ``FLAG_SIGNALS_DUMP`` (or any run writing the same
rows: ``name``, ``iou``, ``signals``, ``needs_review``, and a folder of ``NNNN.npz`` with each photo's working
image ``small`` and final matte ``alpha`` in the rows' order), given as ``ROWS.json:NPZ_DIR`` pairs. Each pair
may be marked ``control`` (``ROWS.json:NPZ_DIR:control``): its photos have no opening (real studio views of
cars), so any flag the new cap adds there is a false flag whatever their IoU.

For every photo it measures :func:`through_regions` once (CPU per photo with ``time.process_time``), then flags,
for each variant of the thresholds (:func:`variants`), the photos main's flag (the recorded signals alone,
:func:`retouch.pick.confidence`) leaves unflagged and whose ``through`` reaches the variant's
:attr:`Thresholds.review_through` (a cap below the review threshold, as tried in the product). Main's recomputed
flag must equal the recorded one.

Counts, per variant: results under IoU 0.8 flagged (failures caught), results at IoU >= 0.95 flagged, control
photos flagged. The operating point is the variant that newly flags the most failures while newly flagging no
result at IoU >= 0.95 and no control photo (ties: the fewest photos flagged, then the earliest variant, the
record's thresholds first). Out of fold: the product-grouped folds of :func:`bench.tuning.tune_pick.grouped_folds`;
the point is chosen on the other folds and applied to each fold in turn.

Usage: ``python -m bench.tuning.backdrop_through /work/rec/A.json:/work/rec/A-npz /work/rec/B.json:/work/rec/B-npz
/work/rec/C.json:/work/rec/C-npz:control``. The first round's cap (the smooth and like tests below) failed its
held-out rule (the backdrop through the product record in ``docs/decisions/``). With ``--local``, the second
round: the first round's flag (its record thresholds) or the *local* test (:func:`local_regions`: the backdrop
predicted from the ring pixels near each pixel), searched on a grid (:func:`local_variants`) by the same rule, in
sample and out of fold; the product's ``retouch.pick.through`` holds the three tests with the second round's
thresholds (:data:`LOCAL`).

The measure (:func:`through_regions`, :func:`backdrop_through`):

The backdrop continuing through the product: a region inside the matte that shows the backdrop seen around it.

An opening kept whole (a hole through a product on a studio gradient, a frame's whole inside, a wheel between
its spokes) is product in the matte but backdrop in the photo; every signal of the network's view reads a good
result. A colour model of the backdrop alone cannot tell it from a product painted in the backdrop's colour (a
silver car beside a grey turntable). :func:`through_regions` asks for more: that the region *continues* the
backdrop seen outside the matte.

On the matte's box (grown by a third, at most :data:`WORK_SIDE` px on its long side) the backdrop is the ring
of clear background just outside the matte; a quadratic surface per channel fitted to that ring by least
squares predicts the backdrop inside the outline, and the ring's own median residual is how well the surface
explains the backdrop. Two tests find regions that continue it:

* **smooth**: where the ring is a smooth backdrop (a gradient, a sweep: residual at most
  :attr:`~Thresholds.through_smooth_ring`), matte pixels the surface predicts at the noise level
  (residual at most :attr:`~Thresholds.through_smooth_tol` times the ring's, at least 1 level; no
  clipped pixel) form regions; those that product encloses (at most
  :attr:`~Thresholds.through_smooth_enclosed` of the pixels around each outside the matte) are the
  backdrop seen through the product, counted together (spokes split a wheel's). Paint does not follow a
  gradient within a level or two.
* **like**: on any backdrop, matte pixels with the colour of the backdrop next to them (the local Gaussian model
  of the ring: colour within twice its local spread, 12-30 levels, no more textured than it, closer to it than
  to the product's own rim colour) form regions; one that product encloses fully, whose median residual from the
  surface is at most :attr:`~Thresholds.through_like_residual` times the ring's (it continues the
  backdrop as well as the backdrop itself does) and whose fine detail (median absolute difference between the
  grey image and itself blurred by 1 px: sensor noise, texture) is within a factor
  :attr:`~Thresholds.through_like_noise` of the ring's, is backdrop too. A product's paint in the
  backdrop's colour reaches the outline, or carries other detail, or departs from the surface.

Cost: ~7 ms CPU per photo, no network pass.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402
from scipy import ndimage as ndi  # noqa: E402

from bench.tuning.tune_pick import grouped_folds  # noqa: E402
from retouch.pick.confidence import confidence  # noqa: E402


@dataclass(frozen=True)
class Thresholds:
    """The tests' thresholds (the backdrop through the product record in ``docs/decisions/`` says how each was
    chosen on tuning photos; the values here are the ones its held-out run measured). Shares are of the matte."""

    #: A result with ``through`` (:func:`backdrop_through`) at least this is flagged.
    review_through: float = 0.02
    #: The smooth test runs where the ring's median residual from its quadratic surface is at most this (RGB
    #: levels; set from the noise: synthetic studio gradients measure 0.38-0.77 at 128 px).
    through_smooth_ring: float = 1.5
    #: A matte pixel continues a smooth backdrop within this many times the ring's residual (at least 1 level).
    through_smooth_tol: float = 3.0
    #: Smallest share the enclosed smooth regions must cover together.
    through_smooth_share: float = 0.02
    #: Largest share of the pixels around a smooth region outside the matte for it to be enclosed.
    through_smooth_enclosed: float = 0.2
    #: Smallest backdrop-coloured region counted.
    through_like_share: float = 0.02
    #: Largest share of the pixels around a backdrop-coloured region outside the matte.
    through_like_enclosed: float = 0.0
    #: Largest median residual of a backdrop-coloured region, in units of the ring's.
    through_like_residual: float = 1.2
    #: Largest factor between its fine detail and the ring's, either way.
    through_like_noise: float = 1.3


SHIPPED = Thresholds()
"""The first round's thresholds (its held-out run failed; the second round ships them with the local test, as
``retouch.pick.PickConfig``'s ``through_smooth_*`` and ``through_like_*``)."""


#: Long side (px) of the box the tests work at: openings worth flagging are several px wide at it.
WORK_SIDE = 128
#: Channel level (0..255) from which a pixel is clipped: it carries no evidence of continuing a surface.
CLIPPED = 250


@dataclass(frozen=True)
class Through:
    """The regions inside a matte that may continue the backdrop, with what the tests read.

    Attributes:
        ring_residual: median residual (RGB levels, RMS over the channels) of the backdrop ring from its
            quadratic surface; ``inf`` when there is no ring to fit.
        ring_noise: median fine detail of the ring (grey levels).
        smooth: float64 (n, 2): per *smooth* candidate region its share of the matte and the share of the pixels
            around it that lie outside the matte (empty when the ring is not smooth enough, see
            ``smooth_ring``).
        like: float64 (n, 4): per *like* candidate region its share of the matte, the share of the pixels around
            it outside the matte, its median residual over ``ring_residual``, its median fine detail over
            ``ring_noise``.
    """

    ring_residual: float
    ring_noise: float
    smooth: np.ndarray
    like: np.ndarray


_NONE = Through(float("inf"), 0.0, np.zeros((0, 2)), np.zeros((0, 4)))


def _norm_conv(values: np.ndarray, weight: np.ndarray, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """Weighted Gaussian average of ``values`` (float32 (h, w, c)) with bool ``weight`` (h, w):
    ``(average (h, w, c), smoothed weight (h, w))``; the average is 0 where the smoothed weight is 0.

    Computed on a grid coarser by ``k = max(1, floor(sigma / 2))`` (block sums of ``k`` x ``k`` px, Gaussian of
    ``sigma / k``, bilinear back to (h, w)): the averages vary over ``sigma`` px, so the coarse grid loses
    nothing that matters and costs ``k**2`` times less."""
    h, w = weight.shape
    k = max(1, int(sigma // 2))
    hc, wc = -(-h // k), -(-w // k)
    wgt = np.zeros((hc * k, wc * k), np.float32)
    wgt[:h, :w] = weight
    vals = np.zeros((hc * k, wc * k, values.shape[-1]), np.float32)
    vals[:h, :w] = values * wgt[:h, :w, None]
    wsum = wgt.reshape(hc, k, wc, k).sum((1, 3)) / (k * k)
    vsum = vals.reshape(hc, k, wc, k, -1).sum((1, 3)) / (k * k)
    s = sigma / k
    den = ndi.gaussian_filter(wsum, s, mode="nearest")
    num = np.stack([ndi.gaussian_filter(vsum[..., c], s, mode="nearest") for c in range(vsum.shape[-1])], -1)
    if k > 1:
        both = _bilinear(np.concatenate([num, den[..., None]], -1), h, w, k)
        num, den = both[..., :-1], both[..., -1]
    return num / np.maximum(den, 1e-6)[..., None], den


def _bilinear(grid: np.ndarray, h: int, w: int, k: int) -> np.ndarray:
    """Bilinear interpolation of a coarse float32 (hc, wc, c) grid, whose cells are ``k`` x ``k`` px, back to
    (h, w, c) px (cell centres at ``(i + 0.5) * k``; clamped at the edges)."""
    hc, wc = grid.shape[:2]
    yy = np.clip((np.arange(h) + 0.5) / k - 0.5, 0, hc - 1)
    xx = np.clip((np.arange(w) + 0.5) / k - 0.5, 0, wc - 1)
    y0, x0 = np.floor(yy).astype(int), np.floor(xx).astype(int)
    y1, x1 = np.minimum(y0 + 1, hc - 1), np.minimum(x0 + 1, wc - 1)
    wy = (yy - y0).astype(np.float32)[:, None, None]
    wx = (xx - x0).astype(np.float32)[None, :, None]
    top = grid[y0][:, x0] * (1 - wx) + grid[y0][:, x1] * wx
    bottom = grid[y1][:, x0] * (1 - wx) + grid[y1][:, x1] * wx
    return top * (1 - wy) + bottom * wy


def _regions(cand: np.ndarray, b: np.ndarray, min_px: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Connected (8-neighbour) regions of bool ``cand`` with at least ``min_px`` px: ``(labels (h, w) int,
    kept label ids (n,), per kept region [size px, share of the pixels around it outside bool matte b])``."""
    labels, n = ndi.label(cand, structure=np.ones((3, 3), bool))
    if n == 0:
        return labels, np.zeros(0, int), np.zeros((0, 2))
    sizes = np.bincount(labels.ravel(), minlength=n + 1)
    grown = ndi.maximum_filter(labels, size=3, mode="constant")
    around = (grown > 0) & ~cand
    b_count = np.bincount(grown[around], minlength=n + 1)
    e_count = np.bincount(grown[around & ~b], minlength=n + 1)
    keep = np.flatnonzero(sizes >= min_px)
    keep = keep[keep > 0]
    stats = np.stack([sizes[keep], e_count[keep] / np.maximum(b_count[keep], 1)], -1).astype(np.float64)
    return labels, keep, stats


def through_regions(small: np.ndarray, alpha: np.ndarray, *, config: Thresholds = SHIPPED) -> Through:
    """The candidate regions of both tests (module docstring) with the measures the thresholds are applied to.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) final matte in [0, 1] at the same resolution.
        config: :attr:`~Thresholds.through_smooth_ring` and :attr:`~Thresholds.through_smooth_tol` (which
            pixels are smooth candidates).

    Returns:
        :class:`Through`; no regions for an empty matte or one without at least 8 px of clear-background ring.
    """
    fg = alpha >= 0.5
    rows, cols = np.flatnonzero(fg.any(1)), np.flatnonzero(fg.any(0))
    if rows.size == 0:
        return _NONE
    h, w = fg.shape
    bh, bw = int(rows[-1] - rows[0] + 1), int(cols[-1] - cols[0] + 1)
    gy, gx = max(8, bh // 3), max(8, bw // 3)
    y0, y1 = max(0, int(rows[0]) - gy), min(h, int(rows[-1]) + 1 + gy)
    x0, x1 = max(0, int(cols[0]) - gx), min(w, int(cols[-1]) + 1 + gx)
    f = min(1.0, WORK_SIDE / max(y1 - y0, x1 - x0))
    size = (max(1, round((x1 - x0) * f)), max(1, round((y1 - y0) * f)))
    rgb0 = np.asarray(
        Image.fromarray(np.ascontiguousarray(small[y0:y1, x0:x1]), "RGB").resize(size, Image.Resampling.BOX),
        dtype=np.float32,
    )
    a = np.asarray(
        Image.fromarray(np.ascontiguousarray(alpha[y0:y1, x0:x1], dtype=np.float32), "F").resize(
            size, Image.Resampling.BOX
        )
    )
    b = a >= 0.5
    area = int(b.sum())
    if area == 0:
        return _NONE
    scale = max(bh, bw) * f
    d_out = ndi.distance_transform_edt(~b)
    ring = (a < 0.05) & (d_out > 2.0) & (d_out <= max(4.0, 0.12 * scale))
    if int(ring.sum()) < 8:
        return _NONE

    # the quadratic surface of the backdrop, fitted to the ring
    hh, ww = b.shape
    yy, xx = np.mgrid[0:hh, 0:ww].astype(np.float32) * (2.0 / max(hh, ww))
    yy -= 1.0
    xx -= 1.0
    terms = np.stack([np.ones_like(yy), yy, xx, yy * yy, yy * xx, xx * xx], -1)
    tr = terms[ring].astype(np.float64)
    coef = np.linalg.solve(tr.T @ tr + 1e-6 * np.eye(tr.shape[1]), tr.T @ rgb0[ring].astype(np.float64))
    residual = np.sqrt(((rgb0 - terms @ coef.astype(np.float32)) ** 2).mean(-1))
    ring_res = float(np.median(residual[ring]))
    grey0 = rgb0.mean(-1)
    detail = np.abs(grey0 - ndi.gaussian_filter(grey0, 1.0, mode="nearest"))
    ring_noise = float(np.median(detail[ring]))

    smooth = np.zeros((0, 2))
    if ring_res <= config.through_smooth_ring:
        cand = b & (residual <= max(config.through_smooth_tol * ring_res, 1.0)) & (rgb0.max(-1) < CLIPPED)
        _, _, st = _regions(cand, b, max(4.0, 0.002 * area))
        smooth = np.stack([st[:, 0] / area, st[:, 1]], -1) if len(st) else smooth

    # the local colour model of the backdrop (colour, spread, texture of the ring, spread inwards)
    rgb = ndi.gaussian_filter(rgb0, (1.0, 1.0, 0), mode="nearest")
    grey = rgb.mean(-1)
    m1 = ndi.uniform_filter(grey, 3, mode="nearest")
    tex = np.sqrt(np.maximum(ndi.uniform_filter(grey * grey, 3, mode="nearest") - m1 * m1, 0.0))
    stack = np.concatenate([rgb, rgb * rgb, tex[..., None]], -1)
    sigma = max(2.0, 0.15 * scale)
    near, den = _norm_conv(stack, ring, sigma)
    far, _ = _norm_conv(stack, ring, 3.0 * sigma)
    t = np.clip(den / 0.05, 0.0, 1.0)[..., None]
    est = t * near + (1.0 - t) * far
    mean, sq, tex_bg = est[..., :3], est[..., 3:6], est[..., 6]
    spread = np.sqrt(np.maximum(sq - mean * mean, 0.0).sum(-1))
    dist = np.sqrt(((rgb - mean) ** 2).sum(-1))
    d_in = ndi.distance_transform_edt(b)
    like = b & (dist <= np.clip(2.0 * spread, 12.0, 30.0)) & (tex <= 1.5 * tex_bg + 2.0)
    rim = b & (d_in > 1.0) & (d_in <= max(3.0, 0.06 * scale))
    prod, pden = _norm_conv(rgb, rim, sigma)
    like &= (dist < np.sqrt(((rgb - prod) ** 2).sum(-1))) | (pden < 1e-3)
    labels, keep, st = _regions(like, b, max(9.0, 0.003 * area))
    like_rows = np.zeros((0, 4))
    if keep.size:
        res_med = np.asarray(ndi.median(residual, labels, keep), np.float64)
        det_med = np.asarray(ndi.median(detail, labels, keep), np.float64)
        like_rows = np.stack(
            [
                st[:, 0] / area,
                st[:, 1],
                res_med / max(ring_res, 1e-3),
                det_med / max(ring_noise, 1e-3),
            ],
            -1,
        )
    return Through(ring_res, ring_noise, smooth, like_rows)


def backdrop_through(found: Through, *, config: Thresholds = SHIPPED) -> float:
    """Share of the matte (in [0, 1]) that passes either test (module docstring): the enclosed smooth regions
    together (a wheel's backdrop is split by its spokes) when they cover at least
    :attr:`~Thresholds.through_smooth_share`, or the largest backdrop-coloured region that passes, whichever is
    larger; 0.0 when neither does.

    Args:
        found: :func:`through_regions`' answer.
        config: the tests' thresholds .
    """
    best = 0.0
    s = found.smooth
    if len(s):
        enclosed = float(s[s[:, 1] <= config.through_smooth_enclosed, 0].sum())
        if enclosed >= config.through_smooth_share:
            best = enclosed
    lk = found.like
    if len(lk):
        noise = config.through_like_noise
        ok = (
            (lk[:, 0] >= config.through_like_share)
            & (lk[:, 1] <= config.through_like_enclosed)
            & (lk[:, 2] <= config.through_like_residual)
            & (lk[:, 3] >= 1.0 / noise)
            & (lk[:, 3] <= noise)
        )
        if ok.any():
            best = max(best, float(lk[ok, 0].max()))
    return best


#: Failures: IoU against the hand mask below this. Good results: at least :data:`GOOD`.
BAD = 0.8
GOOD = 0.95


def _values(first: float, *others: float) -> list[float]:
    """``first`` (the record's value), then the ``others`` not equal to it."""
    return list(dict.fromkeys([first, *others]))


def variants() -> Iterable[Thresholds]:
    """The grid searched, the record's thresholds first."""
    s = SHIPPED
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


def gated(found: Through, config: Thresholds) -> Through:
    """``found`` (measured with the smooth test always on) as ``config`` would have measured it: no smooth regions
    where the ring's residual is above :attr:`Thresholds.through_smooth_ring`."""
    if found.ring_residual <= config.through_smooth_ring:
        return found
    return dataclasses.replace(found, smooth=np.zeros((0, 2)))


def flags(rows: Sequence[dict], found: Sequence[Through], config: Thresholds) -> np.ndarray:
    """The new review flag (bool per row) under ``config``: main's flag, or ``through`` at least
    :attr:`Thresholds.review_through` where main's is not raised."""
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
    always = dataclasses.replace(SHIPPED, through_smooth_ring=float("inf"))
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
    args = parser.parse_args(argv)
    rows, found, cpu, where = load(args.recordings)
    if args.local:
        local_main(rows, found, where, args.folds)
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
    shipped = flags(rows, found, SHIPPED)
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


@dataclass(frozen=True)
class LocalThresholds:
    """The local test's thresholds (shares are of the matte; the record's in-sample best on tuning)."""

    #: Gaussian spread of the ring inwards, as a share of the matte box's long side (at least 2 px).
    sigma_share: float = 0.1
    #: A matte pixel is a candidate when its residual from the local prediction is at most this many times the
    #: local ring's residual (floored at 1 level).
    tol: float = 1.5
    #: Smallest candidate region counted.
    share: float = 0.1
    #: Largest share of the pixels around a region that lie outside the matte.
    enclosed: float = 0.1
    #: Largest median residual ratio of a region (its residual over the local ring's).
    residual: float = 1.0
    #: Largest factor, either way, between a region's fine detail and the local ring's.
    noise: float = 3.0


LOCAL = LocalThresholds()
"""The in-sample operating point of the local test (``retouch.pick.PickConfig``'s ``through_local_*``)."""


def local_regions(
    small: np.ndarray, alpha: np.ndarray, *, sigma_share: float = 0.1, tol: float = 1.5
) -> np.ndarray:
    """The candidate regions of the local test: matte pixels that the ring nearest them predicts about as well
    as it predicts itself.

    On the box of :func:`through_regions` (grown by a third, at most :data:`WORK_SIDE` px) the backdrop at every
    pixel is predicted by the ring pixels near it (weighted Gaussian average of the ring's colour with a spread of
    ``sigma_share`` of the matte's long side, at least 2 px; three times wider where the near ring is thin); the
    local ring residual is the same average of the ring's own residual from that prediction (at least 1 level),
    and the local ring detail the same average of its fine detail (``|grey - grey blurred 1 px|``, at least 0.3).

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) final matte in [0, 1] at the same resolution.
        sigma_share: the Gaussian's spread as a share of the matte's long side at the box's scale.
        tol: a matte pixel (not clipped, < :data:`CLIPPED` in every channel) is a candidate when its residual is
            at most ``tol`` times the local ring residual.

    Returns:
        float64 (n, 4): per candidate region (8-connected, at least 9 px and 0.3 % of the matte) its share of the
        matte, the share of the pixels around it outside the matte, its median residual ratio, its median detail
        ratio; (0, 4) for an empty matte or fewer than 8 ring pixels.
    """
    none = np.zeros((0, 4))
    fg = alpha >= 0.5
    rows, cols = np.flatnonzero(fg.any(1)), np.flatnonzero(fg.any(0))
    if rows.size == 0:
        return none
    h, w = fg.shape
    bh, bw = int(rows[-1] - rows[0] + 1), int(cols[-1] - cols[0] + 1)
    gy, gx = max(8, bh // 3), max(8, bw // 3)
    y0, y1 = max(0, int(rows[0]) - gy), min(h, int(rows[-1]) + 1 + gy)
    x0, x1 = max(0, int(cols[0]) - gx), min(w, int(cols[-1]) + 1 + gx)
    f = min(1.0, WORK_SIDE / max(y1 - y0, x1 - x0))
    size = (max(1, round((x1 - x0) * f)), max(1, round((y1 - y0) * f)))
    rgb = np.asarray(
        Image.fromarray(np.ascontiguousarray(small[y0:y1, x0:x1]), "RGB").resize(size, Image.Resampling.BOX),
        dtype=np.float32,
    )
    a = np.asarray(
        Image.fromarray(np.ascontiguousarray(alpha[y0:y1, x0:x1], dtype=np.float32), "F").resize(
            size, Image.Resampling.BOX
        )
    )
    b = a >= 0.5
    area = int(b.sum())
    if area == 0:
        return none
    scale = max(bh, bw) * f
    d_out = ndi.distance_transform_edt(~b)
    ring = (a < 0.05) & (d_out > 2.0) & (d_out <= max(4.0, 0.12 * scale))
    if int(ring.sum()) < 8:
        return none
    grey = rgb.mean(-1)
    detail = np.abs(grey - ndi.gaussian_filter(grey, 1.0, mode="nearest"))
    sigma = max(2.0, sigma_share * scale)

    def spread(values: np.ndarray) -> np.ndarray:
        near, den = _norm_conv(values, ring, sigma)
        far, _ = _norm_conv(values, ring, 3.0 * sigma)
        t = np.clip(den / 0.05, 0.0, 1.0)[..., None]
        return t * near + (1.0 - t) * far

    pred = spread(rgb)
    residual = np.sqrt(((rgb - pred) ** 2).mean(-1))
    local = spread(np.stack([residual, detail], -1))
    ratio = residual / np.maximum(local[..., 0], 1.0)
    cand = b & (ratio <= tol) & (rgb.max(-1) < CLIPPED)
    labels, keep, st = _regions(cand, b, max(9.0, 0.003 * area))
    if not keep.size:
        return none
    res_med = np.asarray(ndi.median(ratio, labels, keep), np.float64)
    det_med = np.asarray(ndi.median(detail / np.maximum(local[..., 1], 0.3), labels, keep), np.float64)
    return np.stack([st[:, 0] / area, st[:, 1], res_med, det_med], -1)


def local_through(regions: np.ndarray, config: LocalThresholds = LOCAL) -> float:
    """Share of the matte of the largest region of :func:`local_regions` that passes ``config`` (0.0: none)."""
    if not len(regions):
        return 0.0
    r = regions
    ok = (
        (r[:, 0] >= config.share)
        & (r[:, 1] <= config.enclosed)
        & (r[:, 2] <= config.residual)
        & (r[:, 3] <= config.noise)
        & (r[:, 3] >= 1.0 / config.noise)
    )
    return float(r[ok, 0].max()) if ok.any() else 0.0


def local_variants(sigma_share: float) -> list[LocalThresholds]:
    """The grid searched at one spread (the record's operating point first when ``sigma_share`` is its own)."""
    grid = itertools.product(
        _values(LOCAL.share, 0.02, 0.05, 0.2),
        _values(LOCAL.enclosed, 0.0, 0.05, 0.2, 0.3),
        _values(LOCAL.residual, 0.6, 0.8, 1.2, 1.5, 2.0),
        _values(LOCAL.noise, 1.3, 1.5, 2.0, 1e9),
    )
    return [LocalThresholds(sigma_share, LOCAL.tol, s, e, r, n) for s, e, r, n in grid]


def local_main(rows: list[dict], found: list[Through], smalls: list[tuple[str, int]], folds: int) -> None:
    """The second round: the first round's flag (:data:`SHIPPED`) or the local test, searched on a grid at two
    spreads; prints in-sample and product-grouped out-of-fold counts against main and the first round."""
    main_flags = np.array([r["main"] for r in rows])
    first = flags(rows, found, SHIPPED)
    print("main:", counts(rows, main_flags))
    print("first round:", counts(rows, first))
    configs: list[LocalThresholds] = []
    columns: list[np.ndarray] = []
    for sigma_share in (0.1, 0.05):
        measured: list[np.ndarray] = []
        cpu: list[float] = []
        for i, (path, j) in enumerate(smalls):
            if main_flags[i]:
                measured.append(np.zeros((0, 4)))
                continue
            z = np.load(Path(path) / f"{j:04d}.npz")
            alpha = z["alpha"].astype(np.float32) / 255.0
            t = time.process_time()
            measured.append(local_regions(z["small"], alpha, sigma_share=sigma_share))
            cpu.append(time.process_time() - t)
        ms = 1000 * np.array(cpu)
        print(
            f"local_regions (spread {sigma_share}) CPU per photo: median {np.median(ms):.1f} ms, p90 "
            f"{np.percentile(ms, 90):.1f} ms on {len(cpu)} photos"
        )
        for c in local_variants(sigma_share):
            configs.append(c)
            columns.append(first | np.array([local_through(m, c) > 0 for m in measured]))
    table = np.stack(columns)
    v = choose(rows, table, main_flags, np.ones(len(rows), bool))
    print("local, in sample:", counts(rows, table[v]), configs[v])
    newly = [
        f"{r['name']} ({r['iou']:.2f})" for r, s, f in zip(rows, table[v], first, strict=True) if s and not f
    ]
    print("  newly flagged beyond the first round:", ", ".join(newly))
    fold = grouped_folds(rows, folds)
    oof = np.zeros(len(rows), bool)
    for k in range(folds):
        vk = choose(rows, table, main_flags, fold != k)
        oof[fold == k] = table[vk][fold == k]
        print(f"  fold {k}: {configs[vk]}")
    print("local, out of fold:", counts(rows, oof))
    spare = [
        r["name"]
        for r, o, m in zip(rows, oof, main_flags, strict=True)
        if o and not m and (r["control"] or r["iou"] >= GOOD)
    ]
    print("  good results or control views flagged out of fold:", ", ".join(spare))


def describe(c: Thresholds) -> str:
    """The ``through_*`` thresholds of a variant, short."""
    return (
        f"smooth ring<={c.through_smooth_ring} share>={c.through_smooth_share} enc<={c.through_smooth_enclosed}; "
        f"like share>={c.through_like_share} enc<={c.through_like_enclosed} res<={c.through_like_residual} "
        f"noise x{c.through_like_noise}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
