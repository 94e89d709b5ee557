"""The confidence's tuning tool (``bench/tuning/tune_pick.py``) and the quality benchmark's signal record: they
read tuning data only, keep a product's photos in one fold, and choose the review threshold within its budget."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bench._common import GT, REPO
from bench.tuning import tune_pick

#: The quality benchmark needs the shared photos and the u2netp model (``make model``).
needs_photos_and_model = pytest.mark.skipif(
    not (GT / "images").is_dir() or not (REPO / ".data" / "models" / "u2netp.onnx").is_file(),
    reason="foto condivise o modello u2netp assenti",
)


@pytest.mark.parametrize(
    ("seeds", "open_seeds"),
    [([2], None), ([22], None), ([20], None), ([], [22]), ([], [31]), ([], [27])],
)
def test_held_out_and_spent_seeds_are_refused(seeds: list[int], open_seeds: list[int] | None):
    with pytest.raises(SystemExit, match="held-out or spent"):
        next(iter(tune_pick.tuning_inputs(1, seeds, open_seeds, 1, gt=False)))


def test_see_through_photos_share_their_products_fold():
    """A see-through photo ``o{seed}-{i}-{stem}`` shows the GT product ``stem``: the grouped folds keep it with
    that product's photo and composites, so no product is scored by weights fitted on itself."""
    assert tune_pick.product_group("o21-05-0ce66b539f52_03") == tune_pick.product_group("0ce66b539f52_03")
    assert tune_pick.product_group("c3-06-salient-doll") == tune_pick.product_group("o25-22-doll")
    rows = [{"name": n} for n in ("banana1", "o21-10-banana1", "c4-05-studio-banana1", "doll", "o25-22-doll")]
    folds = tune_pick.grouped_folds(rows)
    assert len(set(folds[:3])) == 1 and folds[3] == folds[4]


def test_the_threshold_flags_at_most_the_budget_of_good_results():
    conf = np.array([0.2, 0.5, 0.55, 0.6, 0.7, 0.8, 0.9, 0.95, 0.97, 0.99])
    good = np.array([False, True, False, True, True, True, True, True, True, True])
    capped = np.array([False, True, False, False, False, False, False, False, False, False])
    # 8 good rows, budget 25 %: two may be flagged: the capped one (0.5) and the one at 0.6
    t = tune_pick.threshold_for(conf, capped, good, 0.25, 0.5)
    assert t == pytest.approx(0.601)
    assert int(((conf < t) & good).sum()) == 2
    # capped rows alone over the budget: the threshold stays just above the cap, so they stay flagged
    assert tune_pick.threshold_for(conf, capped, good, 0.0, 0.5) == pytest.approx(0.501)


@needs_photos_and_model
def test_quality_records_every_photos_signals_and_flag(tmp_path: Path):
    from bench.pipeline import quality

    out = tmp_path / "signals.json"
    assert quality.main(["--sets", "gt-tune", "--limit", "1", "--signals-out", str(out)]) == 0
    (row,) = json.loads(out.read_text())
    assert row["set"] == "gt-tune" and 0.0 <= row["iou"] <= 1.0
    assert isinstance(row["needs_review"], bool) and 0.0 <= row["confidence"] <= 1.0
    assert {"sharp", "uncertain", "agreement", "openings_doubtful"} <= set(row["signals"])
