"""The full pipeline on synthetic and real photos: white background, presets, compliance, details."""

from __future__ import annotations

import io
import itertools
import platform

import numpy as np
import pytest
from PIL import Image
from retouch_helpers import GT_IMAGES, GT_MASKS, model_available, needs_model
from retouch_images import product_photo

from retouch import PRESETS, SMART_BACKGROUND_CATEGORIES, BadImageError, RetouchOptions, get_session, retouch
from retouch import metrics as M
from retouch.backgrounds import render_background
from retouch.colors import colour_name, seo_filename, slugify
from retouch.composite import decontaminate
from retouch.correct import remove_dust
from retouch.layout import Placement

EXPECTED_SIZES = {
    "amazon": (2000, 2000),
    "zalando": (1801, 2600),
    "etsy": (2000, 1500),
    "shopify": (2048, 2048),
    "original": (1024, 768),
}


def _decode(jpeg: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB"))


@pytest.fixture(scope="module")
def photo() -> tuple[bytes, np.ndarray]:
    # at Amazon's 1000 px minimum: framed at the preset's size (a smaller one keeps its own)
    return product_photo(1024, 768)


@pytest.fixture(scope="module")
def results(photo) -> dict[str, object]:
    if not model_available():
        pytest.skip("modello u2netp assente (U2NET_HOME)")
    data, _ = photo
    opts = {"brand": "Ciàò Moda", "category": "Borsa a tracolla", "short_id": "a1b2c3"}
    return {name: retouch(data, RetouchOptions(preset=name, **opts), cutout=True) for name in PRESETS}


@needs_model
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_presets_size_and_pure_white_corners(results, preset, save_failure):
    res = results[preset]
    out = _decode(res.jpeg)
    ok = (res.width, res.height) == EXPECTED_SIZES[preset] == (out.shape[1], out.shape[0])
    white = M.corner_min(out) >= 254
    if not (ok and white):
        print("immagine:", save_failure(f"{preset}.jpg", res.jpeg))
    assert ok and white
    assert Image.open(io.BytesIO(res.webp)).size == (res.width, res.height)
    assert res.matte.shape == (768, 1024) and res.matte.dtype == np.uint8


@needs_model
def test_amazon_fill_and_compliance(results):
    rep = results["amazon"].details["compliance"]
    assert rep["preset"] == "amazon"
    assert rep["passed"], rep
    assert set(rep["rules"]) >= {"background_white", "fill_ratio", "size", "colour_space"}
    assert 0.85 <= rep["rules"]["fill_ratio"]["value"] <= 0.9
    assert all(isinstance(r["passed"], bool) for r in rep["rules"].values())
    assert "notice" not in rep and results["amazon"].details["resolution_notice"] is None
    # the original preset has no fill rule; a 480 px original is below the zoom size
    assert results["original"].details["compliance"]["rules"]["fill_ratio"]["applies"] is False
    small = retouch(product_photo()[0], RetouchOptions(preset="original")).details["compliance"]
    assert small["rules"]["size"]["passed"] is False


@needs_model
def test_amazon_keeps_a_small_photo_at_native_size_and_says_so():
    """A 480 x 360 photo is not enlarged to 2000 x 2000: the Amazon framing (85% fill, square, white)
    at the photo's own resolution, the size rule failed and the notice in the report and details."""
    data, _ = product_photo()
    res = retouch(data, RetouchOptions(preset="amazon"))
    notice = "Risoluzione sotto il minimo Amazon: 1000 px sul lato lungo"
    assert res.width == res.height < 1000
    assert abs(res.details["framing"]["scale"] - 1.0) < 0.02  # the product's own pixels, not enlarged
    rep = res.details["compliance"]
    assert rep["notice"] == notice and res.details["resolution_notice"] == notice
    assert rep["rules"]["size"]["passed"] is False and rep["passed"] is False
    assert rep["rules"]["size"]["expected"] == "lato lungo ≥ 1000 px (minimo Amazon)"
    assert 0.85 <= rep["rules"]["fill_ratio"]["value"] <= 0.9 and rep["rules"]["background_white"]["passed"]
    assert M.corner_min(_decode(res.jpeg)) >= 254


@needs_model
def test_details_colours_and_seo_filename(results):
    import json

    d = results["amazon"].details
    json.dumps(d)  # JSON-serialisable
    assert d["brand"] == "Ciàò Moda" and d["category"] == "Borsa a tracolla"
    assert 1 <= len(d["colors"]) <= 6
    top = d["colors"][0]
    assert (
        top["name"] in ("rosso", "bordeaux", "corallo") and top["hex"].startswith("#") and top["share"] > 0.5
    )
    assert d["seo_filename"] == f"ciao-moda-borsa-a-tracolla-{top['name'].replace(' ', '-')}-a1b2c3.jpg"
    assert d["bytes_in"] > 0 and d["bytes_out_jpeg"] == len(results["amazon"].jpeg)
    assert d["bytes_saved"] == d["bytes_in"] - d["bytes_out_jpeg"]
    assert (d["input_width"], d["input_height"]) == (1024, 768)


@needs_model
def test_matte_matches_the_product_and_no_halo(photo, results, save_failure):
    data, truth = photo
    res = results["original"]
    iou = M.iou(res.matte, truth)
    out = _decode(retouch(data, RetouchOptions(shadow=False)).jpeg)
    halo = M.halo_score(out, truth)
    if iou < 0.95 or halo > 20:
        print("matte:", save_failure("matte", res.matte), "out:", save_failure("out", out))
    assert iou >= 0.95
    assert halo <= 20


@needs_model
def test_shadow_is_toggleable(photo):
    data, _ = photo
    with_shadow = _decode(retouch(data, RetouchOptions(preset="amazon")).jpeg)
    without = _decode(retouch(data, RetouchOptions(preset="amazon", shadow=False)).jpeg)
    below = slice(1885, 1990), slice(600, 1400)  # just under the product (bottom margin)
    assert with_shadow[below].mean() < without[below].mean() - 1.0
    assert without[below].mean() >= 254.5


@needs_model
def test_cutout_png_is_rgba_at_input_size(results):
    im = Image.open(io.BytesIO(results["original"].cutout_png()))
    assert im.mode == "RGBA" and im.size == (1024, 768)
    assert np.asarray(im)[384, 512, 3] == 255 and np.asarray(im)[5, 5, 3] == 0  # centre: the product
    # without cutout=True the decoded photo is released early, and asking for the cutout says so
    with pytest.raises(RuntimeError, match="cutout=True"):
        retouch(product_photo()[0], RetouchOptions()).cutout_png()


@needs_model
def test_transparent_png_uses_its_alpha(save_failure):
    # blue square with a soft edge; the colour stored under alpha 0 is black (as many editors save it)
    from scipy import ndimage as ndi

    alpha = np.zeros((200, 300), np.float32)
    alpha[50:150, 100:200] = 1.0
    alpha = ndi.gaussian_filter(alpha, 1.5)
    rgba = np.zeros((200, 300, 4), np.uint8)
    rgba[..., 3] = (alpha * 255 + 0.5).astype(np.uint8)
    rgba[rgba[..., 3] > 0, :3] = (20, 60, 200)
    buf = io.BytesIO()
    Image.fromarray(rgba, "RGBA").save(buf, "PNG")
    res = retouch(buf.getvalue(), RetouchOptions(preset="shopify", shadow=False))
    assert res.details["matte_source"] == "alpha"
    assert np.array_equal(res.matte, rgba[..., 3])
    out = _decode(res.jpeg)
    assert M.corner_min(out) >= 254
    # no dark fringe: every pixel is a mix of the blue product and white, so blue stays high
    if out[..., 2].min() < 170:
        print("immagine:", save_failure("png.jpg", res.jpeg))
    assert out[..., 2].min() >= 170


@needs_model
def test_smart_background_result(photo, save_failure):
    data, _ = photo
    res = retouch(data, RetouchOptions(preset="amazon", background_category="home_lifestyle"))
    out = _decode(res.jpeg)
    assert res.details["background"] == "home_lifestyle"
    assert res.details["compliance"]["rules"]["background_white"]["applies"] is False
    if M.corner_min(out) >= 250:
        print("immagine:", save_failure("smart.jpg", res.jpeg))
    assert M.corner_min(out) < 250  # not white


def test_smart_backgrounds_differ_from_each_other():
    imgs = {c: render_background(c, 320, 320, 0.8).astype(np.int16) for c in SMART_BACKGROUND_CATEGORIES}
    for a, b in itertools.combinations(SMART_BACKGROUND_CATEGORIES, 2):
        diff = float(np.abs(imgs[a] - imgs[b]).mean())
        assert diff > 8.0, (a, b, diff)
    # deterministic
    assert np.array_equal(
        render_background("minimal_studio", 64, 64, 0.8), render_background("minimal_studio", 64, 64, 0.8)
    )
    with pytest.raises(ValueError):
        render_background("disco", 10, 10, 0.5)


def test_unknown_options_are_rejected():
    with pytest.raises(ValueError):
        retouch(b"x", RetouchOptions(preset="ebay"))
    with pytest.raises(ValueError):
        retouch(b"x", RetouchOptions(background_category="disco"))


def test_bad_bytes_raise_bad_image_error():
    with pytest.raises(BadImageError, match="Impossibile leggere"):
        retouch(b"\x89PNG\r\n\x1a\n broken")


def test_colour_names_and_slug():
    assert colour_name((250, 250, 250)) == "bianco"
    assert colour_name((15, 15, 15)) == "nero"
    assert colour_name((30, 60, 190)) == "blu"
    assert colour_name((205, 25, 30)) == "rosso"
    assert slugify("Città – Più Bella!") == "citta-piu-bella"
    assert seo_filename(None, None, None, None) == "foto-prodotto.jpg"
    assert seo_filename("Acme", "Maglia rossa", "rosso", "x9") == "acme-maglia-rossa-x9.jpg"
    assert seo_filename("Acme", "Maglia", "rosso", "x9") == "acme-maglia-rosso-x9.jpg"
    # without brand and category: the original file name's words and the colours
    assert seo_filename(None, None, "nero", "f790cd1b") == "foto-prodotto-nero-f790cd1b.jpg"
    named = seo_filename(
        None,
        None,
        "nero",
        "f790cd1b",
        original_filename="IMG_0001 borsa_pelle (2).JPG",
        colours=["nero", "rosso"],
    )
    assert named == "borsa-pelle-nero-rosso-f790cd1b.jpg"
    assert seo_filename(None, None, "blu", "ab12", original_filename="car-3.jpg") == "car-blu-ab12.jpg"


def test_dust_specks_are_removed():
    rng = np.random.default_rng(1)
    img = np.full((200, 200, 3), (180, 150, 120), np.uint8)
    img = np.clip(img + rng.normal(0, 1.5, img.shape), 0, 255).astype(np.uint8)
    specks = [(50, 60), (120, 140), (160, 40)]
    for y, x in specks:
        img[y : y + 2, x : x + 2] = (20, 20, 20)
    alpha = np.full((200, 200), 255, np.uint8)
    n = remove_dust(img, alpha)
    assert n == len(specks)
    for y, x in specks:
        assert np.abs(img[y, x].astype(int) - (180, 150, 120)).max() < 25


def test_dust_removal_leaves_texture_and_print_alone():
    """Dark dots that are part of a pattern (a print, a knit) are crowded or on a rough surround."""
    rng = np.random.default_rng(2)
    img = np.full((240, 240, 3), (200, 190, 170), np.uint8)
    img[::6, ::6] = (30, 30, 30)  # dotted print: every dot has neighbours within a few px
    noisy = np.clip(img[120:].astype(np.float32) + rng.normal(0, 40, img[120:].shape), 0, 255)
    img[120:] = noisy.astype(np.uint8)  # rough surface below
    before = img.copy()
    assert remove_dust(img, np.full((240, 240), 255, np.uint8)) == 0
    assert np.array_equal(img, before)


def test_decontamination_recovers_edge_colours_and_trusts_faint_pixels_less():
    """Soft edge pixels lose the old background; a nearly transparent one takes the nearby product
    colour instead of its noise amplified by 1 / alpha (here a background estimate off by 6 levels)."""
    product, old_bg = np.array([200.0, 40.0, 40.0]), np.array([30.0, 160.0, 40.0])
    alphas = np.array([[1.0, 0.6, 0.1, 0.0]], np.float32)
    photo = alphas[..., None] * product + (1 - alphas[..., None]) * old_bg
    fg = (photo + 0.5).astype(np.uint8)
    bg_grid = np.full((2, 2, 3), old_bg + 6.0, np.float32)  # the estimate is never exact
    fg_grid = np.full((2, 2, 3), product, np.float32)
    identity = Placement(4, 1, 1.0, (0.0, 0.0, 4.0, 1.0), (0, 0, 4, 1), (0, 0, 4, 1))
    decontaminate(fg, alphas, bg_grid, identity, (4, 1), fg_grid)
    assert np.abs(fg[0, 1] - product).max() <= 6  # alpha 0.6: the compositing equation inverted
    assert np.abs(fg[0, 2] - product).max() <= 20  # alpha 0.1: 54 levels off without the fallback
    assert np.array_equal(fg[0, 3], (photo[0, 3] + 0.5).astype(np.uint8))  # background left alone


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_freed_heap_is_returned_to_the_os_on_glibc():
    """On glibc the runtime finds ``malloc_trim`` (the flat RSS of a long-running worker depends on it;
    the effect itself is measured by ``bench/pipeline/memory.py``)."""
    from retouch import runtime

    assert runtime._MALLOC_TRIM is not None
    assert runtime.release_free_heap(force=True)


@needs_model
def test_session_is_created_once():
    assert get_session("u2netp") is get_session("u2netp")


@needs_model
def test_matte_quality_above_plain_rembg_on_the_shared_ground_truth(photos_dir):
    """The matte quality target, on every shared photo with a ground-truth mask: the mean IoU and the
    mean boundary F of our matte are above plain ``rembg.remove`` with the same model (u2netp).
    ``bench/pipeline/quality.py`` prints the same comparison per photo, with halo and purity figures."""
    from rembg import remove

    rows = []
    for path in sorted(GT_IMAGES.iterdir()):
        mask = GT_MASKS / f"{path.stem}.png"
        if not mask.exists():
            continue
        data, gt = path.read_bytes(), np.asarray(Image.open(mask).convert("L"))
        base = np.asarray(
            Image.open(io.BytesIO(remove(data, session=get_session(), only_mask=True))).convert("L")
        )
        ours = retouch(data, RetouchOptions(shadow=False)).matte
        rows.append((M.iou(base, gt), M.iou(ours, gt), M.boundary_f(base, gt), M.boundary_f(ours, gt)))
    assert len(rows) >= 30, "the shared ground-truth set is incomplete"
    iou_b, iou_o, bf_b, bf_o = (float(np.mean(col)) for col in zip(*rows, strict=True))
    print(f"mean IoU rembg {iou_b:.4f} ours {iou_o:.4f}; mean boundary F rembg {bf_b:.4f} ours {bf_o:.4f}")
    assert iou_o > iou_b, (iou_o, iou_b)
    assert bf_o > bf_b, (bf_o, bf_b)


@needs_model
def test_no_ghost_of_a_second_object_far_from_the_product(photos_dir):
    """Shared photo 21077 (two racing cars, the GT is the front one): the network is half sure about
    the second car and the road shadow. Without :func:`retouch.matte.suppress_ghosts` 3.5% of the
    image far from the product (> 3% of the diagonal away) was left half-transparent; now at most 2.5%.
    (Not under 1%: the photo takes the product pick's second look, whose 320 px passes shrink the photo
    as rembg does (Lanczos) and are surer of the second car, so about 2% stays; see
    the doubt test and guard record in ``docs/decisions/``. The Lanczos passes are kept for what they gain on
    the tuning composites, e.g. a banana on a blurred object 0.05 -> 0.99 IoU.)"""
    from scipy import ndimage as ndi

    data = (GT_IMAGES / "21077.jpg").read_bytes()
    gt = np.asarray(Image.open(GT_MASKS / "21077.png").convert("L"))
    matte = retouch(data, RetouchOptions(shadow=False)).matte
    far = ndi.distance_transform_edt(gt < 128) > 0.03 * np.hypot(*gt.shape)
    visible_far = float((matte[far] > 25).mean())
    assert visible_far < 0.025, visible_far
    assert M.iou(matte, gt) > 0.75


@pytest.mark.parametrize("k", [1, 2])
def test_ghost_suppression_keeps_the_core_edges_and_thin_parts(k):
    """Synthetic mask (k = 2: a 0.48 MP working image, where the geometry runs downsampled): a
    confident body with a soft edge, a thin half-sure strap reaching far out, and a wide half-sure
    blob far away. Only the blob fades."""
    from retouch.matte import suppress_ghosts

    h, w = 300 * k, 400 * k
    mask = np.zeros((h, w), np.float32)
    yy, xx = np.mgrid[0:h, 0:w]
    out_by = np.maximum(np.abs(yy - 150 * k) - 50 * k, np.abs(xx - 150 * k) - 50 * k)
    mask = np.clip(1.0 - np.maximum(0, out_by) / 4.0, 0, 1).astype(np.float32)  # body, 4 px soft edge
    mask[150 * k - 1 : 150 * k + 2, 200 * k : 380 * k] = 0.6  # strap, 3 px wide, reaching far out
    mask[20 * k : 80 * k, 280 * k : 380 * k] = 0.45  # wide blob, far from the body
    out = suppress_ghosts(mask)
    body = (slice(90 * k, 210 * k), slice(90 * k, 210 * k))
    assert np.allclose(out[body], mask[body], atol=1e-6)  # body and its soft edge
    strap = out[150 * k - 1 : 150 * k + 2, 200 * k : 380 * k]
    assert float(strap.min()) >= 0.55, float(strap.min())  # the thin strap
    assert float(out[30 * k : 70 * k, 300 * k : 360 * k].max()) == 0.0  # the blob's inside is gone
    assert np.array_equal(suppress_ghosts(np.full((50, 50), 0.5, np.float32)), np.full((50, 50), 0.5))


def test_pixel_budget_serialises_large_photos_and_lets_small_ones_share():
    import threading
    import time

    from retouch.runtime import PixelBudget

    budget = PixelBudget(10)
    inside: list[int] = []
    peak = [0]
    lock = threading.Lock()

    def run(pixels: int) -> None:
        with budget.hold(pixels):
            with lock:
                inside.append(pixels)
                peak[0] = max(peak[0], sum(inside))
            time.sleep(0.05)
            with lock:
                inside.remove(pixels)

    threads = [threading.Thread(target=run, args=(p,)) for p in (12, 12, 4, 4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=5)
    assert not any(t.is_alive() for t in threads)
    # a photo larger than the budget runs alone (counted as the whole budget); small ones may share
    assert peak[0] <= 12


@needs_model
def test_the_observe_hook_sees_the_working_matte_and_its_signals_reach_the_details(photo):
    """Research tools record candidate signals through ``observe`` instead of replacing a product function; the
    result is the same as without the hook."""
    data, _ = photo
    seen: list[tuple[tuple[int, ...], tuple[int, ...], str]] = []

    def observe(small: np.ndarray, alpha: np.ndarray, pick) -> None:
        seen.append((small.shape, alpha.shape, str(alpha.dtype)))
        pick.signals["observed"] = 1.0

    with_hook = retouch(data, RetouchOptions(preset="original"), observe=observe)
    plain = retouch(data, RetouchOptions(preset="original"))
    assert len(seen) == 1
    small_shape, alpha_shape, dtype = seen[0]
    assert small_shape[:2] == alpha_shape and small_shape[2] == 3 and dtype == "float32"
    assert with_hook.details["segmentation"]["signals"]["observed"] == 1.0
    assert "observed" not in plain.details["segmentation"]["signals"]
    assert np.array_equal(with_hook.matte, plain.matte)
    assert with_hook.details["confidence"] == plain.details["confidence"]
