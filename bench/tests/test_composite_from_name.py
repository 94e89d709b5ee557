"""A composite rebuilt from its name is the photo the tuning and report runs measured (the drawn kind in the name is
not passed back to the generator: forcing a kind skips one of its draws)."""

from __future__ import annotations

import numpy as np
import pytest

from validation_sets.composites import composite_from_name, composites, make_composite


def test_a_composite_rebuilt_from_its_name_is_the_same_photo() -> None:
    drawn = composites("tune", 3, 1)  # index 0 forced salient, 1 and 2 drawn
    assert [k for _, _, k in drawn] == ["salient", None, None]
    for stem, i, kind in drawn:
        original = make_composite(stem, 1, i, kind)
        rebuilt = composite_from_name(original.name)
        assert rebuilt.name == original.name
        assert np.array_equal(rebuilt.gt, original.gt)
        # the report's row name says "drawn" where the kind was drawn
        report_name = f"c1-{i:02d}-{kind or 'drawn'}-{stem}"
        assert np.array_equal(composite_from_name(report_name).gt, original.gt)


def test_passing_the_drawn_kind_back_builds_another_photo() -> None:
    stem, i, kind = composites("tune", 3, 1)[1]
    original = make_composite(stem, 1, i, kind)
    drawn_kind = original.name.split("-")[2]
    assert not np.array_equal(make_composite(stem, 1, i, drawn_kind).gt, original.gt)


def test_a_name_that_is_not_a_composite_is_refused() -> None:
    with pytest.raises(ValueError):
        composite_from_name("o21-03-flower-x")
