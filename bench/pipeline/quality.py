"""Matte and output quality: our pipeline vs plain rembg, on data we did not tune on, then on data we did.

The sets, each measured in the same run for both tools (``validation_sets/composites.py`` explains the split),
held out by *recipe* first:

0. **cross-recipe held-out** (the headline): ``cut-holdout``, products of the held-out fold with openings
   cut from other products' real masks on real scenes, and ``staged-holdout``, products of the held-out fold
   staged in real scenes (:mod:`validation_sets.cross_recipes`): recipes that share no drawing code with the
   generators the pipeline was tuned on, and on which nothing was ever tuned;
1. **GT held-out fold**: the GT photos of the held-out fold (never used to choose the pipeline's tuned parameters);
2. **held-out composites**: GT products of the held-out fold pasted onto generated backgrounds (busy,
   textured, out of focus, a second large blurred salient object; 2000-4000 px), seed
   :data:`validation_sets.composites.HOLDOUT_SEED`;
3. **GT tuning fold** and 4. **tuning composites** (seed :data:`validation_sets.composites.TUNE_SEED`), the data
   the parameters were chosen on, printed after the held-out figures.

Per photo: IoU, alpha MAE and boundary F-measure (DAVIS, tolerance 0.008 x diagonal) of our matte
(``RetouchResult.matte``) and of plain rembg (``rembg.remove(data, session, only_mask=True)``: u2netp at
its own 320 px); GT pixels equal to 128 (unlabelled band) are left out. On our white-background output
(preset ``amazon``, no shadow; the GT is mapped onto the output canvas with ``details["framing"]``): the
halo score (``retouch.metrics.halo_score``), the share of pure-white background pixels, the minimum
corner value of the JPEG; and the halo of a naive composite of rembg's mask on white.

``--gt-dir DIR`` adds a fifth set, printed first: any folder of real photos with hand-made masks
(``DIR/images/NAME.*`` and ``DIR/masks/NAME.png``, same conventions as ``../shared/photos/gt``) that was
never used to choose a parameter, e.g. the Carvana studio views that ``validation_sets/carvana_views.py`` extracts
from a public repository (other cars than the shared photos' held-out fold).

Per set it prints the means, the number of photos more than 0.05 IoU below rembg, the review flags
(``processing_details.needs_review``) against the truth (IoU < 0.9 = bad), and the worst photos side by side.

The run first prints which network path the 256 px passes take (int8 or fp32, and why); ``--int8 0|1|auto``
chooses it for the run (default: the process's ``RETOUCH_NETWORK_INT8``).

Usage: ``python -m bench.pipeline.quality [--composites N] [--tune-composites N] [--cross N] [--sets ...]
[--gt-dir DIR] [--int8 0|1|auto] [--per-photo] [--limit N] [--only NAME...] [--signals-out FILE]``.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench._common import GT, print_table, require_photos, setup
else:
    from .._common import GT, print_table, require_photos, setup

setup()

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from validation_sets.photos import Loader, folder_items  # noqa: E402

#: Default number of held-out / tuning composites (about 4-5 s each on this machine, both tools).
HOLDOUT_COMPOSITES = 24
TUNE_COMPOSITES = 12
#: Default number of held-out / tuning see-through photos (``validation_sets/see_through.py``).
HOLDOUT_OPENINGS = 24
TUNE_OPENINGS = 12
#: Default number of photos of each cross-recipe set (``validation_sets/cross_recipes.py``).
CROSS_PHOTOS = 16
SETS = (
    "cut-holdout",
    "staged-holdout",
    "gt-holdout",
    "comp-holdout",
    "open-holdout",
    "gt-tune",
    "comp-tune",
    "open-tune",
)
TITLES = {
    "cut-holdout": "cross-recipe held-out see-through: openings cut from real masks, real scenes (never tuned on)",
    "staged-holdout": "cross-recipe held-out composites: products staged in real scenes (never tuned on)",
    "gt-holdout": "GT held-out fold (not tuned on)",
    "comp-holdout": "held-out composites (not tuned on)",
    "open-holdout": "held-out see-through photos (not tuned on)",
    "gt-tune": "GT tuning fold (tuned on)",
    "comp-tune": "tuning composites (tuned on)",
    "open-tune": "tuning see-through photos (tuned on)",
}
COLUMNS = [
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
    "conf",
    "review",
    "open kept rembg",
    "open kept ours",
]


def _inputs(
    set_name: str,
    n_composites: int,
    only: set[str] | None,
    limit: int | None,
    gt_dir: Path | None = None,
    comp_seed: int | None = None,
    open_seed: int | None = None,
    cross_seed: int | None = None,
) -> Iterator[tuple[str, Loader]]:
    """(name, loader) pairs of one set; the loader returns (file bytes, GT uint8 mask, bool opening mask
    of a see-through photo or ``None``).

    ``set_name`` ``"folder"`` reads ``gt_dir`` (:func:`validation_sets.photos.folder_items`). ``comp_seed`` / ``open_seed``
    replace the fold's default seed of the composites / see-through photos (products stay the fold's);
    ``cross_seed`` the cross-recipe sets' reporting seed."""
    from validation_sets.composites import HOLDOUT_SEED, TUNE_SEED, composites, gt_folds, make_composite

    fold = "holdout" if set_name.endswith("holdout") else "tune"
    from validation_sets.see_through import HOLDOUT_SEED as OPEN_HOLDOUT_SEED
    from validation_sets.see_through import TUNE_SEED as OPEN_TUNE_SEED
    from validation_sets.see_through import make_see_through, see_through_set

    items: list[tuple[str, Loader]] = []
    if set_name in ("cut-holdout", "staged-holdout"):
        items = cross_items(set_name, n_composites, cross_seed)
    elif set_name == "folder":
        if gt_dir is None:
            raise ValueError("set 'folder' needs gt_dir")
        items = folder_items(gt_dir)
    elif set_name.startswith("gt"):
        stems = set(gt_folds()[fold])
        items = [item for item in folder_items(GT) if item[0] in stems]
    elif set_name.startswith("open"):
        oseed = (
            open_seed
            if open_seed is not None
            else (OPEN_HOLDOUT_SEED if fold == "holdout" else OPEN_TUNE_SEED)
        )
        for stem, i in see_through_set(fold, n_composites, oseed):

            def make_open(stem: str = stem, i: int = i) -> tuple[bytes, np.ndarray, np.ndarray | None]:
                c = make_see_through(stem, oseed, i)
                return c.data, c.gt, c.opening

            items.append((f"o{oseed}-{i:02d}-{stem}", make_open))
    else:
        seed = comp_seed if comp_seed is not None else (HOLDOUT_SEED if fold == "holdout" else TUNE_SEED)
        for stem, i, kind in composites(fold, n_composites, seed):

            def make(
                stem: str = stem, i: int = i, kind: str | None = kind
            ) -> tuple[bytes, np.ndarray, np.ndarray | None]:
                c = make_composite(stem, seed, i, kind)
                return c.data, c.gt, None

            items.append((f"c{seed}-{i:02d}-{kind or 'drawn'}-{stem}", make))
    if only:
        items = [it for it in items if it[0] in only or any(o in it[0] for o in only)]
    yield from items[:limit] if limit else items


