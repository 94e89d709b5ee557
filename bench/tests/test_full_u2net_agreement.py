"""The full u2net research tool's measure: agreement of two masks and the counts of newly flagged photos."""

import numpy as np
import pytest

from bench.tuning.full_u2net_agreement import THRESHOLDS, agreement, table


def test_agreement_is_the_iou_of_the_thresholded_masks() -> None:
    alpha = np.zeros((10, 10), np.uint8)
    alpha[:, :6] = 255
    mask = np.zeros((10, 10), np.uint8)
    mask[:, 3:] = 200
    mask[:, 9] = 127  # below the threshold: background
    assert agreement(alpha, mask) == pytest.approx(30 / 90)
    assert agreement(np.zeros((4, 4), np.uint8), np.zeros((4, 4), np.uint8)) == 1.0
    with pytest.raises(ValueError):
        agreement(alpha, mask[:5])


def test_table_counts_only_unflagged_rows_below_the_gate() -> None:
    rows = [
        {"iou": 0.5, "confidence": 0.80, "control": False},  # failure
        {"iou": 0.5, "confidence": 0.95, "control": False},  # failure, above the gate
        {"iou": 0.99, "confidence": 0.80, "control": False},  # good
        {"iou": 0.9, "confidence": 0.80, "control": False},  # between the bands: counted nowhere
        {"iou": 0.99, "confidence": 0.80, "control": True},  # control view
        {"iou": 0.3, "confidence": 0.50, "control": False},  # failure already flagged by main
    ]
    flagged = np.array([False, False, False, False, False, True])
    agree = np.array([0.55, 0.55, 0.65, 0.1, 0.72, 0.0])
    everything = {t: (b, g, c) for t, b, g, c in table(rows, flagged, agree)}
    assert set(everything) == set(THRESHOLDS)
    assert everything[0.5] == (0, 0, 0)
    assert everything[0.6] == (2, 0, 0)
    assert everything[0.75] == (2, 1, 1)
    gated = {t: (b, g, c) for t, b, g, c in table(rows, flagged, agree, below=0.9)}
    assert gated[0.75] == (1, 1, 1)
