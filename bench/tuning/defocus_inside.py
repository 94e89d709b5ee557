"""Research tool: defocused backdrop inside the matte, as a review flag, measured on recorded tuning photos only.

A product photographed for sale is in focus; a backdrop seen through an opening kept whole (a spoked wheel over a
defocused photo) is often not. The question: do the edges *inside* the final matte show a sizeable cluster much
blurrier than the matte's own outline and as blurred as the backdrop seen outside it, on the failures the review
flag misses, and never on good results or on the real car views (whose paint holds soft reflections)?

Per photo main leaves unflagged (:func:`measure`, working image and matte resized to :data:`SIDE` px long side):

* the **blur of each edge pixel** by re-blurring (Zhuo and Sim, "Defocus map estimation from a single image",
  Pattern Recognition 44(9), 2011): at Canny edge pixels the ratio ``R`` of the gradient magnitude of the grey
  image to that of the image re-blurred by a Gaussian of :data:`SIGMA0` px gives the edge's blur
  ``sigma = SIGMA0 / sqrt(R**2 - 1)`` (:func:`edge_blur`; Sobel gradients, so a sharp step reads ~0.9 px);
* inside the matte (eroded by :data:`INSIDE` px), the contrasted edge pixels blurred by at least ``blur`` px:
  their share of the contrasted interior edge pixels (``share``) and the largest cluster of them (joined within
  :data:`JOIN` px) in edge pixels per square root of the matte's area (``cluster``, a length relative to the
  matte's size);
* outside (a ring 6-40 px from the matte), the share of contrasted edge pixels at least that blurred
  (``backdrop``: the backdrop seen around is defocused);
* on the outline (3 px either side), the share of edge pixels sharper than 1.5 px (``outline``).

The candidate flag raises a photo main leaves unflagged where ``cluster >= L``, ``share >= S``,
``backdrop >= B`` and ``outline >= O``. Main's flag is replayed as the product computes it
(:func:`retouch.pick.confidence` on the recorded signals after :func:`retouch.pick.with_backdrop_through` and
:func:`retouch.pick.joined.with_joined_object` on the recorded matte). The operating point is chosen as the earlier
review tools do (:func:`bench.tuning.backdrop_through.choose`: most failures, no new good result nor control view),
in sample and on product-grouped folds (:func:`bench.tuning.tune_pick.grouped_folds`); a looser table shows what
each variant costs when one good result is allowed. The failures main leaves unflagged are listed with the
backdrop's measured defocus: the flag can only reach those whose backdrop is defocused.

Usage: ``python -m bench.tuning.defocus_inside /work/rec/A.json:/work/rec/A-npz ...
/work/rec/C.json:/work/rec/C-npz:control``.
"""

from __future__ import annotations

import argparse
import itertools
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
from skimage.feature import canny  # noqa: E402

from bench.tuning.backdrop_through import BAD, GOOD, choose, counts  # noqa: E402
from bench.tuning.recordings import out_of_fold, recorded_photos, replayed_flag, shared_mattes  # noqa: E402
from retouch.pick.confidence import confidence  # noqa: E402
from retouch.pick.signals import luma  # noqa: E402

#: Long side (px) the photo and matte are read at: blur widths are in its pixels.
SIDE = 512
#: The re-blur's Gaussian (px), Zhuo and Sim's sigma0.
SIGMA0 = 1.0
#: The interior: the matte eroded by this many px (past the outline's own edge and its re-blur).
INSIDE = 6
#: Blurred interior edge pixels closer than this (px) belong to one cluster.
JOIN = 4
#: Fewest contrasted backdrop edge pixels for ``backdrop`` to be read (fewer: 0).
MIN_BACKDROP = 20


