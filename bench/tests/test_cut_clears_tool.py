"""The cut clears research tool (``bench/tuning/cut_clears.py``): the graph cut's backdrop pieces of a ring whose
hole the matte keeps whole are found and enclosed, clearing them empties the hole with a soft edge and leaves the
ring, a solid disc gives no piece, and each variant picks the pieces its thresholds allow."""

from __future__ import annotations

import numpy as np
import pytest

from bench.tuning import cut_clears as cc

pytest.importorskip("cv2")


def _ring(hole_shows_backdrop: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A dark grey ring (outer radius 90 px, inner 45 px) on squares of random colours, its matte the whole disc:
    the uint8 (300, 400, 3) image, the float32 matte and the bool hole."""
    h, w = 300, 400
    rng = np.random.default_rng(5)
    cells = rng.integers(0, 256, (h // 12 + 1, w // 12 + 1, 3)).astype(np.uint8)
    img = np.repeat(np.repeat(cells, 12, 0), 12, 1)[:h, :w].copy()
    yy, xx = np.mgrid[:h, :w]
    r = np.hypot(yy - h / 2, xx - w / 2)
    disc, hole = r < 90, r < 45
    img[disc & ~hole if hole_shows_backdrop else disc] = (60, 60, 64)
    return img, disc.astype(np.float32), hole


def test_a_hole_kept_whole_is_an_enclosed_piece_and_clearing_it_empties_the_hole_only():
    img, matte, hole = _ring(hole_shows_backdrop=True)
    regions = cc.backdrop_regions(img, matte)
    assert regions is not None
    assert regions.enclosed[1:].all()
    assert 0.15 <= regions.share.sum() <= 0.3  # the hole is a quarter of the disc
    assert (regions.typical[1:] > 0.5).any()  # the hole shows the backdrop's own colours
    out = cc.clear_regions(matte, regions, cc.chosen(regions, True, 0.0, 0.0, 0.0))
    inner = np.hypot(*np.mgrid[-150:150, -200:200]) < 38
    assert (out[inner] < 0.5).mean() > 0.9  # squares as dark as the ring may stay
    ring = (np.hypot(*np.mgrid[-150:150, -200:200]) > 52) & (matte > 0)
    assert (out[ring] >= 0.5).mean() > 0.98
    assert ((out > 0.0) & (out < 1.0)).any()  # a soft edge, not the box's staircase
    assert out is not matte and matte[hole].min() == 1.0  # the input is not touched


def test_a_solid_disc_gives_no_piece_and_a_variant_clears_nothing_it_does_not_allow():
    img, matte, _ = _ring(hole_shows_backdrop=False)
    regions = cc.backdrop_regions(img, matte)
    assert regions is None or regions.share.sum() < 0.01
    img, matte, _ = _ring(hole_shows_backdrop=True)
    regions = cc.backdrop_regions(img, matte)
    assert regions is not None
    assert not cc.chosen(regions, True, 1.0, 0.0, 0.0).any()  # no piece is the whole matte
    assert not cc.chosen(regions, True, 0.0, 1.0, 0.0).any()
    assert cc.clear_regions(matte, regions, np.zeros(len(regions.share), bool)) is matte


def test_groups_follow_the_names():
    assert cc.group_of("o21-03-doll", False) == "see-through"
    assert cc.group_of("c1-01-busy-c502287be9f6_11", False) == "composites"
    assert cc.group_of("cf5add31c130_03", False) == "gt"
    assert cc.group_of("cf5add31c130_09", True) == "cars"


def test_a_recording_is_replayed_through_the_clearing_step():
    """``recordings.replayed_product`` gives what the product now gives a photo recorded before the clearing step:
    the ring's kept hole cleared, and with a confident network's signals the cleared result unflagged (the share
    cleared is no review evidence); a solid disc comes back as recorded, unflagged too."""
    from bench.tuning.recordings import replayed_product

    confident = {"sharp": 1.0, "uncertain": 0.0, "area": 0.2, "border": 0.0, "centre": 0.1, "agreement": 1.0}
    img, matte, _ = _ring(hole_shows_backdrop=True)
    out, flag = replayed_product(img, matte, dict(confident))
    inner = np.hypot(*np.mgrid[-150:150, -200:200]) < 38
    assert (out[inner] < 0.5).mean() > 0.9
    assert not flag
    solid, matte, _ = _ring(hole_shows_backdrop=False)
    out, flag = replayed_product(solid, matte, dict(confident))
    assert out is matte
    assert not flag
