"""Smart backgrounds that stand on their surface: the surface line (:func:`retouch.backgrounds.surface_row`)
goes through the product's highest ground contact, so a bicycle's tyres rest on the floor instead of
floating in front of the wall (``../shared/photos/nomask/bike.jpg``, read at run time).
"""

from __future__ import annotations

import numpy as np
import pytest
from retouch_helpers import PHOTOS, needs_model

from retouch import RetouchOptions, retouch
from retouch.backgrounds import surface_row
from retouch.layout import Placement, resample_region

BIKE = PHOTOS / "nomask" / "bike.jpg"


@pytest.fixture(scope="module")
def bike() -> bytes:
    if not BIKE.is_file():
        pytest.skip(f"foto condivisa assente: {BIKE}")
    return BIKE.read_bytes()


@needs_model
def test_bike_on_a_smart_background_stands_on_the_floor_line(bike, save_failure):
    category = "home_lifestyle"
    res = retouch(bike, RetouchOptions(preset="amazon", background_category=category))
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
    # both tyres touch the floor line or stand below it, on the floor; none floats above it
    on = alpha > 0.5
    cols = np.flatnonzero(on.any(axis=0))
    mid = (cols[0] + cols[-1]) // 2
    rear = int(np.flatnonzero(on[:, cols[0] : mid].any(axis=1))[-1])
    front = int(np.flatnonzero(on[:, mid : cols[-1] + 1].any(axis=1))[-1])
    ok = floor - 2 <= min(rear, front) <= floor + 2
    if not ok:
        print("immagine:", save_failure("bike-smart.jpg", res.jpeg), rear, front, floor)
    assert ok, (rear, front, floor)


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
