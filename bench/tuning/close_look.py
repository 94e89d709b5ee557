"""Research tool: the network's close look at the matte's box as review-flag evidence, on recorded tuning mattes.

Reads the recordings of ``FLAG_SIGNALS_DUMP=DIR python -m bench.tuning.flag_signals ... --out FILE`` (rows with
``name``, ``iou``, ``confidence``, ``needs_review``; ``DIR/NNNN.npz`` with the working image ``small`` uint8
(H, W, 3) and the final matte ``alpha`` uint8 (H, W) in the rows' order). Per photo it runs u2netp on the matte's
box grown as the second look grows it (:func:`retouch.pick.crops.zoom_box`) twice: mirrored at 256 px (the
second look's own view) and not mirrored at 320 px. Per look (:func:`look_regions`) it measures the largest
connected region the matte keeps but the look calls background more than k px inside the matte's outline
(``hole_k``: an opening kept whole) and the largest region the look calls product more than k px outside the
matte (``part_k``: a part left out), both as shares of the matte's area.

Then, over the results main does not flag: for each feature the threshold just above the highest control
(results at IoU >= 0.95 and every photo of a set named ``C``, real car views) and the failures (IoU < 0.8)
above it; a threshold sweep of the 320 px ``hole6``; product-grouped out of fold
(:func:`bench.tuning.tune_pick.grouped_folds`, each fold's threshold from the other folds' controls).

Usage: ``python -m bench.tuning.close_look --rec A=/work/rec/A.json:/work/rec/A-npz B=... C=... [--cache F]``.
Not product code; the review close look record in ``docs/decisions/`` says what was kept.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from scipy import ndimage as ndi  # noqa: E402

from bench.tuning.tune_pick import grouped_folds  # noqa: E402

#: The looks measured: name -> (network input px, mirrored).
LOOKS = {"m256": (256, True), "p320": (320, False)}
#: Insets (px of the working image) of the regions measured.
INSETS = (0, 3, 6)


def largest_share(region: np.ndarray, area: int) -> float:
    """Size of the largest 4-connected (scipy's default) component of bool ``region`` over
    ``area`` (px); 0.0 when ``region`` is empty. ``area`` below 1 counts as 1."""
    labels, n = ndi.label(region)
    if n == 0:
        return 0.0
    return float(np.bincount(labels.ravel())[1:].max() / max(1, area))


def look_regions(matte: np.ndarray, look: np.ndarray, inset: float) -> tuple[float, float]:
    """``(hole, part)`` of a bool matte and a bool look of the same (H, W): the largest region in the matte,
    more than ``inset`` px from its outline, that the look calls background, and the largest region outside the
    matte, more than ``inset`` px from it, that the look calls product; both as shares of the matte's area."""
    area = int(matte.sum())
    inside = ndi.distance_transform_edt(matte) > inset
    outside = ndi.distance_transform_edt(~matte) > inset
    return largest_share(matte & ~look & inside, area), largest_share(look & ~matte & outside, area)


def measure(small: np.ndarray, alpha: np.ndarray) -> dict[str, dict[str, float]]:
    """Features per look (:data:`LOOKS`) of one recorded photo: ``hole{k}``, ``part{k}`` for k in
    :data:`INSETS`, ``iou`` (matte vs look in the box) and ``ms`` (CPU of the look and the regions)."""
    from retouch.pick.crops import zoom_box
    from retouch.segment import predict_mask

    matte = alpha >= 128
    box = zoom_box(matte)
    if box is None:
        return {}
    x0, y0, x1, y1 = box
    crop = np.ascontiguousarray(small[y0:y1, x0:x1])
    b = matte[y0:y1, x0:x1]
    out: dict[str, dict[str, float]] = {}
    for key, (px, mirrored) in LOOKS.items():
        t = time.process_time()
        view = np.ascontiguousarray(crop[:, ::-1]) if mirrored else crop
        m = predict_mask(view, "u2netp", px)
        look = (m[:, ::-1] if mirrored else m) >= 0.5
        feats: dict[str, float] = {}
        for k in INSETS:
            feats[f"hole{k}"], feats[f"part{k}"] = look_regions(b, look, k)
        feats["iou"] = float((b & look).sum() / max(1, int((b | look).sum())))
        feats["ms"] = (time.process_time() - t) * 1000
        out[key] = feats
    return out


def threshold_above(values: list[float]) -> float:
    """The lowest threshold (``>=`` flags) above every value: the highest plus 1e-6; 0.0 for no values."""
    return max(values, default=-1e-6) + 1e-6


def main(argv: list[str] | None = None) -> int:
    """Measure the looks (or read them from ``--cache``) and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rec", nargs="+", required=True, help="SET=ROWS.json:NPZ_DIR (set C: car views)")
    parser.add_argument(
        "--cache", type=Path, default=None, help="JSON of the measured looks (read or written)"
    )
    args = parser.parse_args(argv)
    rows: dict[str, dict] = {}
    dirs: dict[str, Path] = {}
    for spec in args.rec:
        name, paths = spec.split("=", 1)
        rows_path, npz_dir = paths.split(":", 1)
        for i, r in enumerate(json.loads(Path(rows_path).read_text())):
            rows[f"{name}:{i}"] = r
        dirs[name] = Path(npz_dir)
    looks: dict[str, dict] = {}
    if args.cache is not None and args.cache.exists():
        looks = json.loads(args.cache.read_text())
    for key in rows:
        if key not in looks:
            set_name, index = key.split(":")
            z = np.load(dirs[set_name] / f"{int(index):04d}.npz")
            looks[key] = measure(z["small"], z["alpha"])
    if args.cache is not None:
        args.cache.write_text(json.dumps(looks))
    keys = [k for k in rows if looks.get(k)]
    unflagged = [k for k in keys if not rows[k]["needs_review"]]
    miss = [k for k in unflagged if rows[k]["iou"] < 0.8 and not k.startswith("C:")]
    ctrl = [k for k in unflagged if rows[k]["iou"] >= 0.95 or k.startswith("C:")]
    print(f"{len(keys)} photos; unflagged: {len(miss)} failures, {len(ctrl)} controls (IoU >= 0.95 or set C)")
    for look in LOOKS:
        for feat in [f"{w}{k}" for w in ("hole", "part") for k in INSETS]:
            t = threshold_above([looks[k][look][feat] for k in ctrl])
            above = [rows[k]["name"] for k in miss if looks[k][look][feat] >= t]
            print(f"{look} {feat}: highest control {t:.3f}, failures above {len(above)}: {above}")
    v = {k: looks[k]["p320"]["hole6"] for k in keys}
    for t in (0.10, 0.11, 0.12, 0.15):
        good = sum(v[k] >= t for k in ctrl if not k.startswith("C:"))
        cars = sum(v[k] >= t for k in ctrl if k.startswith("C:"))
        print(f"p320 hole6 >= {t}: failures {sum(v[k] >= t for k in miss)}, good {good}, car views {cars}")
    folds = grouped_folds([rows[k] for k in keys])
    caught = good = cars = 0
    for f in range(int(folds.max()) + 1):
        t = threshold_above([v[k] for k, ff in zip(keys, folds, strict=True) if ff != f and k in ctrl])
        test = [k for k, ff in zip(keys, folds, strict=True) if ff == f]
        caught += sum(v[k] >= t for k in test if k in miss)
        good += sum(v[k] >= t for k in test if k in ctrl and not k.startswith("C:"))
        cars += sum(v[k] >= t for k in test if k in ctrl and k.startswith("C:"))
    print(f"p320 hole6 out of fold: failures {caught}, good {good}, car views {cars}")
    ms = [looks[k]["p320"]["ms"] for k in keys]
    print(f"p320 look CPU per photo: median {np.median(ms):.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
