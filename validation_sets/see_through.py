"""Seeded see-through validation data: products with openings (rings, frames, wheels, handles).

Each photo is a GT product (``../shared/photos/gt``, one fold only) cut out with its own mask and given
one *opening* through which the background shows, then pasted on a background as in
:mod:`validation_sets.composites` and JPEG-encoded (quality 90):

* ``ring``: a round hole centred on the deepest point of the product's mask (the hoop of an earring, the
  eye of a pair of scissors), radius 50-80 % of that depth;
* ``frame``: the product's own inner region cut out, leaving a band 25-45 % of its depth wide around it
  (a picture frame, a chair back);
* ``wheel``: a round hole as ``ring`` crossed by 6-14 spokes 0.4-0.8 % of the product's size wide and a
  hub, which stay product (a bicycle or pram wheel);
* ``handle``: a C-shaped band in a colour of the product attached to one of its sides, its inside
  empty (a mug or a bag handle).

Backgrounds (drawn per photo): ``studio`` (smooth gradient), ``texture`` and ``busy`` (sharp procedural),
``defocus`` (another shared photo, blurred: soft) and ``photo`` (another shared photo, sharp).

:func:`make_see_through` returns the photo, its ground truth (opening = background, spokes = product,
GT's unlabelled band kept at 128) and the opening's own mask, on which ``bench/pipeline/quality.py`` measures the
share of opening pixels a tool keeps as product. Tuning photos come from the tuning fold with
:data:`TUNE_SEED`, held-out photos from the held-out fold with :data:`HOLDOUT_SEED`: no product, draw or
seed is shared, and no parameter is chosen on the held-out ones.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw, ImageFilter
from scipy import ndimage as ndi

from .composites import (
    _blur,
    _clutter,
    _load_product,
    _palette,
    _paste,
    _paste_mask,
    _photo_background,
    _texture,
    gt_folds,
)
from .photos import GT, list_images

__all__ = [
    "SeeThrough",
    "make_see_through",
    "opening_and_backdrop",
    "see_through_set",
    "TUNE_SEED",
    "HOLDOUT_SEED",
    "OPENINGS",
    "BACKGROUNDS",
]

#: Seeds of the tuning and held-out see-through sets (not used by any other generator).
TUNE_SEED = 21
HOLDOUT_SEED = 22
OPENINGS = ("ring", "frame", "wheel", "handle")
BACKGROUNDS = ("studio", "texture", "busy", "defocus", "photo")


@dataclass
class SeeThrough:
    """One generated see-through photo.

    Attributes:
        name: ``o{seed}-{index:02d}-{opening}-{background}-{product}``.
        data: JPEG bytes (quality 90).
        gt: uint8 (H, W), 255 = product, 0 = background (the opening included), 128 = unlabelled.
        opening: bool (H, W), the background seen through the opening (spokes excluded).
    """

    name: str
    data: bytes
    gt: np.ndarray
    opening: np.ndarray


def _cut(
    rng: np.random.Generator, kind: str, prgb: np.ndarray, solid: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
    """Give a product (uint8 RGB (h, w, 3), bool mask) an opening.

    Returns ``(rgb, alpha, gt_mask, opening, offset)``: float32 RGB and alpha of the new cut-out (possibly
    larger than the input, for a handle), its uint8 GT mask, the bool opening, and the (x, y) offset of the
    original product inside it.
    """
    h, w = solid.shape
    dt = ndi.distance_transform_edt(solid)
    depth = float(dt.max())
    cy, cx = np.unravel_index(int(np.argmax(dt)), dt.shape)
    yy, xx = np.mgrid[0:h, 0:w]
    rgb = prgb.astype(np.float32)
    if kind in ("ring", "wheel"):
        r = depth * rng.uniform(0.5, 0.8)
        hole = ((yy - cy) ** 2 + (xx - cx) ** 2) <= r * r
        if kind == "wheel":
            keep = Image.new("L", (w, h), 0)
            d = ImageDraw.Draw(keep)
            width = max(2, round(rng.uniform(0.004, 0.008) * max(h, w)))
            n = int(rng.integers(6, 15))
            phase = rng.uniform(0, np.pi)
            for k in range(n):
                a = phase + k * np.pi * 2 / n
                d.line(
                    [(cx, cy), (cx + np.cos(a) * r * 1.05, cy + np.sin(a) * r * 1.05)], fill=255, width=width
                )
            hub = r * 0.14
            d.ellipse((cx - hub, cy - hub, cx + hub, cy + hub), fill=255)
            hole &= np.asarray(keep) == 0
    elif kind == "frame":
        hole = dt >= depth * rng.uniform(0.25, 0.45)
    else:  # handle: a C-shaped band beside the product, its inside empty
        r_out = rng.uniform(0.25, 0.4) * h
        thick = r_out * rng.uniform(0.18, 0.3)
        side = 1 if rng.random() < 0.5 else -1
        pad = int(np.ceil(r_out)) + 2
        big_w = w + pad
        x_off = 0 if side > 0 else pad
        big_rgb = np.zeros((h, big_w, 3), np.float32)
        big_rgb[:, x_off : x_off + w] = rgb
        big_solid = np.zeros((h, big_w), bool)
        big_solid[:, x_off : x_off + w] = solid
        # the product's right (or left) edge at the handle's height
        hy = int(np.clip(rng.uniform(0.3, 0.6) * h, r_out, h - r_out))
        row = np.nonzero(big_solid[hy])[0]
        ex = (row.max() if side > 0 else row.min()) if len(row) else (x_off + w - 1 if side > 0 else x_off)
        ccx = ex + side * (r_out - thick * 0.5 - 1)
        byy, bxx = np.mgrid[0:h, 0:big_w]
        dist = np.hypot(byy - hy, bxx - ccx)
        band = (dist <= r_out) & (dist >= r_out - thick) & ((bxx - ex) * side > -thick)
        inner = (dist < r_out - thick) & ~big_solid & ((bxx - ex) * side > 0)
        colours = prgb[solid]
        col = colours[int(rng.integers(0, len(colours)))].astype(np.float32)
        shade = 0.75 + 0.25 * np.cos((byy - hy) / max(r_out, 1.0) * np.pi / 2)
        big_rgb[band & ~big_solid] = col * shade[band & ~big_solid, None]
        mask = big_solid | band
        gt = np.where(mask, 255, 0).astype(np.uint8)
        return big_rgb, mask.astype(np.float32), gt, inner & ~mask, (x_off, 0)
    hole &= solid
    mask = solid & ~hole
    return rgb, mask.astype(np.float32), np.where(mask, 255, 0).astype(np.uint8), hole, (0, 0)


def _sharp_photo(rng: np.random.Generator, w: int, h: int, exclude: str) -> np.ndarray:
    """A sharp real background, float32 (h, w, 3): a window of another GT photo (30-60 % of its size)
    where its product covers under 3 % (the best of 40 draws), resized to cover (w, h). No second product
    competes with the pasted one, which the composites' ``salient`` kind measures on its own."""
    pool = [p for p in list_images(GT / "images") if p.stem != exclude]
    path = pool[int(rng.integers(0, len(pool)))]
    im = Image.open(path).convert("RGB")
    mask = np.asarray(Image.open(GT / "masks" / f"{path.stem}.png").convert("L")) >= 128
    best, best_cover = (0, 0, im.width, im.height), 2.0
    for _ in range(40):
        cw = int(im.width * rng.uniform(0.3, 0.6))
        ch = min(im.height, max(8, round(cw * h / w)))
        x0 = int(rng.integers(0, im.width - cw + 1))
        y0 = int(rng.integers(0, im.height - ch + 1))
        cover = float(mask[y0 : y0 + ch, x0 : x0 + cw].mean())
        if cover < best_cover:
            best, best_cover = (x0, y0, x0 + cw, y0 + ch), cover
        if cover < 0.03:
            break
    crop = im.crop(best).resize((w, h), Image.Resampling.BICUBIC)
    return np.asarray(crop, np.float32)


