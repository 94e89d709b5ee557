"""Tuning of the focus test's plain-backdrop floor (``PickConfig.focus_ring_min``) on the tuning data only.

Why it exists. :func:`retouch.pick.focus_contrast` compares the fine detail inside a kept mask with the
ring around it. Around a flat-coloured product on a plain backdrop both are ~0, and their ratio said
"blurred object" (a red box on a beige sweep, drawn by the browser tests, went to a designer, and its
refocus spent a network pass). A ring with no detail is no evidence of focus, so below a floor the test
abstains. This script records, for every tuning photo (GT tuning fold and tuning composites, never
seed 2), the kept mask's inside and ring detail (:func:`retouch.pick.signals.focus_detail` of the pick before any refocus, the first call per
photo), the matte's IoU and the review flag, and prints, for candidate floors, which photos the floor
would take out of the focus test: it must take none whose flag or refocus the test earns (IoU < 0.9
before the refocus, or a refocused result).

Usage: ``python -m bench.tuning.tune_focus_floor [--composites 35] [--seeds 1 3 4 5 8 9]`` (~8 min on 2 cores).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench._common import require_photos, setup
else:
    from .._common import require_photos, setup

setup()

#: Candidate floors (mean |Laplacian|, grey levels in [0, 1]).
FLOORS = (1e-4, 5e-4, 1e-3, 2e-3, 3e-3, 5e-3, 1e-2)


def main(argv: list[str] | None = None) -> int:
    """Run ours on the tuning photos, record the kept mask's focus detail; print the floors' effect."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--composites", type=int, default=35, help="tuning composites per seed")
    parser.add_argument("--seeds", type=int, nargs="*", default=[1, 3, 4, 5, 8, 9], help="tuning seeds")
    args = parser.parse_args(argv)
    require_photos()
    import dataclasses

    from PIL import Image

    from retouch import RetouchOptions, retouch
    from retouch import metrics as M
    from retouch.decode import decode_image
    from retouch.models import DEFAULT_NETWORK
    from retouch.pick import REFOCUS_SOURCE, SHIPPED_PICK, pick_product
    from retouch.pick.signals import focus_detail, luma
    from retouch.pipeline import _resize, _working_size

    from .tune_pick import tuning_inputs

    opts = RetouchOptions(preset="amazon", shadow=False)
    rows: list[tuple[str, float, float, float, bool, str]] = []
    for name, data, gt in tuning_inputs(args.composites, args.seeds):
        res = retouch(data, opts)
        # the kept mask as the focus test first sees it: the pick before any refocus
        rgb = decode_image(data).rgb
        size = _working_size(rgb.shape[1], rgb.shape[0])
        small = rgb if size == (rgb.shape[1], rgb.shape[0]) else _resize(rgb, size, Image.Resampling.BILINEAR)
        kept = pick_product(
            small, config=dataclasses.replace(SHIPPED_PICK, refocus=False), network=DEFAULT_NETWORK
        )
        first = focus_detail(luma(small), kept.mask >= 0.5, config=SHIPPED_PICK)
        if first is None:
            continue
        seg = res.details["segmentation"]
        iou = M.iou(res.matte, gt)
        rows.append((name, first[0], first[1], iou, bool(res.details["needs_review"]), seg["source"]))
        print(
            f"{name}: inside {first[0]:.4f} ring {first[1]:.4f} focus {first[0] / max(first[1], 1e-9):.3f} "
            f"IoU {iou:.3f} flagged {res.details['needs_review']} source {seg['source']}",
            flush=True,
        )
    review_focus = SHIPPED_PICK.review_focus
    print(f"\n{len(rows)} tuning photos; the focus test fails (< {review_focus}) on:")
    failing = [r for r in rows if r[1] / max(r[2], 1e-9) < review_focus]
    for r in sorted(failing, key=lambda r: r[2]):
        print(f"  {r[0]}: ring {r[2]:.4f} inside {r[1]:.4f} IoU {r[3]:.3f} source {r[5]}")
    earned = [r for r in failing if r[3] < 0.9 or r[5].startswith(REFOCUS_SOURCE)]
    print(
        f"\nearned (IoU < 0.9 or refocused): {len(earned)}; lowest ring detail among them: "
        f"{min((r[2] for r in earned), default=float('nan')):.4f}"
    )
    print(f"lowest ring detail of any tuning photo: {min(r[2] for r in rows):.4f}")
    for floor in FLOORS:
        out = [r for r in failing if r[2] < floor]
        lost = [r for r in out if r in earned]
        print(f"floor {floor:g}: takes {len(out)} photos out of the focus test, {len(lost)} earned ones")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
