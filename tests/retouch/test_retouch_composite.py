"""The fast paths of the compositing and k-means steps give the straightforward computation bit for bit:
the final blend (:func:`retouch.composite.blend`, ``out = a F' + (1 - a) (1 - s) W`` in float32, on white and
on a smart background, with and without shadow and saturation), the shadow's band-limited Gaussian and the
squared distances of the k-means steps."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage as ndi

from retouch.composite import _gaussian_of_rows, blend


def _reference(
    fg: np.ndarray,
    alpha: np.ndarray,
    background: np.ndarray | None,
    shadow: np.ndarray | None,
    saturation: float,
) -> np.ndarray:
    """The formula on whole (H, W, 3) arrays: the straightforward computation that blend, plane by plane, must match."""
    h, w = alpha.shape
    bg = np.full((h, w, 3), 255, np.uint8) if background is None else background
    f = fg.astype(np.float32)
    if saturation:
        # Rec. 601 luma as blend's docstring gives it, left to right (not ``f @ w``: BLAS may fuse or
        # reorder the products on another CPU)
        w = np.array([0.299, 0.587, 0.114], np.float32)
        luma = (f[..., 0] * w[0] + f[..., 1] * w[1] + f[..., 2] * w[2])[..., None]
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


@pytest.mark.parametrize(("r0", "r1"), [(0, 3), (40, 41), (60, 90), (118, 120)])
def test_the_shadow_gaussian_of_a_band_is_the_full_gaussian(r0: int, r1: int) -> None:
    """Bands at the top edge, in the middle, wide, and touching the bottom edge (reflection there)."""
    rng = np.random.default_rng(r0)
    plane = np.zeros((120, 90), np.float32)
    plane[r0:r1] = rng.random((r1 - r0, 90), dtype=np.float32)
    sigma = (3.2, 7.5)
    assert np.array_equal(_gaussian_of_rows(plane, r0, r1, sigma), ndi.gaussian_filter(plane, sigma))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_squared_distances_are_numpys_sum_bit_for_bit(dtype: type) -> None:
    """The k-means steps (colour names, trapped background) use :func:`retouch.colors.squared_distances`
    in place of ``((x[:, None] - c[None]) ** 2).sum(-1)``: same values, same dtype."""
    from retouch.colors import squared_distances

    rng = np.random.default_rng(3)
    x: np.ndarray = (rng.random((5000, 3)) * 100).astype(dtype)
    centres: np.ndarray = (rng.random((6, 3)) * 100).astype(dtype)
    got = squared_distances(x, centres)
    want = ((x[:, None, :] - centres[None]) ** 2).sum(-1)
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_speck_inpainting_is_scikit_images_biharmonic_inpainting() -> None:
    """:func:`retouch.correct.inpaint_biharmonic_interior` solves scikit-image's system: the same fill to
    float64 rounding on 200 random specks (the dust step's windows: speck grown by 1 px, 5 px margin), and it
    declines a speck within 2 px of the patch's border, where scikit-image shortens its stencil."""
    from skimage.restoration import inpaint_biharmonic

    from retouch.correct import inpaint_biharmonic_interior

    rng = np.random.default_rng(11)
    for _ in range(200):
        h, w = (int(v) for v in rng.integers(12, 24, 2))
        patch = rng.random((h, w, 3))
        speck = np.zeros((h, w), dtype=bool)
        cy, cx = int(rng.integers(5, h - 5)), int(rng.integers(5, w - 5))
        speck[
            cy - int(rng.integers(0, 3)) : cy + int(rng.integers(1, 3)), cx - int(rng.integers(0, 3)) : cx + 1
        ] = True
        mask = ndi.binary_dilation(speck)
        ours = inpaint_biharmonic_interior(patch, mask)
        assert ours is not None
        np.testing.assert_allclose(ours, inpaint_biharmonic(patch, mask, channel_axis=-1), rtol=0, atol=1e-12)
        assert np.array_equal(ours[~mask], patch[~mask])
    edge = np.zeros((16, 16), dtype=bool)
    edge[1:4, 6:9] = True
    assert inpaint_biharmonic_interior(rng.random((16, 16, 3)), edge) is None
    assert inpaint_biharmonic_interior(rng.random((16, 16, 3)), np.zeros((16, 16), dtype=bool)) is None


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_the_light_a_shadow_leaves_is_the_three_conversions(dtype: type) -> None:
    """Every finite float16 value in [0, 1] (the table look-up), and float32 shadows (the plain expression),
    in a strided slice as the blend's strips are."""
    from retouch.composite import _keep_of_shadow

    every = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    values = every[np.isfinite(every) & (every >= 0) & (every <= 1)].astype(dtype)
    plane = np.resize(values, (97, 256))[:, 3:200]
    want = (1.0 - plane.astype(np.float32)).astype(dtype).astype(np.float32)
    got = _keep_of_shadow(plane)
    assert got.dtype == np.float32 and np.array_equal(got, want)
