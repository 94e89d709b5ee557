"""Held out by recipe: two generators that share no drawing code with the tuned-on ones.

The pipeline's parameters were chosen on photos of :mod:`validation_sets.composites` and
:mod:`validation_sets.see_through`; seeds of those generators are not held out from the generators' own
habits (their hole shapes, their procedural backdrops, what shows through an opening). The two recipes
here draw every pixel with their own code (no helper of those modules is imported) from *real* material
only, and no parameter of the pipeline was ever chosen on them:

* **cut-through** (see-through, :func:`make_cut_through`): a GT product of a fold with an opening cut
  from the ground-truth masks themselves: ``silhouette``, the outline of *another* GT product (a car, a
  teddy, scissors ...) scaled into the product's interior; or ``lattice``, a grid of rounded holes, bars
  of product between them (a perforated panel, a chair back). A band of product always surrounds the
  openings. What shows through is a real photo of ``nomask/`` (a street, a boat, a bicycle, packshots),
  sharp or slightly out of focus, the same scene around the product.
* **staged** (composite, :func:`make_staged`): a GT product standing in a real photo of ``nomask/`` (the
  scene's own objects stay in it) with a soft contact shadow under it, the scene's colour cast on the
  product, a lens blur over the whole frame and luminance-dependent sensor noise.

Both resample with box filters at 4x the final edge resolution (the old generators use Lanczos and
nearest-neighbour with a Gaussian), take JPEG quality 80-95 and a canvas of 1600-3200 px. GT pixels
whose coverage is between 0.25 and 0.75 (a resampled edge) are left unlabelled (128), as are the GT's own
unlabelled pixels.

Products come from a fold of :func:`validation_sets.composites.gt_folds` (the fold split only, no
drawing); the reporting sets use the held-out fold with :data:`CUT_HOLDOUT_SEED` /
:data:`STAGED_HOLDOUT_SEED`. Their seeds are registered in :mod:`validation_sets.seeds`.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
from PIL import Image
from scipy import ndimage as ndi

from .photos import GT, PHOTOS, list_images

__all__ = [
    "CrossPhoto",
    "CUT_KINDS",
    "CUT_HOLDOUT_SEED",
    "STAGED_HOLDOUT_SEED",
    "cross_set",
    "make_cut_through",
    "make_staged",
]

#: Opening kinds of the cut-through recipe, in turn by index.
CUT_KINDS = ("silhouette", "lattice")
#: Default seeds of the reporting sets (held-out fold products); nothing was ever tuned on either recipe.
CUT_HOLDOUT_SEED = 1
STAGED_HOLDOUT_SEED = 1


@dataclass
class CrossPhoto:
    """One photo of a cross-recipe set.

    Attributes:
        name: ``x{seed}-{index:02d}-{kind}-{product}`` (cut-through) or ``s{seed}-{index:02d}-{product}``.
        data: JPEG bytes.
        gt: uint8 (H, W), 255 = product, 0 = background (openings included), 128 = unlabelled.
        opening: bool (H, W), the background seen through the openings (``None`` for a staged photo).
    """

    name: str
    data: bytes
    gt: np.ndarray
    opening: np.ndarray | None


def _product(stem: str, long_side: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GT product ``stem`` cropped to its mask (+1 % margin) and box-resized to ``long_side`` px (never
    enlarged): float32 RGB (h, w, 3) in [0, 255], bool mask, bool unlabelled band (GT value 128)."""
    path = next(p for p in list_images(GT / "images") if p.stem == stem)
    im = Image.open(path).convert("RGB")
    gt = Image.open(GT / "masks" / f"{stem}.png").convert("L")
    g = np.asarray(gt)
    ys, xs = np.nonzero(g >= 128)
    m = max(2, round(0.01 * max(g.shape)))
    box = (
        max(0, int(xs.min()) - m),
        max(0, int(ys.min()) - m),
        min(g.shape[1], int(xs.max()) + m + 1),
        min(g.shape[0], int(ys.max()) + m + 1),
    )
    im, gt = im.crop(box), gt.crop(box)
    f = min(1.0, long_side / max(im.size))
    size = (max(8, round(im.width * f)), max(8, round(im.height * f)))
    rgb = np.asarray(im.resize(size, Image.Resampling.BOX), np.float32)
    gl = np.asarray(gt.resize(size, Image.Resampling.BOX), np.float32)
    return (
        rgb,
        gl >= 128,
        (gl > 64) & (gl < 192) & (np.asarray(gt.resize(size, Image.Resampling.NEAREST)) == 128),
    )


