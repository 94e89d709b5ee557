"""The pipeline's faster steps compute what the straightforward formulas compute, bit for bit, on real photos.

The inputs each step sees are recorded while ``retouch`` runs on shared photos (read from ``../shared`` at run
time; the tests skip without them) and on a generated see-through photo of a tuning seed; each step is then
compared with the plain computation it replaces: the final blend, the block maxima and minima of the edge
sharpness, and the whole pipeline with one BLAS thread against two.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import ndimage as ndi
from test_retouch_composite import _reference as _reference_blend
from threadpoolctl import threadpool_limits

import retouch.finish as finish_module
import retouch.pick.passes as passes_module
import retouch.pipeline as pipeline_module
from retouch import RetouchOptions, retouch
from retouch.pick.signals import edge_sharpness

#: Real photos: a bicycle on a boardwalk (openings, a wide shadow), a GT product photo, a small one.
PHOTO_NAMES = ("nomask/bike.jpg",)


def _photos(photos_dir: Path) -> list[bytes]:
    gt = sorted((photos_dir / "gt" / "images").glob("*.jpg"))
    paths = [photos_dir / name for name in PHOTO_NAMES] + gt[:2]
    missing = [p for p in paths if not p.is_file()]
    if missing:
        pytest.skip(f"foto condivise assenti: {missing}")
    return [p.read_bytes() for p in paths]


def _recorded(
    monkeypatch: pytest.MonkeyPatch, module: Any, name: str, datas: list[bytes]
) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """The arguments (copied) of every call of ``module.name`` while ``retouch`` runs on ``datas``."""
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    original: Callable[..., Any] = getattr(module, name)

    def record(*args: Any, **kwargs: Any) -> Any:
        calls.append(
            (
                tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args),
                dict(kwargs),
            )
        )
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, record)
    for data in datas:
        retouch(data, RetouchOptions())
    monkeypatch.setattr(module, name, original)
    return calls


def test_blend_on_real_photos_is_the_formula(photos_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Strips whose touched columns differ, strips of shadow only and strips of nothing, on real canvases."""
    calls = _recorded(monkeypatch, finish_module, "blend", _photos(photos_dir))
    assert len(calls) == 3
    for args, kwargs in calls:
        fg, alpha, background, shadow = args
        assert shadow is not None and shadow.dtype == np.float16 and shadow.any()
        got = finish_module.blend(fg, alpha, background, shadow, **kwargs)
        want = _reference_blend(fg, alpha, background, shadow, kwargs.get("saturation", 0.0))
        assert got.dtype == want.dtype == np.uint8 and np.array_equal(got, want)
        # the same canvas on a smart background (a photo as the background: no strip is left as is)
        bg = np.ascontiguousarray(fg[::-1])
        assert np.array_equal(
            finish_module.blend(fg, alpha, bg, shadow, saturation=0.08),
            _reference_blend(fg, alpha, bg, shadow, 0.08),
        )


