"""See-through openings (``retouch.openings``) and smart backgrounds that stand on their surface.

The bicycle photo (``../shared/photos/nomask/bike.jpg``, read at run time) shows a boardwalk and leaves
through its wheels and its frame triangle. The regions below were marked once by hand on that photo
(2000 x 1333 px), inside the openings and away from spokes, hub, chain and derailleur; the chain's lower
run crosses the rear wheel's opening along ``CHAIN``.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image, ImageDraw
from retouch_helpers import PHOTOS, needs_model

from retouch import RetouchOptions, pipeline, retouch
from retouch.backgrounds import render_background
from retouch.layout import Placement, resample_region
from retouch.openings import clear_openings
from retouch.pipeline import surface_row

BIKE = PHOTOS / "nomask" / "bike.jpg"

#: Hand-marked polygons (x, y in px of the original photo) inside the openings.
OPENINGS = {
    "rear wheel, middle": [(560, 880), (680, 880), (680, 950), (560, 950)],
    "rear wheel, bottom": [(560, 1030), (660, 1015), (670, 1055), (570, 1065)],
    "front wheel, left": [(1130, 700), (1220, 700), (1220, 800), (1130, 800)],
    "front wheel, bottom": [(1350, 1000), (1550, 1000), (1550, 1100), (1350, 1100)],
    "frame triangle": [(1010, 430), (1055, 375), (1048, 460)],
}
#: The chain's lower run across the rear wheel's opening (a thin product part to keep).
CHAIN = [(540, 1005), (700, 962)]


def _polygon_mask(shape: tuple[int, int], poly: list[tuple[int, int]]) -> np.ndarray:
    m = Image.new("L", (shape[1], shape[0]), 0)
    ImageDraw.Draw(m).polygon(poly, fill=255)
    return np.asarray(m) > 0


def _decode(jpeg: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB"))


@pytest.fixture(scope="module")
def bike() -> bytes:
    if not BIKE.is_file():
        pytest.skip(f"foto condivisa assente: {BIKE}")
    return BIKE.read_bytes()


@pytest.fixture
def openings_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The openings step switched on (``RETOUCH_OPENINGS=1``; off by default, see retouch.pipeline)."""
    monkeypatch.setattr(pipeline, "OPENINGS", True)


@needs_model
def test_bike_openings_come_back_white_and_the_chain_is_kept(bike, openings_on, save_failure):
    res = retouch(bike, RetouchOptions(preset="original", shadow=False))
    out = _decode(res.jpeg)
    assert out.shape[:2] == (1333, 2000)
    white = {}
    for name, poly in OPENINGS.items():
        px = out[_polygon_mask(out.shape[:2], poly)].astype(int)
        white[name] = float((px.min(axis=1) >= 235).mean())
    # the chain: pixels within 3 px of its line, most of them dark product (not white background)
    line = Image.new("L", (out.shape[1], out.shape[0]), 0)
    ImageDraw.Draw(line).line(CHAIN, fill=255, width=7)
    chain = out[np.asarray(line) > 0].astype(int)
    chain_kept = float((chain.max(axis=1) < 200).mean())
    ok = all(v >= 0.85 for v in white.values()) and chain_kept >= 0.5
    if not ok:
        print("immagine:", save_failure("bike.jpg", res.jpeg), white, chain_kept)
    assert ok, (white, chain_kept)
    signals = res.details["segmentation"]["signals"]
    assert signals["openings_cleared"] > 0.02  # the rear wheel's boardwalk was a region of the matte


