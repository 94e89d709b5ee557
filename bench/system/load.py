"""Load benchmark: the seller's day, reads under load, the orchestration ratio.

On a stack of its own (``bench.system.stack.OwnStack``: PostgreSQL, Temporal dev server, ``photo-jobs`` and
``retouch`` workers, API, on free ports) and on the same photos from ``../shared/photos`` (``nomask`` +
``gt/images``, repeated and shuffled with ``--seed``), in one run:

1. **pipeline alone**: ``fotopronta retouch`` (the CLI, one process) on the P files;
2. **system, no other traffic**: U users upload the P photos in batches of 10 through the API, all at
   once; wait until every job is completed. Photos per minute, upload→completed p50/p95 (job
   ``created_at`` → ``completed_at``), peak RSS of each process tree (sampled every 0.5 s);
3. **system with readers**: the same P photos again by U new users while C concurrent clients loop on
   ``GET /api/me`` + ``GET /api/photos`` (first page) with no pause between rounds (a stress test:
   every client reads as fast as the API answers): the first C of ``--readers`` (16) until half the
   jobs are done, then the second (50). Requests/s, p50/p99 per C;
4. **system with paced readers**: the same again, but each client pauses ``--reader-think`` seconds
   (default 1 s) after each round of two reads, as a browser tab that refreshes its photo page once a
   second would (the web app itself reads on events, so this is more than it does).

Then the comparison (system / pipeline wall time) and the final check: every job completed, one charge
per job, every balance equal to its ledger's sum. Prints figures, asserts nothing (exit 1 only if the
final check fails).

    make bench-load                                   # short: 60 photos, 6 users
    .venv/bin/python -m bench.system.load --full      # 900 photos, 30 users (long: ~1 h on 2 cores)
    .venv/bin/python -m bench.system.load --photos 20 --users 2
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench._common import print_table, setup
from bench.system.costs import per_photo, snapshot, temporal_costs
from bench.system.faults import BATCH, pick_photos, upload
from bench.system.stack import OwnStack


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0–1) of ``values`` by the nearest-rank method; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def photos_page_items(body: Any) -> list[Any]:
    """The photos of a ``GET /api/photos`` answer: the old bare list or the paginated
    ``{"items": [...], "next_cursor": ..., "counts": {...}}`` (DESIGN.md)."""
    if isinstance(body, dict):
        return list(body.get("items", []))
    return list(body)


@dataclass
class RssSampler:
    """Peak RSS (MB) of each part of the stack, sampled every ``interval_s`` in a thread."""

    stack: OwnStack
    interval_s: float = 0.5
    peaks: dict[str, float] = field(default_factory=dict)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> RssSampler:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            for name, mb in self.stack.rss_mb().items():
                self.peaks[name] = max(self.peaks.get(name, 0.0), mb)
            self._stop.wait(self.interval_s)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


@dataclass
class Readers:
    """C clients reading ``/api/me`` and the first page of ``/api/photos`` in a loop (asyncio, own
    thread), each pausing ``think_s`` seconds after every round of two reads (0: no pause, a stress
    test); latencies in seconds are kept per concurrency level."""

    base_url: str
    tokens: list[str]
    think_s: float = 0.0
    latencies: dict[int, list[float]] = field(default_factory=dict)
    errors: dict[int, int] = field(default_factory=dict)
    #: what each error was, per level: ``"HTTP 503"`` or the ``httpx`` exception's class name, with counts
    error_kinds: dict[int, Counter[str]] = field(default_factory=dict)
    durations: dict[int, float] = field(default_factory=dict)
    _level: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def run_levels(self, levels: list[int], switch: Callable[[int], bool]) -> None:
        """Start a thread that runs each level in turn; it moves to the next level when
        ``switch(index)`` returns True and stops after the last one when :meth:`stop` is called."""
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main(levels, switch)), daemon=True)
        self._thread.start()

    async def _main(self, levels: list[int], switch: Callable[[int], bool]) -> None:
        limits = httpx.Limits(max_connections=max(levels) + 4)
        async with httpx.AsyncClient(base_url=self.base_url, timeout=60, limits=limits) as client:
            for i, level in enumerate(levels):
                self.latencies[level], self.errors[level], self.error_kinds[level] = [], 0, Counter()
                done = asyncio.Event()
                tasks = [
                    asyncio.create_task(self._client(client, self.tokens[j % len(self.tokens)], level, done))
                    for j in range(level)
                ]
                t0 = time.monotonic()
                last = i == len(levels) - 1
                # polls a threading.Event and a database count (off the loop), not an asyncio condition
                while not self._stop.is_set() and (last or not await asyncio.to_thread(switch, i)):  # noqa: ASYNC110
                    await asyncio.sleep(0.5)
                done.set()
                await asyncio.gather(*tasks)
                self.durations[level] = time.monotonic() - t0
                if self._stop.is_set():
                    break

    async def _client(self, client: httpx.AsyncClient, token: str, level: int, done: asyncio.Event) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        while not done.is_set():
            for path in ("/api/me", "/api/photos"):
                t0 = time.monotonic()
                try:
                    r = await client.get(path, headers=headers)
                    if r.status_code != 200:
                        self.errors[level] += 1
                        self.error_kinds[level][f"{path} HTTP {r.status_code}"] += 1
                    elif path == "/api/photos":
                        photos_page_items(r.json())
                except httpx.HTTPError as exc:
                    self.errors[level] += 1
                    self.error_kinds[level][f"{path} {type(exc).__name__}"] += 1
                self.latencies[level].append(time.monotonic() - t0)
            if self.think_s > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(done.wait(), timeout=self.think_s)

    def stop(self) -> None:
        """Stop the clients and wait for the thread."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()


