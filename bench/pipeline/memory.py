"""Memory over a long run: does RSS stay flat over hundreds of photos? Ours vs ``rembg p``.

The shared photos (``gt/images`` then ``nomask/``, at full size) are fed ``--passes`` times in a row
(default 10 passes of 53 photos = 530 photos) to one long-lived process of each tool, as a worker
sees them over a day:

* **rembg p**: ``rembg p -m u2netp IN OUT`` from ``--rembg-python``'s environment (or, without the
  CLI extras, the same per-file loop in a child process; see ``bench/pipeline/speed.py``);
* **ours**: ``retouch(data, RetouchOptions())`` with ``--workers`` photos at a time (default: one per
  CPU core, as the ``retouch`` Temporal worker runs), writing the JPEG and the WebP.

The child's RSS (``psutil``, including its children) is sampled every 20 ms. Each pass processes the
same photos, so the run is split into ``--passes`` equal time slices and the peak RSS of each slice
is printed: with no leak and no allocator creep, the last pass peaks where the first did. Also
printed: the peak of the whole run, the growth from the first to the last pass (MB) and the
least-squares trend of the per-pass peaks after the warm-up pass (MB per 100 photos: ~0 = flat). Figures are
printed, never asserted (targets: peak < 1000 MB, flat over hundreds of photos).

Usage: ``python -m bench.pipeline.memory [--passes K] [--limit N] [--workers N] [--model u2netp]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench._common import PHOTOS, list_images, print_table, require_photos, setup
    from bench.pipeline.speed import (
        _rembg_cli_available,
        _run_measured,
        child_env,
        rembg_command,
        rembg_outputs,
    )
else:
    from .._common import PHOTOS, list_images, print_table, require_photos, setup
    from .speed import _rembg_cli_available, _run_measured, child_env, rembg_command, rembg_outputs

setup()


def slice_peaks(samples: list[tuple[float, float]], wall: float, parts: int) -> list[float]:
    """Peak RSS (MB) in each of ``parts`` equal time slices of ``[0, wall]`` s (0.0 for an empty slice)."""
    peaks = [0.0] * parts
    for t, rss in samples:
        k = min(parts - 1, int(parts * t / wall)) if wall > 0 else 0
        peaks[k] = max(peaks[k], rss)
    return peaks


def main(argv: list[str] | None = None) -> int:
    """Run both tools over the repeated photos and print the per-pass peak RSS table; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passes", type=int, default=10, help="times the photo set is fed in a row")
    parser.add_argument("--limit", type=int, default=None, help="only the first N photos per pass")
    parser.add_argument("--model", default="u2netp")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="photos at a time (ours)")
    parser.add_argument(
        "--rembg-python",
        default=sys.executable,
        help="Python of an environment with rembg[cli] (.venv-rembg)",
    )
    args = parser.parse_args(argv)
    require_photos()
    photos = list_images(PHOTOS / "gt" / "images")
    if (PHOTOS / "nomask").is_dir():
        photos += list_images(PHOTOS / "nomask")
    if args.limit:
        photos = photos[: args.limit]
    passes = max(1, args.passes)
    env = child_env()
    rows: list[list[object]] = []
    with tempfile.TemporaryDirectory(prefix="fp-bench-mem-") as tmp:
        in_dir = Path(tmp) / "in"
        in_dir.mkdir()
        for k in range(passes):  # pass-major names: the tools process them pass after pass
            for i, p in enumerate(photos):
                (in_dir / f"{k:02d}_{i:03d}_{p.name}").symlink_to(p)
        n_total = passes * len(photos)

        cli = _rembg_cli_available(args.rembg_python)
        out_r = Path(tmp) / "rembg"
        out_r.mkdir()
        cmd = rembg_command(args.rembg_python, cli, args.model, in_dir, out_r)
        samples: list[tuple[float, float]] = []
        wall, peak, _ = _run_measured(cmd, env, samples)
        n_r = rembg_outputs(out_r, cmd, env)
        label = "rembg p (CLI)" if cli else "rembg p loop (CLI extras missing)"
        rows.append([label, n_r, wall, peak, *slice_peaks(samples, wall, passes)])

        out_o = Path(tmp) / "ours"
        out_o.mkdir()
        cmd = [sys.executable, "-m", "bench.pipeline.speed", "--worker", "ours", "--model", args.model]
        cmd += ["--workers", str(args.workers), "--in-dir", str(in_dir), "--out-dir", str(out_o)]
        samples = []
        wall, peak, _ = _run_measured(cmd, {**env, "RETOUCH_NETWORK_SLOTS": str(args.workers)}, samples)
        n_o = len(list(out_o.glob("*.jpg")))
        rows.append([f"FotoPronta retouch ({args.workers} at a time)", n_o, wall, peak])
        rows[-1] += slice_peaks(samples, wall, passes)

    print(
        f"\n## Memory: {len(photos)} photos x {passes} passes = {n_total} photos at full size, "
        f"model {args.model}, {os.cpu_count()} CPU cores\n"
    )
    headers = ["tool", "photos", "wall s", "peak RSS MB"] + [f"pass {k + 1} peak MB" for k in range(passes)]
    print_table(headers, rows, floatfmt=".0f")
    print()
    for r in rows:
        peak_mb = float(r[3])  # type: ignore[arg-type]
        per_pass = [float(v) for v in r[4:]]  # type: ignore[arg-type]
        trend = pass_trend(per_pass, len(photos))
        trend_text = f"; trend after warm-up {trend:+.1f} MB per 100 photos" if trend is not None else ""
        print(
            f"{r[0]}: peak {peak_mb:.0f} MB (target < 1000 MB); last pass "
            f"{per_pass[-1] - per_pass[0]:+.0f} MB vs the first (warm-up included){trend_text}"
        )
    return 0


def pass_trend(per_pass_peaks: list[float], photos_per_pass: int) -> float | None:
    """Least-squares slope of the per-pass peak RSS over passes 2..K, in MB per 100 photos.

    Pass 1 is left out: it includes loading the model and the first growth of the allocator's arenas
    (onnxruntime's, glibc's), which happens once. A leak shows as a steady positive slope; noise
    around a flat line gives a slope near 0 of either sign. ``None`` with fewer than 3 passes.
    """
    ys = per_pass_peaks[1:]
    if len(ys) < 2 or photos_per_pass <= 0:
        return None
    xs = [k * photos_per_pass / 100.0 for k in range(len(ys))]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx


if __name__ == "__main__":
    sys.exit(main())