def cross_items(set_name: str, n: int, seed: int | None = None) -> list[tuple[str, Loader]]:
    """(name, loader) pairs of a cross-recipe set (``"cut-holdout"`` or ``"staged-holdout"``): ``n`` photos of
    held-out-fold products, seed ``seed`` (default: the recipe's reporting seed)."""
    from validation_sets.cross_recipes import (
        CUT_HOLDOUT_SEED,
        STAGED_HOLDOUT_SEED,
        cross_set,
        make_cut_through,
        make_staged,
    )

    cut = set_name == "cut-holdout"
    s = seed if seed is not None else (CUT_HOLDOUT_SEED if cut else STAGED_HOLDOUT_SEED)
    make = make_cut_through if cut else make_staged
    items: list[tuple[str, Loader]] = []
    for stem, i in cross_set("holdout", n, s):

        def load(stem: str = stem, i: int = i) -> tuple[bytes, np.ndarray, np.ndarray | None]:
            p = make(stem, s, i)
            return p.data, p.gt, p.opening

        items.append((f"{'x' if cut else 's'}{s}-{i:02d}-{stem}", load))
    return items


def network_path(int8: str | None = None) -> str:
    """:func:`retouch.models.network_path` with ``RETOUCH_NETWORK_INT8`` = ``int8`` (``None``: the
    process's): which copy of u2netp the 256 px passes run, and why."""
    from retouch.models import NetworkConfig
    from retouch.models import network_path as describe

    return describe(NetworkConfig(int8=int8))


