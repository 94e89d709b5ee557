"""Research code of the local backdrop review: the backdrop seen inside the matte (``bench/tuning/inside_background.py``)."""

from __future__ import annotations

import numpy as np

from bench.tuning.inside_background import background_inside
from retouch.pick import SHIPPED_PICK
from retouch.pick.signals import frame_sides


def _hoop_on_gradient(kept: bool, hoop: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """A dark hoop (radius 60-80 px) on a studio gradient (the backdrop's colour changes by ~100 levels across
    the 400 px frame, so its median is far from the colour seen through the hoop), 300 x 400 px, with a mild
    sensor noise; the matte holds the hoop with its opening (``kept``) or without it. ``hoop=False``: the
    backdrop alone (the matte as asked).

    Returns:
        (uint8 (300, 400, 3) photo, float32 (300, 400) matte).
    """
    h, w = 300, 400
    yy, xx = np.mgrid[0:h, 0:w]
    rng = np.random.default_rng(3)
    rgb = np.stack([90 + 0.3 * xx, 110 + 0.25 * yy, 220 - 0.25 * xx], -1) + rng.normal(0, 2, (h, w, 1))
    r = np.hypot(yy - 150, xx - 200)
    if hoop:
        rgb[(r >= 60) & (r < 80)] = (40, 35, 30)
    alpha = (r < 80) if kept else ((r >= 60) & (r < 80))
    return np.clip(rgb, 0, 255).astype(np.uint8), alpha.astype(np.float32)


def test_an_opening_kept_whole_on_a_gradient_reads_as_background_inside():
    photo, kept = _hoop_on_gradient(True)
    sig = background_inside(photo, kept)
    # the opening is 60**2 / 80**2 = 56 % of the disc; the blur and the block grid take a little at its rim
    assert 0.4 < sig["inside_bg"] <= 0.57
    assert sig["inside_bg_max"] == sig["inside_bg"]


def test_a_cut_opening_a_solid_product_and_a_backdrop_coloured_product_do_not():
    photo, cut = _hoop_on_gradient(False)
    assert background_inside(photo, cut)["inside_bg"] == 0.0
    # a solid dark disc: nothing inside looks like the backdrop
    solid = photo.copy()
    _, disc = _hoop_on_gradient(True)
    solid[disc >= 0.5] = (40, 35, 30)
    assert background_inside(solid, disc)["inside_bg"] == 0.0
    # a product the colour of the backdrop (a grey stone on grey), by colour alone background-like up to its own
    # outline: not enclosed by product, not counted
    plain, _ = _hoop_on_gradient(True, hoop=False)
    alone = background_inside(plain, disc, versus_product=False)
    assert alone["inside_bg_all"] > 0.8 and alone["inside_bg"] == 0.0
    assert background_inside(photo, np.zeros(disc.shape, np.float32))["inside_bg"] == 0.0


def test_frame_sides_counts_the_sides_a_matte_runs_along():
    alpha = np.zeros((100, 200), np.float32)
    assert frame_sides(alpha, config=SHIPPED_PICK) == 0.0
    alpha[40:, 50:120] = 1.0  # standing on the bottom edge
    assert frame_sides(alpha, config=SHIPPED_PICK) == 1.0
    alpha[40:60, :] = 1.0  # and across the frame
    assert frame_sides(alpha, config=SHIPPED_PICK) == 3.0
