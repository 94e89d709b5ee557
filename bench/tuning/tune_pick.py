"""Tuning of the product pick and the confidence (``retouch.pick``) on the *tuning* data only.

Reads the tuning GT fold and the tuning composites (``validation_sets/composites.py``, seed
:data:`validation_sets.composites.TUNE_SEED`), never the held-out ones. For each photo it runs the full pipeline
(``retouch``) with the product pick as configured, and records the pick's signals, the matte's IoU
against the ground truth and whether plain rembg (320 px) did better; then it fits the logistic weights
of :func:`retouch.pick.confidence` (target: IoU >= 0.9) and prints the review-flag table for a few
thresholds, so the fields of ``retouch.pick.PickConfig`` can be set from it.

It also prints, for each review threshold, the flags of the weights fitted out-of-fold (5 folds, photos of one
product kept in one fold, :func:`grouped_cv`) and of the weights shipped in ``retouch.pick.SHIPPED_PICK``. The
rule for replacing the shipped weights, fixed before looking at any result
(the confidence weights record in ``docs/decisions/``): the refit replaces them only if, out-of-fold, some
threshold flags at least as many bad photos (IoU < 0.9) and at most as many good ones as the shipped weights
at ``SHIPPED_PICK.review_below``, one of the two strictly better.

Usage: ``python -m bench.tuning.tune_pick [--composites N] [--seeds S ...] [--out signals.json] [--load signals.json]``
(``--composites 30 --seeds 1 3 4 5``: the 20 GT tuning photos and 120 composites, ~8 min).
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench._common import GT, list_images, require_photos, setup
else:
    from .._common import GT, list_images, require_photos, setup

setup()

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

#: Features of the confidence model (keys of ``retouch.pick.Pick.signals``).
FEATURES = ("sharp", "uncertain", "area", "border", "centre", "agreement", "doubt")


def tuning_inputs(n_composites: int, seeds: list[int] | None = None) -> list[tuple[str, bytes, np.ndarray]]:
    """(name, file bytes, GT mask) of the tuning GT fold and ``n_composites`` tuning composites per seed
    (default: :data:`validation_sets.composites.TUNE_SEED` only; the held-out seed is refused)."""
    from validation_sets.composites import HOLDOUT_SEED, TUNE_SEED, composites, gt_folds, make_composite

    out: list[tuple[str, bytes, np.ndarray]] = []
    tune = set(gt_folds()["tune"])
    for p in list_images(GT / "images"):
        if p.stem in tune:
            gt = np.asarray(Image.open(GT / "masks" / f"{p.stem}.png").convert("L"))
            out.append((p.stem, p.read_bytes(), gt))
    for seed in seeds or [TUNE_SEED]:
        if seed == HOLDOUT_SEED:
            raise SystemExit(f"seed {seed} is the held-out seed")
        for stem, i, kind in composites("tune", n_composites, seed):
            c = make_composite(stem, seed, i, kind)
            out.append((c.name, c.data, c.gt))
    return out


def product_group(name: str) -> str:
    """The GT product a tuning photo shows (a composite ``c{seed}-{i}-{kind}-{stem}`` shows ``stem``),
    grouped as the folds group them (:func:`validation_sets.composites._group`): photos of one product share a fold
    in :func:`grouped_cv`."""
    from validation_sets.composites import _group

    stem = name.split("-", 3)[3] if re.match(r"^c\d+-\d+-[a-z]+-", name) else name
    return _group(stem)


def confidences(z: np.ndarray, fallback: np.ndarray) -> np.ndarray:
    """:func:`retouch.pick.confidence` from logits ``z`` (``x @ w``): the logistic, capped at
    :attr:`retouch.pick.PickConfig.fallback_confidence` where the guard fell back (``fallback``, bool per
    photo)."""
    from retouch.pick import SHIPPED_PICK

    p = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
    return np.where(fallback, np.minimum(p, SHIPPED_PICK.fallback_confidence), p)


def grouped_cv(x: np.ndarray, y: np.ndarray, groups: list[str], folds: int = 5) -> np.ndarray:
    """Out-of-fold weights' logits: the photos are dealt to ``folds`` folds by product group (sorted group
    names, round robin), each fold is scored by weights fitted on the others. Returns ``x @ w`` per photo."""
    names = sorted(set(groups))
    fold_of = {g: i % folds for i, g in enumerate(names)}
    k = np.array([fold_of[g] for g in groups])
    z = np.zeros(len(y))
    for f in range(folds):
        test = k == f
        if test.any() and (~test).any():
            z[test] = x[test] @ fit_logistic(x[~test], y[~test])
    return z


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
    parser.add_argument("--composites", type=int, default=30, help="tuning composites per seed")
    parser.add_argument("--seeds", type=int, nargs="*", default=None, help="composite seeds (default: 1)")
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
        for name, data, gt in tuning_inputs(args.composites, args.seeds):
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
    from retouch.pick import SHIPPED_PICK

    weights, review_below = SHIPPED_PICK.confidence_weights, SHIPPED_PICK.review_below

    fallback = np.array([float(r["signals"].get("fallback", 0.0)) >= 0.5 for r in rows])
    shipped = np.array([weights.get("bias", 0.0)] + [weights.get(f, 0.0) for f in FEATURES])
    oof = grouped_cv(x, y, [product_group(str(r["name"])) for r in rows])
    scores = {
        "refit, in-sample": confidences(x @ w, fallback),
        "refit, out-of-fold (5 product-grouped folds)": confidences(oof, fallback),
        "shipped weights (retouch.pick)": confidences(x @ shipped, fallback),
    }
    n_bad, n_good = int((y == 0).sum()), int((y == 1).sum())
    for label, c in scores.items():
        print(f"\n{label}:")
        for t in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
            flag = c < t
            mark = " <- review_below" if abs(t - review_below) < 1e-9 else ""
            print(
                f"  threshold {t}: bad flagged {int((flag & (y == 0)).sum())}/{n_bad}, "
                f"good flagged {int((flag & (y == 1)).sum())}/{n_good}{mark}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
