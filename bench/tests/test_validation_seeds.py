"""The used-seeds registry agrees with the seeds table of ``bench/README.md`` and the tools refuse used seeds."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from validation_sets import composites, cross_recipes, see_through
from validation_sets.seeds import KINDS, TUNING_COMPOSITE_SEEDS, TUNING_SEE_THROUGH_SEEDS, spent, used

ROOT = Path(__file__).resolve().parents[2]


def test_every_default_held_out_seed_is_spent_and_tuning_seeds_are_not() -> None:
    assert composites.HOLDOUT_SEED in spent("composites")
    assert see_through.HOLDOUT_SEED in spent("see-through")
    assert composites.TUNE_SEED in used("composites") - spent("composites")
    assert see_through.TUNE_SEED in used("see-through") - spent("see-through")
    with pytest.raises(ValueError):
        spent("gt")


def test_the_cross_recipe_sets_are_registered_reporting_only() -> None:
    assert set(KINDS) == {"composites", "see-through", "cut-through", "staged"}
    assert cross_recipes.CUT_HOLDOUT_SEED in spent("cut-through")
    assert cross_recipes.STAGED_HOLDOUT_SEED in spent("staged")
    # nothing is ever tuned on the cross recipes: their used seeds are the spent ones
    assert used("cut-through") == spent("cut-through") and used("staged") == spent("staged")
    assert TUNING_COMPOSITE_SEEDS and TUNING_SEE_THROUGH_SEEDS


def test_the_readme_names_the_first_fresh_seeds_the_registry_implies() -> None:
    text = (ROOT / "bench" / "README.md").read_text(encoding="utf-8")
    m = re.search(r"composites (\d+) and up, see-through (\d+) and up \| \*\*fresh\*\*", text)
    assert m, "the seeds table has no 'fresh' row"
    assert int(m.group(1)) == max(used("composites")) + 1
    assert int(m.group(2)) == max(used("see-through")) + 1


def test_confirm_refuses_a_spent_see_through_seed() -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.tuning.confirm",
            "--set",
            "see-through",
            "--seed",
            "37",
            "--rule",
            "True",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0
    assert "non nuovo" in run.stderr
