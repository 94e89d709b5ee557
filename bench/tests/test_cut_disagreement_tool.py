"""The graph cut disagreement research tool (``bench/tuning/cut_disagreement.py``): its variants start with the
shipped colour models, its replay flags only where main does or the measured share reaches the threshold, the
range it reports is the run of thresholds flagging the same photos, and the chooser allows the spare good results
it is given (``bench.tuning.backdrop_through.choose``)."""

from __future__ import annotations

import numpy as np

from bench.tuning import cut_disagreement as cd
from bench.tuning.backdrop_through import choose


def test_the_variants_start_with_the_shipped_models_and_are_distinct():
    variants = cd.model_variants()
    assert variants[0] == (cd.SHIPPED_PICK.cut_rim, cd.SHIPPED_PICK.cut_ring)
    assert len(variants) == len(set(variants))
    assert cd.MAIN.review_cut_backdrop == 0.0


def test_the_replay_flags_main_or_a_share_at_the_threshold_never_an_unmeasured_photo():
    shares = np.array([np.nan, 0.05, 0.03, np.nan])
    main = np.array([True, False, False, False])
    table = cd.flag_table(shares, main, (0.03, 0.04, 0.06))
    assert table.tolist() == [
        [True, True, True, False],
        [True, True, False, False],
        [True, False, False, False],
    ]


def test_the_same_photos_range_is_the_contiguous_run_around_the_choice():
    shares = np.array([0.05, 0.10])
    thresholds = (0.02, 0.04, 0.05, 0.06, 0.08, 0.1, 0.12)
    table = cd.flag_table(shares, np.zeros(2, bool), thresholds)
    assert cd.same_range(table, 3, thresholds) == (0.06, 0.1)
    assert cd.same_range(table, 0, thresholds) == (0.02, 0.05)


def test_the_chooser_takes_the_spare_good_results_it_is_given_and_never_a_control():
    rows = [
        {"iou": 0.5, "control": False},
        {"iou": 0.6, "control": False},
        {"iou": 0.99, "control": False},
        {"iou": 0.98, "control": True},
    ]
    main = np.zeros(4, bool)
    table = np.array(
        [
            [True, False, False, False],  # one failure
            [True, True, True, False],  # two failures and a good result
            [True, True, True, True],  # and a control view
        ]
    )
    use = np.ones(4, bool)
    assert choose(rows, table, main, use) == 0
    assert choose(rows, table, main, use, spare_good=1) == 1
    assert choose(rows, table, main, use, spare_good=5) == 1
