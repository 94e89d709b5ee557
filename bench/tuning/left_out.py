"""Research candidate (not product code): a part of the product left out of the matte (a handle outside it).

Measured as a review-flag cap on the recorded tuning photos (the left-out part review record in
``docs/decisions/``); tuning did not support it (its few catches were mostly backdrop objects, not left-out parts,
and its out-of-fold figures flag good results), so the product does not run it.

A mug's or a bag's handle (the see-through generator's ``handle``) or another part of the product the matte leaves
out is, just outside the matte's outline: attached to it, in the colours of the product's rim, unlike the backdrop
seen around the product, and not a shadow. :func:`left_out_regions` finds such regions:

* the matte's box, grown by half its size on each side, is resized to at most :data:`WORK_SIDE` px;
* the *backdrop's colours* are those of the ring :data:`RING` (share of the matte's box side) outside the matte; a
  pixel of the zone between the outline and the ring's far edge is *unlike the backdrop* when fewer than
  :data:`BACKDROP_SHARE` of the ring's pixels lie within :data:`BACKDROP_TOL` levels (RGB distance) of its colour
  (a thin handle reaching into the ring is a small share of it, a texture's or a busy backdrop's colours are not);
* it is *product-coloured* when a pixel of the matte's rim (2 px inside the outline) lies within :data:`RIM_TOL`
  levels of it, and *a shadow* when it is a backdrop colour scaled by 0.2-0.97 (within 8 levels);
* the 8-connected regions of unlike, product-coloured, non-shadow pixels that touch the outline (1.5 px) are the
  candidates, each with its area (share of the matte), contact (pixels within 1.5 px of the outline / box side),
  extent (farthest distance from the outline / box side), the sharpness of its border (median Sobel magnitude
  on it / on the matte's outline) and its colour spread (RGB-norm of the per-channel std).

``python -m bench.tuning.left_out A.json:A-npz B.json:B-npz C.json:C-npz`` replays the measure on recordings of
``bench/tuning/flag_signals.py`` with ``FLAG_SIGNALS_DUMP`` and prints the rule "a region of at least ``area``
of the matte, touching the outline along at most ``contact`` of the box side, reaching at least ``extent`` out"
in-sample and product-grouped out-of-fold (:func:`bench.tuning.tune_pick.grouped_folds`), plus its CPU time.
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from PIL import Image
from scipy import ndimage as ndi
from scipy.spatial import cKDTree

from .tune_pick import grouped_folds

__all__ = ["Region", "WORK_SIDE", "left_out_regions", "rule_hit", "main"]

#: Long side (px) of the box worked at (the local backdrop review record's size: a handle is several px wide).
WORK_SIDE = 128
#: Distance band outside the matte (share of the matte's box side) whose colours are the backdrop's.
RING = (0.10, 0.40)
#: RGB distance (levels) within which a ring pixel counts as the same backdrop colour.
BACKDROP_TOL = 18.0
#: Share of the ring's pixels that must lie that close for a colour to be the backdrop's.
BACKDROP_SHARE = 0.03
#: RGB distance (levels) to the nearest rim pixel of the matte for a colour to be the product's.
RIM_TOL = 18.0

BAD, GOOD = 0.8, 0.95


@dataclass(frozen=True)
class Region:
    """One candidate left-out region (see the module docstring for each measure; distances / matte box side)."""

    area: float
    contact: float
    extent: float
    sharp: float
    spread: float


def left_out_regions(
    small: np.ndarray, alpha: np.ndarray, *, ring: tuple[float, float] = RING, grow: float = 0.5
) -> list[Region]:
    """Candidate left-out parts of the matte.

    Args:
        small: uint8 (h, w, 3) working-resolution RGB image.
        alpha: uint8 (h, w) final matte (product where >= 128).
        ring: the backdrop's ring (shares of the matte's box side); the zone searched ends at its far edge.
        grow: the matte's box is grown by this share of its own height and width on each side.

    Returns:
        The regions touching the outline, in no particular order; empty when the matte is empty or the ring
        outside it is under 60 px at :data:`WORK_SIDE`.
    """
    m_full = alpha >= 128
    if not m_full.any():
        return []
    ys, xs = np.nonzero(m_full)
    y0, y1, x0, x1 = int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1
    gy, gx = int(grow * (y1 - y0)) + 2, int(grow * (x1 - x0)) + 2
    h, w = m_full.shape
    y0, y1, x0, x1 = max(0, y0 - gy), min(h, y1 + gy), max(0, x0 - gx), min(w, x1 + gx)
    crop, am = small[y0:y1, x0:x1], alpha[y0:y1, x0:x1]
    f = min(1.0, WORK_SIDE / max(crop.shape[:2]))
    size = (max(8, round(crop.shape[1] * f)), max(8, round(crop.shape[0] * f)))
    img = np.asarray(Image.fromarray(crop).resize(size, Image.Resampling.BOX), np.float32)
    m = np.asarray(Image.fromarray(am).resize(size, Image.Resampling.BOX)) >= 128
    if not m.any():
        return []
    my, mx = np.nonzero(m)
    side = float(max(my.max() - my.min() + 1, mx.max() - mx.min() + 1))
    dout = ndi.distance_transform_edt(~m)
    din = ndi.distance_transform_edt(m)
    band = (dout >= ring[0] * side) & (dout <= ring[1] * side)
    if band.sum() < 60:
        return []
    rc = img[band]
    if len(rc) > 1500:
        rc = rc[np.linspace(0, len(rc) - 1, 1500).astype(int)]
    k = max(3, int(BACKDROP_SHARE * len(rc)))
    zone = (dout > 0) & (dout < ring[1] * side)
    zy, zx = np.nonzero(zone)
    zc = img[zy, zx]
    d_k, _ = cKDTree(rc).query(zc, k=k)
    unlike = d_k[:, -1] > BACKDROP_TOL
    rim = img[m & (din <= 2)]
    if len(rim) > 800:
        rim = rim[np.linspace(0, len(rim) - 1, 800).astype(int)]
    d_rim, _ = cKDTree(rim).query(zc)
    ok = unlike & (d_rim <= RIM_TOL)
    idx = np.nonzero(ok)[0]
    if len(idx):
        c = zc[idx]
        b = rc[np.linspace(0, len(rc) - 1, min(200, len(rc))).astype(int)]
        s = np.clip((c @ b.T) / np.maximum((b * b).sum(1), 1.0)[None], 0.0, 2.0)
        resid = np.linalg.norm(c[:, None, :] - s[..., None] * b[None], axis=2)
        shadow = ((resid <= 8.0) & (s < 0.97) & (s > 0.2)).any(1)
        ok[idx[shadow]] = False
    cand = np.zeros_like(m)
    cand[zy[ok], zx[ok]] = True
    lab, _ = ndi.label(cand, structure=np.ones((3, 3)))
    touch = dout <= 1.5
    grey = img.mean(2)
    grad = np.hypot(ndi.sobel(grey, 0), ndi.sobel(grey, 1))
    edge_ref = float(np.median(grad[(dout > 0) & touch])) + 1e-3
    area = float(m.sum())
    out = []
    for j, sl in enumerate(ndi.find_objects(lab), start=1):
        if sl is None:
            continue
        comp = lab[sl] == j
        contact = int((comp & touch[sl]).sum())
        if contact == 0:
            continue
        full = np.zeros_like(m)
        full[sl] = comp
        border = ndi.binary_dilation(full) & ~full & ~m & (dout > 1.5)
        out.append(
            Region(
                area=float(comp.sum()) / area,
                contact=contact / side,
                extent=float(dout[sl][comp].max()) / side,
                sharp=float(np.median(grad[border])) / edge_ref if border.any() else 0.0,
                spread=float(np.linalg.norm(img[full].std(0))),
            )
        )
    return out


def rule_hit(regions: list[Region], area: float, contact: float, extent: float, sharp: float = 0.0) -> bool:
    """Whether a region has at least ``area`` of the matte, touches the outline along at most ``contact`` and
    reaches at least ``extent`` (shares of the matte's box side) out, with a border at least ``sharp`` times as
    sharp as the matte's outline."""
    return any(
        g.area >= area and g.contact <= contact and g.extent >= extent and g.sharp >= sharp for g in regions
    )


#: Rules tried: (area, contact, extent, sharp).
GRID = list(
    itertools.product(
        [0.01, 0.015, 0.02, 0.03, 0.05, 0.08, 0.1, 0.15, 0.2],
        [0.03, 0.05, 0.08, 0.1, 0.15, 0.2, 0.3, 0.45, 9.0],
        [0.05, 0.1, 0.15, 0.2, 0.25, 0.3],
        [0.0, 0.5, 0.8, 1.0, 1.2],
    )
)


def choose(
    rows: list[dict], grid: list[tuple[float, float, float, float]] = GRID
) -> tuple[float, float, float, float] | None:
    """The rule of ``grid`` that newly flags the most unflagged results under IoU :data:`BAD` while newly flagging
    no unflagged good one (IoU >= :data:`GOOD`, or a control photo); ties go to the strictest. ``None`` when none
    catches anything without a false flag. Rows carry ``regions``, ``iou``, ``needs_review``, ``control``."""
    best: tuple | None = None
    for p in grid:
        new = sum(_bad(r) and rule_hit(r["regions"], *p) for r in rows)
        false = sum(_good(r) and rule_hit(r["regions"], *p) for r in rows)
        if false == 0 and new >= 1:
            key = (new, p[0] * 10 - p[1] + p[2] + p[3])
            if best is None or key > best[0]:
                best = (key, p)
    return None if best is None else best[1]


def _bad(r: dict) -> bool:
    return not r["control"] and r["iou"] < BAD and not r["needs_review"]


def _good(r: dict) -> bool:
    return (r["control"] or r["iou"] >= GOOD) and not r["needs_review"]


def main(argv: list[str] | None = None) -> int:
    """Replay the measure on recordings and print the rule's tuning figures."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "recordings", nargs="+", help="JSON:NPZ_DIR pairs; a JSON whose rows carry 'set' is a control"
    )
    p.add_argument(
        "--rule",
        type=float,
        nargs=4,
        default=(0.03, 0.05, 0.15, 0.0),
        metavar=("AREA", "CONTACT", "EXTENT", "SHARP"),
    )
    p.add_argument("--ring", type=float, nargs=2, default=RING, metavar=("NEAR", "FAR"))
    p.add_argument("--grow", type=float, default=0.5, help="share of the matte's box added on each side")
    p.add_argument("--dump", type=Path, default=None, help="write every row's regions here (JSON)")
    args = p.parse_args(argv)
    rows: list[dict] = []
    cpu: list[float] = []
    for spec in args.recordings:
        jpath, npz = spec.split(":")
        for i, r in enumerate(json.loads(Path(jpath).read_text())):
            z = np.load(Path(npz) / f"{i:04d}.npz")
            t = time.process_time()
            regions = left_out_regions(z["small"], z["alpha"], ring=tuple(args.ring), grow=args.grow)
            cpu.append(time.process_time() - t)
            rows.append(
                {
                    "name": r["name"],
                    "iou": float(r["iou"]),
                    "needs_review": bool(r["needs_review"]),
                    "control": "set" in r,
                    "regions": regions,
                }
            )
    bad = [r for r in rows if _bad(r)]
    good = [r for r in rows if _good(r)]
    print(f"{len(rows)} photos; unflagged: {len(bad)} under IoU {BAD}, {len(good)} good or control")
    print(f"CPU per photo: mean {np.mean(cpu) * 1000:.1f} ms, max {np.max(cpu) * 1000:.1f} ms")
    rule = tuple(args.rule)
    mid = [r["name"] for r in rows if not r["control"] and not r["needs_review"] and BAD <= r["iou"] < GOOD]
    caught = [r["name"] for r in bad if rule_hit(r["regions"], *rule)]
    false = [r["name"] for r in good if rule_hit(r["regions"], *rule)]
    print(f"in-sample rule {rule}: newly flags {len(caught)} failures {caught}, {len(false)} good {false}")
    print(
        f"  and {sum(rule_hit(r['regions'], *rule) for r in rows if r['name'] in set(mid))} of {len(mid)} between"
    )
    print(f"in-sample best: {choose(rows)}")
    folds = grouped_folds(rows)
    tot_c = tot_f = 0
    for k in range(5):
        train = [r for r, f in zip(rows, folds, strict=True) if f != k]
        test = [r for r, f in zip(rows, folds, strict=True) if f == k]
        chosen = choose(train)
        c = [r["name"] for r in test if chosen and _bad(r) and rule_hit(r["regions"], *chosen)]
        f = [r["name"] for r in test if chosen and _good(r) and rule_hit(r["regions"], *chosen)]
        tot_c, tot_f = tot_c + len(c), tot_f + len(f)
        print(f"fold {k}: rule {chosen} catches {c}, false {f}")
    print(f"out-of-fold: newly flags {tot_c} failures, {tot_f} good")
    if args.dump:
        args.dump.write_text(
            json.dumps([{**r, "regions": [asdict(g) for g in r["regions"]]} for r in rows], indent=0)
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
