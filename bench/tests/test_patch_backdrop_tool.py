"""The patch classifier research tool (``bench/tuning/patch_backdrop.py``): its patch description keeps the two
sides of the outline apart and tells texture from flat paint, an opening kept whole over a checkered backdrop is
found as an enclosed region and a plain product has none, and the replay and the operating point follow the rule."""

from __future__ import annotations

import numpy as np

from bench.tuning import patch_backdrop as pb


def _photo(hole: bool) -> tuple[np.ndarray, np.ndarray]:
    """A 200 x 200 checkered backdrop (8 px squares, blue and purple) with an orange product of 80 x 120 px whose
    matte is whole; with ``hole`` a 24 x 24 px opening in its middle shows the backdrop."""
    yy, xx = np.mgrid[0:200, 0:200]
    checker = ((yy // 8 + xx // 8) % 2).astype(bool)
    img = np.where(checker[..., None], np.array([60, 80, 200]), np.array([150, 90, 190])).astype(np.uint8)
    product = (yy >= 60) & (yy < 140) & (xx >= 40) & (xx < 160)
    img[product] = (230, 140, 40)
    if hole:
        opening = (yy >= 88) & (yy < 112) & (xx >= 88) & (xx < 112)
        img[opening] = np.where(checker[opening][:, None], [60, 80, 200], [150, 90, 190])
    return img, product.astype(np.float32)


def test_patches_use_one_side_of_the_outline_and_tell_texture_from_flat_paint():
    img, alpha = _photo(hole=False)
    lab = np.asarray(img, np.float32)  # any three channels: the features' arithmetic is checked
    mask = alpha >= 0.5
    inside = pb.patch_features(lab, mask, 5)
    outside = pb.patch_features(lab, ~mask, 5)
    assert inside.shape == (200, 200, 9)
    # at the outline the product's patch sees only the product: its mean is the paint, its spread none
    assert np.allclose(inside[60, 100, :3], (230, 140, 40), atol=1e-3)
    assert np.allclose(inside[60, 100, 3:6], 0.0, atol=0.5)  # float32 rounding of E[x^2] - E[x]^2
    # the checkered backdrop's patches carry spread and gradient energy
    assert outside[16, 16, 3:7].min() > 1.0  # a window across the squares
    assert np.allclose(outside[12, 12, 3:7], 0.0, atol=0.5)  # one square: flat


def test_an_opening_kept_whole_over_a_checkered_backdrop_is_an_enclosed_region():
    found = pb.measure(*_photo(hole=True))
    assert found is not None
    t = found.regions[1.25]
    enclosed = t[t[:, 1] == 0.0]
    assert len(enclosed) and 0.03 < enclosed[:, 0].max() < 0.1  # the opening is 576 / 9600 px of the matte
    plain = pb.measure(*_photo(hole=False))
    assert plain is not None
    t = plain.regions[1.25]
    assert not len(t) or t[t[:, 1] == 0.0, 0].sum() < 0.01


def test_the_replay_flags_through_the_regions_only_and_the_operating_point_keeps_the_controls():
    found = pb.PatchRegions(5.0, {r: np.array([[0.05, 0.0, 1.6, 1.0, 4.0]]) for r in pb.RATIOS})
    v = pb.Variant(5, 1.25, 0.0, 1.2, 0.5, 8.0, "max", 2.0, 0.03)
    assert pb.flagged_by(found, v)
    assert not pb.flagged_by(None, v)  # main flags it already: never measured
    assert not pb.flagged_by(found, v._replace(share=0.06))
    assert not pb.flagged_by(found, v._replace(bg_texture=6.0))  # a smooth backdrop: off
    assert not pb.flagged_by(found, v._replace(distance=3.0))
    rows = [
        {"iou": 0.5, "control": False},
        {"iou": 0.7, "control": False},
        {"iou": 0.99, "control": False},
        {"iou": 0.97, "control": True},
    ]
    main = np.zeros(4, bool)
    table = np.array([[1, 1, 1, 1], [1, 1, 1, 0], [1, 0, 0, 0], [0, 0, 0, 0]], bool)
    use = np.ones(4, bool)
    assert pb.choose(rows, table, main, use, good=0) == 2
    assert pb.choose(rows, table, main, use, good=1) == 1
    found_by_size = [{5: found}, None, {5: found}, None]
    flags = pb.flag_table(found_by_size, [v, v._replace(share=0.06)], np.array([False, True, False, False]))
    assert flags.tolist() == [[True, True, True, False], [False, True, False, False]]


def test_the_far_product_model_counts_a_look_only_where_it_recurs_away_from_the_pixel():
    # four pixels: two alike far apart (the product's look recurs), two alike side by side (an opening's look)
    features = np.array([[0.0, 0.0], [0.1, 0.0], [50.0, 50.0], [50.2, 50.0]], np.float32)
    yx = np.array([[0, 0], [0, 40], [10, 10], [10, 11]])
    d = pb._nearest_far(features, yx, radius=5.0)
    assert d[0] == d[1] and abs(d[0] - 0.1) < 1e-5
    # the neighbours' own look is only near them: the nearest far look is the other pair's, 70 away
    assert d[2] > 50.0 and d[3] > 50.0
    assert pb._nearest_far(features[2:], yx[2:], radius=5.0).tolist() == [1000.0, 1000.0]
