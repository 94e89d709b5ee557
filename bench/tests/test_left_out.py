"""Research code of the left-out part review: a part of the product outside the matte (``bench/tuning/left_out.py``)."""

from __future__ import annotations

import numpy as np

from bench.tuning.left_out import Region, choose, left_out_regions, rule_hit


def _mug_on_gradient(handle: bool = True, shadow: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """A red mug body (a 120 x 120 px square) on a studio gradient, 300 x 400 px, mild sensor noise, with a red
    C-shaped handle (radius 45 px, 12 px thick) attached to its right side and/or a shadow (the backdrop at 55 %)
    below it; the matte is the body alone (uint8 255 / 0).

    Returns:
        (uint8 (300, 400, 3) photo, uint8 (300, 400) matte).
    """
    h, w = 300, 400
    yy, xx = np.mgrid[0:h, 0:w]
    rng = np.random.default_rng(5)
    rgb = np.stack([150 + 0.2 * xx, 160 + 0.15 * yy, 200 - 0.1 * xx], -1) + rng.normal(0, 2, (h, w, 1))
    body = (yy >= 90) & (yy < 210) & (xx >= 140) & (xx < 260)
    if shadow:
        rgb[(yy >= 210) & (yy < 235) & (xx >= 150) & (xx < 250)] *= 0.55
    if handle:
        r = np.hypot(yy - 150, xx - 265)
        rgb[(r <= 45) & (r >= 33) & (xx >= 255)] = (200, 30, 25)
    rgb[body] = (200, 30, 25) + rng.normal(0, 2, (int(body.sum()), 3))
    return np.clip(rgb, 0, 255).astype(np.uint8), np.where(body, 255, 0).astype(np.uint8)


def test_a_handle_left_out_of_the_matte_is_a_region_attached_to_its_outline():
    photo, matte = _mug_on_gradient()
    # the backdrop's colours from the far ring (45-90 % of the box side): the handle lies inside it
    regions = left_out_regions(photo, matte, ring=(0.45, 0.9), grow=1.0)
    big = [g for g in regions if g.area >= 0.03]
    assert len(big) == 1
    # the handle (~1,400 px at the working size, ~10 % of the body) reaches 45 px (38 % of the body's side) out,
    # touches the body along its two ends only and has a border as sharp as the body's outline
    assert 0.08 < big[0].area < 0.2 and big[0].extent > 0.3 and big[0].contact < 0.3 and big[0].sharp > 1.0
    assert rule_hit(regions, 0.05, 0.45, 0.1, 1.0)
    # from the near ring (10-40 %) the handle is over 3 % of the ring's pixels: a backdrop colour, no region
    assert not [g for g in left_out_regions(photo, matte) if g.area >= 0.03]


def test_a_shadow_the_backdrop_and_a_handle_kept_in_the_matte_give_no_region():
    far = (0.45, 0.9)
    photo, matte = _mug_on_gradient(handle=False, shadow=True)
    assert not [g for g in left_out_regions(photo, matte, ring=far, grow=1.0) if g.area >= 0.01]
    photo, matte = _mug_on_gradient(handle=True)
    whole = np.where((photo[..., 0] > 180) & (photo[..., 1] < 60), 255, 0).astype(np.uint8)
    assert not [g for g in left_out_regions(photo, whole, ring=far, grow=1.0) if g.area >= 0.01]
    assert left_out_regions(photo, np.zeros_like(matte)) == []


def test_choose_keeps_the_strictest_rule_without_false_flags():
    hit = [Region(area=0.1, contact=0.05, extent=0.3, sharp=1.5, spread=10.0)]
    near = [Region(area=0.05, contact=0.05, extent=0.3, sharp=0.3, spread=10.0)]
    rows = [
        {"iou": 0.5, "needs_review": False, "control": False, "regions": hit},
        {"iou": 0.99, "needs_review": False, "control": False, "regions": near},
        {"iou": 0.99, "needs_review": False, "control": True, "regions": []},
    ]
    p = choose(rows)
    assert p is not None and rule_hit(hit, *p) and not rule_hit(near, *p)
    assert choose(rows[1:]) is None
