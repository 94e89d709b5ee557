"""Exactness and CPU profile of the whole pipeline on the speed photos, for exact speed-ups.

Runs ``retouch(data, RetouchOptions())`` on every photo of ``make bench-speed`` (``../shared/photos/gt/images``
then ``nomask/``), one at a time in this process, and does one or more of:

* ``--hash OUT.json``: writes, per photo, the SHA-256 of the matte (dtype, shape and bytes), of the JPEG
  and WebP bytes and of ``processing_details`` (JSON, keys sorted). The embedded sRGB ICC profile carries
  LittleCMS's creation date, set when the process builds it, so it differs between any two processes: it
  is replaced by zeros of the same length before hashing.
* ``--compare A.json B.json``: prints how many photos were compared and which differ (and in what).
* ``--profile OUT.prof``: a ``cProfile`` of the pass (``python -m pstats OUT.prof``), and the ``--top``
  functions by own and cumulative time, in ms per photo.
* always: the process CPU time (``time.process_time``, all threads) per photo, mean over the photos,
  excluding the model load and a warm-up photo.

``--see-through-seeds 25 26`` adds 24 generated see-through photos per *tuning* seed
(:mod:`validation_sets.see_through`; held-out seeds are refused), so that the openings step's deeper branches
run too. Their CPU time is included in the figure.

Usage: ``python -m bench.pipeline.exact [--hash OUT.json] [--profile OUT.prof] [--repeat K] [--limit N]
[--see-through-seeds S ...]``;
``python -m bench.pipeline.exact --compare A.json B.json``. Nothing is asserted: exit code 1 only when
``--compare`` finds a difference.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import pstats
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench._common import GT, PHOTOS, list_images, require_photos, setup
else:
    from .._common import GT, PHOTOS, list_images, require_photos, setup

setup()


def speed_photos() -> list[Path]:
    """The photos of ``make bench-speed``: the GT images, then ``nomask/``."""
    return list_images(GT / "images") + list_images(PHOTOS / "nomask")


def output_hashes(result: Any, icc: bytes) -> dict[str, str]:
    """SHA-256 (hex) of a :class:`retouch.RetouchResult`'s matte, JPEG, WebP and details.

    Args:
        result: the result of ``retouch``.
        icc: this process's sRGB ICC profile bytes (:func:`retouch.decode.srgb_icc_bytes`); every
            occurrence in the JPEG and WebP is replaced by zeros before hashing (its date field
            differs between processes).
    """
    blank = bytes(len(icc))
    matte = result.matte
    m = hashlib.sha256(f"{matte.dtype}{matte.shape}".encode())
    m.update(matte.tobytes())
    details = json.dumps(result.details, sort_keys=True, default=str).encode()
    return {
        "matte": m.hexdigest(),
        "jpeg": hashlib.sha256(result.jpeg.replace(icc, blank)).hexdigest(),
        "webp": hashlib.sha256(result.webp.replace(icc, blank)).hexdigest(),
        "details": hashlib.sha256(details).hexdigest(),
    }


def compare(a_path: Path, b_path: Path) -> int:
    """Print the photos whose hashes differ between two ``--hash`` files; return their count."""
    a = json.loads(a_path.read_text())
    b = json.loads(b_path.read_text())
    names = sorted(set(a) | set(b))
    differ = 0
    for name in names:
        if name not in a or name not in b:
            print(f"{name}: only in {'A' if name in a else 'B'}")
            differ += 1
            continue
        keys = [k for k in sorted(set(a[name]) | set(b[name])) if a[name].get(k) != b[name].get(k)]
        if keys:
            print(f"{name}: {', '.join(keys)} differ")
            differ += 1
    print(f"{len(names)} compared, {differ} differ")
    return differ


def see_through_photos(seeds: list[int], n: int = 24) -> list[tuple[str, bytes]]:
    """``(name, JPEG bytes)`` of ``n`` generated see-through photos per tuning seed.

    Raises:
        SystemExit: a seed that is not a tuning seed (:data:`validation_sets.seeds.TUNING_SEE_THROUGH_SEEDS`).
    """
    from validation_sets.see_through import make_see_through, see_through_set
    from validation_sets.seeds import TUNING_SEE_THROUGH_SEEDS

    out: list[tuple[str, bytes]] = []
    for seed in seeds:
        if seed not in TUNING_SEE_THROUGH_SEEDS:
            raise SystemExit(f"il seme {seed} non è un seme di tuning see-through")
        for stem, index in see_through_set("tune", n, seed):
            photo = make_see_through(stem, seed, index)
            out.append((photo.name, photo.data))
    return out


def run(
    datas: list[tuple[str, bytes]], repeat: int, profile: Path | None, top: int
) -> dict[str, dict[str, str]]:
    """Retouch every ``(name, file bytes)`` ``repeat`` times (hashes from the first pass); print CPU per photo.

    Returns:
        ``{file name: output_hashes(...)}``.
    """
    from retouch import RetouchOptions, retouch, warm_up
    from retouch.decode import srgb_icc_bytes

    warm_up()
    icc = srgb_icc_bytes()
    retouch(datas[0][1], RetouchOptions())  # warm-up (lazy imports, first allocations)
    hashes: dict[str, dict[str, str]] = {}
    prof = cProfile.Profile() if profile is not None else None
    per_pass: list[float] = []
    for k in range(repeat):
        t0 = time.process_time()
        if prof is not None:
            prof.enable()
        for name, data in datas:
            res = retouch(data, RetouchOptions())
            if k == 0:
                hashes[name] = output_hashes(res, icc)
        if prof is not None:
            prof.disable()
        per_pass.append((time.process_time() - t0) / len(datas) * 1e3)
    print("CPU ms per photo, each pass:", " ".join(f"{v:.1f}" for v in per_pass))
    if prof is not None and profile is not None:
        prof.dump_stats(str(profile))
        table: dict[Any, Any] = pstats.Stats(prof).stats  # type: ignore[attr-defined]
        n = len(datas) * repeat
        for key, label in (("tottime", "own"), ("cumulative", "cumulative")):
            print(f"\nTop {top} by {label} time (ms per photo; profiled pass, profiler overhead included)")
            rows = sorted(table.items(), key=lambda kv: kv[1][2 if key == "tottime" else 3], reverse=True)
            for (file, line, func), (_cc, nc, tt, ct, _callers) in rows[:top]:
                print(
                    f"{tt / n * 1e3:8.2f} {ct / n * 1e3:8.2f} {nc / n:8.1f}  {Path(file).name}:{line} {func}"
                )
    return hashes


def main(argv: list[str] | None = None) -> int:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--hash", type=Path, help="write the per-photo output hashes here (JSON)")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("A", "B"), help="compare two hash files")
    parser.add_argument("--profile", type=Path, help="write a cProfile of the passes here")
    parser.add_argument("--top", type=int, default=40, help="functions listed from the profile")
    parser.add_argument("--repeat", type=int, default=1, help="passes over the photos")
    parser.add_argument("--limit", type=int, default=None, help="only the first N photos")
    parser.add_argument(
        "--see-through-seeds", type=int, nargs="*", default=[], help="tuning see-through seeds"
    )
    args = parser.parse_args(argv)
    if args.compare:
        return 1 if compare(*args.compare) else 0
    require_photos()
    datas = [(p.name, p.read_bytes()) for p in speed_photos()[: args.limit]]
    datas += see_through_photos(args.see_through_seeds)
    hashes = run(datas, args.repeat, args.profile, args.top)
    if args.hash:
        args.hash.write_text(json.dumps(hashes, indent=1, sort_keys=True))
        print(f"{len(hashes)} photos hashed -> {args.hash}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