def measure(
    data: bytes,
    gt: np.ndarray,
    session: object,
    model: str,
    opening: np.ndarray | None = None,
    network: object | None = None,
) -> tuple[list[float], float, float, dict[str, float]]:
    """Both tools on one photo: (row of :data:`COLUMNS` values, rembg seconds, our seconds, the pick's signals
    from ``processing_details``, empty when the photo brought its own transparency).

    ``opening``: bool (H, W) mask of the background seen through a see-through photo's opening; the
    last two columns are the shares of it that each tool keeps as product (alpha >= 128), NaN without it.
    ``network``: a :class:`retouch.models.NetworkConfig` for our pipeline (default: the process's)."""
    from rembg import remove

    from retouch import RetouchOptions, retouch
    from retouch import metrics as M
    from retouch.layout import Placement, resample_region
    from retouch.models import DEFAULT_NETWORK, NetworkConfig

    t = time.perf_counter()
    base = np.asarray(Image.open(io.BytesIO(remove(data, session=session, only_mask=True))).convert("L"))
    t_base = time.perf_counter() - t
    t = time.perf_counter()
    net = network if isinstance(network, NetworkConfig) else DEFAULT_NETWORK
    res = retouch(data, RetouchOptions(preset="amazon", shadow=False), model_name=model, network=net)
    t_ours = time.perf_counter() - t
    ours = res.matte
    if ours.shape != gt.shape or base.shape != gt.shape:
        raise ValueError(f"dimensioni diverse (gt {gt.shape}, ours {ours.shape}, rembg {base.shape})")
    out = np.asarray(Image.open(io.BytesIO(res.jpeg)).convert("RGB"))
    placement = Placement.from_details(res.details)
    gt_out = resample_region(gt, placement, fill=0)  # GT on the output canvas (for the halo)
    mid = (gt_out > 0) & (gt_out < 255)
    gt_out[mid] = np.where(gt_out[mid] >= 128, 255, 0)
    src = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))
    ab = base.astype(np.float32)[..., None] / 255.0
    naive = (src * ab + 255 * (1 - ab) + 0.5).astype(np.uint8) if src.shape[:2] == base.shape else out
    row = [
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
        float(res.details["confidence"]),
        float(bool(res.details["needs_review"])),
        _kept(base, opening),
        _kept(ours, opening),
    ]
    return row, t_base, t_ours, dict(res.details.get("segmentation", {}).get("signals", {}))


def _kept(matte: np.ndarray, opening: np.ndarray | None) -> float:
    """Share of the opening's pixels that ``matte`` (uint8) keeps as product (>= 128); NaN without one."""
    if opening is None or not opening.any():
        return float("nan")
    return float(np.count_nonzero(matte[opening] >= 128)) / float(np.count_nonzero(opening))


