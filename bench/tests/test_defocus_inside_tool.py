"""The defocus-inside-the-matte research tool (``bench/tuning/defocus_inside.py``): its re-blur estimate reads the
blur of a step edge, and its features see a defocused patch inside a sharp product on a defocused backdrop, and
nothing of the kind in a sharp product on a sharp backdrop."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage as ndi

from bench.tuning import defocus_inside as di


def _step(blur: float) -> np.ndarray:
    """float32 (64, 64) grey: a vertical step 0.2 -> 0.8 at column 32, blurred by a Gaussian of ``blur`` px."""
    g = np.full((64, 64), 0.2, np.float32)
    g[:, 32:] = 0.8
    return ndi.gaussian_filter(g, blur) if blur > 0 else g


@pytest.mark.parametrize("blur", [0.0, 2.0, 3.0, 4.0])
def test_the_re_blur_estimate_reads_a_step_edge_blur(blur: float):
    edges, sigma, grad = di.edge_blur(_step(blur))
    cols = np.flatnonzero(edges[32])
    assert len(cols) > 0 and np.all(np.abs(cols - 31.5) <= 1.5)
    read = float(np.median(sigma[20:44][edges[20:44]]))
    # the Sobel derivative's own spread adds ~0.8 px^2 (a sharp step reads ~0.9 px)
    assert read == pytest.approx(np.sqrt(blur**2 + 0.8), rel=0.25, abs=0.25)
    assert grad[32, 31] > 0.05


def _photo(backdrop_blur: float, patch_blur: float) -> tuple[np.ndarray, np.ndarray]:
    """A 512 x 512 photo (the tool's own scale): a striped backdrop blurred by ``backdrop_blur`` px, a sharp square product (checkered)
    whose middle shows the backdrop blurred by ``patch_blur`` px; the matte is the whole square."""
    rng = np.random.default_rng(3)
    yy, xx = np.mgrid[:512, :512] // 2
    stripes = (((xx // 12) + (yy // 20)) % 2).astype(np.float32)
    backdrop = ndi.gaussian_filter(stripes, backdrop_blur) if backdrop_blur else stripes
    patch = ndi.gaussian_filter(stripes, patch_blur) if patch_blur else stripes
    product = (((xx // 8) + (yy // 8)) % 2).astype(np.float32) * 0.6 + 0.2
    img = backdrop.copy()
    box = (yy >= 48) & (yy < 208) & (xx >= 48) & (xx < 208)
    img[box] = product[box]
    hole = (yy >= 88) & (yy < 168) & (xx >= 88) & (xx < 168)
    img[hole] = patch[hole]
    img += rng.normal(0, 0.003, img.shape).astype(np.float32)
    rgb = (np.clip(img, 0, 1)[..., None].repeat(3, 2) * 255).round().astype(np.uint8)
    return rgb, box.astype(np.float32)


def test_a_defocused_patch_inside_a_sharp_product_on_a_defocused_backdrop_is_seen():
    rgb, alpha = _photo(4.0, 4.0)
    cluster, share, backdrop, outline = di.features(di.measure(rgb, alpha), 2.5, 0.01)
    assert backdrop > 0.5 and share > 0.1 and cluster > 0.4


def test_a_sharp_product_on_a_sharp_backdrop_shows_no_defocus():
    rgb, alpha = _photo(0.0, 0.0)
    cluster, share, backdrop, outline = di.features(di.measure(rgb, alpha), 2.5, 0.01)
    assert backdrop < 0.1 and share < 0.05 and outline > 0.5


def test_the_grid_is_distinct_and_searches_every_feature():
    assert len(di.GRID) == len(set(di.GRID))
    for k in range(6):
        assert len({g[k] for g in di.GRID}) > 1
