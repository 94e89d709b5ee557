"""Procedural "smart" backgrounds (SPEC.md §9 categories), generated from code: no downloads.

Each category is a small scene recipe: a wall gradient, a floor/surface with its own material and a
light direction, and a colour palette. The product is placed standing on the surface (the floor line
is at its base) and keeps its soft shadow. Generation works at 1/4 resolution (smooth content) and is
upsampled once; fine grain (noise) is added at full resolution. Deterministic: the same category and
size always give the same image (seeded by the category name).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

import numpy as np
from PIL import Image
from scipy import ndimage as ndi

__all__ = ["render_background", "surface_row", "CATEGORY_LABELS"]

#: Italian labels for the UI.
CATEGORY_LABELS = {
    "minimal_studio": "Studio minimal",
    "home_lifestyle": "Casa e lifestyle",
    "outdoor_natural": "Esterni naturali",
    "professional_office": "Ufficio professionale",
    "seasonal_themed": "Stagionale a tema",
}

Colour = tuple[float, float, float]


def _lerp(a: Colour, b: Colour, t: np.ndarray) -> np.ndarray:
    aa, bb = np.asarray(a, np.float32), np.asarray(b, np.float32)
    return aa + (bb - aa) * t[..., None]


def _grid(w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    return x / max(1, w - 1), y / max(1, h - 1)


def _blobs(w: int, h: int, rng: np.random.Generator, n: int, rmin: float, rmax: float) -> np.ndarray:
    """Soft round light blobs (bokeh), float32 (h, w) in [0, 1]."""
    out = np.zeros((h, w), np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for _ in range(n):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(rmin, rmax) * max(w, h)
        out = np.maximum(
            out, rng.uniform(0.4, 1.0) * np.clip(1.0 - np.hypot(xx - cx, yy - cy) / r, 0, 1) ** 0.6
        )
    return out


def _minimal_studio(w: int, h: int, floor: float, rng: np.random.Generator) -> np.ndarray:  # noqa: ARG001
    x, y = _grid(w, h)
    wall = _lerp((236, 238, 242), (250, 250, 252), y / max(floor, 1e-3))
    ground = _lerp((244, 244, 246), (226, 227, 231), np.clip((y - floor) / max(1e-3, 1 - floor), 0, 1))
    sweep = np.clip((y - floor + 0.08) / 0.16, 0, 1)[..., None]  # curved cyclorama joint
    img = wall * (1 - sweep) + ground * sweep
    vignette = 1.0 - 0.10 * (((x - 0.5) * 1.6) ** 2 + ((y - 0.45) * 1.2) ** 2)
    return img * vignette[..., None]


def _home_lifestyle(w: int, h: int, floor: float, rng: np.random.Generator) -> np.ndarray:
    x, y = _grid(w, h)
    wall = _lerp(
        (226, 214, 196), (244, 236, 222), np.clip(1.2 - x * 0.9 - y * 0.3, 0, 1)
    )  # warm light from left
    # wooden table: grain = stretched noise, warm browns
    noise = ndi.gaussian_filter(rng.standard_normal((h, w)).astype(np.float32), (0.6, 25.0))
    noise /= max(float(np.abs(noise).max()), 1e-6)
    rings = 0.5 + 0.5 * np.sin(y * 180.0 + noise * 6.0)
    wood = _lerp((150, 105, 70), (190, 145, 100), rings * 0.6 + 0.2 * (1 - y))
    t = np.clip((y - floor) / 0.01, 0, 1)[..., None]
    img = wall * (1 - t) + wood * t
    window = 0.06 * np.clip(1 - np.hypot((x - 0.15) * 2, (y - 0.2) * 3), 0, 1)
    return img * (1 + window[..., None])


def _outdoor_natural(w: int, h: int, floor: float, rng: np.random.Generator) -> np.ndarray:
    x, y = _grid(w, h)
    sky = _lerp((170, 205, 235), (232, 240, 236), np.clip(y / max(floor, 1e-3), 0, 1))
    foliage = _blobs(w, h, rng, 28, 0.03, 0.09)
    leaves = _lerp((120, 165, 95), (185, 210, 140), foliage)
    band = np.clip(1 - np.abs(y - floor * 0.8) / (floor * 0.55 + 1e-3), 0, 1)[..., None]
    back = sky * (1 - 0.75 * band) + leaves * 0.75 * band
    stone_noise = ndi.gaussian_filter(rng.standard_normal((h, w)).astype(np.float32), 2.0)
    stone_noise /= max(float(np.abs(stone_noise).max()), 1e-6)
    ground = _lerp((150, 140, 120), (196, 188, 168), np.clip(0.5 + 0.5 * stone_noise + (y - floor), 0, 1))
    t = np.clip((y - floor) / 0.02, 0, 1)[..., None]
    return back * (1 - t) + ground * t


def _professional_office(w: int, h: int, floor: float, rng: np.random.Generator) -> np.ndarray:  # noqa: ARG001
    x, y = _grid(w, h)
    wall = _lerp((205, 212, 222), (232, 236, 242), np.clip(x * 0.8 + 0.2 * (1 - y), 0, 1))
    blinds = 0.04 * (np.sin(y * 2 * np.pi * 40) > 0.6) * np.clip(1 - np.abs(x - 0.8) * 4, 0, 1)
    wall = wall * (1 + blinds[..., None])
    desk = _lerp((245, 246, 248), (214, 218, 224), np.clip((y - floor) / max(1e-3, 1 - floor), 0, 1))
    edge = np.clip(1 - np.abs(y - floor) / 0.004, 0, 1)[..., None] * 0.15
    t = np.clip((y - floor) / 0.005, 0, 1)[..., None]
    return (wall * (1 - t) + desk * t) * (1 - edge)


def _seasonal_themed(w: int, h: int, floor: float, rng: np.random.Generator) -> np.ndarray:
    x, y = _grid(w, h)
    back = _lerp((120, 24, 36), (60, 12, 22), np.clip(np.hypot(x - 0.5, y - 0.35) * 1.4, 0, 1))
    lights = _blobs(w, h, rng, 40, 0.01, 0.035)
    back = back * (1 - lights[..., None]) + _lerp((120, 24, 36), (255, 214, 140), lights) * lights[..., None]
    snow = _lerp((236, 238, 244), (210, 216, 228), np.clip((y - floor) / max(1e-3, 1 - floor), 0, 1))
    t = np.clip((y - floor) / 0.01, 0, 1)[..., None]
    return back * (1 - t) + snow * t


_RECIPES: dict[str, Callable[[int, int, float, np.random.Generator], np.ndarray]] = {
    "minimal_studio": _minimal_studio,
    "home_lifestyle": _home_lifestyle,
    "outdoor_natural": _outdoor_natural,
    "professional_office": _professional_office,
    "seasonal_themed": _seasonal_themed,
}


def render_background(category: str, width: int, height: int, floor_y: float) -> np.ndarray:
    """Render the background of a smart-background category.

    Args:
        category: one of ``SMART_BACKGROUND_CATEGORIES``.
        width, height: output size in px.
        floor_y: vertical position (0 = top, 1 = bottom) of the surface line where the product stands.

    Returns:
        uint8 (height, width, 3) sRGB.

    Raises:
        ValueError: unknown category.
    """
    try:
        recipe = _RECIPES[category]
    except KeyError:
        raise ValueError(f"Categoria di sfondo sconosciuta: {category!r}") from None
    rng = np.random.default_rng(zlib.crc32(category.encode()))
    sw, sh = max(8, width // 4), max(8, height // 4)
    small = np.clip(recipe(sw, sh, float(np.clip(floor_y, 0.2, 0.97)), rng), 0, 255).astype(np.uint8)
    big = np.asarray(
        Image.fromarray(small, "RGB").resize((width, height), Image.Resampling.BICUBIC), dtype=np.int16
    )
    grain = rng.integers(-2, 3, size=(height, width, 1), dtype=np.int16)
    return np.clip(big + grain, 0, 255).astype(np.uint8)


#: Lowest share of the product's height in which its ground contacts are looked for (:func:`surface_row`).
FEET_BAND = 0.2


def surface_row(alpha: np.ndarray) -> int:
    """Row of a smart background's surface line (wall meets floor) for a product matte on the canvas.

    The product must stand on the surface, not float in front of the wall: the line goes through its
    *highest* ground contact. Contacts are the runs of neighbouring columns whose lowest opaque pixel
    (alpha > 0.5) lies in the bottom :data:`FEET_BAND` of the product (a bicycle's two tyres, a chair's
    legs, a box's base), each at its lowest row. A product with one base has its lowest opaque row on
    the line; a bicycle seen slightly from the side has its rear tyre on it and its front tyre lower, on
    the floor. The contact shadow (:func:`retouch.composite.shadow_layer`) lies under the product's base.

    Args:
        alpha: float32 (H, W) product matte on the output canvas, in [0, 1].

    Returns:
        the row index (0 = top) just under the highest contact; 85 % of H for an empty matte.
    """
    h = alpha.shape[0]
    on = alpha > 0.5
    rows = np.flatnonzero(on.any(axis=1))
    if rows.size == 0:
        return round(0.85 * h)
    top, bottom = int(rows[0]), int(rows[-1])
    cols = np.flatnonzero(on.any(axis=0))
    lowest = h - 1 - np.argmax(on[::-1, cols], axis=0)  # lowest opaque row of each product column
    feet = lowest >= bottom - FEET_BAND * (bottom - top + 1)
    # runs of neighbouring foot columns (gaps of a few px bridged): each run is one contact
    lab, n = ndi.label(ndi.binary_closing(feet, structure=np.ones(5, bool)) & feet)
    if n == 0:
        return bottom + 1
    contacts = ndi.maximum(lowest, lab, np.arange(1, n + 1))
    return int(np.min(contacts)) + 1