@needs_model
def test_bike_on_a_smart_background_shows_the_scene_through_its_wheels_and_stands_on_the_floor(
    bike, openings_on, save_failure
):
    category = "home_lifestyle"
    res = retouch(bike, RetouchOptions(preset="amazon", background_category=category))
    out = _decode(res.jpeg).astype(int)
    fr = res.details["framing"]
    placement = Placement(
        res.width,
        res.height,
        fr["scale"],
        tuple(fr["src_box"]),
        (0, 0, res.width, res.height),
        tuple(fr["product_bbox"]),
    )
    alpha = resample_region(res.matte, placement, fill=0).astype(np.float32) / 255.0
    floor = res.details["floor_row"]
    scene = render_background(category, res.width, res.height, floor / res.height).astype(int)
    # the openings show the new scene (median difference within JPEG and grain noise), not the boardwalk
    diffs = {}
    for name, poly in OPENINGS.items():
        src = _polygon_mask((1333, 2000), poly)
        on_canvas = resample_region(src.astype(np.uint8) * 255, placement, fill=0) > 200
        diffs[name] = float(np.median(np.abs(out[on_canvas] - scene[on_canvas]).max(axis=1)))
    # both tyres touch the floor line or stand below it, on the floor; none floats above it
    on = alpha > 0.5
    cols = np.flatnonzero(on.any(axis=0))
    mid = (cols[0] + cols[-1]) // 2
    rear = int(np.flatnonzero(on[:, cols[0] : mid].any(axis=1))[-1])
    front = int(np.flatnonzero(on[:, mid : cols[-1] + 1].any(axis=1))[-1])
    ok = (
        all(d < 12 for d in diffs.values())
        and min(rear, front) >= floor - 2
        and min(rear, front) <= floor + 2
    )
    if not ok:
        print("immagine:", save_failure("bike-smart.jpg", res.jpeg), diffs, rear, front, floor)
    assert ok, (diffs, rear, front, floor)


def test_surface_row_goes_through_the_highest_ground_contact():
    alpha = np.zeros((200, 300), np.float32)
    alpha[40:150, 50:250] = 1.0  # the body
    alpha[150:170, 60:90] = 1.0  # rear foot, its lowest row 169
    alpha[150:180, 200:230] = 1.0  # front foot, lower (nearer the camera), its lowest row 179
    assert surface_row(alpha) == 170
    box = np.zeros((200, 300), np.float32)
    box[50:160, 100:200] = 1.0
    assert surface_row(box) == 160  # one base: its lowest opaque row on the line
    assert surface_row(np.zeros((100, 100), np.float32)) == 85


def _textured(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A sharp, leafy texture (uint8 RGB): green and brown blotches with fine detail."""
    base = rng.random((h // 6 + 1, w // 6 + 1))
    coarse = np.kron(base, np.ones((6, 6)))[:h, :w]
    fine = rng.random((h, w))
    t = 0.6 * coarse + 0.4 * fine
    green = np.array([70, 120, 40], np.float32)
    brown = np.array([150, 120, 80], np.float32)
    return (green * (1 - t[..., None]) + brown * t[..., None]).astype(np.uint8)


def test_an_opening_filled_by_the_network_is_cut_and_the_product_kept():
    rng = np.random.default_rng(3)
    h, w = 300, 400
    img = _textured(rng, h, w)
    yy, xx = np.mgrid[0:h, 0:w]
    r = np.hypot(yy - 150, xx - 200)
    ring = (r <= 110) & (r >= 75)
    img[ring] = (150, 20, 30)  # a red hoop
    hole = r < 75
    filled = (r <= 110).astype(np.float32)  # the network's matte: the hole filled with background
    found = clear_openings(img, filled, filled)
    cut = float((found.alpha[hole] < 0.5).mean())
    kept = float((found.alpha[ring] >= 0.5).mean())
    assert cut >= 0.9 and kept >= 0.99, (cut, kept)
    assert found.cleared > 0.2


def test_a_print_on_a_product_shot_on_a_plain_backdrop_is_not_cut():
    rng = np.random.default_rng(4)
    h, w = 300, 400
    img = np.full((h, w, 3), 246, np.uint8)  # white studio backdrop with a little sensor noise
    img = np.clip(img + rng.normal(0, 1.0, (h, w, 1)), 0, 255).astype(np.uint8)
    yy, xx = np.mgrid[0:h, 0:w]
    body = (np.abs(yy - 150) < 100) & (np.abs(xx - 200) < 120)
    img[body] = (30, 40, 90)  # a navy box
    label = (np.abs(yy - 150) < 40) & (np.abs(xx - 200) < 60)
    img[label] = (246, 246, 246)  # with a white label the colour of the backdrop
    matte = body.astype(np.float32)
    found = clear_openings(img, matte, matte)
    assert float((found.alpha[label] >= 0.5).mean()) == 1.0
    assert found.cleared == 0.0
