"""The final blend (:func:`retouch.composite.blend`): its plane-by-plane implementation gives, bit for bit,
the straightforward ``out = a F' + (1 - a) (1 - s) W`` in float32 of its docstring, on white and on a
smart background, with and without shadow and saturation."""

from __future__ import annotations

import numpy as np
import pytest

from retouch.composite import blend


def _reference(
    fg: np.ndarray,
    alpha: np.ndarray,
    background: np.ndarray | None,
    shadow: np.ndarray | None,
    saturation: float,
) -> np.ndarray:
    """The formula on whole (H, W, 3) arrays, as blend computed it before its planes (2026-11-25)."""
    h, w = alpha.shape
    bg = np.full((h, w, 3), 255, np.uint8) if background is None else background
    f = fg.astype(np.float32)
    if saturation:
        luma = (f @ np.array([0.299, 0.587, 0.114], np.float32))[..., None]
        f -= luma
        f *= 1.0 + saturation
        f += luma
    b = bg.astype(np.float32)
    if shadow is not None:
        b *= 1.0 - shadow[..., None]
    f -= b
    f *= alpha[..., None]
    f += b
    f += 0.5
    np.clip(f, 0, 255, out=f)
    return f.astype(np.uint8)


@pytest.mark.parametrize("background", [False, True])
@pytest.mark.parametrize("shadow_dtype", [None, np.float16, np.float32])
@pytest.mark.parametrize("saturation", [0.0, 0.08])
def test_blend_matches_the_formula_bit_for_bit(
    background: bool, shadow_dtype: type | None, saturation: float
) -> None:
    rng = np.random.default_rng(7)
    h, w = 530, 410  # three strips of 256 rows, the last one partial
    fg = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    alpha = np.clip(rng.normal(0.5, 0.7, (h, w)), 0, 1).astype(np.float32)
    alpha[:40] = 0.0  # untouched rows above the product
    alpha[:, :30] = 0.0
    bg = rng.integers(0, 256, (h, w, 3), dtype=np.uint8) if background else None
    shadow: np.ndarray | None = None
    if shadow_dtype is not None:
        shadow = np.clip(rng.normal(0.1, 0.2, (h, w)), 0, 1).astype(shadow_dtype)
        shadow[:20] = 0
    got = blend(fg, alpha, bg, shadow, saturation=saturation)
    want = _reference(fg, alpha, bg, shadow, saturation)
    assert got.dtype == np.uint8 and got.shape == (h, w, 3)
    assert np.array_equal(got, want)
    if bg is None and shadow is None:
        assert (got[:40] == 255).all()  # white stays exactly white where nothing touches it
