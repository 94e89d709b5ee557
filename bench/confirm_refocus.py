"""Confirmation of the refocus (``retouch.pick.REFOCUS``) on composites nobody has seen.

Why it exists. The focus flag (``retouch.pick.REVIEW_FOCUS``) sends a kept mask that is much smoother
inside than around it (a blurred cup under the product, on a sharp background) to a designer, but the
seller's preview still shows the cup. The refocus (:func:`retouch.pick._refocus`) looks again, with one
more network evaluation, at the in-focus detail inside such a mask and keeps the crop's mask when it
passes the focus test itself; the result stays flagged either way. It was built and its network input
chosen on the tuning data only (GT tuning fold and composites of seeds 1, 3, 4, 5, 8, 9). Whether it ships
is decided on a *fresh* set: composites of the held-out fold's products with seed :data:`FRESH_SEED`,
never generated before this script. The refocus runs only on photos that fail the focus test, so each
photo runs once with it, and those where it ran (signal ``refocus`` present) run again without it.

The rule, fixed before the first run (2026-11-24, committed with this file before it ran): the refocus
ships (``REFOCUS`` stays ``True``) only if, on the fresh set,

* it ran on at least one photo (otherwise there is no evidence, and it is switched off),
* the sum over the fresh photos of (IoU with it - IoU without it) is positive, and
* no photo ends more than 0.05 IoU lower with it than without it;

otherwise ``REFOCUS`` becomes ``False``. Its one run (seed 11, 90 composites): it ran on 1 photo,
c11-22, IoU 0.157 -> 0.975: the refocus ships.

**After a fallback** (``--fallback``, ``retouch.pick.REFOCUS_FALLBACK``, :func:`retouch.pick.refocus_fallback`):
the same look tried on the guard's fallback mask, whatever its focus. Built on the tuning data only (12
fallbacks among 220 tuning photos: 6 went from IoU 0.03-0.21 to 0.95-0.99, 6 unchanged). Decided on a
second fresh seed, :data:`FRESH_SEED_FALLBACK`, by the same rule (fixed before its first run, 2026-11-24,
committed with this paragraph before it ran): it ships (``REFOCUS_FALLBACK`` stays ``True``) only if it ran
on at least one fresh photo, the sum of IoU gains is positive and no photo loses more than 0.05 IoU;
otherwise ``REFOCUS_FALLBACK`` becomes ``False``.

Usage: ``python -m bench.confirm_refocus [--n 90] [--fallback]`` (~4 min on 2 cores).
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

#: Composite seed of the fresh set (1, 3, 4, 5, 8, 9 are tuning seeds, 2 the held-out one, 7 and 10 were
#: spent by ``bench/confirm_zoom.py`` and ``bench/confirm_focus.py``).
FRESH_SEED = 11
#: Composite seed of the fresh set for ``--fallback`` (never generated before it).
FRESH_SEED_FALLBACK = 12


def main(argv: list[str] | None = None) -> int:
    """Run ours on the fresh set, again without the refocus where it ran; print the verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=90, help="fresh composites (held-out-fold products)")
    parser.add_argument("--fallback", action="store_true", help="decide the refocus after a fallback")
    args = parser.parse_args(argv)
    require_photos()
    import retouch.pick as pick
    from retouch import RetouchOptions, retouch
    from retouch import metrics as M

    from .composites import composites, make_composite

    opts = RetouchOptions(preset="amazon", shadow=False)
    seed, switch = (FRESH_SEED_FALLBACK, "REFOCUS_FALLBACK") if args.fallback else (FRESH_SEED, "REFOCUS")
    ran, gain, worst = 0, 0.0, 0.0
    for stem, i, kind in composites("holdout", args.n, seed):
        c = make_composite(stem, seed, i, kind)
        setattr(pick, switch, True)
        res = retouch(c.data, opts)
        signals = res.details["segmentation"]["signals"]
        # --fallback: only a refocus after a fallback counts (the plain refocus is already shipped)
        if "refocus" not in signals or (args.fallback and not signals.get("fallback")):
            continue
        with_it = M.iou(res.matte, c.gt)
        setattr(pick, switch, False)
        without = M.iou(retouch(c.data, opts).matte, c.gt)
        ran += 1
        gain += with_it - without
        worst = min(worst, with_it - without)
        print(
            f"{c.name}: refocus {'used' if signals['refocus'] else 'not used'}, IoU without {without:.3f} "
            f"| with {with_it:.3f}, flagged {res.details['needs_review']}",
            flush=True,
        )
    what = "the refocus after a fallback" if args.fallback else "the refocus"
    print(f"\nfresh composites (seed {seed}, held-out-fold products): {args.n}, {what} ran on {ran}")
    print(f"sum of IoU gains {gain:+.3f}, largest loss {-worst:.3f}")
    ships = ran > 0 and gain > 0 and worst >= -0.05
    print(f"rule: {what} {'ships' if ships else f'does not ship ({switch} = False)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
