"""The ablation switches stages through the configuration only, and its deletion rule reads the figures right."""

from __future__ import annotations

import dataclasses

import numpy as np

from bench.pipeline import ablation
from retouch.openings import DEFAULT_OPENINGS, OpeningsConfig
from retouch.pick import SHIPPED_PICK, PickConfig


def test_every_variant_names_real_configuration_fields_and_changes_one_of_them() -> None:
    pick_fields = {f.name for f in dataclasses.fields(PickConfig)}
    open_fields = {f.name for f in dataclasses.fields(OpeningsConfig)}
    assert ablation.VARIANTS[0] == ("shipped", {}, {})
    for name, pick, openings in ablation.VARIANTS[1:]:
        assert set(pick) <= pick_fields, name
        assert openings is None or set(openings) <= open_fields, name
        changed = dataclasses.replace(SHIPPED_PICK, **pick) != SHIPPED_PICK or (
            openings is None or dataclasses.replace(DEFAULT_OPENINGS, **openings) != DEFAULT_OPENINGS
        )
        assert changed, name
    assert len({v[0] for v in ablation.VARIANTS}) == len(ablation.VARIANTS)


def test_the_rule_deletes_only_a_stage_that_costs_little_iou_and_no_flagged_failure() -> None:
    n_var = len(ablation.VARIANTS)
    # 3 photos: a good one, a flagged failure, another good one; rows [IoU, kept, flagged, ms]
    acc = np.zeros((3, n_var, 4))
    acc[:, :, 0] = [[0.97], [0.5], [0.96]]
    acc[1, :, 2] = 1.0
    acc[:, 2, 0] -= 0.01  # variant 2 costs 0.01 mean IoU
    acc[1, 3, 2] = 0.0  # variant 3 leaves the flagged failure unflagged
    acc[0, 4, 0] -= 0.005  # variant 4 costs 0.0017 mean IoU: under the bound
    v = ablation.verdicts({"a": acc, "b": acc.copy()})
    names = [x[0] for x in ablation.VARIANTS]
    assert v[names[1]]["delete"] and v[names[4]]["delete"]
    assert not v[names[2]]["delete"] and v[names[2]]["iou_cost"] > 0.003
    assert not v[names[3]]["delete"] and v[names[3]]["flagged_failures_lost"] == 2


def test_together_merges_the_named_variants_into_one() -> None:
    name, pick, openings = ablation.together(["zoom", "openings: wheels", "openings: clutter"])
    assert name == "together: pick: zoom, openings: wheels, openings: clutter"
    assert pick == {"zoom_area": 0.0} and openings == {"wheels": False, "clutter": False}
    assert ablation.together(["openings: whole step", "openings: holes"])[2] is None