def _backdrop_kind(rng: np.random.Generator) -> str:
    """The photo's backdrop kind (one of :data:`BACKGROUNDS`): the first draw of its generator."""
    return BACKGROUNDS[int(rng.integers(0, len(BACKGROUNDS)))]


def _product_to_cut(stem: str) -> tuple[np.ndarray, np.ndarray]:
    """GT product ``stem`` at the size its opening is cut at (~600 px on its long side, never enlarged):
    uint8 RGB (h, w, 3) and uint8 GT mask (h, w)."""
    prgb, pmask = _load_product(stem)
    f0 = min(1.0, 600 / max(pmask.shape))
    size0 = (max(8, round(pmask.shape[1] * f0)), max(8, round(pmask.shape[0] * f0)))
    prgb0 = np.asarray(Image.fromarray(prgb).resize(size0, Image.Resampling.LANCZOS))
    pm0 = np.asarray(Image.fromarray(pmask).resize(size0, Image.Resampling.NEAREST))
    return prgb0, pm0


def _opening_kind(index: int, solid: np.ndarray) -> str:
    """The opening of photo ``index`` (the kinds of :data:`OPENINGS` in turn), a handle for a product too slender
    for a hole through it (``solid``: bool (h, w) product mask; deepest point under 15 % of its long side)."""
    kind = OPENINGS[index % len(OPENINGS)]
    if kind != "handle" and ndi.distance_transform_edt(solid).max() < 0.15 * max(solid.shape):
        return "handle"  # a banana: a handle beside it instead
    return kind


def opening_and_backdrop(stem: str, seed: int, index: int) -> tuple[str, str]:
    """The opening kind (:data:`OPENINGS`) and backdrop kind (:data:`BACKGROUNDS`) that :func:`make_see_through`
    gives photo ``index`` of ``seed`` of product ``stem``, without building the photo (the same draws)."""
    rng = np.random.default_rng((seed, index))
    backdrop = _backdrop_kind(rng)
    return _opening_kind(index, _product_to_cut(stem)[1] >= 128), backdrop


