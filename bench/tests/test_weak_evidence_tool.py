"""The weak evidence research tool (``bench/tuning/weak_evidence.py``): its threshold grid, its largest-piece
measure and its graph cut variants on a drawn photo (a plain product on a plain backdrop loses nothing; a patch of
the backdrop's colour kept inside the matte goes to the backdrop in every variant)."""

from __future__ import annotations

import numpy as np

from bench.tuning import weak_evidence as we


def test_the_grid_takes_midpoints_and_one_value_beyond_each_end():
    values = we._values(np.array([np.nan, 0.1, 0.3, 0.3, 0.5]))
    assert values[0] < 0.1 and values[-1] > 0.5
    assert values[1:-1] == [0.2, 0.4]
    assert we._values(np.array([np.nan])) == []


def test_the_largest_piece_counts_eight_connected_pixels():
    piece = np.zeros((6, 6), bool)
    piece[0, 0] = piece[1, 1] = piece[2, 2] = True  # diagonal: one piece of 3
    piece[5, 5] = True
    assert we._largest(piece) == 3
    assert we._largest(np.zeros((3, 3), bool)) == 0


def _photo(hole: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    small = np.clip(rng.normal(200, 4, (120, 160, 3)), 0, 255).astype(np.uint8)  # light grey backdrop
    alpha = np.zeros((120, 160), np.float32)
    alpha[30:90, 40:120] = 1.0
    small[30:90, 40:120] = np.clip(rng.normal((180, 30, 30), 4, (60, 80, 3)), 0, 255).astype(np.uint8)
    if hole:  # backdrop seen through an opening the matte kept
        small[50:70, 70:90] = np.clip(rng.normal(200, 4, (20, 20, 3)), 0, 255).astype(np.uint8)
    return small, alpha


def test_a_plain_product_keeps_its_matte_in_every_variant():
    out = we.cut_variants(*_photo(hole=False))
    assert set(out) == {*we.VARIANTS, "cand"}
    assert all(out[k] < 0.01 for k in we.VARIANTS)


def test_backdrop_kept_inside_the_matte_goes_to_the_backdrop():
    out = we.cut_variants(*_photo(hole=True))
    share = 400 / 4800
    for k in ("total", "largest", "thin_total", "thin_largest"):
        assert abs(out[k] - share) < 0.03, (k, out)
    assert out["cand"] > 0.5 * share
