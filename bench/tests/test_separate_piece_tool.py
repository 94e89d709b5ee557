"""The separate piece research tool (``bench/tuning/separate_piece.py``): main's flag there has the cap off, a row's
kind follows the IoU bands and the control mark, and the reported range is the run of thresholds flagging the same
failures, good results and control photos (photos between the bands do not break it)."""

from __future__ import annotations

import numpy as np

from bench.tuning import separate_piece as sp
from bench.tuning.cut_disagreement import flag_table


def test_main_is_the_shipped_flag_and_the_candidate_value_is_replayed():
    assert sp.MAIN is sp.SHIPPED_PICK
    assert sp.CANDIDATE in sp.THRESHOLDS


def test_the_kinds_follow_the_iou_bands():
    assert sp.kind({"iou": 0.99, "control": True}) == "control"
    assert sp.kind({"iou": 0.5, "control": False}) == "failure"
    assert sp.kind({"iou": 0.97, "control": False}) == "good"
    assert sp.kind({"iou": 0.9, "control": False}) == ""


def test_the_range_ignores_photos_between_the_bands():
    rows = [
        {"iou": 0.5, "control": False},  # failure at 0.10
        {"iou": 0.9, "control": False},  # between the bands at 0.05
        {"iou": 0.99, "control": False},  # good at 0.02
    ]
    shares = np.array([0.10, 0.05, 0.02])
    table = flag_table(shares, np.zeros(3, bool), sp.THRESHOLDS)
    k = sp.THRESHOLDS.index(0.06)
    lo, hi = sp.outcome_range(rows, table, k)
    assert lo == sp.THRESHOLDS[sp.THRESHOLDS.index(0.02) + 1]
    assert hi == 0.1
