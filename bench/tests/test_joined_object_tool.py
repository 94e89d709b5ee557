"""The another-object-in-the-matte research tool (``bench/tuning/joined_object.py``): its measure reads a defocused
outline and a part off the frame of other colours (and not a sharp outline nor a product cropped by the frame), its
grid starts with the record's thresholds and can switch each cap off, and its replay never flags where main flags
already and refuses a recording whose flags main does not reproduce."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import ndimage as ndi

from bench.tuning import joined_object as jo


def _found(touch: float, overlap: float, blurred: float) -> jo.Joined:
    """Measures with ``touch``, ``overlap`` and 100 strong outline pixels, ``blurred`` of them wide."""
    wide = int(round(100 * blurred))
    width = np.array([8.0] * wide + [3.0] * (100 - wide), np.float32)
    return jo.Joined(touch, overlap, np.full(100, 80.0, np.float32), width)


def _u8(img: np.ndarray) -> np.ndarray:
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)


def test_a_sharp_outline_is_not_blurred_and_a_defocused_one_is():
    """A red disc on grey with 2 levels of noise, in focus and defocused (Gaussian of 6 px at 400 px, about 4 px at
    the 256 px scale): the sharp outline reads no blurred share, the defocused one most of it."""
    rng = np.random.default_rng(3)
    h, w = 300, 400
    yy, xx = np.mgrid[:h, :w]
    disc = ((yy - h / 2) ** 2 + (xx - w / 2) ** 2 < (0.3 * h) ** 2).astype(np.float32)
    img = np.where(
        disc[..., None] > 0, np.array([200, 40, 40], np.float32), np.array([120, 120, 120], np.float32)
    )
    img = img + rng.normal(0.0, 2.0, (h, w, 1)).astype(np.float32)
    sharp = jo.joined_signals(jo.joined_evidence(_u8(img), disc))
    assert sharp == {"frame_join": 0.0, "blurred_outline": 0.0}
    soft = jo.joined_signals(jo.joined_evidence(_u8(ndi.gaussian_filter(img, (6, 6, 0))), disc))
    assert soft["blurred_outline"] > 0.8


def test_a_part_off_the_frame_counts_only_when_its_colours_differ_from_the_far_end():
    """A bar from the left side of the frame (half its height) to two thirds across: one colour throughout (a
    product cut by the frame) reads no ``frame_join``; blue at the frame and yellow at the far end (a backdrop object
    joined to the product) reads the side's covered share."""
    h, w = 200, 300
    img = np.full((h, w, 3), 128.0, np.float32)
    matte = np.zeros((h, w), np.float32)
    matte[50:150, :200] = 1.0
    img[50:150, :200] = (40, 60, 200)
    assert jo.joined_signals(jo.joined_evidence(_u8(img), matte))["frame_join"] == 0.0
    img[50:150, 100:200] = (230, 200, 40)
    other = jo.joined_evidence(_u8(img), matte)
    assert other.touch == pytest.approx(0.5, abs=0.02)
    assert other.ends_overlap < 0.1
    assert jo.joined_signals(other)["frame_join"] == pytest.approx(other.touch, abs=1e-3)
    assert jo.flagged_by(other, jo.Thresholds())


def test_the_grid_starts_with_the_record_thresholds_and_can_switch_each_cap_off():
    grid = list(jo.variants())
    assert grid[0] == jo.Thresholds()
    assert any(math.isinf(t.review_frame_join) for t in grid)
    assert any(math.isinf(t.review_blurred_outline) for t in grid)
    assert len(grid) == len({jo.describe(t) for t in grid})


def test_the_replay_flags_through_the_caps_only():
    t = jo.Thresholds()
    assert jo.flagged_by(_found(0.5, 0.2, 0.0), t)
    assert not jo.flagged_by(_found(0.5, 0.8, 0.0), t)  # the same colours at both ends: a cropped product
    assert not jo.flagged_by(_found(0.2, 0.2, 0.0), t)
    assert jo.flagged_by(_found(0.0, 1.0, 0.5), t)
    assert not jo.flagged_by(_found(0.0, 1.0, 0.1), t)
    assert not jo.flagged_by(None, t)  # main flags it already: the caps never run
    off = jo.Thresholds(review_frame_join=math.inf, review_blurred_outline=math.inf)
    assert not jo.flagged_by(_found(0.9, 0.0, 0.9), off)


def test_a_recording_whose_flags_main_does_not_reproduce_is_refused(tmp_path: Path):
    sure = {"sharp": 1.0, "uncertain": 0.0, "area": 0.2, "border": 0.0, "centre": 0.1, "agreement": 1.0}
    rows = [{"name": "banana1", "iou": 0.99, "signals": sure, "needs_review": True}]
    (tmp_path / "rows.json").write_text(json.dumps(rows))
    with pytest.raises(ValueError, match="banana1"):
        jo.load([f"{tmp_path / 'rows.json'}:{tmp_path}"])
