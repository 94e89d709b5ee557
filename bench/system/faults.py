"""Faults during load: a stack of its own (``bench.system.stack``), N photos uploaded through
the API, and while they process: PostgreSQL stopped for 10 s, the Temporal server stopped for 10 s, the
retouch worker killed (SIGKILL) in the middle of a photo. Prints per phase what the API answered and
how long recovery took, then the final check: every photo processed exactly once, one charge per
job, every balance equal to its ledger's sum.

    .venv/bin/python -m bench.system.faults          # 40 photos, 4 users
    .venv/bin/python -m bench.system.faults --photos 80 --users 8 --outage-s 10

It asserts nothing (exit code 1 only when the final check fails). ``--json PATH`` also writes the
report (:meth:`Report.as_json`); ``tests/stack/test_faults.py`` runs this command on a few photos and
asserts on that file.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from bench._common import GT, PHOTOS, list_images, setup
from bench.system.stack import Check, OwnStack

BATCH = 10


def pick_photos(count: int, *, seed: int = 13) -> list[Path]:
    """``count`` photo paths from ``../shared/photos`` (``nomask`` and ``gt/images``), shuffled with
    ``seed`` and repeated as needed."""
    pool = [*list_images(PHOTOS / "nomask"), *list_images(GT / "images")]
    pool = [p for p in pool if p.suffix.lower() in {".jpg", ".jpeg", ".png", ".webp"}]
    if not pool:
        raise SystemExit(f"Foto condivise assenti ({PHOTOS}): benchmark saltato.")
    rng = random.Random(seed)
    out: list[Path] = []
    while len(out) < count:
        batch = pool[:]
        rng.shuffle(batch)
        out.extend(batch)
    return out[:count]


def upload(base_url: str, token: str, files: list[Path], *, timeout_s: float = 120) -> tuple[int, float]:
    """Upload ``files`` in one ``POST /api/photos``; return ``(status, seconds)``."""
    mime = {".png": "image/png", ".webp": "image/webp"}
    parts = [("files", (f.name, f.read_bytes(), mime.get(f.suffix.lower(), "image/jpeg"))) for f in files]
    t0 = time.monotonic()
    try:
        resp = httpx.post(
            f"{base_url}/api/photos",
            headers={"Authorization": f"Bearer {token}"},
            files=parts,
            timeout=timeout_s,
        )
        return resp.status_code, time.monotonic() - t0
    except httpx.HTTPError:
        return 0, time.monotonic() - t0


@dataclass
class Probe:
    """``GET /api/me`` every ``interval_s`` in a thread: status codes, first 503 body, Retry-After."""

    base_url: str
    token: str
    interval_s: float = 0.5
    codes: list[tuple[float, int]] = field(default_factory=list)
    body_503: dict[str, object] | None = None
    retry_after: str | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        """Start probing."""
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        with httpx.Client(base_url=self.base_url, timeout=10) as client:
            while not self._stop.is_set():
                try:
                    resp = client.get("/api/me", headers={"Authorization": f"Bearer {self.token}"})
                    code = resp.status_code
                    if code == 503 and self.body_503 is None:
                        self.body_503 = resp.json()
                        self.retry_after = resp.headers.get("retry-after")
                except httpx.HTTPError:
                    code = 0
                self.codes.append((time.monotonic(), code))
                self._stop.wait(self.interval_s)

    def stop(self) -> Counter[int]:
        """Stop probing; return the count of each status code (0 = no answer)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        return Counter(code for _, code in self.codes)

    def first_ok_after(self, t: float) -> float | None:
        """Seconds from ``t`` to the first 200 after it (None when none)."""
        for ts, code in self.codes:
            if ts >= t and code == 200:
                return ts - t
        return None


@dataclass
class Report:
    """What :func:`run` measured: per-phase lines, the API's answers while the database was down, the
    final check."""

    phases: list[str] = field(default_factory=list)
    db_down_codes: Counter[int] = field(default_factory=Counter)
    db_down_body: dict[str, object] | None = None
    db_down_retry_after: str | None = None
    db_recovered_s: float | None = None
    temporal_upload_status: int | None = None
    killed_mid_photo: bool = False
    check: Check | None = None

    def log(self, line: str) -> None:
        """Record and print one line."""
        self.phases.append(line)
        print(line, flush=True)

    def as_json(self) -> dict[str, object]:
        """The report as JSON-ready values: ``db_down_codes`` keyed by the status code as a string
        (``"0"`` = no answer), ``check`` the :class:`~bench.system.stack.Check` fields plus ``ok``
        (``None`` when the run ended before its final check)."""
        out: dict[str, object] = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["db_down_codes"] = {str(code): n for code, n in self.db_down_codes.items()}
        out["check"] = None if self.check is None else {**dataclasses.asdict(self.check), "ok": self.check.ok}
        return out


