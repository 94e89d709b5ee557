"""Tuning of the confidence and review flag (``retouch.pick.confidence``) on the *tuning* data only.

Reads the tuning GT fold, tuning composites (``validation_sets/composites.py``; default seed
:data:`validation_sets.composites.TUNE_SEED`) and, with ``--open-seeds``, tuning see-through photos
(``validation_sets/see_through.py``); held-out and spent seeds are refused. For each photo it runs the full
pipeline (``retouch``) as configured and records the pick's signals, the matte's IoU against the ground truth,
plain rembg's (320 px) and the confidence and flag the code gave (``--out``, written after every photo, so the
collection is done once and ``--load`` reruns the fit offline).

Then it fits the logistic weights of :func:`retouch.pick.confidence` on :data:`FEATURES` (target: IoU >=
:data:`GOOD` against IoU < :data:`POOR`, the results between left out), chooses ``review_below`` as the highest
threshold at which the product-grouped out-of-fold confidences (:func:`grouped_folds`) flag at most
``--budget`` of the results at IoU >= :data:`GOOD`, and prints the flags (results under :data:`POOR` flagged,
results at :data:`GOOD` or above flagged) per kind of photo for: the flags as collected, the code's
``retouch.pick.SHIPPED_PICK``, the refit in-sample, and the refit out-of-fold (weights *and* threshold chosen on
the other folds only, :func:`oof_flags`). The refit's weights and threshold are copied into
``retouch.pick.PickConfig`` by hand, and only when a rule committed before a held-out run says so (the
confidence weights and review flags records in ``docs/decisions/``).

Usage: ``python -m bench.tuning.tune_pick [--composites N] [--seeds S ...] [--open-seeds S ...] [--openings N]
[--no-gt] [--out signals.json] [--load signals.json ...] [--budget B] [--l2 L]``. The review-flags record's
200 tuning photos: ``--composites 12 --seeds 1 3 4 5 16 18 19 --out a.json`` and ``--no-gt --seeds --open-seeds 21 23 25 26
--openings 24 --out b.json`` (two processes, ~9 min together on two cores), then ``--load a.json b.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import MappingProxyType
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench._common import GT, list_images, require_photos, setup
else:
    from .._common import GT, list_images, require_photos, setup

setup()

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from retouch.pick import PickConfig  # noqa: E402

#: Features of the confidence model (keys of ``retouch.pick.Pick.signals``, as
#: ``retouch.pick.SHIPPED_PICK.confidence_weights`` reads them).
FEATURES = ("sharp", "uncertain", "area", "border", "centre", "agreement", "doubt")
#: The two ends the confidence separates: a result under IoU ``POOR`` must be flagged, one at ``GOOD`` or above
#: must not (the issue's review targets).
POOR, GOOD = 0.8, 0.95


def tuning_inputs(
    n_composites: int,
    seeds: list[int] | None = None,
    open_seeds: list[int] | None = None,
    n_openings: int = 24,
    gt: bool = True,
) -> Iterator[tuple[str, bytes, np.ndarray]]:
    """(name, file bytes, GT mask), made one at a time, of the tuning GT fold (unless ``gt`` is False), ``n_composites`` tuning
    composites per seed (default: :data:`validation_sets.composites.TUNE_SEED` only) and ``n_openings``
    tuning see-through photos per seed of ``open_seeds`` (``validation_sets/see_through.py``, names
    ``o{seed}-{i:02d}-{stem}`` as in ``bench.pipeline.quality``). Held-out and spent seeds are refused
    (:func:`validation_sets.seeds.spent`)."""
    from validation_sets.composites import HOLDOUT_SEED, TUNE_SEED, composites, gt_folds, make_composite
    from validation_sets.see_through import HOLDOUT_SEED as OPEN_HOLDOUT_SEED
    from validation_sets.see_through import make_see_through, see_through_set
    from validation_sets.seeds import spent

    bad = [
        s for s in ([TUNE_SEED] if seeds is None else seeds) if s == HOLDOUT_SEED or s in spent("composites")
    ]
    bad_open = [s for s in open_seeds or [] if s == OPEN_HOLDOUT_SEED or s in spent("see-through")]
    if bad or bad_open:
        raise SystemExit(f"held-out or spent seeds: composites {bad}, see-through {bad_open}")
    tune = set(gt_folds()["tune"])
    for p in list_images(GT / "images") if gt else []:
        if p.stem in tune:
            mask = np.asarray(Image.open(GT / "masks" / f"{p.stem}.png").convert("L"))
            yield p.stem, p.read_bytes(), mask
    for seed in [TUNE_SEED] if seeds is None else seeds:
        for stem, i, kind in composites("tune", n_composites, seed):
            c = make_composite(stem, seed, i, kind)
            yield c.name, c.data, c.gt
    for seed in open_seeds or []:
        for stem, i in see_through_set("tune", n_openings, seed):
            o = make_see_through(stem, seed, i)
            yield f"o{seed}-{i:02d}-{stem}", o.data, o.gt


def product_group(name: str) -> str:
    """The GT product a tuning photo shows (a composite ``c{seed}-{i}-{kind}-{stem}`` and a see-through
    photo ``o{seed}-{i}-{stem}`` show ``stem``), grouped as the folds group them
    (:func:`validation_sets.composites._group`): photos of one product share a fold in :func:`grouped_folds`."""
    from validation_sets.composites import _group

    if re.match(r"^c\d+-\d+-[a-z]+-", name):
        stem = name.split("-", 3)[3]
    elif re.match(r"^o\d+-\d+-", name):
        stem = name.split("-", 2)[2]
    else:
        stem = name
    return _group(stem)


def grouped_folds(rows: list[dict], folds: int = 5) -> np.ndarray:
    """Fold index (int per row) of a grouped cross-validation: the product groups (:func:`product_group`), sorted
    by name, are dealt to ``folds`` folds round robin, so the photos of one product share a fold."""
    groups = [product_group(str(r["name"])) for r in rows]
    names = sorted(set(groups))
    return np.array([names.index(g) % folds for g in groups])


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 0.1, iters: int = 50) -> np.ndarray:
    """L2-regularised logistic regression by Newton's method (IRLS). ``x`` (N, F) with a bias column."""
    w = np.zeros(x.shape[1])
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-x @ w))
        g = x.T @ (p - y) + l2 * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, g)
    return w


