"""Research tool: clearing from the matte what the graph cut gives to the backdrop, chosen on recorded tuning photos.

Reads recordings made by ``bench/tuning/flag_signals.py`` with ``FLAG_SIGNALS_DUMP`` (``ROWS.json:NPZ_DIR`` pairs,
``:control`` marking the real car views; :func:`bench.tuning.recordings.recorded_photos`): each photo's working
image and main's final matte. On each matte :func:`retouch.pick.cut.backdrop_regions` is measured once (CPU per
photo with ``time.process_time``) and every variant of :func:`variants` (which pieces to clear: enclosed ones or
all, the smallest piece's share, the photo's total cut share) gives a new matte
(:func:`retouch.pick.cut.clear_regions`). Per photo and variant: IoU at the working resolution against the
photo's ground truth (:func:`gt_of`; :func:`retouch.metrics.iou`), the share of the opening's pixels kept as
product (see-through photos), and the review flag replayed on the new matte
(:func:`bench.tuning.recordings.replayed_flag`: every cap recomputed). The summary per group (GT tuning fold,
composites, see-through, car views): mean IoU, pooled share of opening pixels kept, failures (IoU < 0.8) flagged
and good results (IoU >= 0.95) flagged, on the new IoUs.

Usage: ``python -m bench.tuning.cut_clears OUT.json /work/rec/A.json:/work/rec/A-npz ...
/work/rec/C.json:/work/rec/C-npz:control``; ``--summary OUT.json`` prints the table of a finished run again.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402
from scipy import ndimage as ndi  # noqa: E402

from bench.tuning.recordings import recorded_photos, replayed_flag  # noqa: E402
from retouch.metrics import iou  # noqa: E402
from retouch.pick.config import SHIPPED_PICK, PickConfig  # noqa: E402
from retouch.pick.cut import BackdropPieces, backdrop_pieces, clear_pieces, cut_layout  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PHOTOS = ROOT.parent / "shared" / "photos"
#: Masks of the GT tuning fold and of the real car views.
GT_MASKS = (Path("/work/shared/photos/gt/masks"), ROOT / ".data" / "carvana-tune" / "masks")
GROUPS = ("gt", "composites", "see-through", "cars")
#: The product without its clearing step (:func:`retouch.pick.cut.clear_backdrop_pieces`): the matte a variant's
#: clearing is applied to.
NO_CLEARING = dataclasses.replace(SHIPPED_PICK, cut_clear_share=0.0)


@dataclass
class BackdropRegions:
    """:class:`retouch.pick.cut.BackdropPieces` with whether each piece is enclosed.

    Attributes:
        pieces: the graph cut's backdrop pieces (:func:`retouch.pick.cut.backdrop_pieces`).
        enclosed: bool (n + 1,): the piece does not touch the matte's outer outline (no pixel of it beside the
            clear background outside the matte with its holes filled); index 0 False.
    """

    pieces: BackdropPieces
    enclosed: np.ndarray

    @property
    def share(self) -> np.ndarray:
        """float64 (n + 1,) each piece's share of the matte (:attr:`BackdropPieces.share`)."""
        return self.pieces.share

    @property
    def typical(self) -> np.ndarray:
        """float64 (n + 1,) each piece's backdrop-typical share (:attr:`BackdropPieces.typical`)."""
        return self.pieces.typical


def backdrop_regions(
    small: np.ndarray, alpha: np.ndarray, *, config: PickConfig = SHIPPED_PICK
) -> BackdropRegions | None:
    """:func:`retouch.pick.cut.backdrop_pieces` of ``small`` uint8 (H, W, 3) and ``alpha`` float32 (H, W), with
    whether each piece is enclosed (on :func:`retouch.pick.cut.cut_layout`'s filled matte); None where it is None.

    Raises:
        ModuleNotFoundError: OpenCV (``opencv-python-headless``) is not installed.
    """
    pieces = backdrop_pieces(small, alpha, config=config)
    layout = cut_layout(small, alpha, config=config)
    if pieces is None or layout is None:
        return None
    eight = np.ones((3, 3), bool)
    beside_outside = ndi.binary_dilation(~layout.filled, structure=eight)
    n = len(pieces.share) - 1
    enclosed = np.bincount(pieces.labels[beside_outside].ravel(), minlength=n + 1) == 0
    enclosed[0] = False
    return BackdropRegions(pieces, enclosed)


