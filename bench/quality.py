"""Matte and output quality: our pipeline vs plain rembg, on the shared photos with ground truth.

For every image in ``../shared/photos/gt/images`` that has ``gt/masks/NAME.png``:

* IoU, alpha MAE and boundary F-measure (DAVIS, tolerance 0.008 x diagonal) of our matte
  (``RetouchResult.matte``) and of plain rembg (``rembg.remove(data, session, only_mask=True)``, same
  model); GT pixels equal to 128 (unlabelled band) are left out;
* on our white-background output (preset ``amazon``, no shadow, so the background is all white; the GT
  is mapped onto the output canvas with the framing reported in ``details["framing"]``): the halo score
  (``retouch.metrics.halo_score``: median distance from white in the ring 1-3 px outside the GT
  product, in 8-bit levels; lower is better), the share of pure-white
  background pixels, the minimum corner value of the encoded JPEG; and the same halo score for a
  naive composite of rembg's mask on white (what ``rembg`` + a white fill gives).

Usage: ``python -m bench.quality [--limit N] [--model u2netp] [--only NAME...]``.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench._common import GT, list_images, print_table, require_photos, setup
else:
    from ._common import GT, list_images, print_table, require_photos, setup

setup()

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the tables; returns 0 (figures are reported, not asserted)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="only the first N images")
    parser.add_argument("--model", default="u2netp")
    parser.add_argument("--only", nargs="*", default=None, help="image names (without extension)")
    args = parser.parse_args(argv)
    require_photos()

    from rembg import remove

    from retouch import RetouchOptions, get_session, retouch
    from retouch import metrics as M
    from retouch.layout import Placement, resample_region

    session = get_session(args.model)
    images = [p for p in list_images(GT / "images") if (GT / "masks" / f"{p.stem}.png").is_file()]
    if args.only:
        images = [p for p in images if p.stem in set(args.only)]
    if args.limit:
        images = images[: args.limit]
    rows: list[list[object]] = []
    acc: list[list[float]] = []
    t_ours = t_base = 0.0
    for path in images:
        data = path.read_bytes()
        gt = np.asarray(Image.open(GT / "masks" / f"{path.stem}.png").convert("L"))
        t = time.perf_counter()
        base = np.asarray(Image.open(io.BytesIO(remove(data, session=session, only_mask=True))).convert("L"))
        t_base += time.perf_counter() - t
        t = time.perf_counter()
        res = retouch(data, RetouchOptions(preset="amazon", shadow=False), model_name=args.model)
        t_ours += time.perf_counter() - t
        ours = res.matte
        if ours.shape != gt.shape or base.shape != gt.shape:
            print(
                f"{path.name}: dimensioni diverse (gt {gt.shape}, ours {ours.shape}, rembg {base.shape}), saltata"
            )
            continue
        out = np.asarray(Image.open(io.BytesIO(res.jpeg)).convert("RGB"))
        fr = res.details["framing"]
        placement = Placement(
            res.width,
            res.height,
            fr["scale"],
            tuple(fr["src_box"]),
            (0, 0, res.width, res.height),
            tuple(fr["product_bbox"]),
        )
        gt_out = resample_region(gt, placement, fill=0)  # GT on the output canvas (for the halo)
        gt_out[(gt_out > 0) & (gt_out < 255)] = np.where(gt_out[(gt_out > 0) & (gt_out < 255)] >= 128, 255, 0)
        # naive composite of rembg's mask on white, for the halo comparison
        src = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
        ab = base.astype(np.float32)[..., None] / 255.0
        naive = (src * ab + 255 * (1 - ab) + 0.5).astype(np.uint8) if src.shape[:2] == base.shape else out
        r = [
            M.iou(base, gt),
            M.iou(ours, gt),
            M.boundary_f(base, gt),
            M.boundary_f(ours, gt),
            M.alpha_mae(base, gt),
            M.alpha_mae(ours, gt),
            M.halo_score(naive, gt),
            M.halo_score(out, gt_out, max(1, round(placement.scale)), max(2, round(3 * placement.scale))),
            M.background_purity(out, resample_region(ours, placement, fill=0)),
            float(M.corner_min(out)),
        ]
        acc.append(r)
        rows.append([path.stem, *r])
        print(
            f"  {path.stem}: IoU {r[0]:.3f} -> {r[1]:.3f}, BF {r[2]:.3f} -> {r[3]:.3f}",
            file=sys.stderr,
            flush=True,
        )
    if not acc:
        print("Nessuna immagine con maschera.")
        return 0
    mean = np.mean(np.array(acc), axis=0).tolist()
    headers = [
        "image",
        "IoU rembg",
        "IoU ours",
        "BF rembg",
        "BF ours",
        "MAE rembg",
        "MAE ours",
        "halo rembg",
        "halo ours",
        "bg white",
        "corner min",
    ]
    print(f"\n## Matte quality, model {args.model}, {len(acc)} images (GT 128 band excluded)\n")
    print_table(headers, rows + [["MEAN", *mean]])
    print()
    n = len(acc)
    arr = np.array(acc)
    better_iou = int(np.sum(arr[:, 1] > arr[:, 0] + 1e-4))
    worse_iou = int(np.sum(arr[:, 1] < arr[:, 0] - 1e-4))
    print_table(
        ["summary", "rembg", "ours", "target"],
        [
            ["mean IoU", mean[0], mean[1], "ours > rembg: " + ("OK" if mean[1] > mean[0] else "NO")],
            ["mean boundary F", mean[2], mean[3], "ours > rembg: " + ("OK" if mean[3] > mean[2] else "NO")],
            ["mean alpha MAE", mean[4], mean[5], "lower is better"],
            ["mean halo (levels)", mean[6], mean[7], "ours lower"],
            ["max halo ours", float(arr[:, 6].max()), float(arr[:, 7].max()), "< 30: no visible halo"],
            ["min bg purity ours", "", float(arr[:, 8].min()), ">= 0.99"],
            ["min corner value ours", "", float(arr[:, 9].min()), "255 (pure white corners)"],
            ["images IoU better / worse", "", f"{better_iou} / {worse_iou} of {n}", ""],
            ["time s/img", t_base / n, t_ours / n, "(full pipeline vs rembg.remove only_mask)"],
        ],
        floatfmt=".4f",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
