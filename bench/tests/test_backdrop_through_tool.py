"""The backdrop-through-the-product research tool (``bench/tuning/backdrop_through.py``): its measure finds a hole
kept whole on a studio gradient and not a plate painted in the gradient's colours; its replay refuses a recording
whose flags main does not reproduce, never trades a good result or a control photo for a failure, and drops the
smooth test where the ring is not smooth."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from bench.tuning import backdrop_through as bt

SURE = {"sharp": 1.0, "uncertain": 0.0, "area": 0.2, "border": 0.0, "centre": 0.1, "agreement": 1.0}


def _gradient(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A studio gradient from blue-grey (top) to sand (bottom) with 2 levels of sensor noise, float32 (h, w, 3)."""
    t = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None, None]
    top, bottom = np.array([110, 120, 140], np.float32), np.array([170, 160, 120], np.float32)
    img = top * (1 - t) + bottom * t + np.zeros((h, w, 3), np.float32)
    return img + rng.normal(0.0, 2.0, (h, w, 1)).astype(np.float32)


def _u8(img: np.ndarray) -> np.ndarray:
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)


def test_a_hole_kept_whole_on_a_studio_gradient_is_found_and_a_cut_one_is_not():
    """A red plate with a round hole through which the gradient shows: the matte that kept the hole holds a
    smooth region enclosed by product (about its share of the matte); the matte with the hole cut holds none."""
    rng = np.random.default_rng(1)
    h, w = 300, 400
    img = _gradient(h, w, rng)
    yy, xx = np.mgrid[0:h, 0:w]
    plate = (np.abs(yy - 150) < 90) & (np.abs(xx - 200) < 120)
    hole = np.hypot(yy - 150, xx - 200) < 50
    img[plate & ~hole] = (170, 40, 40)
    small = _u8(img)
    kept = bt.backdrop_through(bt.through_regions(small, plate.astype(np.float32)))
    assert 0.5 * hole.sum() / plate.sum() <= kept <= 1.2 * hole.sum() / plate.sum()
    assert bt.backdrop_through(bt.through_regions(small, (plate & ~hole).astype(np.float32))) == 0.0


def test_a_product_painted_in_the_backdrop_colour_is_not_taken_for_the_backdrop():
    """A plate painted in the gradient's colours with its own sheen (12 levels left to right) and a darker panel
    line round its middle: its paint matches the backdrop next to it but neither follows the backdrop's surface
    at the noise level nor sits enclosed with the backdrop's fine detail, so nothing is found."""
    rng = np.random.default_rng(2)
    h, w = 300, 400
    img = _gradient(h, w, rng)
    yy, xx = np.mgrid[0:h, 0:w]
    plate = (np.abs(yy - 150) < 90) & (np.abs(xx - 200) < 120)
    sheen = (12.0 * np.sin((xx - 80) / 240 * np.pi))[..., None].astype(np.float32)
    img[plate] = (img + sheen)[plate]
    line = plate & (np.abs(np.hypot(yy - 150, xx - 200) - 50) < 2)
    img[line] -= 60
    assert bt.backdrop_through(bt.through_regions(_u8(img), plate.astype(np.float32))) == 0.0


def _found(smooth: list[list[float]], ring: float = 0.5) -> bt.Through:
    return bt.Through(ring, 0.3, np.array(smooth, float).reshape(-1, 2), np.zeros((0, 4)))


def _row(name: str, iou: float, *, control: bool = False, main: bool = False) -> dict:
    return {"name": name, "iou": iou, "signals": dict(SURE), "control": control, "main": main}


def test_the_cap_flags_enclosed_smooth_regions_together_and_main_keeps_its_own_flags():
    rows = [_row("o21-00-doll", 0.5), _row("banana1", 0.99), _row("o21-01-bush", 0.4, main=True)]
    found = [_found([[0.015, 0.0], [0.015, 0.1]]), _found([[0.3, 0.9]]), _found([])]
    assert bt.flags(rows, found, bt.SHIPPED).tolist() == [True, False, True]
    off = dataclasses.replace(bt.SHIPPED, review_through=0.0)
    assert bt.flags(rows, found, off).tolist() == [False, False, True]


def test_the_smooth_test_is_dropped_where_the_ring_is_not_smooth():
    rough = _found([[0.3, 0.0]], ring=bt.SHIPPED.through_smooth_ring + 1.0)
    assert len(bt.gated(rough, bt.SHIPPED).smooth) == 0
    assert len(bt.gated(rough, dataclasses.replace(bt.SHIPPED, through_smooth_ring=10.0)).smooth) == 1


def test_the_operating_point_never_flags_a_control_photo_or_a_good_result_for_a_failure():
    rows = [_row("o21-00-doll", 0.5), _row("c1", 0.9, control=True), _row("banana1", 0.99)]
    table = np.array([[True, True, False], [True, False, True], [False, False, False], [True, False, False]])
    main = np.zeros(3, bool)
    assert bt.choose(rows, table, main, np.ones(3, bool)) == 3
    c = bt.counts(rows, table[0])
    assert (c["bad"], c["good"], c["control"], c["control_n"]) == (1, 0, 1, 1)


def test_a_recording_main_does_not_reproduce_is_refused(tmp_path: Path):
    rows = [{"name": "banana1", "iou": 0.99, "signals": dict(SURE), "needs_review": True}]
    (tmp_path / "r.json").write_text(json.dumps(rows))
    (tmp_path / "npz").mkdir()
    np.savez(
        tmp_path / "npz" / "0000.npz", small=np.zeros((8, 8, 3), np.uint8), alpha=np.zeros((8, 8), np.uint8)
    )
    with pytest.raises(ValueError, match="recomputed"):
        bt.load([f"{tmp_path / 'r.json'}:{tmp_path / 'npz'}"])


def test_the_local_measure_is_the_products_and_its_thresholds_apply_one_at_a_time():
    """On a plate with a hole kept on a blurred backdrop the tool's local regions are the product's
    (``retouch.pick.through``, same thresholds); a region passes only when large, enclosed, predicted as well as
    the ring near it and with its detail."""
    from scipy import ndimage as ndi

    from retouch.pick.through import through_regions

    rng = np.random.default_rng(0)
    h, w = 300, 400
    field = np.stack([ndi.gaussian_filter(rng.normal(0.0, 1.0, (h, w)), 8.0) for _ in range(3)], -1)
    img = (field / np.abs(field).max() * 60 + np.array([150, 140, 120]) + rng.normal(0, 2, (h, w, 1))).astype(
        np.float32
    )
    yy, xx = np.mgrid[0:h, 0:w]
    plate = (np.abs(yy - 150) < 90) & (np.abs(xx - 200) < 120)
    img[plate & ~(np.hypot(yy - 150, xx - 200) < 50)] = (170, 40, 40)
    small, alpha = _u8(img), plate.astype(np.float32)
    tool = bt.local_regions(small, alpha)
    assert len(tool)
    np.testing.assert_allclose(tool, through_regions(small, alpha).local)
    c = bt.LOCAL
    ok = [0.3, 0.05, 0.9, 1.2]
    assert bt.local_through(np.array([ok])) == pytest.approx(0.3)
    for i, bad in ((0, c.share / 2), (1, c.enclosed + 0.05), (2, c.residual + 0.1), (3, c.noise * 1.5)):
        row = list(ok)
        row[i] = bad
        assert bt.local_through(np.array([row])) == 0.0
    assert bt.local_through(np.zeros((0, 4))) == 0.0
