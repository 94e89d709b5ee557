"""The close look research tool's region measures (``bench/tuning/close_look.py``)."""

from __future__ import annotations

import numpy as np

from bench.tuning.close_look import largest_share, look_regions, threshold_above


def test_a_hole_kept_whole_counts_inside_the_inset_and_a_part_left_out_outside():
    matte = np.zeros((100, 100), bool)
    matte[10:90, 10:90] = True  # 6400 px of product
    look = matte.copy()
    look[40:60, 40:60] = False  # the look calls a 20 x 20 opening in the middle background
    look[2:8, 10:30] = True  # and a 6 x 20 part above the matte product
    look[88:90, 10:90] = False  # a 2 px strip along the outline: the look's outline differs a little
    hole, part = look_regions(matte, look, 0)
    assert hole == 400 / 6400  # the strip (160 px) is smaller than the opening
    assert part == 120 / 6400
    hole, part = look_regions(matte, look, 3)
    assert hole == 400 / 6400  # the strip lies within 3 px of the outline: not counted
    # the part's rows 2-7 lie 8-3 px from the matte (row 10): rows 2-6 are more than 3 px away
    assert part == 100 / 6400
    assert look_regions(matte, look, 8) == (400 / 6400, 0.0)  # the inset is strict: row 2 is 8 px away


def test_largest_share_and_threshold_above():
    region = np.zeros((10, 10), bool)
    assert largest_share(region, 50) == 0.0
    region[0, 0:3] = True
    region[5:7, 5:7] = True
    assert largest_share(region, 0) == 4.0  # an empty matte counts as 1 px
    assert largest_share(region, 8) == 0.5
    assert threshold_above([0.1, 0.3]) > 0.3 and threshold_above([0.1, 0.3]) < 0.3 + 1e-5
    assert threshold_above([]) == 0.0