def _wait_processing(stack: OwnStack, *, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if stack.job_counts().get("processing", 0) > 0:
            return True
        time.sleep(0.2)
    return False


def run(
    *,
    photos: int = 40,
    users: int = 4,
    outage_s: float = 10,
    finish_timeout_s: float = 900,
    stack: OwnStack | None = None,
) -> Report:
    """Run the fault scenario on a stack of its own (or ``stack``, already started) and return the
    report. ``photos`` are spread over ``users`` (each gets enough credits); the Temporal phase also
    uploads one more batch while the server is down."""
    report = Report()
    own = stack is None
    stack = stack or OwnStack()
    try:
        t0 = time.monotonic()
        if own:
            stack.start()
            report.log(f"stack ready in {time.monotonic() - t0:.1f} s (data {stack.data})")
        files = pick_photos(photos + 2)
        accounts = stack.new_users(users, credits=photos // users + 5)
        batches: list[tuple[str, list[Path]]] = []
        per_user = [files[:photos][i::users] for i in range(users)]
        for (_, token), mine in zip(accounts, per_user, strict=True):
            batches += [(token, mine[i : i + BATCH]) for i in range(0, len(mine), BATCH)]
        extra = files[photos:]
        t_up = time.monotonic()
        with ThreadPoolExecutor(max_workers=min(8, len(batches))) as pool:
            codes = Counter(code for code, _ in pool.map(lambda b: upload(stack.base_url, *b), batches))
        report.log(
            f"phase 0 upload: {photos} photos in {len(batches)} batches by {users} users, "
            f"{time.monotonic() - t_up:.1f} s, HTTP {dict(codes)}; jobs {stack.job_counts()}"
        )

        # ------------------------------------------------------------ PostgreSQL down
        probe = Probe(stack.base_url, accounts[0][1])
        probe.start()
        time.sleep(1)
        stack.stop_postgres()
        t_down = time.monotonic()
        time.sleep(outage_s)
        # the outage ends when the restart begins: start_postgres() returns only once the server accepts
        # connections, and probes answered while it waits are not "during the outage"
        t_restart_db = time.monotonic()
        stack.start_postgres()
        t_up_db = time.monotonic()
        deadline = t_up_db + 60
        while time.monotonic() < deadline and probe.first_ok_after(t_up_db) is None:
            time.sleep(0.2)
        time.sleep(1)
        codes = probe.stop()
        during = Counter(c for ts, c in probe.codes if t_down + 0.5 <= ts < t_restart_db)
        report.db_down_codes = during
        report.db_down_body = probe.body_503
        report.db_down_retry_after = probe.retry_after
        report.db_recovered_s = probe.first_ok_after(t_up_db)
        report.log(
            f"phase 1 PostgreSQL stopped {t_up_db - t_down:.1f} s: GET /api/me during the outage {dict(during)} "
            f"(all probes {dict(codes)}); 503 body {probe.body_503} Retry-After {probe.retry_after}; "
            f"first 200 {report.db_recovered_s if report.db_recovered_s is None else round(report.db_recovered_s, 1)} s "
            f"after restart; exited parts {stack.exited() or 'none'}; jobs {stack.job_counts()}"
        )
        for name in stack.exited():
            if name.startswith("worker-"):
                report.log(f"  {name} exited during the outage: restarted")
                stack.start_worker(name.removeprefix("worker-"))

        # ------------------------------------------------------------ Temporal down
        stack.stop("temporal")
        t_down = time.monotonic()
        status, secs = upload(stack.base_url, accounts[0][1], extra, timeout_s=60)
        report.temporal_upload_status = status
        rest = outage_s - (time.monotonic() - t_down)
        if rest > 0:
            time.sleep(rest)
        stack.start_temporal()
        report.log(
            f"phase 2 Temporal stopped {time.monotonic() - t_down:.1f} s: upload of {len(extra)} photos during it "
            f"→ HTTP {status} in {secs:.1f} s; exited parts {stack.exited() or 'none'}; jobs {stack.job_counts()}"
        )
        for name in stack.exited():
            if name.startswith("worker-"):
                report.log(f"  {name} exited during the outage: restarted")
                stack.start_worker(name.removeprefix("worker-"))

        # ------------------------------------------------------------ retouch worker killed
        import signal

        report.killed_mid_photo = _wait_processing(stack, timeout_s=120)
        before = stack.job_counts()
        stack.stop("worker-retouch", signal.SIGKILL)
        time.sleep(2)
        stack.start_worker("retouch")
        report.log(
            f"phase 3 retouch worker SIGKILL {'mid-photo' if report.killed_mid_photo else '(no photo was processing)'}"
            f" with jobs {before}; new worker started"
        )

        # ------------------------------------------------------------ finish
        t_fin = time.monotonic()
        deadline = t_fin + finish_timeout_s
        total = photos + len(extra) if status == 201 else photos
        while time.monotonic() < deadline:
            counts = stack.job_counts()
            if counts.get("completed", 0) + counts.get("failed", 0) >= total:
                break
            time.sleep(1)
        report.check = stack.check()
        report.log(
            f"phase 4 all jobs finished {time.monotonic() - t_fin:.1f} s after the kill: {stack.job_counts()}"
        )
        for line in report.check.lines():
            report.log("  " + line)
        return report
    finally:
        if own:
            stack.close()


def main() -> int:
    """CLI entry point."""
    setup()
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--photos", type=int, default=40)
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument(
        "--outage-s", type=float, default=10, help="seconds PostgreSQL and Temporal stay down"
    )
    parser.add_argument(
        "--finish-timeout-s", type=float, default=900, help="seconds to wait for every job after the kill"
    )
    parser.add_argument("--keep-data", action="store_true", help="keep the stack's data directory and logs")
    parser.add_argument("--json", type=Path, default=None, help="also write the report to this JSON file")
    args = parser.parse_args()
    stack = OwnStack(keep_data=args.keep_data)
    try:
        t0 = time.monotonic()
        stack.start()
        print(f"stack ready in {time.monotonic() - t0:.1f} s (data {stack.data})", flush=True)
        report = run(
            photos=args.photos,
            users=args.users,
            outage_s=args.outage_s,
            finish_timeout_s=args.finish_timeout_s,
            stack=stack,
        )
        if args.json is not None:
            args.json.write_text(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    finally:
        stack.close()
        if args.keep_data:
            print(f"data and logs kept in {stack.data}")
    return 0 if report.check is not None and report.check.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
