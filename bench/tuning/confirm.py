"""Confirm a change to the product pick on photos nobody has tuned on, by a rule written beforehand.

A change (a threshold, a switch, the int8 first pass) is built and tuned on tuning data only; whether it
ships is decided by one run of this tool on a *fresh* set (see ``docs/decisions/README.md``): the rule is
committed before the run, the seed is spent by it. The same photos go through the whole pipeline twice,
once per configuration (:class:`retouch.pick.PickConfig` built with ``dataclasses.replace`` from
:data:`retouch.pick.SHIPPED_PICK`, passed as ``retouch(..., pick_config=...)``), and plain rembg's mask is
the baseline.

Usage (the wider zoom's confirmation, ~8 min on 2 cores)::

    python -m bench.tuning.confirm --set composites --fold holdout --seed 16 --n 60 \\
        --before zoom_area=0.10 --after zoom_area=0.15 \\
        --rule "after_mean >= before_mean and after_below <= before_below"

``--before`` / ``--after`` take ``FIELD=VALUE`` pairs: any :class:`~retouch.pick.PickConfig` field
(numbers, ``true`` / ``false``, ``6,24`` for a pair), or ``network_int8=0`` / ``1`` / ``auto`` (which copy
of u2netp runs the 256 px passes, :class:`retouch.models.NetworkConfig`). With none, that side is the
shipped configuration.

The rule is a Python expression over these figures (nothing else is in scope), for ``before_`` and
``after_``: ``_mean`` (mean IoU against the ground truth), ``_below`` (photos more than 0.05 IoU below
plain rembg), ``_bad`` / ``_good`` (photos with IoU < 0.9 / >= 0.9), ``_bad_flagged`` / ``_good_flagged``
(those sent for review), ``_evaluations`` (network evaluations); and ``rembg_mean``, ``n``, ``changed``
(photos whose IoU differs), ``gain_sum`` (sum of after - before IoU), ``worst_change`` (lowest after -
before IoU, 0 when none is lower). It prints every photo, the figures and whether the rule holds; the
exit code is 0 when it holds, 1 when it does not.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench._common import GT, list_images, require_photos, setup
else:
    from .._common import GT, list_images, require_photos, setup

setup()

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from validation_sets.seeds import used  # noqa: E402

#: IoU below plain rembg's by more than this counts as a loss (``_below``).
BELOW_REMBG = 0.05


def parse_change(pairs: list[str]) -> tuple[dict[str, Any], str | None]:
    """``FIELD=VALUE`` pairs -> (:class:`~retouch.pick.PickConfig` changes, ``network_int8`` or ``None``).

    Each value is read as the type of the field's shipped value.

    Raises:
        SystemExit: an unknown field, a malformed pair or a value of the wrong type.
    """
    from retouch.pick import SHIPPED_PICK

    fields = {f.name for f in dataclasses.fields(SHIPPED_PICK)}
    changes: dict[str, Any] = {}
    int8: str | None = None
    for pair in pairs:
        name, sep, text = pair.partition("=")
        name, text = name.strip(), text.strip()
        if not sep or not name:
            raise SystemExit(f"atteso CAMPO=VALORE, non {pair!r}")
        if name == "network_int8":
            int8 = text
            continue
        if name not in fields:
            raise SystemExit(
                f"campo sconosciuto: {name!r} (campi: {', '.join(sorted(fields))}, network_int8)"
            )
        changes[name] = _value(name, text, getattr(SHIPPED_PICK, name))
    return changes, int8


def _value(name: str, text: str, shipped: Any) -> Any:
    """``text`` read as the type of ``shipped`` (bool, int, float or a tuple of ints)."""
    try:
        if isinstance(shipped, bool):
            if text.lower() not in ("true", "false", "1", "0", "on", "off"):
                raise ValueError(text)
            return text.lower() in ("true", "1", "on")
        if isinstance(shipped, int):
            return int(text)
        if isinstance(shipped, float):
            return float(text)
        if isinstance(shipped, tuple):
            return tuple(int(v) for v in text.split(","))
    except ValueError:
        raise SystemExit(f"valore non valido per {name}: {text!r}") from None
    raise SystemExit(f"{name} non si cambia da riga di comando")


def photos(kind: str, fold: str, seed: int | None, n: int) -> Iterator[tuple[str, bytes, np.ndarray]]:
    """(name, file bytes, uint8 GT mask: 255 product, 0 background, 128 unlabelled) of the chosen set.

    ``composites`` and ``see-through``: ``n`` generated photos of ``fold``'s products with ``seed``
    (:mod:`validation_sets.composites`, :mod:`validation_sets.see_through`); ``gt``: the shared GT photos of ``fold``.
    """
    if kind == "gt":
        from validation_sets.composites import gt_folds

        stems = set(gt_folds()[fold])
        for path in list_images(GT / "images"):
            if path.stem in stems:
                gt = np.asarray(Image.open(GT / "masks" / f"{path.stem}.png").convert("L"))
                yield path.stem, path.read_bytes(), gt
        return
    if kind == "composites":
        from validation_sets.composites import composites, make_composite

        for stem, i, k in composites(fold, n, seed):
            c = make_composite(stem, seed if seed is not None else 0, i, k)
            yield c.name, c.data, c.gt
        return
    from validation_sets.see_through import make_see_through, see_through_set

    for stem, i in see_through_set(fold, n, seed):
        s = make_see_through(stem, seed if seed is not None else 0, i)
        yield s.name, s.data, s.gt


def figures(rows: list[tuple[float, float, float, bool, bool, int, int]]) -> dict[str, float]:
    """The rule's figures from per-photo rows (rembg IoU, before IoU, after IoU, before flagged, after
    flagged, before evaluations, after evaluations); see the module docstring."""
    arr = np.array([r[:3] for r in rows], dtype=np.float64).reshape(-1, 3)
    out: dict[str, float] = {"n": float(len(rows)), "rembg_mean": float(arr[:, 0].mean()) if rows else 0.0}
    for k, side in ((1, "before"), (2, "after")):
        iou = arr[:, k]
        flagged = np.array([r[2 + k] for r in rows], dtype=bool)
        bad = iou < 0.9
        out[f"{side}_mean"] = float(iou.mean()) if rows else 0.0
        out[f"{side}_below"] = float((iou < arr[:, 0] - BELOW_REMBG).sum())
        out[f"{side}_bad"], out[f"{side}_good"] = float(bad.sum()), float((~bad).sum())
        out[f"{side}_bad_flagged"] = float((bad & flagged).sum())
        out[f"{side}_good_flagged"] = float((~bad & flagged).sum())
        out[f"{side}_evaluations"] = float(sum(r[4 + k] for r in rows))
    change = arr[:, 2] - arr[:, 1]
    out["changed"] = float((change != 0).sum())
    out["gain_sum"] = float(change.sum())
    out["worst_change"] = float(min(0.0, change.min())) if rows else 0.0
    return out


def holds(rule: str, values: dict[str, float]) -> bool:
    """Whether ``rule`` (a Python expression over ``values``' names, nothing else in scope) is true.

    Raises:
        SystemExit: the rule names something that is not a figure, or is not an expression.
    """
    try:
        code = compile(rule, "<rule>", "eval")
    except SyntaxError as exc:
        raise SystemExit(f"regola non valida: {exc.msg}") from None
    unknown = set(code.co_names) - set(values)
    if unknown:
        raise SystemExit(f"la regola usa nomi sconosciuti: {', '.join(sorted(unknown))}")
    return bool(eval(code, {"__builtins__": {}}, dict(values)))  # noqa: S307 - names checked above


def main(argv: list[str] | None = None) -> int:
    """Run both configurations on the set, print the figures and the rule's verdict."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--set", dest="kind", choices=("composites", "see-through", "gt"), default="composites"
    )
    parser.add_argument("--fold", choices=("tune", "holdout"), default="holdout", help="whose products")
    parser.add_argument("--seed", type=int, default=None, help="generator seed (a fresh one: 16 or above)")
    parser.add_argument("--n", type=int, default=60, help="generated photos")
    parser.add_argument("--before", nargs="*", default=[], metavar="FIELD=VALUE", help="without the change")
    parser.add_argument("--after", nargs="*", default=[], metavar="FIELD=VALUE", help="with the change")
    parser.add_argument("--rule", required=True, help="expression over the figures, written beforehand")
    args = parser.parse_args(argv)
    if args.kind != "gt" and args.seed is None:
        raise SystemExit("--seed è obbligatorio per le foto generate")
    if args.kind != "gt" and args.fold == "holdout" and args.seed in used(args.kind):
        raise SystemExit(f"il seed {args.seed} è di taratura o di report, non nuovo")
    configs = []
    for pairs in (args.before, args.after):
        changes, int8 = parse_change(pairs)
        configs.append((changes, int8))
    holds(
        args.rule, dict.fromkeys(figures([(0.0, 0.0, 0.0, False, False, 0, 0)]), 0.0)
    )  # names checked first
    require_photos()
    from rembg import remove

    from retouch import RetouchOptions, get_session, retouch
    from retouch import metrics as M
    from retouch.models import NetworkConfig
    from retouch.pick import SHIPPED_PICK

    runs = [
        (dataclasses.replace(SHIPPED_PICK, **changes), NetworkConfig(int8=int8)) for changes, int8 in configs
    ]
    session = get_session("u2netp")
    opts = RetouchOptions(preset="amazon", shadow=False)
    rows: list[tuple[float, float, float, bool, bool, int, int]] = []
    for name, data, gt in photos(args.kind, args.fold, args.seed, args.n):
        base = np.asarray(Image.open(io.BytesIO(remove(data, session=session, only_mask=True))).convert("L"))
        results = [retouch(data, opts, pick_config=config, network=network) for config, network in runs]
        ious = [M.iou(r.matte, gt) for r in results]
        flagged = [bool(r.details["needs_review"]) for r in results]
        evals = [int(r.details["segmentation"]["network_evaluations"]) for r in results]
        rows.append((M.iou(base, gt), ious[0], ious[1], flagged[0], flagged[1], evals[0], evals[1]))
        mark = " changed" if ious[0] != ious[1] else ""
        print(
            f"{name}: rembg {rows[-1][0]:.3f} before {ious[0]:.3f} after {ious[1]:.3f} "
            f"flagged {flagged[0]}/{flagged[1]}{mark}",
            flush=True,
        )
    values = figures(rows)
    print(f"\nbefore: {' '.join(args.before) or 'shipped'} | after: {' '.join(args.after) or 'shipped'}")
    for key, value in values.items():
        print(f"{key} = {value:.4f}" if key.endswith(("mean", "sum", "change")) else f"{key} = {value:g}")
    verdict = holds(args.rule, values)
    print(f"rule: {args.rule}\n{'holds' if verdict else 'does not hold'}")
    return 0 if verdict else 1


if __name__ == "__main__":
    sys.exit(main())
