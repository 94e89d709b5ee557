"""What the wheels' rim search costs, and whether a cheaper search finds the same wheels.

Two steps, one process each:

* ``--cache DIR``: runs ``retouch(data, RetouchOptions())`` on a set of photos and saves, for every call of
  :func:`retouch.wheel_openings.wheel_sectors`, its inputs (matte, posterior of "background", typical
  pixels) as ``DIR/NAME-K.npz``; prints, per photo, the process time of the whole pipeline, of the wheel
  step and of the rim search inside it (``located_wheel``, on code that has it: the commits of the wheel
  openings' fast rim record; ``time.process_time``), and how many times the rim search ran. Sets: ``speed`` (``make bench-speed``'s photos: ``gt/images`` then
  ``nomask/``), ``gt-tune`` (the GT tuning fold), ``open:SEED`` (see-through tuning photos; ``--slots 2``
  keeps the wheel slots only), ``comp:SEED`` (tuning composites). Held-out seeds are refused.
* ``--compare DIR``: re-runs the wheel step on the cached inputs with the shipped config and with
  ``--ref key=value ...`` overrides (the reference search), and prints the photos whose cut differs
  (pixels only in one of the two) and the step's process time per photo for both.

Usage: ``python -m bench.tuning.wheel_rim_cost --cache /tmp/wc --sets speed open:21 --slots 2``, then
``python -m bench.tuning.wheel_rim_cost --compare /tmp/wc --new FIELD=VALUE --ref FIELD=VALUE`` (fields of
:class:`retouch.openings.OpeningsConfig`; on the record's code ``--ref wheel_gate_radii=0`` was the search
without its gate and ``--ref wheel_locate=False`` no rim search).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench._common import PHOTOS, list_images, setup
else:
    from .._common import PHOTOS, list_images, setup

setup()


def _photos(spec: str, slots: int | None) -> Iterator[tuple[str, Callable[[], bytes]]]:
    """``(name, loader)`` of one set named on the command line (see the module's docstring)."""
    from validation_sets.seeds import spent

    if spec == "speed":
        for p in [*list_images(PHOTOS / "gt" / "images"), *list_images(PHOTOS / "nomask")]:
            yield p.stem, p.read_bytes
    elif spec == "gt-tune":
        from validation_sets.composites import gt_folds

        files = {p.stem: p for p in list_images(PHOTOS / "gt" / "images")}
        for stem in gt_folds()["tune"]:
            yield stem, files[stem].read_bytes
    elif spec.startswith("open:"):
        from validation_sets.see_through import make_see_through, see_through_set

        seed = int(spec[5:])
        if seed in spent("see-through"):
            raise SystemExit(f"see-through seed {seed} is spent: not for tuning")
        for stem, i in see_through_set("tune", 24, seed):
            if slots is not None and i % 4 != slots:
                continue

            def see(stem: str = stem, i: int = i, seed: int = seed) -> bytes:
                return make_see_through(stem, seed, i).data

            yield f"o{seed}-{i:02d}", see
    elif spec.startswith("comp:"):
        from validation_sets.composites import composites, make_composite

        seed = int(spec[5:])
        if seed in spent("composites"):
            raise SystemExit(f"composites seed {seed} is spent: not for tuning")
        for stem, i, kind in composites("tune", 24, seed):

            def comp(stem: str = stem, i: int = i, kind: str | None = kind, seed: int = seed) -> bytes:
                return make_composite(stem, seed, i, kind).data

            yield f"c{seed}-{i:02d}", comp
    else:
        raise SystemExit(f"unknown set {spec!r}")


def cache(out: Path, sets: list[str], slots: int | None) -> None:
    """Run the pipeline on ``sets``, save the wheel step's inputs and print its cost per photo."""
    import retouch.openings as openings
    import retouch.wheel_openings as wo
    from retouch.pipeline import RetouchOptions, retouch

    out.mkdir(parents=True, exist_ok=True)
    clock: dict[str, float] = {"step": 0.0, "locate": 0.0, "locate_calls": 0}
    calls: list[dict[str, Any]] = []
    step, locate = wo.wheel_sectors, getattr(wo, "located_wheel", None)

    def timed_locate(*a: Any, **k: Any) -> Any:
        t = time.process_time()
        try:
            assert locate is not None
            return locate(*a, **k)
        finally:
            clock["locate"] += time.process_time() - t
            clock["locate_calls"] += 1

    def timed_step(fg: np.ndarray, post_bg: np.ndarray, typical_px: np.ndarray, cfg: Any) -> Any:
        calls.append({"fg": fg.copy(), "post_bg": post_bg.copy(), "typical_px": typical_px.copy()})
        t = time.process_time()
        try:
            return step(fg, post_bg, typical_px, cfg)
        finally:
            clock["step"] += time.process_time() - t

    if locate is not None:  # a branch with the rim search (the wheel openings' fast rim record)
        wo.__dict__["located_wheel"] = timed_locate
    openings.wheel_sectors = timed_step
    rows: list[tuple[str, float, float, float, float]] = []
    for spec in sets:
        for name, load in _photos(spec, slots):
            data = load()
            clock.update(step=0.0, locate=0.0, locate_calls=0)
            calls.clear()
            t = time.process_time()
            retouch(data, RetouchOptions())
            total = time.process_time() - t
            for k, c in enumerate(calls):
                np.savez_compressed(out / f"{name}-{k}.npz", **c)
            rows.append((name, total, clock["step"], clock["locate"], clock["locate_calls"]))
            print(
                f"{name:40s} total {total * 1e3:7.0f} ms  wheel step {clock['step'] * 1e3:6.1f} ms  "
                f"rim search {clock['locate'] * 1e3:6.1f} ms in {int(clock['locate_calls'])} calls",
                flush=True,
            )
    n = len(rows)
    if n:
        tot, stp, loc = (sum(float(r[i]) for r in rows) for i in (1, 2, 3))
        print(
            f"{n} photos: pipeline {tot / n * 1e3:.0f} ms a photo, wheel step {stp / n * 1e3:.1f} ms, rim search "
            f"{loc / n * 1e3:.1f} ms ({int(sum(r[4] for r in rows))} calls on {sum(1 for r in rows if r[4])} photos)"
        )


def _config(pairs: list[str]) -> Any:
    from retouch.openings import DEFAULT_OPENINGS

    kw: dict[str, Any] = {}
    fields = {f.name: f for f in dataclasses.fields(DEFAULT_OPENINGS)}
    for p in pairs:
        k, v = p.split("=", 1)
        cur = getattr(DEFAULT_OPENINGS, k)
        kw[k] = (v == "True") if isinstance(cur, bool) else type(cur)(v)
        assert k in fields
    return dataclasses.replace(DEFAULT_OPENINGS, **kw)


def compare(folder: Path, ref: list[str], new: list[str], repeat: int) -> None:
    """Re-run the wheel step on the cached inputs with the ``new`` and the ``ref`` configs."""
    from retouch.wheel_openings import wheel_sectors

    cfg_new, cfg_ref = _config(new), _config(ref)
    t_new = t_ref = 0.0
    n_photos: set[str] = set()
    diffs = 0
    for p in sorted(folder.glob("*.npz")):
        z = np.load(p)
        fg, post, typ = z["fg"], z["post_bg"], z["typical_px"]
        n_photos.add(p.stem.rsplit("-", 1)[0])
        outs = []
        for cfg in (cfg_new, cfg_ref):
            best = 1e9
            for _ in range(repeat):
                t = time.process_time()
                cut = wheel_sectors(fg, post, typ, cfg)
                best = min(best, time.process_time() - t)
            outs.append((cut, best))
        (a, ta), (b, tb) = outs
        t_new += ta
        t_ref += tb
        a = np.zeros_like(fg) if a is None else a
        b = np.zeros_like(fg) if b is None else b
        if not np.array_equal(a, b) or ta > 0.005 or tb > 0.005:
            only_new, only_ref = int((a & ~b).sum()), int((b & ~a).sum())
            diffs += int(only_new + only_ref > 0)
            print(
                f"{p.stem:40s} new {ta * 1e3:6.1f} ms ref {tb * 1e3:6.1f} ms  cut px new {int(a.sum()):6d} "
                f"ref {int(b.sum()):6d}  only new {only_new:5d} only ref {only_ref:5d}"
            )
    n = max(len(n_photos), 1)
    print(
        f"{len(n_photos)} photos: wheel step new {t_new / n * 1e3:.2f} ms a photo, ref {t_ref / n * 1e3:.2f} ms; "
        f"{diffs} calls with a different cut"
    )


def main(argv: list[str] | None = None) -> None:
    """Command line (see the module's docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path)
    ap.add_argument("--sets", nargs="*", default=["speed"])
    ap.add_argument("--slots", type=int, default=None, help="see-through: only indices with i % 4 == SLOTS")
    ap.add_argument("--compare", type=Path)
    ap.add_argument("--ref", nargs="*", default=[], help="OpeningsConfig overrides of the reference")
    ap.add_argument("--new", nargs="*", default=[], help="OpeningsConfig overrides of the new search")
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args(argv)
    if args.cache:
        cache(args.cache, args.sets, args.slots)
    if args.compare:
        compare(args.compare, args.ref, args.new, args.repeat)


if __name__ == "__main__":
    main()