def main(argv: list[str] | None = None, observe: Any = None) -> int:
    """Collect the signals on the tuning data, fit the confidence, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--composites", type=int, default=30, help="tuning composites per seed")
    parser.add_argument("--seeds", type=int, nargs="*", default=None, help="composite seeds (default: 1)")
    parser.add_argument(
        "--open-seeds", type=int, nargs="*", default=None, help="tuning see-through seeds (default: none)"
    )
    parser.add_argument("--openings", type=int, default=24, help="tuning see-through photos per seed")
    parser.add_argument("--no-gt", action="store_true", help="leave the GT tuning fold out")
    parser.add_argument("--out", type=Path, default=None, help="save the per-photo signals (JSON)")
    parser.add_argument(
        "--load",
        type=Path,
        nargs="*",
        default=None,
        help="reuse signals saved with --out (one or more files)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=0.04,
        help="largest share of results at IoU >= 0.95 flagged (threshold)",
    )
    parser.add_argument("--l2", type=float, default=0.3, help="L2 penalty of the logistic fit")
    args = parser.parse_args(argv)
    require_photos()
    from rembg import remove

    from retouch import RetouchOptions, get_session, retouch
    from retouch import metrics as M

    if args.load:
        rows = [r for path in args.load for r in json.loads(path.read_text())]
    else:
        session = get_session("u2netp")
        rows = []
        inputs = tuning_inputs(args.composites, args.seeds, args.open_seeds, args.openings, not args.no_gt)
        for name, data, gt in inputs:
            base = np.asarray(
                Image.open(io.BytesIO(remove(data, session=session, only_mask=True))).convert("L")
            )
            res = retouch(data, RetouchOptions(preset="amazon", shadow=False), observe=observe)
            seg = res.details["segmentation"]
            r = {
                "name": name,
                "iou": M.iou(res.matte, gt),
                "iou_rembg": M.iou(base, gt),
                "bf": M.boundary_f(res.matte, gt),
                "bf_rembg": M.boundary_f(base, gt),
                "source": seg["source"],
                "signals": seg["signals"],
                "confidence": res.details["confidence"],
                "needs_review": res.details["needs_review"],
            }
            rows.append(r)
            if args.out:  # after every photo: a long collection interrupted keeps what it measured
                args.out.write_text(json.dumps(rows, indent=1))
            print(
                f"{name}: IoU {r['iou_rembg']:.3f} -> {r['iou']:.3f} BF {r['bf_rembg']:.3f} -> {r['bf']:.3f} "
                f"{seg['source']} " + " ".join(f"{k}={v:.2f}" for k, v in seg["signals"].items()),
                flush=True,
            )
    report(rows, budget=args.budget, l2=args.l2)
    return 0


def features(rows: list[dict]) -> np.ndarray:
    """(N, 1 + F) design matrix of :data:`FEATURES` (bias column first), a missing signal read as 0 as
    :func:`retouch.pick.confidence` reads it."""
    out = np.ones((len(rows), 1 + len(FEATURES)))
    for j, f in enumerate(FEATURES, start=1):
        out[:, j] = [float(r["signals"].get(f, 0.0)) for r in rows]
    return out


def with_weights(w: np.ndarray, review_below: float, base: PickConfig) -> PickConfig:
    """``base`` with confidence weights ``w`` (bias first, then :data:`FEATURES`) and ``review_below``."""
    weights = {"bias": round(float(w[0]), 3)} | {
        f: round(float(v), 3) for f, v in zip(FEATURES, w[1:], strict=True)
    }
    return dataclasses.replace(base, confidence_weights=MappingProxyType(weights), review_below=review_below)


def flags(rows: list[dict], config: PickConfig) -> np.ndarray:
    """bool per row: :func:`retouch.pick.confidence` flags it with ``config`` (the product code itself)."""
    from retouch.pick import confidence

    return np.array([confidence(r["signals"], config=config)[1] for r in rows])


def threshold_for(
    conf: np.ndarray, capped: np.ndarray, good: np.ndarray, budget: float, floor: float
) -> float:
    """The highest review threshold (a confidence in (0, 1], 3 decimals) at which at most ``budget`` of the
    ``good`` rows are flagged (``capped`` rows are flagged whatever the threshold), and never at or below
    ``floor`` (:attr:`~retouch.pick.PickConfig.fallback_confidence`: the capped rows stay flagged even when they
    alone exceed the budget)."""
    best = round(floor + 0.001, 3)
    allowed = budget * int(good.sum())
    for t in np.unique(np.round(conf, 3)):
        t_next = round(float(t) + 0.001, 3)  # flags every confidence <= t
        if t_next > best and int(((capped | (conf < t_next)) & good).sum()) <= allowed:
            best = t_next
    return best


def oof_flags(rows: list[dict], base: PickConfig, budget: float, l2: float, folds: int = 5) -> np.ndarray:
    """Flags of the refit scored out-of-fold (photos of one product in one fold, :func:`grouped_folds`): for
    each fold, weights fitted on the other folds (:func:`fit_target`) and a threshold chosen on the other
    folds' own out-of-fold confidences (:func:`threshold_for`), so neither was chosen on the photos scored."""
    k = grouped_folds(rows, folds)
    iou = np.array([r["iou"] for r in rows])
    out = np.zeros(len(rows), bool)
    for f in range(folds):
        test, train = k == f, k != f
        inner = np.zeros(len(rows))
        for f2 in range(folds):
            part = k == f2
            if f2 == f or not part.any():
                continue
            cfg = with_weights(fit_target(rows, train & ~part, l2), 1.0, base)
            inner[part] = [_conf(r, cfg) for r in np.array(rows, dtype=object)[part]]
        cfg = with_weights(fit_target(rows, train, l2), 1.0, base)
        capped = np.array([_capped(r, cfg) for r in rows])
        t = threshold_for(inner[train], capped[train], (iou >= GOOD)[train], budget, base.fallback_confidence)
        cfg = with_weights(fit_target(rows, train, l2), t, base)
        out[test] = flags([r for r, m in zip(rows, test, strict=True) if m], cfg)
    return out


