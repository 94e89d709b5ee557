"""The network-views research tool's measures: the views' agreement, the soft mask's growth and the budget table."""

import numpy as np
import pytest

from bench.tuning.network_views import BUDGETS, budget_table, soft_growth, views_agreement


def _square_network(rgb: np.ndarray) -> np.ndarray:
    """A stand-in network that calls bright pixels the product, whatever the view (the real one is u2netp)."""
    return (rgb.astype(np.float32).mean(axis=2) > 100).astype(np.float32)


def test_views_agree_fully_with_a_network_that_sees_the_matte_in_every_view() -> None:
    small = np.zeros((60, 80, 3), np.uint8)
    small[20:40, 30:50] = 200
    alpha = np.zeros((60, 80), np.float32)
    alpha[20:40, 30:50] = 1.0
    views = views_agreement(small, alpha, network=_square_network)
    assert set(views) == {"plain", "mirror", "flipv", "grey", "bgr", "wide_plain", "wide_grey", "min"}
    assert all(v == pytest.approx(1.0) for v in views.values())
    # a matte that holds a dark piece the network does not see agrees less in every view
    alpha[20:40, 50:60] = 1.0
    views = views_agreement(small, alpha, network=_square_network)
    assert views["min"] == pytest.approx(400 / 600)
    assert views_agreement(small, np.zeros_like(alpha), network=_square_network) == {}


def test_soft_growth_counts_only_what_joins_the_matte() -> None:
    matte = np.zeros((20, 20), bool)
    matte[5:10, 5:10] = True  # 25 px
    soft = np.zeros((20, 20), np.float32)
    soft[5:10, 10:12] = 0.25  # a half-seen part beside the matte: 10 px
    soft[15:18, 15:18] = 0.4  # a half-seen blob apart from it: 9 px
    grown = soft_growth(matte, soft)
    assert grown["g0.2"] == pytest.approx(10 / 25)
    assert grown["gb0.2"] == pytest.approx(10 / 25)
    assert grown["g0.3"] == 0.0
    assert grown["soft_out"] == pytest.approx(19 / 25)
    assert grown["mean_in"] == 0.0
    assert soft_growth(np.zeros((4, 4), bool), np.zeros((4, 4), np.float32)) == {}
    with pytest.raises(ValueError):
        soft_growth(matte, soft[:5])


def test_budget_table_flags_failures_beyond_the_allowed_good_results() -> None:
    values = np.array([0.9, 0.8, 0.1, 0.2, 0.3, 0.85, np.nan])
    failure = np.array([True, True, False, False, False, False, True])
    good = np.array([False, False, True, True, True, True, False])
    real = np.array([False, False, False, False, False, True, False])
    auc, direction, rows = budget_table(values, failure, good, real)
    assert direction == 1
    assert auc == pytest.approx(7 / 8)
    assert len(rows) == len(BUDGETS)
    assert rows[0] == (1, 0)  # only above the highest good value (0.85): the failure at 0.9
    assert rows[1] == (2, 1)  # five good results allowed: every one, the real photo among them