def report(title: str, names: list[str], acc: np.ndarray, per_photo: bool, worst: int = 6) -> None:
    """Print one set's summary, review-flag counts and worst photos (and every photo with ``per_photo``)."""
    n = len(names)
    mean = acc.mean(axis=0)
    below = acc[:, 1] < acc[:, 0] - 0.05
    bad = acc[:, 1] < 0.9
    flag = acc[:, 11] > 0.5
    poor = acc[:, 1] < 0.8
    good = acc[:, 1] >= 0.95
    opening_rows: list[list[object]] = []
    if not np.isnan(acc[:, 12]).all():
        kept = acc[~np.isnan(acc[:, 12])]
        opening_rows.append(
            ["share of opening pixels kept", float(kept[:, 12].mean()), float(kept[:, 13].mean()), "<= 0.25"]
        )
    print(f"\n## {title}: {n} photos\n")
    print_table(
        ["summary", "rembg", "ours", "target"],
        [
            [
                "mean IoU",
                float(mean[0]),
                float(mean[1]),
                "ours > rembg: " + ("OK" if mean[1] > mean[0] else "NO"),
            ],
            [
                "mean boundary F",
                float(mean[2]),
                float(mean[3]),
                "ours > rembg: " + ("OK" if mean[3] > mean[2] else "NO"),
            ],
            ["mean alpha MAE", float(mean[4]), float(mean[5]), "lower is better"],
            [
                "photos > 0.05 IoU below rembg",
                "",
                int(below.sum()),
                "0: " + ("OK" if not below.any() else "NO"),
            ],
            [
                "photos IoU better / worse",
                "",
                f"{int((acc[:, 1] > acc[:, 0] + 1e-4).sum())} / {int((acc[:, 1] < acc[:, 0] - 1e-4).sum())}",
                "",
            ],
            ["min IoU", float(acc[:, 0].min()), float(acc[:, 1].min()), ""],
            ["max halo (levels)", float(acc[:, 6].max()), float(acc[:, 7].max()), "< 30"],
            [
                "min bg purity / corner",
                "",
                f"{acc[:, 8].min():.4f} / {int(acc[:, 9].min())}",
                ">= 0.99 / 255",
            ],
            ["IoU < 0.9 flagged for review", "", f"{int((bad & flag).sum())} / {int(bad.sum())}", "all"],
            ["IoU >= 0.9 flagged by mistake", "", f"{int((~bad & flag).sum())} / {int((~bad).sum())}", "few"],
            [
                "IoU < 0.8 flagged for review",
                "",
                f"{int((poor & flag).sum())} / {int(poor.sum())}",
                ">= 90 %",
            ],
            [
                "IoU >= 0.95 flagged by mistake",
                "",
                f"{int((good & flag).sum())} / {int(good.sum())}",
                "<= 10 %",
            ],
            *opening_rows,
        ],
        floatfmt=".4f",
    )
    order = np.argsort(acc[:, 1] - acc[:, 0])[:worst]  # worst against rembg first
    print(f"\nWorst {len(order)} against rembg (IoU ours - rembg):\n")
    rows = [[names[i], *[acc[i, j] for j in (0, 1, 2, 3, 10)], "yes" if acc[i, 11] else "no"] for i in order]
    print_table(["photo", "IoU rembg", "IoU ours", "BF rembg", "BF ours", "conf", "review"], rows)
    if per_photo:
        print()
        print_table(["photo", *COLUMNS], [[nm, *r.tolist()] for nm, r in zip(names, acc, strict=True)])


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the tables; returns 0 (figures are reported, not asserted)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--composites", type=int, default=HOLDOUT_COMPOSITES, help="held-out composites")
    parser.add_argument("--tune-composites", type=int, default=TUNE_COMPOSITES, help="tuning composites")
    parser.add_argument("--openings", type=int, default=HOLDOUT_OPENINGS, help="held-out see-through photos")
    parser.add_argument("--tune-openings", type=int, default=TUNE_OPENINGS, help="tuning see-through photos")
    parser.add_argument("--cross", type=int, default=CROSS_PHOTOS, help="photos of each cross-recipe set")
    parser.add_argument(
        "--int8",
        choices=("auto", "0", "1"),
        default=None,
        help="network path (default: RETOUCH_NETWORK_INT8)",
    )
    parser.add_argument("--sets", nargs="*", default=list(SETS), choices=SETS)
    parser.add_argument("--per-photo", action="store_true", help="also print every photo's row")
    parser.add_argument("--limit", type=int, default=None, help="only the first N photos of each set")
    parser.add_argument("--model", default="u2netp")
    parser.add_argument(
        "--comp-seed", type=int, default=None, help="seed of the composites (default: the fold's)"
    )
    parser.add_argument(
        "--open-seed", type=int, default=None, help="seed of the see-through photos (default: the fold's)"
    )
    parser.add_argument(
        "--cross-seed",
        type=int,
        default=None,
        help="seed of the cross-recipe sets (default: the reporting seed)",
    )
    parser.add_argument("--only", nargs="*", default=None, help="photo names (or parts of them)")
    parser.add_argument(
        "--signals-out",
        type=Path,
        default=None,
        help="save every photo's set, name, IoU, confidence, review flag and signals (JSON), so other review "
        "rules can be scored on the same run",
    )
    parser.add_argument(
        "--gt-dir",
        type=Path,
        default=None,
        help="also measure this folder of real photos never tuned on (images/ + masks/), printed first",
    )
    args = parser.parse_args(argv)
    require_photos()
    if args.gt_dir is not None and not (args.gt_dir / "images").is_dir():
        parser.error(f"--gt-dir {args.gt_dir}: no images/ folder there")

    from retouch import get_session
    from retouch.models import NetworkConfig

    network = NetworkConfig(int8=args.int8)
    print(f"network path: {network_path(args.int8)}; rembg {args.model} at 320 px in the same run")
    session = get_session(args.model)
    only = set(args.only) if args.only else None
    t_all = time.perf_counter()
    sets = (["folder"] if args.gt_dir is not None else []) + list(args.sets)
    recorded: list[dict[str, object]] = []
    for set_name in sets:
        n_comp = {
            "cut-holdout": args.cross,
            "staged-holdout": args.cross,
            "comp-holdout": args.composites,
            "open-holdout": args.openings,
            "open-tune": args.tune_openings,
        }.get(set_name, args.tune_composites)
        names: list[str] = []
        acc: list[list[float]] = []
        t_base = t_ours = 0.0
        for name, load in _inputs(
            set_name, n_comp, only, args.limit, args.gt_dir, args.comp_seed, args.open_seed, args.cross_seed
        ):
            data, gt, opening = load()
            try:
                row, tb, to, signals = measure(data, gt, session, args.model, opening, network)
            except ValueError as exc:
                print(f"{name}: {exc}, saltata", file=sys.stderr)
                continue
            t_base += tb
            t_ours += to
            names.append(name)
            acc.append(row)
            if args.signals_out is not None:
                recorded.append(
                    {
                        "set": set_name,
                        "name": name,
                        "iou": row[1],
                        "confidence": row[10],
                        "needs_review": bool(row[11]),
                        "signals": signals,
                    }
                )
                args.signals_out.write_text(json.dumps(recorded, indent=1))
            print(
                f"  {name}: IoU {row[0]:.3f} -> {row[1]:.3f}, BF {row[2]:.3f} -> {row[3]:.3f}, "
                f"conf {row[10]:.2f}{' REVIEW' if row[11] else ''}"
                + ("" if np.isnan(row[13]) else f", opening kept {row[12]:.2f} -> {row[13]:.2f}"),
                file=sys.stderr,
                flush=True,
            )
        title = f"{args.gt_dir} (never tuned on)" if set_name == "folder" else TITLES[set_name]
        if not acc:
            print(f"\n## {title}: no photos")
            continue
        report(title, names, np.array(acc), args.per_photo)
        print(f"\ntime per photo: rembg {t_base / len(acc):.2f} s, ours {t_ours / len(acc):.2f} s (same run)")
    print(
        f"\nmodel {args.model}; network path {network_path(args.int8)}; total {time.perf_counter() - t_all:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
