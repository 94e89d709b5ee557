"""The openings step's faster helpers compute what the straightforward formulas compute, bit for bit.

Each test runs the plain numpy / SciPy / Pillow expression the helper replaces on random data of the
shapes the step sees (and on edge cases: one row, sizes across the chunk boundary, empty masks) and
requires equal arrays of the same dtype.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image
from scipy import ndimage as ndi

from retouch import colors
from retouch.colors import fit_colour_mixture, mixture_log_density, squared_distances
from retouch.openings.arrays import (
    _band_outside,
    _grey,
    _label_means,
    _resize_f,
    _two_px_from_solid,
    _unit,
    _upsample_mask,
)


def _direct_log_density(x: np.ndarray, gmm: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
    mean, var, logw = gmm
    comp = np.empty((len(x), len(mean)), np.float32)
    for j in range(len(mean)):
        z = ((x - mean[j]) ** 2 / var[j]).sum(1)
        comp[:, j] = logw[j] - 0.5 * (z + np.log(var[j]).sum() + 3 * np.log(2 * np.pi))
    top = comp.max(1)
    return top + np.log(np.exp(comp - top[:, None]).sum(1))


def _direct_fit(x: np.ndarray, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if len(x) > 1500:
        x = x[rng.choice(len(x), size=1500, replace=False)]
    k = max(1, min(k, len(x)))
    centres = [x[0]]
    for _ in range(1, k):
        d = squared_distances(x, np.array(centres)).min(1)
        centres.append(x[int(np.argmax(d))])
    c = np.array(centres, dtype=np.float32)
    lab = np.zeros(len(x), np.intp)
    for _ in range(8):
        lab = squared_distances(x, c).argmin(1)
        for j in range(k):
            sel = lab == j
            if sel.any():
                c[j] = x[sel].mean(0)
    var = np.full((k, 3), 4e-4, np.float32)
    wts = np.full(k, 1e-6, np.float64)
    for j in range(k):
        sel = lab == j
        if sel.sum() >= 2:
            var[j] = np.maximum(x[sel].var(0), 4e-4)
        wts[j] += sel.sum()
    return c, var, np.log(wts / wts.sum()).astype(np.float32)


def _colours(rng: np.random.Generator, n: int) -> np.ndarray:
    """Clustered colours in [0, 1] like a photo's: a few tints plus noise, some clipped."""
    tints = rng.random((5, 3))
    x = tints[rng.integers(0, 5, n)] + rng.normal(0.0, rng.uniform(0.005, 0.08), (n, 3))
    return np.clip(x, 0.0, 1.0).astype(np.float32)