def edge_blur(grey: np.ndarray, sigma0: float = SIGMA0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Blur of the edges of a grey image by re-blurring (Zhuo and Sim 2011).

    Args:
        grey: float32 (H, W) in [0, 1].
        sigma0: the re-blur's Gaussian (px).

    Returns:
        ``(edges, sigma, gradient)``: bool (H, W) Canny edge pixels (Gaussian 1 px, hysteresis 0.02 / 0.05 grey
        per px), float32 (H, W) blur estimate (px; meaningful at edge pixels: a step blurred by a Gaussian of
        ``s`` px reads ~``sqrt(s**2 + 0.8)``, a sharp step ~0.9 px, the Sobel derivative's own spread) and float32
        (H, W) gradient magnitude (grey per px, Sobel / 8).
    """

    def magnitude(x: np.ndarray) -> np.ndarray:
        return (np.hypot(ndi.sobel(x, 0), ndi.sobel(x, 1)) / 8.0).astype(np.float32)

    g0 = magnitude(grey)
    ratio = g0 / np.maximum(magnitude(ndi.gaussian_filter(grey, sigma0)), 1e-6)
    sigma = sigma0 / np.sqrt(np.maximum(ratio**2 - 1.0, 1e-6))
    edges = canny(grey, sigma=1.0, low_threshold=0.02, high_threshold=0.05)
    return edges, sigma.astype(np.float32), g0


@dataclass(frozen=True)
class Measured:
    """Edge pixels of one photo around its matte (:func:`measure`).

    Attributes:
        area: matte pixels (``alpha >= 0.5``) at :data:`SIDE`.
        inside_sigma, inside_gradient: float32 (N,) blur (px) and gradient at the interior's edge pixels.
        inside_yx: int64 (N, 2) their rows and columns.
        outline_sigma: float32 (M,) blur at the edge pixels within 3 px of the outline.
        backdrop_sigma, backdrop_gradient: float32 (K,) blur and gradient at the edge pixels 6-40 px outside.
        shape: (h, w) at :data:`SIDE`.
    """

    area: int
    inside_sigma: np.ndarray
    inside_gradient: np.ndarray
    inside_yx: np.ndarray
    outline_sigma: np.ndarray
    backdrop_sigma: np.ndarray
    backdrop_gradient: np.ndarray
    shape: tuple[int, int]


def measure(small: np.ndarray, alpha: np.ndarray) -> Measured:
    """Measure one photo.

    Args:
        small: uint8 (H, W, 3) working image.
        alpha: float32 (H, W) final matte in [0, 1].
    """
    h, w = alpha.shape
    s = SIDE / max(h, w)
    size = (max(1, round(w * s)), max(1, round(h * s)))
    grey = luma(np.asarray(Image.fromarray(small).resize(size, Image.Resampling.BILINEAR)))
    m = np.asarray(Image.fromarray(alpha.astype(np.float32)).resize(size, Image.Resampling.BILINEAR)) >= 0.5
    edges, sigma, grad = edge_blur(grey)
    inside = edges & ndi.binary_erosion(m, iterations=INSIDE)
    rim = edges & (ndi.binary_dilation(m, iterations=3) & ~ndi.binary_erosion(m, iterations=3))
    ring = edges & ndi.binary_dilation(m, iterations=40) & ~ndi.binary_dilation(m, iterations=6)
    return Measured(
        int(m.sum()),
        sigma[inside],
        grad[inside],
        np.argwhere(inside),
        sigma[rim],
        sigma[ring],
        grad[ring],
        (int(m.shape[0]), int(m.shape[1])),
    )


def features(f: Measured, blur: float, contrast: float) -> tuple[float, float, float, float]:
    """``(cluster, share, backdrop, outline)`` of one photo (module docstring) for edges blurred by at least
    ``blur`` px with a gradient of at least ``contrast`` grey per px."""
    strong = f.inside_gradient >= contrast
    blurred = strong & (f.inside_sigma >= blur)
    share = float(blurred.sum() / max(int(strong.sum()), 1))
    cluster = 0.0
    if blurred.any():
        grid = np.zeros(f.shape, bool)
        yx = f.inside_yx[blurred]
        grid[yx[:, 0], yx[:, 1]] = True
        lab, n = ndi.label(ndi.binary_dilation(grid, iterations=JOIN // 2))
        sizes = np.bincount(lab[yx[:, 0], yx[:, 1]], minlength=n + 1)[1:]
        cluster = float(sizes.max() / np.sqrt(max(f.area, 1)))
    seen = f.backdrop_gradient >= contrast
    backdrop = (
        float((seen & (f.backdrop_sigma >= blur)).sum() / seen.sum()) if seen.sum() >= MIN_BACKDROP else 0.0
    )
    outline = float((f.outline_sigma < 1.5).mean()) if len(f.outline_sigma) else 0.0
    return cluster, share, backdrop, outline


#: The grid searched: (blur px, gradient floor, cluster L, share S, backdrop B, outline O).
GRID = list(
    itertools.product(
        (2.0, 2.5, 3.0, 4.0),
        (0.01, 0.02, 0.04),
        (0.05, 0.1, 0.2, 0.4, 0.8),
        (0.0, 0.05, 0.1, 0.2, 0.3),
        (0.0, 0.3, 0.5, 0.7),
        (0.0, 0.5, 0.7),
    )
)


def load(specs: Sequence[str]) -> tuple[list[dict], list[Measured | None], list[float]]:
    """Rows (with ``control`` and ``main``: main's flag replayed), the measures of the photos main leaves unflagged
    (``None`` elsewhere) and their CPU seconds, from ``ROWS.json:NPZ_DIR[:control]`` pairs."""
    rows: list[dict] = []
    found: list[Measured | None] = []
    cpu: list[float] = []
    for r, control, small, alpha in recorded_photos(specs):
        flag = replayed_flag(small, alpha, r["signals"])
        rows.append({"name": r["name"], "iou": r["iou"], "control": control, "main": flag})
        if flag:
            found.append(None)
            continue
        t = time.process_time()
        found.append(measure(small, alpha))
        cpu.append(time.process_time() - t)
    return rows, found, cpu


def table(found: Sequence[Measured | None], main: np.ndarray) -> np.ndarray:
    """bool (len(GRID), photos): main's flag or the candidate's under each variant."""
    out = np.repeat(main[None, :], len(GRID), axis=0)
    by_measure: dict[tuple[float, float], np.ndarray] = {}
    for blur, contrast in {(g[0], g[1]) for g in GRID}:
        by_measure[(blur, contrast)] = np.array(
            [features(f, blur, contrast) if f is not None else (0.0, 0.0, 0.0, 0.0) for f in found]
        )
    for v, (blur, contrast, lo, sh, bd, ol) in enumerate(GRID):
        x = by_measure[(blur, contrast)]
        new = (x[:, 0] >= lo) & (x[:, 1] >= sh) & (x[:, 2] >= bd) & (x[:, 3] >= ol)
        new &= np.array([f is not None for f in found])
        out[v] |= new
    return out


def _ground_truth(name: str, shape: tuple[int, int]) -> np.ndarray | None:
    """uint8 (H, W) hand or generated mask of a recorded tuning photo (study only: the flag never sees it), rebuilt
    from its name (``oSEED-INDEX-STEM`` see-through, ``cSEED-INDEX-KIND-STEM`` composite); ``None`` otherwise."""
    from validation_sets.composites import composite_from_name
    from validation_sets.see_through import make_see_through

    p = name.split("-")
    if not (p[0][1:].isdigit() and name[0] in "oc"):
        return None
    if name[0] == "o":
        gt = make_see_through("-".join(p[2:]), int(p[0][1:]), int(p[1])).gt
    else:
        gt = composite_from_name(name).gt
    return np.asarray(Image.fromarray(gt).resize((shape[1], shape[0]), Image.Resampling.NEAREST))


def ceiling(specs: Sequence[str], rows: Sequence[dict], found: Sequence[Measured | None]) -> None:
    """Print, per failure main leaves unflagged, what any defocus reading inside the matte could see at best: the
    share of the matte that is backdrop kept (ground truth, study only), its contrasted edge pixels (gradient
    >= 0.01) and the share of them blurred by >= 2.5 px, and that share among the backdrop's edges outside."""
    paths = [
        (Path(sp.split(":")[1]), i)
        for sp in specs
        for i in range(len(json.loads(Path(sp.split(":")[0]).read_text())))
    ]
    for r, f, (folder, i) in zip(rows, found, paths, strict=True):
        if f is None or r["control"] or r["iou"] >= BAD:
            continue
        z = np.load(folder / f"{i:04d}.npz")
        small, alpha = z["small"], z["alpha"]
        gt = _ground_truth(str(r["name"]), alpha.shape)
        if gt is None:
            continue
        h, w = alpha.shape
        s = SIDE / max(h, w)
        size = (max(1, round(w * s)), max(1, round(h * s)))
        grey = luma(np.asarray(Image.fromarray(small).resize(size, Image.Resampling.BILINEAR)))
        m = np.asarray(Image.fromarray(alpha).resize(size, Image.Resampling.NEAREST)) >= 128
        product = np.asarray(Image.fromarray(gt).resize(size, Image.Resampling.NEAREST)) >= 128
        edges, sigma, grad = edge_blur(grey)
        kept = m & ~product
        inside = edges & ndi.binary_erosion(kept, iterations=3) & (grad >= 0.01)
        outside = edges & ~m & ~product & (grad >= 0.01)
        print(
            f"  {r['name']:<36} IoU {r['iou']:.3f}  backdrop kept {kept.sum() / max(int(m.sum()), 1):.2f} of the "
            f"matte, {int(inside.sum())} edge px there, blurred {(inside & (sigma >= 2.5)).sum() / max(int(inside.sum()), 1):.2f}"
            f"; backdrop outside blurred {(outside & (sigma >= 2.5)).sum() / max(int(outside.sum()), 1):.2f}"
        )


def shared_check(folders: Sequence[Path], variant: tuple[float, ...]) -> None:
    """Run the pipeline's matte (:func:`retouch.pipeline.product_matte`) on real photos and print main's flag and
    whether ``variant`` (a :data:`GRID` entry) would newly flag each; photos with a hand mask (``masks/NAME.png``
    beside the folder ``images``) get their IoU."""
    blur, contrast, lo, sh, bd, ol = variant
    for name, small, alpha, pick, score in shared_mattes(folders):
        flag = confidence(pick.signals)[1]
        new = False
        if not flag:
            c, s, b, o = features(measure(small, alpha), blur, contrast)
            new = c >= lo and s >= sh and b >= bd and o >= ol
        print(f"  {name}: main flag {flag}, newly flagged {new}{score}")


def main(argv: list[str] | None = None) -> int:
    """Measure, replay, print main's and the candidate's counts in sample and out of fold."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recordings", nargs="+", help="ROWS.json:NPZ_DIR[:control]")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--shared", type=Path, nargs="*", default=(), help="real photo folders to check")
    parser.add_argument("--ceiling", action="store_true", help="what the kept backdrop shows (ground truth)")
    args = parser.parse_args(argv)
    rows, found, cpu = load(args.recordings)
    main_flags = np.array([r["main"] for r in rows])
    iou = np.array([r["iou"] for r in rows])
    ctl = np.array([r["control"] for r in rows])
    ms = 1000 * np.array(cpu)
    print(
        f"{len(rows)} photos; measure() CPU on the {len(cpu)} main leaves unflagged: median "
        f"{np.median(ms):.1f} ms, p90 {np.percentile(ms, 90):.1f} ms, max {ms.max():.1f} ms"
    )
    print("main:", counts(rows, main_flags))
    print("failures main leaves unflagged (backdrop share blurred >= 2.5 px; interior share; cluster):")
    for r, f in zip(rows, found, strict=True):
        if f is not None and not r["control"] and r["iou"] < BAD:
            c, s, b, o = features(f, 2.5, 0.02)
            print(
                f"  {r['name']:<36} IoU {r['iou']:.3f}  backdrop {b:.2f}  share {s:.2f}  cluster {c:.2f}  outline {o:.2f}"
            )
    t = table(found, main_flags)
    v = choose(rows, t, main_flags, np.ones(len(rows), bool))
    print("operating point in sample:", counts(rows, t[v]), GRID[v])
    for r, x, m in zip(rows, t[v], main_flags, strict=True):
        if x and not m:
            print(f"  newly flagged: {r['name']} (IoU {r['iou']:.3f})")
    new_bad = (t & ~main_flags & ~ctl & (iou < BAD)).sum(1)
    new_good = (t & ~main_flags & ~ctl & (iou >= GOOD)).sum(1)
    new_ctl = (t & ~main_flags & ctl).sum(1)
    print(
        "best new failures per cost (new good, new control views): the fewest-cost variant reaching each count"
    )
    for k in range(1, int(new_bad.max()) + 1):
        reach = np.flatnonzero(new_bad >= k)
        best = reach[np.lexsort((new_ctl[reach], new_good[reach] + new_ctl[reach]))[0]]
        print(
            f"  >= {k} failures: {int(new_good[best])} good, {int(new_ctl[best])} control views  {GRID[best]}"
        )
    oof, chosen = out_of_fold(rows, t, args.folds, lambda use: choose(rows, t, main_flags, use))
    for k, vk in enumerate(chosen):
        print(f"  fold {k}: {GRID[vk]}")
    print("out of fold:", counts(rows, oof))
    for r, o, m in zip(rows, oof, main_flags, strict=True):
        if o and not m:
            print(f"  newly flagged out of fold: {r['name']} (IoU {r['iou']:.3f}, control {r['control']})")
    if args.ceiling:
        print("failures main leaves unflagged, the backdrop kept in the matte (ground truth, study only):")
        ceiling(args.recordings, rows, found)
    if args.shared:
        print("real photos, the in-sample operating point:", GRID[v])
        shared_check(args.shared, GRID[v])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