def _scene(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A window of a real ``nomask/`` photo (40-100 % of its short side, maybe mirrored, gain 0.8-1.2)
    box-resized to cover (w, h): float32 (h, w, 3) in [0, 255]."""
    pool = list_images(PHOTOS / "nomask")
    im = Image.open(pool[int(rng.integers(0, len(pool)))]).convert("RGB")
    frac = rng.uniform(0.4, 1.0)
    cw = min(im.width, max(16, round(min(im.width, im.height * w / h) * frac)))
    ch = min(im.height, max(16, round(cw * h / w)))
    x0 = int(rng.integers(0, im.width - cw + 1))
    y0 = int(rng.integers(0, im.height - ch + 1))
    crop = im.crop((x0, y0, x0 + cw, y0 + ch))
    if rng.random() < 0.5:
        crop = crop.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    out = np.asarray(crop.resize((w, h), Image.Resampling.BICUBIC), np.float32)
    return np.clip(out * rng.uniform(0.8, 1.2), 0, 255)


def _other_silhouette(rng: np.random.Generator, exclude: str) -> np.ndarray:
    """The GT mask of another product, cropped to its box: bool (h, w)."""
    pool = [p.stem for p in list_images(GT / "masks") if p.stem != exclude]
    g = (
        np.asarray(Image.open(GT / "masks" / f"{pool[int(rng.integers(0, len(pool)))]}.png").convert("L"))
        >= 128
    )
    ys, xs = np.nonzero(g)
    return g[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]


def _silhouette_opening(rng: np.random.Generator, room: np.ndarray, exclude: str) -> np.ndarray:
    """The outline of another GT product, as large as fits in ``room`` (bool (h, w): where an opening
    may be) around its deepest point, mirrored or not: bool (h, w), empty when nothing fits."""
    shape = _other_silhouette(rng, exclude)
    if rng.random() < 0.5:
        shape = shape[:, ::-1]
    dt = ndi.distance_transform_edt(room)
    cy, cx = np.unravel_index(int(np.argmax(dt)), dt.shape)
    best = np.zeros(room.shape, bool)
    lo, hi = 0.02, 1.0
    for _ in range(10):  # the largest scale whose silhouette stays inside the room
        s = (lo + hi) / 2
        sw = max(3, round(room.shape[1] * s))
        sh = max(3, round(sw * shape.shape[0] / shape.shape[1]))
        sm = (
            np.asarray(Image.fromarray(shape.astype(np.uint8) * 255).resize((sw, sh), Image.Resampling.BOX))
            >= 128
        )
        cand = np.zeros(room.shape, bool)
        y0, x0 = cy - sh // 2, cx - sw // 2
        ya, xa = max(0, y0), max(0, x0)
        yb, xb = min(room.shape[0], y0 + sh), min(room.shape[1], x0 + sw)
        if yb <= ya or xb <= xa:
            hi = s
            continue
        cand[ya:yb, xa:xb] = sm[ya - y0 : yb - y0, xa - x0 : xb - x0]
        if cand.sum() == sm.sum() and not (cand & ~room).any():
            best, lo = cand, s
        else:
            hi = s
    return best


def _lattice_opening(rng: np.random.Generator, room: np.ndarray) -> np.ndarray:
    """A grid of rounded holes inside ``room`` (bool (h, w)), bars of product between them: bool (h, w)."""
    depth = float(ndi.distance_transform_edt(room).max())
    r = max(3.0, depth * rng.uniform(0.12, 0.3))
    pitch = r * 2 * rng.uniform(1.3, 1.8)
    squareness = rng.uniform(2.0, 6.0)  # 2: discs, larger: rounded squares
    yy, xx = np.mgrid[0 : room.shape[0], 0 : room.shape[1]].astype(np.float32)
    py, px = rng.uniform(0, pitch, size=2)
    dy = np.abs(np.mod(yy - py, pitch) - pitch / 2)
    dx = np.abs(np.mod(xx - px, pitch) - pitch / 2)
    holes = (dy / r) ** squareness + (dx / r) ** squareness <= 1.0
    lab, n = ndi.label(holes)
    if n == 0:
        return holes
    inside = ndi.sum(room, lab, np.arange(1, n + 1)) == ndi.sum(holes, lab, np.arange(1, n + 1))
    keep = np.concatenate([[False], inside])
    return keep[lab]


def _encode(rgb: np.ndarray, rng: np.random.Generator) -> bytes:
    """Luminance-dependent noise (shot noise of 0.6-1.6 levels at mid grey), JPEG quality 80-95."""
    k = rng.uniform(0.6, 1.6)
    lum = rgb.mean(axis=-1, keepdims=True)
    noisy = rgb + rng.standard_normal(lum.shape).astype(np.float32) * k * np.sqrt(
        np.maximum(lum, 1.0) / 128.0
    )
    buf = io.BytesIO()
    Image.fromarray(np.clip(noisy + 0.5, 0, 255).astype(np.uint8)).save(
        buf, "JPEG", quality=int(rng.integers(80, 96))
    )
    return buf.getvalue()


def _place(
    rng: np.random.Generator, w: int, h: int, pw: int, ph: int, frac: tuple[float, float]
) -> tuple[int, int, int, int]:
    """(x0, y0, width, height) of a product of size (pw, ph) spanning ``frac`` of the frame, kept inside it."""
    s = rng.uniform(*frac)
    scale = min(s * w / pw, s * h / ph)
    tw, th = max(8, round(pw * scale)), max(8, round(ph * scale))
    x0 = int(rng.integers(0, max(1, w - tw) + 1))
    y0 = int(rng.integers(0, max(1, h - th) + 1))
    return min(x0, w - tw), min(y0, h - th), tw, th


def _coverage(mask: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Share of each output pixel a bool mask covers, at ``size`` = (w, h): float32 via a 4x box filter."""
    big = Image.fromarray(mask.astype(np.uint8) * 255).resize(
        (size[0] * 4, size[1] * 4), Image.Resampling.NEAREST
    )
    return np.asarray(big.resize(size, Image.Resampling.BOX), np.float32) / 255.0


def _gt_from_cover(cover: np.ndarray, unlabelled: np.ndarray | None = None) -> np.ndarray:
    """GT uint8 from coverage: >= 0.75 product, <= 0.25 background, between unlabelled (128)."""
    gt = np.where(cover >= 0.5, 255, 0).astype(np.uint8)
    gt[(cover > 0.25) & (cover < 0.75)] = 128
    if unlabelled is not None:
        gt[unlabelled] = 128
    return gt


def _canvas(rng: np.random.Generator) -> tuple[int, int]:
    long_side = int(rng.integers(1600, 3201))
    aspect = float(rng.choice([4 / 3, 3 / 2, 16 / 9, 1.0, 3 / 4, 2 / 3]))
    return (long_side, round(long_side / aspect)) if aspect >= 1 else (round(long_side * aspect), long_side)


def make_cut_through(stem: str, seed: int, index: int) -> CrossPhoto:
    """Build one cut-through photo of GT product ``stem`` (deterministic in ``seed`` and ``index``): the
    opening kind :data:`CUT_KINDS` in turn, a band of 15-30 % of the product's depth kept around it; the
    product spans 35-75 % of the frame on a real scene, the whole frame blurred by sigma 0-2.5 px (the
    scene is out of focus behind a sharp product in half of them)."""
    rng = np.random.default_rng((seed, index, 7))
    kind = CUT_KINDS[index % len(CUT_KINDS)]
    w, h = _canvas(rng)
    prgb, solid, unlab = _product(stem, 900)
    dt = ndi.distance_transform_edt(solid)
    room = dt >= max(3.0, float(dt.max()) * rng.uniform(0.15, 0.3))
    hole = _silhouette_opening(rng, room, stem) if kind == "silhouette" else np.zeros_like(room)
    if kind == "lattice" or hole.sum() < 0.03 * solid.sum():
        kind, hole = "lattice", _lattice_opening(rng, room)
    mask = solid & ~hole
    x0, y0, tw, th = _place(rng, w, h, mask.shape[1], mask.shape[0], (0.35, 0.75))
    scene = _scene(rng, w, h)
    if rng.random() < 0.5:  # the scene out of focus behind the product
        scene = ndi.gaussian_filter(scene, (rng.uniform(2.0, 8.0),) * 2 + (0,))
    prod = np.asarray(
        Image.fromarray(np.clip(prgb, 0, 255).astype(np.uint8)).resize((tw, th), Image.Resampling.BOX),
        np.float32,
    )
    cover = _coverage(mask, (tw, th))
    out = scene.copy()
    win = out[y0 : y0 + th, x0 : x0 + tw]
    win[:] = prod * cover[..., None] + win * (1.0 - cover[..., None])
    sigma = rng.uniform(0.0, 1.0)
    if sigma > 0.3:
        out = ndi.gaussian_filter(out, (sigma, sigma, 0))
    unl = (
        np.asarray(Image.fromarray(unlab.astype(np.uint8) * 255).resize((tw, th), Image.Resampling.NEAREST))
        > 0
    )
    gt = np.zeros((h, w), np.uint8)
    gt[y0 : y0 + th, x0 : x0 + tw] = _gt_from_cover(cover, unl & (cover > 0))
    op_cover = _coverage(hole, (tw, th))
    opening = np.zeros((h, w), bool)
    opening[y0 : y0 + th, x0 : x0 + tw] = op_cover >= 0.999
    opening = ndi.binary_erosion(opening, iterations=1)
    name = f"x{seed}-{index:02d}-{kind}-{stem}"
    return CrossPhoto(name, _encode(out, rng), gt, opening)


def make_staged(stem: str, seed: int, index: int) -> CrossPhoto:
    """Build one staged photo of GT product ``stem`` (deterministic in ``seed`` and ``index``): the product
    (20-60 % of the frame) in a real scene, a contact shadow under it (opacity 0.3-0.6), the scene's mean
    colour cast on the product (strength 0.2-0.5), a lens blur of sigma 0.3-1.2 px over the frame."""
    rng = np.random.default_rng((seed, index, 11))
    w, h = _canvas(rng)
    prgb, solid, unlab = _product(stem, 1400)
    scene = _scene(rng, w, h)
    x0, y0, tw, th = _place(rng, w, h, solid.shape[1], solid.shape[0], (0.2, 0.6))
    prod = np.asarray(
        Image.fromarray(np.clip(prgb, 0, 255).astype(np.uint8)).resize((tw, th), Image.Resampling.BOX),
        np.float32,
    )
    cover = _coverage(solid, (tw, th))
    # the scene's light on the product: its mean colour over grey, mixed in
    cast = scene.reshape(-1, 3).mean(axis=0)
    cast = cast / max(float(cast.mean()), 1.0)
    strength = rng.uniform(0.2, 0.5)
    prod = np.clip(prod * (1 - strength + strength * cast), 0, 255)
    # a contact shadow: the product's footprint squashed onto its base line, blurred
    shadow = np.zeros((h, w), np.float32)
    sh_h = max(2, round(th * rng.uniform(0.08, 0.2)))
    foot = (
        np.asarray(
            Image.fromarray((cover * 255).astype(np.uint8)).resize((tw, sh_h), Image.Resampling.BOX),
            np.float32,
        )
        / 255.0
    )
    sy = min(h - sh_h, y0 + th - sh_h // 2)
    shadow[sy : sy + sh_h, x0 : x0 + tw] = foot
    shadow = ndi.gaussian_filter(shadow, max(2.0, 0.25 * sh_h))
    shadow = np.clip(shadow / max(float(shadow.max()), 1e-6), 0, 1) * rng.uniform(0.3, 0.6)
    out = scene * (1.0 - shadow[..., None])
    win = out[y0 : y0 + th, x0 : x0 + tw]
    win[:] = prod * cover[..., None] + win * (1.0 - cover[..., None])
    out = ndi.gaussian_filter(out, (rng.uniform(0.3, 1.2),) * 2 + (0,))
    unl = (
        np.asarray(Image.fromarray(unlab.astype(np.uint8) * 255).resize((tw, th), Image.Resampling.NEAREST))
        > 0
    )
    gt = np.zeros((h, w), np.uint8)
    gt[y0 : y0 + th, x0 : x0 + tw] = _gt_from_cover(cover, unl & (cover > 0))
    return CrossPhoto(f"s{seed}-{index:02d}-{stem}", _encode(out, rng), gt, None)


def cross_set(fold: str, n: int, seed: int) -> list[tuple[str, int]]:
    """The ``(product, index)`` draws of ``n`` photos of a cross-recipe set: the fold's products
    (``"tune"`` / ``"holdout"`` of :func:`validation_sets.composites.gt_folds`) in a seeded order, in turn."""
    from .composites import gt_folds

    stems = gt_folds()[fold]
    if not stems:
        return []
    order = np.random.default_rng((seed, 99)).permutation(len(stems))
    return [(stems[int(order[i % len(stems)])], i) for i in range(n)]
