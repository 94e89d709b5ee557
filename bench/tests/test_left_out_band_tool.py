"""The left-out band research tool (``bench/tuning/left_out_band.py``): its candidate hoop-arc variant reads a long arc
for a handle left out of the matte and none for a handle inside it, main's replay is the shipped flag, the flag table starts with "no new
flag" (what the chooser falls back to), and the reverse cut grows the matte over a product-coloured handle."""

from __future__ import annotations

import numpy as np

from bench.tuning import left_out_band as lob
from retouch.pick.config import SHIPPED_PICK


def _mug(handle_in_matte: bool) -> tuple[np.ndarray, np.ndarray]:
    """A red-brown box with a ring of its colour (outer radius 50 px, 14 px wide) beside it, on wavy blue-green
    stripes: uint8 (360, 480, 3) and the float32 matte of the box (or of box and ring)."""
    h, w = 360, 480
    yy, xx = np.mgrid[:h, :w]
    wave = 0.5 + 0.5 * np.sin(xx / 9.0 + 3.0 * np.sin(yy / 40.0))
    img = np.stack([90 + 40 * wave, 150 + 60 * wave, 170 + 50 * wave], -1).astype(np.uint8)
    body = (yy >= 100) & (yy < 260) & (xx >= 150) & (xx < 270)
    r = np.hypot(yy - 180, xx - 278)
    handle = (r <= 50) & (r >= 36) & ~body
    img[body | handle] = (170, 60, 40)
    return img, (body | handle if handle_in_matte else body).astype(np.float32)


def test_the_candidate_variant_reads_a_handle_left_out_and_main_is_the_shipped_flag():
    assert lob.ARC_VARIANTS[-1] == (False, True, False, True, True)
    assert lob.MAIN is SHIPPED_PICK
    left_out, inside = _mug(False), _mug(True)
    assert lob.hoop_arc(*left_out, product=True, alt=True, centred=True) >= lob.CANDIDATE_ARC
    assert lob.hoop_arc(*inside, product=True, alt=True, centred=True) == 0.0


def test_the_flag_table_starts_with_no_new_flag_and_never_flags_an_unmeasured_photo():
    values = np.array([np.nan, 150.0, 90.0, 0.0])
    main = np.array([True, False, False, False])
    table, thresholds = lob._flag_table(values, main)
    assert thresholds == [np.inf, 90.0, 150.0]
    assert table.tolist() == [
        [True, False, False, False],
        [True, True, True, False],
        [True, True, False, False],
    ]


def test_the_reverse_cut_grows_the_matte_over_a_handle_left_out_and_reads_nothing_without_a_matte():
    img, body = _mug(False)
    assert lob.reverse_cut(img, body, backdrop="border", zone=0.3) > 0.05
    assert lob.reverse_cut(img, np.zeros_like(body)) == 0.0