def clear_regions(alpha: np.ndarray, regions: BackdropRegions, chosen: np.ndarray) -> np.ndarray:
    """``alpha`` with the ``chosen`` pieces cleared (:func:`retouch.pick.cut.clear_pieces`)."""
    return clear_pieces(alpha, regions.pieces, chosen)


def variants() -> dict[str, tuple[bool, float, float, float]]:
    """Variant name -> (enclosed pieces only, smallest piece's share of the matte, smallest total cut share,
    smallest share of a piece's pixels typical of the backdrop ring)."""
    out = {"a": (True, 0.0, 0.0, 0.0)}
    for s in (0.002, 0.005, 0.01, 0.02, 0.05):
        out[f"a-min{s}"] = (True, s, 0.0, 0.0)
    for t in (0.02, 0.05):
        out[f"a-total{t}"] = (True, 0.0, t, 0.0)
    for s in (0.0, 0.01):
        out[f"all-min{s}"] = (False, s, 0.0, 0.0)
    for t in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        out[f"a-typ{t}"] = (True, 0.0, 0.0, t)
        out[f"all-typ{t}"] = (False, 0.0, 0.0, t)
    for s, t in ((0.05, 0.2), (0.05, 0.3), (0.05, 0.4), (0.03, 0.3)):
        out[f"a-min{s}-typ{t}"] = (True, s, 0.0, t)
    return out


def chosen(
    regions: BackdropRegions, enclosed: bool, min_share: float, min_total: float, min_typical: float
) -> np.ndarray:
    """Bool (n + 1,) pieces a variant clears."""
    pick = (regions.share >= min_share) & (regions.typical >= min_typical)
    if enclosed:
        pick &= regions.enclosed
    if float(regions.share.sum()) < min_total:
        pick[:] = False
    pick[0] = False
    return pick


def group_of(name: str, control: bool) -> str:
    """The photo's group by its name: composites ``c<seed>-``, see-through ``o<seed>-``, else the GT fold."""
    if control:
        return "cars"
    head = name.split("-")[0]
    if head[1:].isdigit() and head[0] == "c":
        return "composites"
    if head[1:].isdigit() and head[0] == "o":
        return "see-through"
    return "gt"


def gt_of(name: str, group: str, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray | None]:
    """The photo's GT (uint8, 128 unlabelled) and opening (bool; see-through photos only), resized nearest to
    ``shape``, rebuilt from the generators or read from the masks."""
    from validation_sets.composites import composite_from_name
    from validation_sets.see_through import make_see_through

    p = name.split("-")
    opening = None
    if group == "see-through":
        s = make_see_through("-".join(p[2:]), int(p[0][1:]), int(p[1]))
        m, opening = s.gt, s.opening
    elif group == "composites":
        m = composite_from_name(name).gt
    else:
        m = next(
            np.asarray(Image.open(d / f"{name}.png").convert("L"))
            for d in GT_MASKS
            if (d / f"{name}.png").exists()
        )
    size = (shape[1], shape[0])
    g = np.asarray(Image.fromarray(m).resize(size, Image.Resampling.NEAREST))
    if opening is not None:
        opening = (
            np.asarray(Image.fromarray(opening.astype(np.uint8) * 255).resize(size, Image.Resampling.NEAREST))
            > 0
        )
    return g, opening


def measure(alpha: np.ndarray, gt: np.ndarray, opening: np.ndarray | None) -> tuple[float, int, int]:
    """IoU of a float32 matte, and opening pixels kept (>= 128) and in all (0 without an opening)."""
    a8 = np.clip(np.round(alpha * 255.0), 0, 255).astype(np.uint8)
    if opening is None:
        return iou(a8, gt), 0, 0
    return iou(a8, gt), int(np.count_nonzero(a8[opening] >= 128)), int(opening.sum())


