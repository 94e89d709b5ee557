"""The backdrop-through-the-product research tool (``bench/tuning/backdrop_through.py``): its replay refuses a
recording whose flags main does not reproduce, never trades a good result or a control photo for a failure, drops
the smooth test where the ring is not smooth, and replays the product's measure (``retouch.pick.through``, tested
in ``tests/retouch/test_retouch_through.py``) with the first round's and the local grid's thresholds."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from bench.tuning import backdrop_through as bt

SURE = {"sharp": 1.0, "uncertain": 0.0, "area": 0.2, "border": 0.0, "centre": 0.1, "agreement": 1.0}


def _found(smooth: list[list[float]], ring: float = 0.5) -> bt.Through:
    return bt.Through(ring, 0.3, np.array(smooth, float).reshape(-1, 2), np.zeros((0, 4)), np.zeros((0, 4)))


def _row(name: str, iou: float, *, control: bool = False, main: bool = False) -> dict:
    return {"name": name, "iou": iou, "signals": dict(SURE), "control": control, "main": main}


def test_the_cap_flags_enclosed_smooth_regions_together_and_main_keeps_its_own_flags():
    rows = [_row("o21-00-doll", 0.5), _row("banana1", 0.99), _row("o21-01-bush", 0.4, main=True)]
    found = [_found([[0.015, 0.0], [0.015, 0.1]]), _found([[0.3, 0.9]]), _found([])]
    assert bt.flags(rows, found, bt.FIRST_ROUND).tolist() == [True, False, True]
    off = dataclasses.replace(bt.FIRST_ROUND, review_through=0.0)
    assert bt.flags(rows, found, off).tolist() == [False, False, True]


def test_the_smooth_test_is_dropped_where_the_ring_is_not_smooth():
    rough = _found([[0.3, 0.0]], ring=bt.FIRST_ROUND.through_smooth_ring + 1.0)
    assert len(bt.gated(rough, bt.FIRST_ROUND).smooth) == 0
    assert len(bt.gated(rough, dataclasses.replace(bt.FIRST_ROUND, through_smooth_ring=10.0)).smooth) == 1


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


def test_the_first_round_is_the_products_tests_without_the_local_one():
    """The first round's replay is the product's smooth and like tests with their shipped thresholds; a local region
    that the shipped flag counts is ignored there."""
    from retouch.pick.config import SHIPPED_PICK

    assert (
        dataclasses.replace(
            bt.FIRST_ROUND,
            through_local_share=SHIPPED_PICK.through_local_share,
            through_seen_share=SHIPPED_PICK.through_seen_share,
        )
        == SHIPPED_PICK
    )
    local = bt.Through(0.5, 0.3, np.zeros((0, 2)), np.zeros((0, 4)), np.array([[0.3, 0.05, 0.9, 1.2]]))
    assert bt.backdrop_through(local, config=SHIPPED_PICK) == pytest.approx(0.3)
    assert bt.backdrop_through(local, config=bt.FIRST_ROUND) == 0.0


def test_the_local_grid_starts_at_the_shipped_thresholds_and_keeps_the_first_round():
    from retouch.pick.config import SHIPPED_PICK

    grid = bt.local_variants(SHIPPED_PICK.through_local_sigma)
    assert grid[0] == bt.SECOND_ROUND
    assert len(grid) == len(
        {
            (c.through_local_share, c.through_local_enclosed, c.through_local_residual, c.through_local_noise)
            for c in grid
        }
    )
    assert all(c.through_like_share == SHIPPED_PICK.through_like_share for c in grid)
    assert {c.through_local_sigma for c in bt.local_variants(0.05)} == {0.05}


def test_the_seen_grid_starts_at_the_product_thresholds_and_the_second_round_has_no_seen_test():
    """The third round's grid: the shipped share and enclosure first at each candidate definition; the second
    round's flag (the baseline it is measured against) ignores seen regions, the product's does not."""
    first = bt.seen_variants(8.0, 16.0)[0]
    c = bt.SHIPPED_PICK
    assert (first.through_seen_tol, first.through_seen_rim) == (8.0, 16.0)
    assert (first.through_seen_share, first.through_seen_enclosed) == (
        c.through_seen_share,
        c.through_seen_enclosed,
    )
    assert len(bt.seen_variants(8.0, 16.0)) == 7 * 3  # shares 0.03-0.2 (0.12 first), enclosed 0-0.1
    seen = bt.Through(
        np.inf, 0.0, np.zeros((0, 2)), np.zeros((0, 4)), np.zeros((0, 4)), np.array([[0.3, 0.0]])
    )
    assert bt.backdrop_through(seen, config=bt.SECOND_ROUND) == 0.0
    assert bt.backdrop_through(seen) == pytest.approx(0.3)
    assert bt.FIRST_ROUND.through_seen_share == float("inf")