def _reference_sharpness(grey: np.ndarray, block: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """:func:`retouch.pick.signals.edge_sharpness` with the block maxima and minima as numpy's reductions."""
    h, w = grey.shape
    mag = np.hypot(ndi.sobel(grey, axis=1), ndi.sobel(grey, axis=0))
    mag *= 0.125
    hb, wb = -(-h // block), -(-w // block)
    pad = ((0, hb * block - h), (0, wb * block - w))

    def pooled(x: np.ndarray, reduce: Any) -> np.ndarray:
        xp = np.pad(x, pad, mode="edge").reshape(hb, block, wb, block)
        return np.asarray(reduce(reduce(xp, axis=3), axis=1))

    gmax = ndi.maximum_filter(pooled(mag, np.max), size=3)
    contrast = ndi.maximum_filter(pooled(grey, np.max), size=3) - ndi.minimum_filter(
        pooled(grey, np.min), size=3
    )
    ratio = gmax / np.maximum(contrast, 1e-3)

    def full(x: np.ndarray) -> np.ndarray:
        return np.repeat(np.repeat(x.astype(np.float32), block, axis=0), block, axis=1)[:h, :w]

    return full(ratio), full(contrast)


def test_edge_sharpness_on_real_photos_is_numpys_block_reduction(
    photos_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whole working images and the crops around a mask, sizes not multiples of the block."""
    calls = _recorded(monkeypatch, passes_module, "sharpness_near", _photos(photos_dir))
    assert calls
    for args, _ in calls:
        grey = args[0]
        crops = [grey, np.ascontiguousarray(grey[3:-4, 7:-2]), np.ascontiguousarray(grey[:11, :13])]
        for g in crops:
            got, want = edge_sharpness(g), _reference_sharpness(g)
            for a, b in zip(got, want, strict=True):
                assert a.dtype == b.dtype == np.float32 and np.array_equal(a, b)


def _outputs(data: bytes) -> tuple[bytes, bytes, bytes, str]:
    res = retouch(data, RetouchOptions())
    return res.jpeg, res.webp, res.matte.tobytes(), json.dumps(res.details, sort_keys=True)


def test_one_blas_thread_gives_the_outputs_of_two(photos_dir: Path) -> None:
    """The photos' least squares (a hole's backdrop surface, on the see-through photo) and speck inpainting
    solve the same systems with one OpenBLAS thread as with two: same JPEG, WebP, matte and details."""
    from validation_sets.see_through import make_see_through, see_through_set

    stem, index = see_through_set("tune", 5, 25)[4]  # a ring on a photo: its hole's backdrop is fitted
    datas = [*_photos(photos_dir), make_see_through(stem, 25, index).data]
    with threadpool_limits(limits=2, user_api="blas"):
        two = [_outputs(d) for d in datas]
    with threadpool_limits(limits=1, user_api="blas"):
        one = [_outputs(d) for d in datas]
    assert one == two


def _reference_local_background(
    rgb_small: np.ndarray, alpha_small: np.ndarray, foreground: bool
) -> np.ndarray:
    """:func:`retouch.composite.local_background` on (h, w, 3) arrays, as the formula reads."""
    from PIL import Image

    h, w = alpha_small.shape
    f = min(1.0, (256 if foreground else 128) / max(h, w))
    size = (max(1, round(w * f)), max(1, round(h * f)))
    rgb = np.asarray(Image.fromarray(rgb_small, "RGB").resize(size, Image.Resampling.BOX), dtype=np.float32)
    a = np.asarray(Image.fromarray(alpha_small.astype(np.float32), "F").resize(size, Image.Resampling.BOX))
    if foreground:
        weight, sigma = np.clip(4.0 * a - 3.0, 0.0, 1.0).astype(np.float32), max(1.5, 0.015 * max(size))
    else:
        weight, sigma = np.clip(1.0 - 4.0 * a, 0.0, 1.0).astype(np.float32), max(2.0, 0.03 * max(size))
    den = ndi.gaussian_filter(weight, sigma, mode="nearest")
    num = np.stack([ndi.gaussian_filter(rgb[..., c] * weight, sigma, mode="nearest") for c in range(3)], -1)
    fallback = (rgb * weight[..., None]).sum((0, 1)) / max(float(weight.sum()), 1e-6)
    if weight.sum() < 1:
        fallback = np.full(3, 255.0, np.float32)
    est = num / np.maximum(den, 1e-4)[..., None]
    t = np.clip(den / 0.05, 0.0, 1.0)[..., None]
    return (t * est + (1 - t) * fallback).astype(np.float32)


def test_local_background_on_real_photos_is_the_formula(
    photos_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The background and product colour grids of real photos, and of a matte with no background at all."""
    from retouch.composite import local_background

    calls = _recorded(monkeypatch, pipeline_module, "local_background", _photos(photos_dir))
    assert len(calls) == 6
    for args, kwargs in calls:
        small, alpha = args[:2]
        for a in (alpha, np.ones_like(alpha)):
            fg = bool(kwargs.get("foreground", False))
            got, want = local_background(small, a, foreground=fg), _reference_local_background(small, a, fg)
            assert got.dtype == want.dtype == np.float32 and np.array_equal(got, want)
