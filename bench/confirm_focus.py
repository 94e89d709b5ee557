"""Confirmation of the focus review flag (``retouch.pick.REVIEW_FOCUS``) on composites nobody has seen.

Why it exists. On two fresh *tuning* seeds (8 and 9, 2026-11-24) 5 of 41 ``salient`` composites kept the
large blurred object behind the product with confidence 0.85-0.94, unflagged: the object sat on a sharp
busy or textured background, whose detail the outline's edge-sharpness windows took in. The focus flag
(:func:`retouch.pick.focus_contrast`: the kept mask's inside much smoother than the ring around it) caps
such results' confidence so that they go to a designer. Its threshold was chosen on the tuning data only
(GT tuning fold and composites of seeds 1, 3, 4, 5, 8, 9). Whether it ships is decided on a *fresh* set:
composites of the held-out fold's products with seed :data:`FRESH_SEED`, never generated before this
script. The flag changes no matte, only ``confidence`` / ``needs_review``, so each photo runs once and
its review flag is computed with and without the cap from the same signals.

The rule, fixed before the first run (2026-11-24, committed with this file): the focus flag ships
(``REVIEW_FOCUS`` stays) only if, on the fresh set, with it

* at most one more good photo (IoU >= 0.9 against the GT mask) is flagged than without it, and
* more bad photos (IoU < 0.9) are flagged than good ones are added, i.e. it flags at least one more bad
  photo than it flags good ones;

otherwise ``REVIEW_FOCUS`` becomes 0 (the flag never fires).

Usage: ``python -m bench.confirm_focus [--n 60]`` (~3 min on 2 cores).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench._common import require_photos, setup
else:
    from ._common import require_photos, setup

setup()

#: Composite seed of the fresh set (1, 3, 4, 5, 8, 9 are tuning seeds, 2 the held-out one, 7 was spent
#: by ``bench/confirm_zoom.py``).
FRESH_SEED = 10


def main(argv: list[str] | None = None) -> int:
    """Run ours on the fresh set; count review flags with and without the focus cap; print the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=60, help="fresh composites (held-out-fold products)")
    args = parser.parse_args(argv)
    require_photos()
    from retouch import RetouchOptions, retouch
    from retouch import metrics as M
    from retouch.pick import REVIEW_FOCUS, confidence

    from .composites import composites, make_composite

    opts = RetouchOptions(preset="amazon", shadow=False)
    counts = {"bad": 0, "good": 0, "bad flagged without": 0, "bad flagged with": 0}
    counts |= {"good flagged without": 0, "good flagged with": 0}
    for stem, i, kind in composites("holdout", args.n, FRESH_SEED):
        c = make_composite(stem, FRESH_SEED, i, kind)
        res = retouch(c.data, opts)
        iou = M.iou(res.matte, c.gt)
        signals = res.details["segmentation"]["signals"]
        flag_with = bool(res.details["needs_review"])
        flag_without = confidence({k: v for k, v in signals.items() if k != "focus"})[1]
        side = "good" if iou >= 0.9 else "bad"
        counts[side] += 1
        counts[f"{side} flagged without"] += flag_without
        counts[f"{side} flagged with"] += flag_with
        mark = " <- focus flag" if flag_with and not flag_without else ""
        print(
            f"{c.name}: IoU {iou:.3f} focus {signals.get('focus', 99.0):.3f} flagged {flag_with}{mark}",
            flush=True,
        )
    print(f"\nfresh composites (seed {FRESH_SEED}, held-out-fold products), REVIEW_FOCUS {REVIEW_FOCUS}:")
    for side in ("bad", "good"):
        print(
            f"{side} (IoU {'<' if side == 'bad' else '>='} 0.9): {counts[side]}, flagged without the focus flag "
            f"{counts[f'{side} flagged without']} | with {counts[f'{side} flagged with']}"
        )
    more_good = counts["good flagged with"] - counts["good flagged without"]
    more_bad = counts["bad flagged with"] - counts["bad flagged without"]
    ships = more_good <= 1 and more_bad >= more_good + 1
    print(f"rule: the focus flag {'ships' if ships else 'does not ship (REVIEW_FOCUS = 0)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