@pytest.mark.parametrize("n", [1, 2, 7, 1500, colors._DENSITY_CHUNK - 1, colors._DENSITY_CHUNK + 1, 40_000])
def test_mixture_log_density_is_the_direct_formula(n: int) -> None:
    rng = np.random.default_rng(n)
    for k in (1, 3, 6):
        gmm = fit_colour_mixture(_colours(rng, 3000), k, rng)
        x = _colours(rng, n)
        got, want = mixture_log_density(x, gmm), _direct_log_density(x, gmm)
        assert got.dtype == want.dtype == np.float32 and np.array_equal(got, want)
        # pixel by pixel: the densities of a subset are the subset of the densities
        pick = rng.permutation(n)[: max(1, n // 3)]
        assert np.array_equal(mixture_log_density(x[pick], gmm), got[pick])


def test_colour_mixture_fit_is_the_eight_iteration_fit() -> None:
    for seed in range(40):
        data = _colours(np.random.default_rng(seed), int(np.random.default_rng(seed).integers(3, 5000)))
        for k in (1, 4, 6):
            got = fit_colour_mixture(data, k, np.random.default_rng(seed))
            want = _direct_fit(data, k, np.random.default_rng(seed))
            for a, b in zip(got, want, strict=True):
                assert a.dtype == b.dtype and np.array_equal(a, b)


def test_grey_and_unit_are_numpys_mean_and_division() -> None:
    rng = np.random.default_rng(5)
    for shape in [(1, 1, 3), (7, 9, 3), (413, 291, 3)]:
        u8 = rng.integers(0, 256, shape).astype(np.uint8)
        f32 = rng.random(shape).astype(np.float32)
        for x in (u8, f32):
            want = x.astype(np.float32).mean(-1)
            got = _grey(x)
            assert got.dtype == want.dtype and np.array_equal(got, want)
        want_u = u8[..., 1].astype(np.float32) / 255.0
        got_u = _unit(u8[..., 1])
        assert got_u.dtype == want_u.dtype and np.array_equal(got_u, want_u)


def _blobs(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    m = ndi.uniform_filter(rng.random((h, w)), size=int(rng.integers(3, 15))) > rng.uniform(0.45, 0.6)
    return m


def test_band_outside_is_the_full_distance_transform() -> None:
    rng = np.random.default_rng(8)
    for i in range(60):
        h, w = (int(v) for v in rng.integers(5, 160, 2))
        fg = _blobs(rng, h, w) if i % 10 else np.zeros((h, w), bool)
        if i % 7 == 0:
            fg[:] = False
            fg[int(rng.integers(0, h)), int(rng.integers(0, w))] = True
        far = float(rng.uniform(1.0, 0.3 * np.hypot(h, w)))
        d = ndi.distance_transform_edt(~fg)
        assert np.array_equal(_band_outside(fg, 2, far), (d > 2) & (d <= far))


def test_two_px_from_solid_is_the_distance_transform() -> None:
    rng = np.random.default_rng(9)
    for i in range(200):
        h, w = (int(v) for v in rng.integers(1, 50, 2))
        loose = rng.random((h, w)) > rng.uniform(0.0, 0.99) if i % 20 else np.ones((h, w), bool)
        assert np.array_equal(_two_px_from_solid(loose), ndi.distance_transform_edt(loose) >= 2)


def test_label_means_are_scipys() -> None:
    rng = np.random.default_rng(10)
    for _ in range(20):
        lab, n = ndi.label(_blobs(rng, 120, 90))
        if n == 0:
            continue
        flat = lab.ravel()
        counts = np.bincount(flat, minlength=n + 1).astype(np.float64)
        idx = np.arange(n + 1)
        for values in (rng.random(lab.shape).astype(np.float32), rng.random(lab.shape) > 0.5):
            got = _label_means(values, flat, counts)
            want = ndi.mean(values, lab, idx)
            assert got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)


def test_upsample_mask_is_the_bilinear_resize() -> None:
    rng = np.random.default_rng(12)
    for i in range(20):
        m = _blobs(rng, int(rng.integers(20, 120)), int(rng.integers(20, 120)))
        if i % 5 == 0:
            m[:] = False
        size = (int(m.shape[1] * rng.uniform(1.0, 3.0)), int(m.shape[0] * rng.uniform(1.0, 3.0)))
        want = (
            np.asarray(Image.fromarray(m.astype(np.float32), "F").resize(size, Image.Resampling.BILINEAR))
            > 0.5
        )
        assert np.array_equal(_upsample_mask(m, size), want)
        assert np.array_equal(_upsample_mask(m, size), _resize_f(m.astype(np.float32), size) > 0.5)


def _reference_refine(rgb: np.ndarray, coarse: np.ndarray) -> np.ndarray:
    """:func:`retouch.matte.refine_matte` written out plainly: guide by ``astype`` and division, the guided
    filter's output as one expression, the contrast curve on a new array."""
    from retouch import matte

    def resize(x: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        if (x.shape[1], x.shape[0]) == size:
            return x
        return np.asarray(Image.fromarray(x.astype(np.float32), "F").resize(size, Image.Resampling.BILINEAR))

    h, w = coarse.shape
    guide = rgb.astype(np.float32) / 255.0
    p = matte.remove_trapped_background(guide, matte.suppress_ghosts(coarse.astype(np.float32)))
    radius, eps = max(2, round(0.002 * float(np.hypot(h, w)))), 1e-4
    sub = 2 if min(h, w) >= 400 else 1
    full = [np.ascontiguousarray(guide[..., c], dtype=np.float32) for c in range(3)]
    if sub > 1:
        sw, sh = max(1, w // sub), max(1, h // sub)
        g, p, r = [resize(ch, (sw, sh)) for ch in full], resize(p, (sw, sh)), max(1, round(radius / sub))
    else:
        g, r = full, radius
    box = matte._box
    mean_i = [box(ch, r) for ch in g]
    mean_p = box(p, r)
    v0, v1, v2 = (box(ch * p, r) - m * mean_p for ch, m in zip(g, mean_i, strict=True))
    pairs = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]
    a00, a01, a02, a11, a12, a22 = (box(g[i] * g[j], r) - mean_i[i] * mean_i[j] for i, j in pairs)
    a00 += eps
    a11 += eps
    a22 += eps
    c00, c01, c02 = a11 * a22 - a12 * a12, a02 * a12 - a01 * a22, a01 * a12 - a02 * a11
    c11, c12, c22 = a00 * a22 - a02 * a02, a01 * a02 - a00 * a12, a00 * a11 - a01 * a01
    det = a00 * c00 + a01 * c01 + a02 * c02
    inv_det = 1.0 / np.where(np.abs(det) < 1e-12, 1e-12, det)
    a0 = (c00 * v0 + c01 * v1 + c02 * v2) * inv_det
    a1 = (c01 * v0 + c11 * v1 + c12 * v2) * inv_det
    a2 = (c02 * v0 + c12 * v1 + c22 * v2) * inv_det
    b = mean_p - a0 * mean_i[0] - a1 * mean_i[1] - a2 * mean_i[2]
    coeffs = [box(x, r) for x in (a0, a1, a2, b)]
    if sub > 1:
        coeffs = [resize(x, (w, h)) for x in coeffs]
    m0, m1, m2, mb = coeffs
    q = m0 * full[0] + m1 * full[1] + m2 * full[2] + mb
    return np.clip((q - 0.55) * 4.0 + 0.5, 0.0, 1.0).astype(np.float32)


@pytest.mark.parametrize("shape", [(300, 260), (520, 430)])
def test_refine_matte_is_the_plain_computation(shape: tuple[int, int]) -> None:
    from retouch.matte import refine_matte

    rng = np.random.default_rng(shape[0])
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w]
    inside = ((yy - h / 2) / (0.3 * h)) ** 2 + ((xx - w / 2) / (0.25 * w)) ** 2 < 1
    rgb = np.where(inside[..., None], [180, 40, 60], [235, 235, 225]) + rng.normal(0, 4, (h, w, 3))
    rgb = np.clip(rgb, 0, 255).astype(np.uint8)
    coarse = ndi.gaussian_filter(inside.astype(np.float32), 3) * rng.uniform(0.9, 1.0, (h, w)).astype(
        np.float32
    )
    got = refine_matte(rgb, coarse)
    want = _reference_refine(rgb, coarse)
    assert got.dtype == want.dtype == np.float32 and np.array_equal(got, want)


def test_cluster_means_are_numpys_means() -> None:
    """Points of Lab-like magnitudes, clusters of one point, empty clusters (their previous centre is kept)."""
    rng = np.random.default_rng(5)
    for n in (1, 2, 37, 2000):
        for k in (1, 3, 6):
            x = rng.normal(0.0, 40.0, (n, 3)) + rng.uniform(-100, 100, 3)
            lab = rng.integers(0, k, n)
            lab[lab == k - 1] = 0  # the last cluster empty
            previous = rng.normal(0.0, 40.0, (k, 3))
            want = np.array([x[lab == j].mean(0) if np.any(lab == j) else previous[j] for j in range(k)])
            got = colors._cluster_means(x, lab, previous)
            assert got.dtype == want.dtype == np.float64 and np.array_equal(got, want)


def test_soft_pixels_are_the_full_canvas_nonzero() -> None:
    """A product in part of the canvas, one touching the corner, an empty matte and an opaque one."""
    from retouch.composite import _soft_pixels

    rng = np.random.default_rng(9)
    alpha = np.zeros((300, 420), np.float32)
    alpha[40:200, 90:310] = np.clip(rng.normal(0.8, 0.4, (160, 220)), 0, 1)
    for a in (alpha, alpha[30:, 90:], np.zeros((20, 30), np.float32), np.ones((20, 30), np.float32)):
        want = np.nonzero((a > 0.0) & (a < 0.995))
        got = _soft_pixels(a, 0.995)
        assert all(g.dtype == w.dtype and np.array_equal(g, w) for g, w in zip(got, want, strict=True))


def _reference_trapped(rgb: np.ndarray, coarse: np.ndarray) -> np.ndarray:
    """:func:`retouch.matte.remove_trapped_background` with the sure pixels' colours copied by boolean masks
    before the 800 are drawn."""
    from retouch.matte import _kmeans_centres

    h, w = coarse.shape
    f = min(1.0, (150_000 / (h * w)) ** 0.5)
    size = (max(1, round(w * f)), max(1, round(h * f)))
    rgb_s = np.stack([_resize_f(np.ascontiguousarray(rgb[..., c]), size) for c in range(3)], axis=-1)
    p_s = _resize_f(coarse, size)
    sure_bg, sure_fg = p_s < 0.05, p_s > 0.95
    outside_lab, _ = ndi.label(p_s <= 0.5)
    border = np.unique(
        np.concatenate([outside_lab[0], outside_lab[-1], outside_lab[:, 0], outside_lab[:, -1]])
    )
    cand = ~np.isin(outside_lab, border[border > 0]) & (p_s < 0.85) & (p_s > 0.02)
    rng = np.random.default_rng(0)
    bg_px, fg_px = rgb_s[sure_bg], rgb_s[sure_fg]
    bg_c = _kmeans_centres(bg_px[rng.choice(len(bg_px), size=min(800, len(bg_px)), replace=False)], 4)
    fg_c = _kmeans_centres(fg_px[rng.choice(len(fg_px), size=min(800, len(fg_px)), replace=False)], 6)
    px = rgb_s[cand]
    d_bg = np.sqrt(squared_distances(px, bg_c)).min(1)
    d_fg = np.sqrt(squared_distances(px, fg_c)).min(1)
    hit = np.zeros_like(cand)
    hit[cand] = (d_bg < 0.06) & (d_bg < 0.5 * d_fg)
    lab, n = ndi.label(hit)
    keep = np.bincount(lab.ravel(), minlength=n + 1) >= max(8, 0.0002 * hit.size)
    keep[0] = False
    cut = _resize_f(keep[lab].astype(np.float32), (w, h)) > 0.5
    out = coarse.copy()
    out[cut] = 0.0
    return out


@pytest.mark.parametrize("shape", [(300, 260), (700, 560)])
def test_trapped_background_draws_the_same_pixels(shape: tuple[int, int]) -> None:
    """A ring-shaped product whose hole shows the backdrop, at the colour test's resolution and above it."""
    from retouch.matte import remove_trapped_background

    rng = np.random.default_rng(shape[0])
    h, w = shape
    yy, xx = np.mgrid[0:h, 0:w]
    r = np.hypot((yy - h / 2) / h, (xx - w / 2) / w)
    ring = (r > 0.12) & (r < 0.3)
    rgb = np.where(ring[..., None], [0.7, 0.15, 0.2], [0.9, 0.9, 0.85]) + rng.normal(0, 0.01, (h, w, 3))
    rgb = np.clip(rgb, 0, 1).astype(np.float32)
    coarse = np.where(r < 0.3, np.where(r < 0.12, 0.5, 1.0), 0.0).astype(np.float32)
    coarse = ndi.gaussian_filter(coarse, 2).astype(np.float32)
    got = remove_trapped_background(rgb, coarse)
    want = _reference_trapped(rgb, coarse)
    assert (got < coarse).any()  # the hole was cut
    assert got.dtype == want.dtype == np.float32 and np.array_equal(got, want)


def test_masked_pixels_are_numpys_boolean_indexing() -> None:
    """float32 and uint8 images, contiguous and strided (every other pixel, a sub-box), empty and full masks."""
    rng = np.random.default_rng(3)
    for image in (
        rng.random((61, 47, 3), dtype=np.float32),
        rng.integers(0, 256, (61, 47, 3), dtype=np.uint8),
    ):
        for view in (image, image[::2, ::2], image[5:40, 3:30]):
            for mask in (
                rng.random(view.shape[:2]) < 0.3,
                np.zeros(view.shape[:2], bool),
                np.ones(view.shape[:2], bool),
            ):
                want = view[mask]
                got = colors.masked_pixels(view, mask)
                assert got.dtype == want.dtype and got.shape == want.shape and np.array_equal(got, want)


@pytest.mark.parametrize("shape", [(300, 260), (700, 560)])
def test_guide_planes_are_the_float_image_channels(shape: tuple[int, int]) -> None:
    """The planes are the (H, W, 3) guide's channels, and the trapped background and the guided filter give
    the same matte from the planes as from the (H, W, 3) guide, at the colour test's resolution and above."""
    from retouch.matte import _guide_planes, guided_filter, remove_trapped_background

    rng = np.random.default_rng(shape[1])
    h, w = shape
    rgb = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    guide = rgb.astype(np.float32) / 255.0
    planes = _guide_planes(rgb)
    for c in range(3):
        assert planes[c].dtype == np.float32 and planes[c].flags.c_contiguous
        assert np.array_equal(planes[c], guide[..., c])
    yy, xx = np.mgrid[0:h, 0:w]
    r = np.hypot((yy - h / 2) / h, (xx - w / 2) / w)
    coarse = ndi.gaussian_filter(np.where(r < 0.3, np.where(r < 0.12, 0.5, 1.0), 0.0), 2).astype(np.float32)
    assert np.array_equal(remove_trapped_background(planes, coarse), remove_trapped_background(guide, coarse))
    for sub in (1, 2):
        assert np.array_equal(
            guided_filter(planes, coarse, 2, 1e-4, sub), guided_filter(guide, coarse, 2, 1e-4, sub)
        )
