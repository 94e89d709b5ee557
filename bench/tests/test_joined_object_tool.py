"""The another-object-in-the-matte research tool (``bench/tuning/joined_object.py``): its grid starts with the
shipped thresholds and can switch each cap off, and its replay flags only through the product's caps
(``retouch.pick.joined``, tested in ``tests/retouch/test_retouch_joined.py``), never where main flags already."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

from bench.tuning import joined_object as jo


def _found(touch: float, overlap: float, blurred: float) -> jo.Joined:
    """Measures with ``touch``, ``overlap`` and 100 strong outline pixels, ``blurred`` of them wide."""
    wide = int(round(100 * blurred))
    width = np.array([8.0] * wide + [3.0] * (100 - wide), np.float32)
    return jo.Joined(touch, overlap, np.full(100, 80.0, np.float32), width)


def test_the_grid_starts_with_the_shipped_thresholds_and_can_switch_each_cap_off():
    grid = list(jo.variants())
    assert grid[0] == jo.SHIPPED_PICK
    assert any(math.isinf(c.review_frame_join) for c in grid)
    assert any(math.isinf(c.review_blurred_outline) for c in grid)
    assert len(grid) == len({jo.describe(c) for c in grid})


def test_the_replay_flags_through_the_caps_only():
    shipped = jo.SHIPPED_PICK
    assert jo.flagged_by(_found(0.5, 0.2, 0.0), shipped)
    assert not jo.flagged_by(
        _found(0.5, 0.8, 0.0), shipped
    )  # the same colours at both ends: a cropped product
    assert not jo.flagged_by(_found(0.2, 0.2, 0.0), shipped)
    assert jo.flagged_by(_found(0.0, 1.0, 0.5), shipped)
    assert not jo.flagged_by(_found(0.0, 1.0, 0.1), shipped)
    assert not jo.flagged_by(None, shipped)  # main flags it already: the caps never run
    off = dataclasses.replace(shipped, review_frame_join=math.inf, review_blurred_outline=math.inf)
    assert not jo.flagged_by(_found(0.9, 0.0, 0.9), off)


def test_a_recording_whose_flags_main_does_not_reproduce_is_refused(tmp_path: Path):
    sure = {"sharp": 1.0, "uncertain": 0.0, "area": 0.2, "border": 0.0, "centre": 0.1, "agreement": 1.0}
    rows = [{"name": "banana1", "iou": 0.99, "signals": sure, "needs_review": True}]
    (tmp_path / "rows.json").write_text(json.dumps(rows))
    np.savez(tmp_path / "0000.npz", small=np.zeros((8, 8, 3), np.uint8), alpha=np.zeros((8, 8), np.uint8))
    with pytest.raises(ValueError, match="banana1"):
        jo.load([f"{tmp_path / 'rows.json'}:{tmp_path}"])
