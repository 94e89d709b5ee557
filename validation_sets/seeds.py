"""Which generator seeds are already used, so no tool takes a used seed for fresh data.

The registry of seeds (``bench/README.md`` names the first fresh ones): a seed is *tuning* data once a tuning tool or a
research round has looked at its photos, and *spent* once a confirmation or report run has measured its
held-out photos. A tuning tool may read tuning seeds but never spent ones; a confirmation run needs a seed
that is neither. Update both sets (and the README's table) whenever a round uses a new seed.
"""

from __future__ import annotations

__all__ = [
    "TUNING_COMPOSITE_SEEDS",
    "SPENT_COMPOSITE_SEEDS",
    "TUNING_SEE_THROUGH_SEEDS",
    "SPENT_SEE_THROUGH_SEEDS",
    "SPENT_CUT_THROUGH_SEEDS",
    "SPENT_STAGED_SEEDS",
    "KINDS",
    "spent",
    "used",
]

#: Composites seeds whose photos were looked at while tuning (:mod:`validation_sets.composites`).
TUNING_COMPOSITE_SEEDS = frozenset({1, 3, 4, 5, 8, 9, 16, 18, 19, 36, 37})
#: Composites seeds measured by a held-out, confirmation or report run (2 is the default held-out seed).
SPENT_COMPOSITE_SEEDS = frozenset(
    {
        2,
        6,
        7,
        *range(10, 16),
        17,
        *range(20, 36),
        38,
        39,
        40,
        41,
        42,
        43,
        44,
        45,
        46,
        47,
        48,
        49,
        50,
        51,
        52,
        53,
        54,
        55,
    }
)
#: See-through seeds whose photos were looked at while tuning (:mod:`validation_sets.see_through`).
TUNING_SEE_THROUGH_SEEDS = frozenset(
    {
        21,
        23,
        25,
        26,
        28,
        32,
        33,
        39,
        40,
        43,
        44,
        47,
        48,
        62,
        63,
        64,
        65,
        *range(70, 76),
        88,
        89,
        94,
        97,
        98,
        99,
    }
)
#: See-through seeds measured by a held-out, confirmation or report run (22 is the default held-out seed).
SPENT_SEE_THROUGH_SEEDS = frozenset(
    {
        22,
        24,
        27,
        29,
        30,
        31,
        34,
        35,
        36,
        37,
        38,
        41,
        42,
        45,
        46,
        *range(49, 61),
        61,
        66,
        67,
        68,
        69,
        *range(76, 88),
        90,
        91,
        92,
        93,
        95,
        96,
        100,
        *range(101, 119),
    }
)


#: Seeds of the cross-recipe generators (:mod:`validation_sets.cross_recipes`) measured by a report run. No
#: seed of them is tuning data: no parameter is ever chosen on these recipes (1 is the default reporting seed).
SPENT_CUT_THROUGH_SEEDS = frozenset({1})
SPENT_STAGED_SEEDS = frozenset({1})
_SPENT = {
    "composites": SPENT_COMPOSITE_SEEDS,
    "see-through": SPENT_SEE_THROUGH_SEEDS,
    "cut-through": SPENT_CUT_THROUGH_SEEDS,
    "staged": SPENT_STAGED_SEEDS,
}
_TUNING = {"composites": TUNING_COMPOSITE_SEEDS, "see-through": TUNING_SEE_THROUGH_SEEDS}
#: The generators whose seeds are registered here.
KINDS = tuple(_SPENT)


def spent(kind: str) -> frozenset[int]:
    """Seeds of generator ``kind`` (one of :data:`KINDS`) that no tuning tool may read.

    Raises:
        ValueError: an unknown ``kind``.
    """
    if kind not in _SPENT:
        raise ValueError(f"unknown generator {kind!r}")
    return _SPENT[kind]


def used(kind: str) -> frozenset[int]:
    """Seeds of generator ``kind`` that are not fresh (tuning or spent): a confirmation run refuses them.

    Raises:
        ValueError: an unknown ``kind``.
    """
    return spent(kind) | _TUNING.get(kind, frozenset())