def run(out: Path, specs: Sequence[str]) -> list[dict]:
    """Measure every photo and variant; rows written to ``out`` (JSON) as they come."""
    rows: list[dict] = []
    vs = variants()
    for r, control, small, alpha in recorded_photos(specs):
        group = group_of(r["name"], control)
        gt, opening = gt_of(r["name"], group, alpha.shape)
        i0, k0, n0 = measure(alpha, gt, opening)
        row = {"name": r["name"], "group": group, "iou": i0, "kept": k0, "opening": n0}
        row["flag"] = replayed_flag(small, alpha, r["signals"])
        t0 = time.process_time()
        regions = backdrop_regions(small, alpha)
        row["cpu"] = time.process_time() - t0
        row["cut"] = 0.0 if regions is None else float(regions.share.sum())
        row["regions"] = (
            []
            if regions is None
            else [
                [float(regions.share[j]), bool(regions.enclosed[j]), float(regions.typical[j])]
                for j in range(1, len(regions.share))
            ]
        )
        row["variants"] = {}
        done: dict[tuple[int, ...], list] = {}
        for v, (enc, mn, tot, typ) in vs.items():
            if regions is None:
                continue
            pick = chosen(regions, enc, mn, tot, typ)
            key = tuple(np.flatnonzero(pick).tolist())
            if not key:
                continue
            if key not in done:
                a2 = clear_regions(alpha, regions, pick)
                i2, k2, _ = measure(a2, gt, opening)
                cleared = float(regions.share[pick].sum())
                f2 = replayed_flag(small, a2, {**r["signals"], "cut_cleared": cleared})
                done[key] = [i2, k2, f2, cleared]
            row["variants"][v] = done[key]
        rows.append(row)
        if len(rows) % 50 == 0:
            out.write_text(json.dumps(rows))
            print(len(rows), file=sys.stderr, flush=True)
    out.write_text(json.dumps(rows))
    return rows


def summary(rows: Sequence[dict]) -> None:
    """Print per variant and group: mean IoU, pooled opening share kept, failures and good flagged, worst drops."""
    names = ["main", *variants()]
    for v in names:
        print(f"== {v}")
        for g in GROUPS:
            rs = [r for r in rows if r["group"] == g]
            if not rs:
                continue
            new = [
                r["variants"].get(v, [r["iou"], r["kept"], r["flag"], 0.0])
                if v != "main"
                else [r["iou"], r["kept"], r["flag"], 0.0]
                for r in rs
            ]
            ious = np.array([x[0] for x in new])
            flags = np.array([x[2] for x in new])
            kept = sum(x[1] for x in new) / max(1, sum(r["opening"] for r in rs))
            fail, good = ious < 0.8, ious >= 0.95
            drop = np.array([r["iou"] for r in rs]) - ious
            changed = sum(1 for r in rs if v in r["variants"])
            print(
                f"  {g:12s} n {len(rs):4d} changed {changed:3d} iou {ious.mean():.4f} kept {kept:.4f} "
                f"fail {int((flags & fail).sum())}/{int(fail.sum())} good {int((flags & good).sum())}/{int(good.sum())} "
                f"worst drop {drop.max():+.4f} ({rs[int(drop.argmax())]['name']})"
            )


def shared(out: Path, variant: str, pictures: Path | None = None) -> list[dict]:
    """The shared real photos (``gt/images`` with their masks, ``nomask``) through
    :func:`retouch.pipeline.product_matte` without its clearing step (:data:`NO_CLEARING`), then the clearing of ``variant`` (:func:`variants`) on its matte: the
    matte a hook after the openings step would give (the review caps after it never change the matte). Per photo:
    IoU before and after (GT photos), the share of the matte changed, main's review flag before and after (every cap
    recomputed, :func:`bench.tuning.recordings.replayed_flag`), CPU of :func:`backdrop_regions`; ``pictures``: where
    to save photo | matte before | matte after of every changed photo."""
    from retouch.decode import decode_image
    from retouch.pipeline import _resize, _working_size, product_matte

    enc, mn, tot, typ = variants()[variant]
    photos = [("gt", p) for p in sorted((PHOTOS / "gt" / "images").iterdir())]
    photos += [("nomask", p) for p in sorted((PHOTOS / "nomask").iterdir())]
    rows: list[dict] = []
    for kind, path in photos:
        rgb = decode_image(path.read_bytes()).rgb
        h, w = rgb.shape[:2]
        size = _working_size(w, h)
        small = rgb if size == (w, h) else _resize(rgb, size, Image.Resampling.BILINEAR)
        alpha, _, pick = product_matte(small, pick_config=NO_CLEARING)
        t0 = time.process_time()
        regions = backdrop_regions(small, alpha)
        cpu = time.process_time() - t0
        alpha2 = (
            alpha if regions is None else clear_regions(alpha, regions, chosen(regions, enc, mn, tot, typ))
        )
        old, new = alpha >= 0.5, alpha2 >= 0.5
        changed = float((old != new).sum() / max(1, old.sum()))
        row: dict[str, object] = {"name": path.stem, "kind": kind, "cpu": cpu, "changed": changed}
        cleared = (
            0.0
            if regions is None or alpha2 is alpha
            else float(regions.share[chosen(regions, enc, mn, tot, typ)].sum())
        )
        row["flag"] = replayed_flag(small, alpha, pick.signals, config=NO_CLEARING)
        row["flag2"] = replayed_flag(small, alpha2, {**pick.signals, "cut_cleared": cleared})
        if kind == "gt":
            m = np.asarray(Image.open(PHOTOS / "gt" / "masks" / f"{path.stem}.png").convert("L"))
            gt = np.asarray(Image.fromarray(m).resize(size, Image.Resampling.NEAREST))
            row["iou"], row["iou2"] = measure(alpha, gt, None)[0], measure(alpha2, gt, None)[0]
        rows.append(row)
        print(json.dumps(row), flush=True)
        if pictures is not None and changed > 0:
            pictures.mkdir(parents=True, exist_ok=True)
            mattes = [np.repeat((a * 255).astype(np.uint8)[..., None], 3, 2) for a in (alpha, alpha2)]
            Image.fromarray(np.concatenate([small, *mattes], 1)).save(pictures / f"{kind}-{path.stem}.png")
    out.write_text(json.dumps(rows))
    return rows