def _conf(row: dict, config: PickConfig) -> float:
    from retouch.pick import confidence

    return confidence(row["signals"], config=config)[0]


def _capped(row: dict, config: PickConfig) -> bool:
    """Whether a hard cap of :func:`retouch.pick.confidence` flags the row whatever its weights."""
    from retouch.pick import confidence

    no_model = dataclasses.replace(
        config, confidence_weights=MappingProxyType({"bias": 30.0}), review_below=0.99
    )
    return confidence(row["signals"], config=no_model)[1]


def fit_target(rows: list[dict], use: np.ndarray, l2: float) -> np.ndarray:
    """Logistic weights (bias first, then :data:`FEATURES`) fitted on the rows ``use`` at either end: target
    1 for IoU >= :data:`GOOD`, 0 for IoU < :data:`POOR`; rows between are left out."""
    iou = np.array([r["iou"] for r in rows])
    ends = use & ((iou < POOR) | (iou >= GOOD))
    x = features(rows)
    return fit_logistic(x[ends], (iou[ends] >= GOOD).astype(float), l2=l2)


def kind_of(name: str) -> str:
    """``"see-through"``, ``"composite"`` or ``"GT"`` from a tuning photo's name."""
    if re.match(r"^o\d+-", name):
        return "see-through"
    return "composite" if re.match(r"^c\d+-", name) else "GT"


