"""The handle-texture research tool: the product's texture, the re-drawn band, and a photo that differs only there."""

import io

import numpy as np
import pytest
from PIL import Image

import validation_sets.see_through as see_through
from bench.tuning.handle_texture import _textured_recipe, product_texture, textured_handle


def test_product_texture_tiles_the_square_around_the_deepest_point() -> None:
    prgb = np.zeros((20, 20, 3), np.uint8)
    prgb[5:15, 5:15] = 100
    prgb[9:11, 9:11] = 200  # the deepest point's neighbourhood
    solid = prgb[..., 0] > 0
    texture = product_texture(prgb, solid, (30, 50))
    assert texture.shape == (30, 50, 3) and texture.dtype == np.float32
    assert set(np.unique(texture)) <= {100.0, 200.0}  # only the product's own levels, never the backdrop's 0
    with pytest.raises(ValueError):
        product_texture(prgb, np.zeros_like(solid), (4, 4))


def test_textured_handle_redraws_only_the_band_under_its_shading() -> None:
    prgb = np.full((10, 10, 3), 120, np.uint8)
    solid = np.ones((10, 10), bool)
    rgb = np.zeros((10, 16, 3), np.float32)
    rgb[:, :10] = 120
    gt = np.zeros((10, 16), np.uint8)
    gt[:, :10] = 255
    gt[2:8, 12:15] = 255  # the band
    rgb[2:8, 12:15] = [[[50, 60, 70]]]
    rgb[2:5, 12:15] *= 0.5  # half as bright in its upper half
    out = textured_handle(rgb, gt, (0, 0), prgb, solid)
    np.testing.assert_array_equal(out[:, :10], rgb[:, :10])
    np.testing.assert_allclose(out[5:8, 12:15], 120.0)
    np.testing.assert_allclose(out[2:5, 12:15], 60.0)
    np.testing.assert_array_equal(out[:, 10:12], 0.0)


def test_the_textured_recipe_changes_only_the_handle_and_draws_nothing_more() -> None:
    stem, i = next(
        (s, k)
        for s, k in see_through.see_through_set("tune", 24, 21)
        if see_through.opening_and_backdrop(s, 21, k)[0] == "handle"
    )
    flat = see_through.make_see_through(stem, 21, i)
    with _textured_recipe():
        textured = see_through.make_see_through(stem, 21, i)
    assert see_through._cut.__name__ == "_cut"  # restored
    np.testing.assert_array_equal(flat.gt, textured.gt)
    a = np.asarray(Image.open(io.BytesIO(flat.data)), np.int16)
    b = np.asarray(Image.open(io.BytesIO(textured.data)), np.int16)
    changed = np.abs(a - b).max(axis=2) > 12  # beyond JPEG's ripple
    band = np.zeros_like(changed)
    band[flat.gt == 255] = True
    assert changed.any()
    assert changed[~band].mean() < 0.002  # the backdrop, noise and placement are the same draws