def rule(rows: Sequence[dict]) -> None:
    """Print per variant the measures of the ship rule (the cut clears record): pooled share of opening pixels kept
    (see-through), the largest fall of a group's mean IoU, of a car view's IoU and of any photo's IoU, and the
    shares of failures (IoU < 0.8) and good results (IoU >= 0.95) flagged over all groups, on the new IoUs."""

    def after(r: dict, v: str) -> list:
        return (
            r["variants"].get(v, [r["iou"], r["kept"], r["flag"], 0.0])
            if v != "main"
            else [r["iou"], r["kept"], r["flag"], 0.0]
        )

    print(
        "variant        kept   d_kept  worst_group  worst_car  worst_photo  fail_flagged  good_flagged  pass"
    )
    base = None
    for v in ["main", *variants()]:
        new = [after(r, v) for r in rows]
        ious = np.array([x[0] for x in new])
        old = np.array([r["iou"] for r in rows])
        flags = np.array([x[2] for x in new])
        see = [i for i, r in enumerate(rows) if r["group"] == "see-through"]
        kept = sum(new[i][1] for i in see) / max(1, sum(rows[i]["opening"] for i in see))
        groups = np.array([r["group"] for r in rows])
        worst_group = max(
            float(old[groups == g].mean() - ious[groups == g].mean()) for g in set(groups.tolist())
        )
        cars = groups == "cars"
        worst_car = float((old - ious)[cars].max()) if cars.any() else 0.0
        worst = float((old - ious).max())
        fail, good = ious < 0.8, ious >= 0.95
        ff, gf = float(flags[fail].mean()), float(flags[good].mean())
        if base is None:
            base = (kept, ff, gf)
        ok = (
            base[0] - kept >= 0.02
            and worst_group <= 0.001
            and worst_car <= 0.005
            and worst <= 0.05
            and ff >= base[1]
            and gf <= base[2]
        )
        print(
            f"{v:13s} {kept:.4f} {base[0] - kept:+.4f}  {worst_group:+.4f}      {worst_car:+.4f}    {worst:+.4f}"
            f"      {int(flags[fail].sum())}/{int(fail.sum())} {ff:.3f}   {int(flags[good].sum())}/{int(good.sum())} {gf:.3f}"
            f"   {'yes' if ok else 'no'}"
        )


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("specs", nargs="*")
    parser.add_argument("--summary", action="store_true")
    parser.add_argument("--shared", help="the shared real photos before and after this variant's clearing")
    parser.add_argument("--pictures", type=Path, help="with --shared: save the changed photos here")
    args = parser.parse_args(argv)
    if args.shared:
        shared(args.out, args.shared, args.pictures)
        return
    rows = json.loads(args.out.read_text()) if args.summary else run(args.out, args.specs)
    summary(rows)
    rule(rows)


if __name__ == "__main__":
    main()
