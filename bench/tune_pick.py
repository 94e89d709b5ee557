"""Tuning of the product pick and the confidence (``retouch.pick``) on the *tuning* data only.

Reads the tuning GT fold and the tuning composites (``bench/composites.py``, seed
:data:`bench.composites.TUNE_SEED`), never the held-out ones. For each photo it runs the full pipeline
(``retouch``) with the product pick as configured, and records the pick's signals, the matte's IoU
against the ground truth and whether plain rembg (320 px) did better; then it fits the logistic weights
of :func:`retouch.pick.confidence` (target: IoU >= 0.9) and prints the review-flag table for a few
thresholds, so the constants in ``retouch/pick.py`` can be set from it.

Usage: ``python -m bench.tune_pick [--composites N] [--out signals.json]``.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench._common import GT, list_images, require_photos, setup
else:
    from ._common import GT, list_images, require_photos, setup

setup()

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

#: Features of the confidence model (keys of ``retouch.pick.Pick.signals``).
FEATURES = ("sharp", "uncertain", "area", "border", "centre", "agreement", "doubt")


def tuning_inputs(n_composites: int) -> list[tuple[str, bytes, np.ndarray]]:
    """(name, file bytes, GT mask) of the tuning GT fold and ``n_composites`` tuning composites."""
    from .composites import TUNE_SEED, composites, gt_folds, make_composite

    out: list[tuple[str, bytes, np.ndarray]] = []
    tune = set(gt_folds()["tune"])
    for p in list_images(GT / "images"):
        if p.stem in tune:
            gt = np.asarray(Image.open(GT / "masks" / f"{p.stem}.png").convert("L"))
            out.append((p.stem, p.read_bytes(), gt))
    for stem, i, kind in composites("tune", n_composites):
        c = make_composite(stem, TUNE_SEED, i, kind)
        out.append((c.name, c.data, c.gt))
    return out


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 0.1, iters: int = 50) -> np.ndarray:
    """L2-regularised logistic regression by Newton's method (IRLS). ``x`` (N, F) with a bias column."""
    w = np.zeros(x.shape[1])
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-x @ w))
        g = x.T @ (p - y) + l2 * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, g)
    return w


def main(argv: list[str] | None = None) -> int:
    """Collect the signals on the tuning data, fit the confidence, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--composites", type=int, default=30)
    parser.add_argument("--out", type=Path, default=None, help="save the per-photo signals (JSON)")
    parser.add_argument("--load", type=Path, default=None, help="reuse signals saved with --out")
    args = parser.parse_args(argv)
    require_photos()
    from rembg import remove

    from retouch import RetouchOptions, get_session, retouch
    from retouch import metrics as M

    if args.load:
        rows = json.loads(args.load.read_text())
    else:
        session = get_session("u2netp")
        rows = []
        for name, data, gt in tuning_inputs(args.composites):
            base = np.asarray(
                Image.open(io.BytesIO(remove(data, session=session, only_mask=True))).convert("L")
            )
            res = retouch(data, RetouchOptions(preset="amazon", shadow=False))
            seg = res.details["segmentation"]
            r = {
                "name": name,
                "iou": M.iou(res.matte, gt),
                "iou_rembg": M.iou(base, gt),
                "bf": M.boundary_f(res.matte, gt),
                "bf_rembg": M.boundary_f(base, gt),
                "source": seg["source"],
                "signals": seg["signals"],
            }
            rows.append(r)
            print(
                f"{name}: IoU {r['iou_rembg']:.3f} -> {r['iou']:.3f} BF {r['bf_rembg']:.3f} -> {r['bf']:.3f} "
                f"{seg['source']} " + " ".join(f"{k}={v:.2f}" for k, v in seg["signals"].items()),
                flush=True,
            )
        if args.out:
            args.out.write_text(json.dumps(rows, indent=1))
    iou = np.array([r["iou"] for r in rows])
    base = np.array([r["iou_rembg"] for r in rows])
    print(
        f"\nmean IoU rembg {base.mean():.4f} ours {iou.mean():.4f}; worse by > 0.05: {(iou < base - 0.05).sum()}"
    )
    x = np.array([[1.0] + [float(r["signals"].get(f, 0.0)) for f in FEATURES] for r in rows])
    y = (iou >= 0.9).astype(float)
    w = fit_logistic(x, y)
    print(
        "weights:",
        json.dumps(
            {"bias": round(float(w[0]), 3)}
            | {f: round(float(v), 3) for f, v in zip(FEATURES, w[1:], strict=True)}
        ),
    )
    p = 1.0 / (1.0 + np.exp(-x @ w))
    for t in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        flag = p < t
        print(
            f"threshold {t}: bad flagged {int((flag & (y == 0)).sum())}/{int((y == 0).sum())}, good flagged {int((flag & (y == 1)).sum())}/{int((y == 1).sum())}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
