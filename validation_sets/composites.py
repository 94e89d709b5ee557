"""Held-out validation data: GT folds and a seeded generator of unseen product composites.

**Folds.** The 35 GT photos are split once, by name, into a *tuning* fold and a *held-out* fold
(:func:`gt_folds`). Photos of the same object (the two views of a Carvana car ``ID_03``/``ID_11``, the
three banana and two stone photos) always land in the same fold, so the held-out fold never contains a
second view of a tuned-on object. Every parameter of the product pick (doubt test, pick,
confidence weights and review threshold) was chosen on the tuning fold and the tuning composites only.

**Composites** (:func:`make_composite`): a GT product, cut out with its own mask, pasted onto a new
background at a new scale and position, on a canvas of 2000-4000 px (long side), then JPEG-encoded
(quality 90) as a phone would. The ground truth is the pasted mask; GT's unlabelled band (value 128) stays
unlabelled. Backgrounds, all seeded:

* ``studio``: a smooth two-tone gradient (the easy case: no regression allowed here);
* ``texture``: a sharp procedural texture (wood grain, checks or value noise);
* ``busy``: sharp clutter (many small random shapes) over a texture;
* ``defocus``: another shared photo (``nomask/`` or another GT photo) blurred heavily, as a shallow depth
  of field makes a café or a living room;
* ``salient``: any of the above plus a *second large salient object*, heavily blurred, behind the
  product and often under it (a cup on a saucer, or another GT product at 1.5-3x the product's size);
  the case behind the pick's worst failures (the large blurred object taken for the product).

Composites made from tuning-fold products with seed :data:`TUNE_SEED` are the tuning composites; those
made from held-out-fold products with seed :data:`HOLDOUT_SEED` are the held-out composites: no product,
background draw or seed is shared between the two.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from .photos import GT, PHOTOS, list_images

__all__ = [
    "Composite",
    "gt_folds",
    "make_composite",
    "composite_from_name",
    "composites",
    "TUNE_SEED",
    "HOLDOUT_SEED",
    "KINDS",
]

TUNE_SEED = 1
HOLDOUT_SEED = 2
KINDS = ("studio", "texture", "busy", "defocus", "salient")


@dataclass
class Composite:
    """One generated photo.

    Attributes:
        name: ``c{seed}-{index:02d}-{kind}-{product}``.
        data: JPEG bytes (quality 90) of the composite, the input both tools read.
        gt: uint8 (H, W) ground truth, 255 = product, 0 = background, 128 = unlabelled.
        kind: one of :data:`KINDS`.
    """

    name: str
    data: bytes
    gt: np.ndarray
    kind: str


def _group(stem: str) -> str:
    """Object identity of a GT photo: Carvana car id, or the name without trailing digits."""
    m = re.match(r"^([0-9a-f]{12})_\d\d$", stem)
    return m.group(1) if m else re.sub(r"\d+$", "", stem)


def gt_folds(photos: Path = PHOTOS) -> dict[str, list[str]]:
    """Split the GT photo names into ``{"tune": [...], "holdout": [...]}`` (about half each).

    Groups of the same object (:func:`_group`) are sorted by name and dealt alternately to the two folds
    separately for the Carvana cars and for the other photos, so both folds hold cars and objects.

    Returns:
        dict of sorted photo stems; empty lists when the folder is absent.
    """
    gt = photos / "gt"
    if not (gt / "images").is_dir():
        return {"tune": [], "holdout": []}
    stems = [p.stem for p in list_images(gt / "images") if (gt / "masks" / f"{p.stem}.png").is_file()]
    folds: dict[str, list[str]] = {"tune": [], "holdout": []}
    for cars in (True, False):
        groups = sorted({_group(s) for s in stems if (re.match(r"^[0-9a-f]{12}_", s) is not None) == cars})
        for i, g in enumerate(groups):
            folds["tune" if i % 2 == 0 else "holdout"] += [s for s in stems if _group(s) == g]
    return {k: sorted(v) for k, v in folds.items()}


def _load_product(stem: str) -> tuple[np.ndarray, np.ndarray]:
    """GT photo cropped to its mask's box (+2 % margin): uint8 RGB (h, w, 3) and mask (h, w)."""
    img_path = next(p for p in list_images(GT / "images") if p.stem == stem)
    rgb = np.asarray(Image.open(img_path).convert("RGB"))
    mask = np.asarray(Image.open(GT / "masks" / f"{stem}.png").convert("L"))
    ys, xs = np.nonzero(mask >= 128)
    m = max(2, round(0.02 * max(mask.shape)))
    y0, y1 = max(0, ys.min() - m), min(mask.shape[0], ys.max() + 1 + m)
    x0, x1 = max(0, xs.min() - m), min(mask.shape[1], xs.max() + 1 + m)
    return rgb[y0:y1, x0:x1], mask[y0:y1, x0:x1]