def make_see_through(stem: str, seed: int, index: int) -> SeeThrough:
    """Build one see-through photo of GT product ``stem`` (deterministic in ``seed`` and ``index``).

    The canvas is 1500-3000 px on its long side (4:3, 3:2, 1:1, 3:4, 2:3); the product (opening
    included) spans 30-70 % of the frame, centred +- 20 %; sensor noise 1-3 levels; JPEG quality 90.
    """
    rng = np.random.default_rng((seed, index))
    bg_kind = _backdrop_kind(rng)
    long_side = int(rng.integers(1500, 3001))
    aspect = float(rng.choice([4 / 3, 3 / 2, 1.0, 3 / 4, 2 / 3]))
    w, h = (long_side, round(long_side / aspect)) if aspect >= 1 else (round(long_side * aspect), long_side)
    prgb0, pm0 = _product_to_cut(stem)
    solid = pm0 >= 128
    opening_kind = _opening_kind(index, solid)
    crgb, calpha, cgt, copen, _ = _cut(rng, opening_kind, prgb0, solid)
    cgt[(pm0 == 128) if cgt.shape == pm0.shape else np.zeros_like(copen)] = 128

    if bg_kind == "studio":
        c = _palette(rng, 2)
        t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
        bg = np.broadcast_to(c[0] * (1 - t) + c[1] * t, (h, w, 3)).copy()
    elif bg_kind == "texture":
        bg = _texture(rng, w, h)
    elif bg_kind == "busy":
        bg = _clutter(rng, _texture(rng, w, h))
    elif bg_kind == "defocus":
        bg = _blur(_photo_background(rng, w, h, stem), rng.uniform(0.008, 0.02) * long_side)
    else:
        bg = _sharp_photo(rng, w, h, stem)

    ch, cw = calpha.shape
    frac = rng.uniform(0.3, 0.7)
    scale = min(frac * w / cw, frac * h / ch)
    tw, th = max(8, round(cw * scale)), max(8, round(ch * scale))
    cx = w / 2 + rng.uniform(-0.2, 0.2) * (w - tw)
    cy = h / 2 + rng.uniform(-0.2, 0.2) * (h - th)
    x0, y0 = int(round(cx - tw / 2)), int(round(cy - th / 2))
    prod = np.asarray(
        Image.fromarray(np.clip(crgb, 0, 255).astype(np.uint8)).resize((tw, th), Image.Resampling.LANCZOS)
    )
    m = np.asarray(Image.fromarray(cgt).resize((tw, th), Image.Resampling.NEAREST))
    alpha = np.asarray(
        Image.fromarray((calpha * 255).astype(np.uint8)).resize((tw, th), Image.Resampling.BILINEAR)
    )
    alpha = np.asarray(Image.fromarray(alpha).filter(ImageFilter.GaussianBlur(0.7)), np.float32) / 255.0
    alpha[m == 255] = np.maximum(alpha[m == 255], 0.999)
    op = (
        np.asarray(Image.fromarray(copen.astype(np.uint8) * 255).resize((tw, th), Image.Resampling.NEAREST))
        > 0
    )
    # the opening's GT: background, except a 1 px band along its rim left unlabelled (resampling)
    rim = ndi.binary_dilation(op, iterations=1) & ~ndi.binary_erosion(op, iterations=1)
    m = m.copy()
    m[op] = 0
    m[rim & (m != 255)] = 128
    _paste(bg, prod.astype(np.float32), alpha, x0, y0)
    gt = np.zeros((h, w), np.uint8)
    _paste_mask(gt, m, x0, y0)
    opening = np.zeros((h, w), np.uint8)
    _paste_mask(opening, (op & ~rim).astype(np.uint8), x0, y0)

    noise = rng.normal(0.0, rng.uniform(1.0, 3.0), size=(h, w, 1)).astype(np.float32)
    out = np.clip(bg + noise, 0, 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(out).save(buf, "JPEG", quality=90)
    name = f"o{seed}-{index:02d}-{opening_kind}-{bg_kind}-{stem}"
    return SeeThrough(name, buf.getvalue(), gt, opening > 0)


def see_through_set(fold: str, n: int, seed: int | None = None) -> list[tuple[str, int]]:
    """The ``(product, index)`` draws of ``n`` see-through photos of a fold (``"tune"`` / ``"holdout"``).

    Products of the fold in a seeded order, in turn; the opening kind cycles with the index. The seed
    defaults to :data:`TUNE_SEED` / :data:`HOLDOUT_SEED`.
    """
    stems = gt_folds()[fold]
    if not stems:
        return []
    s = seed if seed is not None else (TUNE_SEED if fold == "tune" else HOLDOUT_SEED)
    order = np.random.default_rng(s).permutation(len(stems))
    return [(stems[int(order[i % len(stems)])], i) for i in range(n)]