@dataclass
class SystemRun:
    """One pass of P photos through the system."""

    label: str
    wall_s: float = 0.0
    latencies_s: list[float] = field(default_factory=list)
    upload_codes: dict[int, int] = field(default_factory=dict)
    rss_peaks: dict[str, float] = field(default_factory=dict)
    failed: int = 0
    costs: dict[str, float] = field(default_factory=dict)
    job_ids: list[Any] = field(default_factory=list)


def pipeline_alone(files: list[Path]) -> tuple[float, float]:
    """``(wall seconds, CPU seconds)`` of ``fotopronta retouch`` (one process, model load included)
    on ``files``; CPU is user + system of the child (``getrusage(RUSAGE_CHILDREN)``)."""
    with tempfile.TemporaryDirectory(prefix="fotopronta-load-out-") as out:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.monotonic()
        subprocess.run(
            [str(Path(sys.executable).parent / "fotopronta"), "retouch", *map(str, files), "-o", out],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        wall = time.monotonic() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def system_pass(
    stack: OwnStack,
    files: list[Path],
    users: int,
    label: str,
    *,
    during: Callable[[Callable[[], int]], None] | None = None,
    timeout_s: float = 7200,
) -> SystemRun:
    """Upload ``files`` through the API by ``users`` new users (batches of 10, all users at once) and
    wait until each of these jobs is completed or failed. ``during`` is called with a function that
    returns the number of finished jobs of this pass, once the uploads have started."""
    run = SystemRun(label)
    before = {k: v for k, v in stack.job_counts().items()}
    done_before = before.get("completed", 0) + before.get("failed", 0)
    t_start_db = _db_now(stack)
    accounts = stack.new_users(users, credits=len(files) // users + 10)
    per_user = [files[i::users] for i in range(users)]
    batches = [
        (token, mine[i : i + BATCH])
        for (_, token), mine in zip(accounts, per_user, strict=True)
        for i in range(0, len(mine), BATCH)
    ]

    def finished() -> int:
        counts = stack.job_counts()
        return counts.get("completed", 0) + counts.get("failed", 0) - done_before

    counters0 = snapshot(stack)
    with RssSampler(stack) as rss:
        t0 = time.monotonic()

        # each user uploads their batches one after the other; the users upload at the same time
        def user_uploads(token: str) -> list[int]:
            return [upload(stack.base_url, t, b)[0] for t, b in batches if t == token]

        with ThreadPoolExecutor(max_workers=users + 1) as pool:
            futures = [pool.submit(user_uploads, token) for _, token in accounts]
            if during is not None:
                during(finished)
            codes = [c for f in futures for c in f.result()]
            deadline = time.monotonic() + timeout_s
            while finished() < len(files) and time.monotonic() < deadline:
                time.sleep(0.5)
        run.wall_s = time.monotonic() - t0
    run.costs = per_photo(counters0, snapshot(stack), len(files))
    run.rss_peaks = dict(rss.peaks)
    run.upload_codes = {c: codes.count(c) for c in set(codes)}
    for job_id, created, completed, status in stack.job_times():
        if created >= t_start_db:
            run.job_ids.append(job_id)
        if created >= t_start_db and status == "completed" and completed is not None:
            run.latencies_s.append((completed - created).total_seconds())
        elif created >= t_start_db and status == "failed":
            run.failed += 1
    return run


def print_costs(run: SystemRun, temporal: dict[str, float], pipeline_cpu_s: float) -> None:
    """The per-photo costs of ``run`` (``bench.system.costs``): CPU seconds per part, PostgreSQL writes,
    stored bytes, Temporal history events and actions per job workflow."""
    c = run.costs
    print(f"\n## Per-photo costs ({run.label}; inputs of docs/scaling.md)\n")
    rows: list[list[object]] = [["CPU-s, pipeline alone (`fotopronta retouch`)", pipeline_cpu_s]]
    rows += [[f"CPU-s, {k.split(':', 1)[1]}", v] for k, v in sorted(c.items()) if k.startswith("cpu_s:")]
    rows += [
        ["PostgreSQL transactions committed", c.get("pg:commits", float("nan"))],
        ["PostgreSQL rows inserted", c.get("pg:inserted", float("nan"))],
        ["PostgreSQL rows updated", c.get("pg:updated", float("nan"))],
        ["PostgreSQL rows deleted", c.get("pg:deleted", float("nan"))],
        ["PostgreSQL database growth, kB", c.get("pg:db_bytes", float("nan")) / 1e3],
        ["object storage growth, kB", c.get("stored_bytes", float("nan")) / 1e3],
        ["Temporal history events per job", temporal.get("events", float("nan"))],
        ["Temporal actions per job (Cloud billing rules)", temporal.get("actions", float("nan"))],
        [
            "Temporal activities per job (retries)",
            f"{temporal.get('activities', 0):.1f} ({temporal.get('retries', 0):.2f})",
        ],
    ]
    print_table(["per photo", "value"], rows, floatfmt=".2f")
    print(f"(Temporal figures from {temporal.get('sampled', 0):.0f} sampled workflows of the pass)")


def _db_now(stack: OwnStack) -> Any:
    from sqlalchemy import text

    with stack.engine.connect() as conn:
        return conn.execute(text("SELECT now()")).scalar_one()


def main() -> int:
    """CLI entry point: run the three measurements and print the tables."""
    setup()
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--full", action="store_true", help="900 photos by 30 users (default: 60 by 6)")
    parser.add_argument("--photos", type=int, default=None)
    parser.add_argument("--users", type=int, default=None)
    parser.add_argument("--readers", default="16,50", help="concurrent readers, first and second half")
    parser.add_argument(
        "--reader-think",
        type=float,
        default=1.0,
        help="seconds each paced reader waits after a round of two reads (pass 4; 0 skips pass 4)",
    )
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--keep-data", action="store_true")
    args = parser.parse_args()
    photos = args.photos or (900 if args.full else 60)
    users = args.users or (30 if args.full else 6)
    levels = [int(x) for x in args.readers.split(",") if x]
    files = pick_photos(photos, seed=args.seed)
    print(f"# bench-load: {photos} photos, {users} users, readers {levels}, seed {args.seed}", flush=True)

    t_pipe, cpu_pipe = pipeline_alone(files)
    print(f"pipeline alone (fotopronta retouch): {t_pipe:.1f} s, {cpu_pipe:.1f} CPU-s", flush=True)

    stack = OwnStack(keep_data=args.keep_data, reconcile_interval_s=30, reconcile_min_age_s=30)
    try:
        t0 = time.monotonic()
        stack.start()
        print(f"stack ready in {time.monotonic() - t0:.1f} s", flush=True)
        quiet = system_pass(stack, files, users, "system, no other traffic")
        print(f"{quiet.label}: {quiet.wall_s:.1f} s", flush=True)
        temporal = temporal_costs(stack, quiet.job_ids)

        modes = [("system with readers (no pause)", 0.0)]
        if args.reader_think > 0:
            modes.append((f"system with paced readers ({args.reader_think:g} s pause)", args.reader_think))
        loaded_runs: list[tuple[SystemRun, Readers]] = []
        for label, think in modes:
            tokens = [token for _, token in stack.new_users(8, credits=15)]
            readers = Readers(stack.base_url, tokens, think_s=think)

            def start_readers(finished: Callable[[], int], readers: Readers = readers) -> None:
                readers.run_levels(levels, lambda i: finished() >= photos * (i + 1) // len(levels))

            loaded = system_pass(stack, files, users, label, during=start_readers)
            readers.stop()
            print(f"{loaded.label}: {loaded.wall_s:.1f} s", flush=True)
            loaded_runs.append((loaded, readers))
        check = stack.check()
    finally:
        stack.close()

    print("\n## Seller's day and orchestration ratio\n")
    rows: list[list[object]] = [
        ["pipeline alone (`fotopronta retouch`)", t_pipe, photos * 60 / t_pipe, "", "", "", 1.0]
    ]
    runs = [quiet, *(run for run, _ in loaded_runs)]
    for run in runs:
        rows.append(
            [
                run.label,
                run.wall_s,
                photos * 60 / run.wall_s,
                percentile(run.latencies_s, 0.5),
                percentile(run.latencies_s, 0.95),
                run.failed,
                run.wall_s / t_pipe,
            ]
        )
    print_table(
        ["run", "wall s", "photos/min", "upload→completed p50 s", "p95 s", "failed", "× pipeline"],
        rows,
        floatfmt=".2f",
    )
    print("\n## Peak RSS (MB, whole process tree)\n")
    parts = sorted({p for run in runs for p in run.rss_peaks})
    print_table(
        ["part", *parts],
        [[run.label, *(run.rss_peaks.get(p, float("nan")) for p in parts)] for run in runs],
        floatfmt=".0f",
    )
    print_costs(quiet, temporal, cpu_pipe / photos)
    print("\n## Reads under load (GET /api/me + GET /api/photos first page)\n")
    read_rows: list[list[object]] = []
    for run, readers in loaded_runs:
        for level in levels:
            lat = readers.latencies.get(level, [])
            secs = readers.durations.get(level, float("nan"))
            read_rows.append(
                [
                    "no pause" if readers.think_s == 0 else f"{readers.think_s:g} s pause",
                    level,
                    len(lat),
                    readers.errors.get(level, 0),
                    len(lat) / secs if secs else float("nan"),
                    percentile(lat, 0.5) * 1000,
                    percentile(lat, 0.99) * 1000,
                    run.wall_s / t_pipe,
                ]
            )
    print_table(
        ["readers", "clients", "requests", "errors", "requests/s", "p50 ms", "p99 ms", "pass × pipeline"],
        read_rows,
        floatfmt=".2f",
    )
    for _run, readers in loaded_runs:
        for level in levels:
            if kinds := readers.error_kinds.get(level):
                pace = "no pause" if readers.think_s == 0 else f"{readers.think_s:g} s pause"
                print(f"errors, {pace}, {level} clients: {dict(kinds)}")
    print("\n## Final check\n")
    for line in check.lines():
        print(f"- {line}")
    print(f"- upload answers: {' / '.join(str(run.upload_codes) for run in runs)}")
    return 0 if check.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