def report(rows: list[dict], *, budget: float, l2: float) -> None:
    """Print the refit weights and threshold, and the flag table: shipped configuration vs the refit in-sample
    and out-of-fold, per kind of tuning photo and all together."""
    from retouch.pick import SHIPPED_PICK

    iou = np.array([r["iou"] for r in rows])
    base = np.array([r["iou_rembg"] for r in rows])
    print(
        f"\n{len(rows)} photos; mean IoU rembg {base.mean():.4f} ours {iou.mean():.4f}; "
        f"worse by > 0.05: {(iou < base - 0.05).sum()}"
    )
    every = np.ones(len(rows), bool)
    w = fit_target(rows, every, l2)
    probe = with_weights(w, 1.0, SHIPPED_PICK)
    capped = np.array([_capped(r, probe) for r in rows])
    oof_all = np.zeros(len(rows))
    k = grouped_folds(rows)
    for f in range(5):
        part = k == f
        if part.any():
            cfg = with_weights(fit_target(rows, ~part, l2), 1.0, SHIPPED_PICK)
            oof_all[part] = [_conf(r, cfg) for r, m in zip(rows, part, strict=True) if m]
    t = threshold_for(oof_all, capped, iou >= GOOD, budget, SHIPPED_PICK.fallback_confidence)
    refit = with_weights(w, t, SHIPPED_PICK)
    print(
        f"refit (target IoU >= {GOOD} vs < {POOR}, L2 {l2}): weights {json.dumps(dict(refit.confidence_weights))}"
    )
    print(
        f"review_below {t} (out-of-fold confidences: at most {budget:.0%} of the results at IoU >= {GOOD} flagged)"
    )
    variants = {
        "as collected (the code that ran the photos)": np.array([bool(r["needs_review"]) for r in rows]),
        "retouch.pick.SHIPPED_PICK": flags(rows, SHIPPED_PICK),
        "refit, in-sample": flags(rows, refit),
        "refit, out-of-fold (weights and threshold)": oof_flags(rows, SHIPPED_PICK, budget, l2),
    }
    kinds = np.array([kind_of(str(r["name"])) for r in rows])
    poor, good = iou < POOR, iou >= GOOD
    print(f"\n| flags | kind | IoU < {POOR} flagged | IoU >= {GOOD} flagged |")
    print("|---|---|---|---|")
    for label, fl in variants.items():
        for kind in ("GT", "composite", "see-through", "all"):
            m = every if kind == "all" else kinds == kind
            print(
                f"| {label} | {kind} | {int((fl & poor & m).sum())} / {int((poor & m).sum())} "
                f"| {int((fl & good & m).sum())} / {int((good & m).sum())} |"
            )


if __name__ == "__main__":
    sys.exit(main())