def _value_noise(rng: np.random.Generator, w: int, h: int, cell: int) -> np.ndarray:
    """Smooth random field in [0, 1], float32 (h, w): random values on a ``cell`` px grid, bicubic."""
    gw, gh = max(2, w // cell + 2), max(2, h // cell + 2)
    g = (rng.random((gh, gw)) * 255).astype(np.uint8)
    return np.asarray(Image.fromarray(g).resize((w, h), Image.Resampling.BICUBIC), np.float32) / 255.0


def _palette(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(20, 236, size=(n, 3)).astype(np.float32)


def _texture(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """Sharp procedural texture, float32 (h, w, 3) in 0-255."""
    c = _palette(rng, 2)
    kind = rng.integers(0, 3)
    if kind == 0:  # wood grain: stretched noise through a sine
        n = _value_noise(rng, w, max(2, h // 12), int(rng.integers(30, 90)))
        n = np.asarray(Image.fromarray((n * 255).astype(np.uint8)).resize((w, h), Image.Resampling.BILINEAR))
        t = 0.5 + 0.5 * np.sin(n.astype(np.float32) / 255.0 * rng.uniform(20, 60))
    elif kind == 1:  # checks / tablecloth
        p = int(rng.integers(max(8, w // 80), max(16, w // 12)))
        yy, xx = np.mgrid[0:h, 0:w]
        t = (((yy // p) + (xx // p)) % 2).astype(np.float32) * 0.7 + 0.15 * ((yy // (p // 3 + 1)) % 2)
    else:  # mottled stone / fabric
        t = 0.6 * _value_noise(rng, w, h, int(rng.integers(6, 30))) + 0.4 * _value_noise(rng, w, h, 120)
    t = t[..., None]
    return c[0] * (1 - t) + c[1] * t


def _clutter(rng: np.random.Generator, base: np.ndarray) -> np.ndarray:
    """Many small sharp shapes (jars, books, leaves ...) over ``base``; float32 (h, w, 3)."""
    h, w = base.shape[:2]
    im = Image.fromarray(np.clip(base, 0, 255).astype(np.uint8))
    d = ImageDraw.Draw(im)
    for _ in range(int(rng.integers(40, 120))):
        s = rng.uniform(0.02, 0.12) * max(w, h)
        x, y = rng.uniform(-s, w), rng.uniform(-s, h)
        col = tuple(int(v) for v in _palette(rng, 1)[0])
        box = (x, y, x + s * rng.uniform(0.3, 1.5), y + s * rng.uniform(0.3, 1.5))
        if rng.random() < 0.5:
            d.ellipse(box, fill=col)
        else:
            d.rectangle(box, fill=col)
    return np.asarray(im, np.float32)


def _photo_background(rng: np.random.Generator, w: int, h: int, exclude: str) -> np.ndarray:
    """Another shared photo resized to cover (w, h), float32 (h, w, 3)."""
    pool = [p for p in list_images(PHOTOS / "nomask")] if (PHOTOS / "nomask").is_dir() else []
    pool += [p for p in list_images(GT / "images") if p.stem != exclude]
    path = pool[int(rng.integers(0, len(pool)))]
    im = Image.open(path).convert("RGB")
    f = max(w / im.width, h / im.height)
    im = im.resize((max(w, round(im.width * f)), max(h, round(im.height * f))), Image.Resampling.BILINEAR)
    x0 = int(rng.integers(0, im.width - w + 1))
    y0 = int(rng.integers(0, im.height - h + 1))
    return np.asarray(im.crop((x0, y0, x0 + w, y0 + h)), np.float32)


def _blur(arr: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur of a float32 (h, w, 3) image, computed at reduced size when sigma is large."""
    h, w = arr.shape[:2]
    f = min(1.0, 4.0 / max(sigma, 1e-3))
    im = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    if f < 1.0:
        im = im.resize((max(1, round(w * f)), max(1, round(h * f))), Image.Resampling.BILINEAR)
    im = im.filter(ImageFilter.GaussianBlur(sigma * f))
    if f < 1.0:
        im = im.resize((w, h), Image.Resampling.BICUBIC)
    return np.asarray(im, np.float32)


def _cup(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """A cup on a saucer seen from above at an angle: RGB float32 (s, s, 3) and alpha float32 (s, s)."""
    s = size
    im = Image.new("RGB", (s, s), (0, 0, 0))
    al = Image.new("L", (s, s), 0)
    d, da = ImageDraw.Draw(im), ImageDraw.Draw(al)
    base = np.array([rng.uniform(200, 250)] * 3) * rng.uniform(0.85, 1.0, 3)
    col = tuple(int(v) for v in base)
    dark = tuple(int(v * 0.75) for v in base)
    saucer = (0.02 * s, 0.45 * s, 0.98 * s, 0.95 * s)
    d.ellipse(saucer, fill=dark)
    da.ellipse(saucer, fill=255)
    d.ellipse((0.1 * s, 0.5 * s, 0.9 * s, 0.9 * s), fill=col)
    cup = (0.22 * s, 0.12 * s, 0.78 * s, 0.78 * s)
    d.rounded_rectangle(cup, radius=int(0.12 * s), fill=col)
    da.rounded_rectangle(cup, radius=int(0.12 * s), fill=255)
    d.ellipse((0.22 * s, 0.05 * s, 0.78 * s, 0.25 * s), fill=tuple(int(v * 0.45) for v in base))
    da.ellipse((0.22 * s, 0.05 * s, 0.78 * s, 0.25 * s), fill=255)
    handle = (0.7 * s, 0.3 * s, 0.95 * s, 0.6 * s)
    d.ellipse(handle, outline=col, width=max(2, int(0.05 * s)))
    da.ellipse(handle, outline=255, width=max(2, int(0.05 * s)))
    return np.asarray(im, np.float32), np.asarray(al, np.float32) / 255.0


def make_composite(stem: str, seed: int, index: int, kind: str | None = None) -> Composite:
    """Build one composite of GT product ``stem`` (deterministic in ``seed`` and ``index``).

    Args:
        stem: GT photo name (its mask must exist).
        seed, index: the random draw (``numpy.random.default_rng((seed, index))``).
        kind: background kind (one of :data:`KINDS`); ``None`` = drawn.

    Returns:
        :class:`Composite` with a JPEG of 2000-4000 px long side.
    """
    rng = np.random.default_rng((seed, index))
    kind = kind or KINDS[int(rng.integers(0, len(KINDS)))]
    long_side = int(rng.integers(2000, 4001))
    aspect = float(rng.choice([4 / 3, 3 / 2, 1.0, 3 / 4, 2 / 3]))
    w, h = (long_side, round(long_side / aspect)) if aspect >= 1 else (round(long_side * aspect), long_side)
    prgb, pmask = _load_product(stem)

    # background
    base_kind = (
        kind if kind != "salient" else ("studio", "texture", "busy", "defocus")[int(rng.integers(0, 4))]
    )
    if base_kind == "studio":
        c = _palette(rng, 2)
        t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
        bg = np.broadcast_to(c[0] * (1 - t) + c[1] * t, (h, w, 3)).copy()
    elif base_kind == "texture":
        bg = _texture(rng, w, h)
    elif base_kind == "busy":
        bg = _clutter(rng, _texture(rng, w, h))
    else:
        bg = _blur(_photo_background(rng, w, h, stem), rng.uniform(0.008, 0.02) * long_side)

    # product scale and position: longest product side 20-65 % of the frame's matching side
    ph, pw = pmask.shape
    frac = rng.uniform(0.2, 0.65)
    if kind == "salient":  # a smaller product on a large object, the pick's worst case
        frac = rng.uniform(0.15, 0.35)
    scale = min(frac * w / pw, frac * h / ph)
    tw, th = max(8, round(pw * scale)), max(8, round(ph * scale))
    cx = w / 2 + rng.uniform(-0.25, 0.25) * (w - tw)
    cy = h / 2 + rng.uniform(-0.25, 0.25) * (h - th)
    if rng.random() < 0.2:  # now and then well off-centre
        cx = rng.uniform(tw / 2, w - tw / 2)
        cy = rng.uniform(th / 2, h - th / 2)
    x0, y0 = int(round(cx - tw / 2)), int(round(cy - th / 2))

    if kind == "salient":
        # a second large object, heavily blurred, behind the product and usually under it
        size = int(max(tw, th) * rng.uniform(2.0, 3.5))
        if rng.random() < 0.5:
            orgb, oal = _cup(rng, size)
        else:
            folds = gt_folds()
            others = [s for s in folds["tune" if stem in folds["tune"] else "holdout"] if s != stem]
            o_rgb, o_mask = _load_product(others[int(rng.integers(0, len(others)))])
            f = size / max(o_mask.shape)
            osz = (max(8, round(o_mask.shape[1] * f)), max(8, round(o_mask.shape[0] * f)))
            orgb = np.asarray(Image.fromarray(o_rgb).resize(osz, Image.Resampling.BILINEAR), np.float32)
            oal = np.asarray(Image.fromarray(o_mask).resize(osz, Image.Resampling.BILINEAR), np.float32)
            oal = (oal >= 128).astype(np.float32)
        sigma = rng.uniform(0.006, 0.015) * long_side
        pad = int(3 * sigma)
        big = np.zeros((oal.shape[0] + 2 * pad, oal.shape[1] + 2 * pad, 3), np.float32)
        bal = np.zeros(big.shape[:2], np.float32)
        big[pad:-pad, pad:-pad] = orgb * oal[..., None]
        bal[pad:-pad, pad:-pad] = oal
        big = _blur(big, sigma)
        bal = _blur(np.repeat(bal[..., None], 3, axis=2) * 255.0, sigma)[..., 0] / 255.0
        big = big / np.maximum(bal, 1e-3)[..., None]  # un-premultiply
        # placed so the product overlaps it (product's base on the object's upper half)
        oy = int(cy - big.shape[0] * rng.uniform(0.3, 0.6))
        ox = int(cx - big.shape[1] / 2 + rng.uniform(-0.15, 0.15) * big.shape[1])
        _paste(bg, big, bal, ox, oy)

    # the product
    prod = np.asarray(Image.fromarray(prgb).resize((tw, th), Image.Resampling.LANCZOS), np.float32)
    m = np.asarray(Image.fromarray(pmask).resize((tw, th), Image.Resampling.NEAREST))
    alpha = (m >= 128).astype(np.float32)
    # a hint of edge anti-aliasing, as a lens and demosaicing give
    alpha = np.asarray(Image.fromarray((alpha * 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.7)))
    alpha = alpha.astype(np.float32) / 255.0
    alpha[m == 255] = 1.0
    gt = np.zeros((h, w), np.uint8)
    _paste(bg, prod, alpha, x0, y0)
    _paste_mask(gt, m, x0, y0)

    noise = rng.normal(0.0, rng.uniform(1.0, 3.0), size=(h, w, 1)).astype(np.float32)
    out = np.clip(bg + noise, 0, 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(out).save(buf, "JPEG", quality=90)
    return Composite(f"c{seed}-{index:02d}-{kind}-{stem}", buf.getvalue(), gt, kind)


def _paste(dst: np.ndarray, src: np.ndarray, alpha: np.ndarray, x0: int, y0: int) -> None:
    """Alpha-blend ``src`` (h, w, 3) with ``alpha`` (h, w) into ``dst`` at (x0, y0), clipped, in place."""
    H, W = dst.shape[:2]
    h, w = alpha.shape
    ax0, ay0 = max(0, -x0), max(0, -y0)
    bx0, by0 = max(0, x0), max(0, y0)
    bx1, by1 = min(W, x0 + w), min(H, y0 + h)
    if bx1 <= bx0 or by1 <= by0:
        return
    a = alpha[ay0 : ay0 + by1 - by0, ax0 : ax0 + bx1 - bx0, None]
    s = src[ay0 : ay0 + by1 - by0, ax0 : ax0 + bx1 - bx0]
    region = dst[by0:by1, bx0:bx1]
    region *= 1.0 - a
    region += s * a


def _paste_mask(dst: np.ndarray, m: np.ndarray, x0: int, y0: int) -> None:
    H, W = dst.shape
    h, w = m.shape
    ax0, ay0 = max(0, -x0), max(0, -y0)
    bx0, by0 = max(0, x0), max(0, y0)
    bx1, by1 = min(W, x0 + w), min(H, y0 + h)
    if bx1 > bx0 and by1 > by0:
        dst[by0:by1, bx0:bx1] = m[ay0 : ay0 + by1 - by0, ax0 : ax0 + bx1 - bx0]


def composites(fold: str, n: int, seed: int | None = None) -> list[tuple[str, int, str | None]]:
    """The (product, index) draws of ``n`` composites of a fold: products of that fold in turn.

    Args:
        fold: ``"tune"`` or ``"holdout"`` (see :func:`gt_folds`).
        n: how many composites.
        seed: default :data:`TUNE_SEED` / :data:`HOLDOUT_SEED` by fold.

    Returns:
        ``(stem, index, kind)`` triples: every third composite is forced to kind ``salient`` (the pick's
        failure case), the others draw their kind (``None``). Generate each with :func:`make_composite`.
    """
    stems = gt_folds()[fold]
    if not stems:
        return []
    order = np.random.default_rng(seed if seed is not None else _seed(fold)).permutation(len(stems))
    return [(stems[int(order[i % len(stems)])], i, "salient" if i % 3 == 0 else None) for i in range(n)]


def _seed(fold: str) -> int:
    return TUNE_SEED if fold == "tune" else HOLDOUT_SEED


def composite_from_name(name: str) -> Composite:
    """Rebuild a composite of :func:`composites` from its name, ``c{seed}-{index:02d}-{kind}-{product}`` (the
    :attr:`Composite.name`, or ``bench.pipeline.quality``'s row name with ``drawn`` for a drawn kind).

    The kind in the name is the one drawn, not the argument: :func:`composites` forces ``salient`` on every third
    index and lets the others draw theirs, and forcing a kind skips a draw of the generator, so passing the drawn
    kind to :func:`make_composite` would build another photo.

    Raises:
        ValueError: ``name`` is not a composite's name.
        FileNotFoundError: the product's GT photo or mask is missing.
    """
    head, index, _kind, stem = name.split("-", 3)
    if head[:1] != "c" or not head[1:].isdigit() or not index.isdigit():
        raise ValueError(f"not a composite's name: {name!r}")
    i = int(index)
    return make_composite(stem, int(head[1:]), i, "salient" if i % 3 == 0 else None)
