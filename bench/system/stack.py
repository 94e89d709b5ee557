"""A whole FotoPronta stack of its own, for the load and fault benchmarks (and the fault test).

Same parts and helpers as ``python -m infra.devstack`` (embedded PostgreSQL, Temporal dev server with
its SQLite file, the ``photo-jobs`` worker with the reconciler, a separate ``retouch`` worker, the API),
on free ports (``infra.ports``) with a temporary data directory, but each part is its own process
that the caller can stop and start again: devstack stops everything when one child exits, which is
what a fault benchmark must not do. Also: users with tokens, uploads through the API, the final
exactly-once and ledger checks, and the RSS of every process (psutil, whole process tree).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil
from sqlalchemy import Engine, create_engine, func, select, text

from bench._common import REPO

PASSWORD = "segreto123"


@dataclass
class Check:
    """The end-of-run check: every job terminal, processed and charged once, balances = ledgers."""

    jobs: int
    completed: int
    failed: int
    not_terminal: int
    charges_per_job_max: int
    jobs_charged_twice: int
    success_notes_max: int
    balances_off: int
    users: int

    @property
    def ok(self) -> bool:
        """True when every job completed, none was charged or notified twice and every balance is
        its ledger's sum."""
        return (
            self.completed == self.jobs
            and self.jobs_charged_twice == 0
            and self.success_notes_max <= 1
            and self.balances_off == 0
        )

    def lines(self) -> list[str]:
        """Human-readable lines for the report."""
        return [
            f"jobs {self.jobs}: completed {self.completed}, failed {self.failed}, not finished {self.not_terminal}",
            f"charges per job: max {self.charges_per_job_max}, jobs charged twice {self.jobs_charged_twice}",
            f"success notifications per job: max {self.success_notes_max}",
            f"users {self.users}: balance != ledger sum for {self.balances_off}",
            "RESULT: " + ("OK" if self.ok else "NOT OK"),
        ]


@dataclass
class OwnStack:
    """Processes of one stack; :meth:`start` starts all, :meth:`close` stops all and removes the data."""

    reconcile_interval_s: float = 5
    reconcile_min_age_s: float = 10
    keep_data: bool = False
    data: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="fotopronta-bench-")))
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)
    _engine: Engine | None = None

    # ---------------------------------------------------------------- set-up
    def env(self) -> dict[str, str]:
        """The child processes' environment: only our ``FOTOPRONTA_*`` values (never the caller's)."""
        base = {k: v for k, v in os.environ.items() if not k.startswith("FOTOPRONTA_")}
        return {
            **base,
            "PYTHONUNBUFFERED": "1",
            "U2NET_HOME": str(REPO / ".data" / "models"),
            "FOTOPRONTA_ENVIRONMENT": "development",
            "FOTOPRONTA_DATA_DIR": str(self.data),
            "FOTOPRONTA_API_HOST": "127.0.0.1",
            "FOTOPRONTA_API_PORT": str(self.ports["api"]),
            "FOTOPRONTA_PUBLIC_URL": self.base_url,
            "FOTOPRONTA_POSTGRES_PORT": str(self.ports["postgres"]),
            "FOTOPRONTA_TEMPORAL_ADDRESS": self.temporal_address,
            "FOTOPRONTA_TEMPORAL_UI_PORT": str(self.ports["temporal_ui"]),
            "FOTOPRONTA_U2NET_HOME": str(REPO / ".data" / "models"),
            "FOTOPRONTA_MAIL_BACKEND": "outbox",
            "FOTOPRONTA_PAYMENT_PROVIDER": "test",
            "FOTOPRONTA_RECONCILE_INTERVAL_S": str(self.reconcile_interval_s),
            "FOTOPRONTA_RECONCILE_MIN_AGE_S": str(self.reconcile_min_age_s),
        }

    @property
    def base_url(self) -> str:
        """The API's base URL."""
        return f"http://127.0.0.1:{self.ports['api']}"

    @property
    def temporal_address(self) -> str:
        """The Temporal dev server's gRPC address."""
        return f"127.0.0.1:{self.ports['temporal']}"

    @property
    def database_url(self) -> str:
        """SQLAlchemy URL of the stack's database."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.ports['postgres']}/fotopronta"

    @property
    def engine(self) -> Engine:
        """An engine on the stack's database (for users and the final checks)."""
        if self._engine is None:
            self._engine = create_engine(self.database_url, pool_pre_ping=True, pool_size=4)
        return self._engine

    def start(self) -> None:
        """Start PostgreSQL (and migrate), Temporal, both workers and the API; wait until healthy."""
        from infra.ports import free_port

        taken: set[int] = set()
        for name in ("api", "postgres", "temporal", "temporal_ui"):
            self.ports[name] = free_port(taken=taken)
        (self.data / "logs").mkdir(parents=True, exist_ok=True)
        self.start_postgres()
        from fotopronta.db import migrate
        from infra.embedded_postgres import ensure_database

        ensure_database("127.0.0.1", self.ports["postgres"], "fotopronta")
        migrate(self.database_url)
        self.start_temporal()
        self.start_worker("photo-jobs")
        self.start_worker("retouch")
        self.procs["api"] = self._spawn("api", [sys.executable, "-m", "api"])
        self.wait_healthy(timeout_s=120)

    def _spawn(self, name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        log = open(self.data / "logs" / f"{name}.log", "ab")  # noqa: SIM115
        return subprocess.Popen(
            argv, cwd=REPO, env=self.env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )

    def start_postgres(self) -> None:
        """Start (or restart) PostgreSQL on its port with the same data directory; wait until ready."""
        from infra.embedded_postgres import start_postgres, wait_ready

        proc = start_postgres(
            self.data / "postgres",
            port=self.ports["postgres"],
            host="127.0.0.1",
            log_path=self.data / "logs" / "postgres.log",
        )
        self.procs["postgres"] = proc
        wait_ready("127.0.0.1", self.ports["postgres"], proc=proc, timeout_s=60)

    def start_temporal(self) -> None:
        """Start (or restart) the Temporal dev server on the same ports and SQLite file."""
        from infra.devstack import start_temporal_ready

        self.procs["temporal"] = start_temporal_ready(
            self.data / "temporal.db",
            address=self.temporal_address,
            ui_port=self.ports["temporal_ui"],
            log_path=self.data / "logs" / "temporal.log",
        )

    def start_worker(self, queue: str) -> None:
        """Start the worker process for one task queue (``photo-jobs`` runs the reconciler too). The
        ``retouch`` worker runs at nice 10, as ``make dev`` (``infra/devstack.py``) and the compose file
        run it, so the API keeps priority."""
        from infra.devstack import retouch_nice_prefix

        nice = retouch_nice_prefix() if queue == "retouch" else []
        self.procs[f"worker-{queue}"] = self._spawn(
            f"worker-{queue}", [*nice, sys.executable, "-m", "workflows.worker", "--queues", queue]
        )

    def wait_healthy(self, *, timeout_s: float) -> float:
        """Wait until ``/healthz`` answers 200; return the seconds waited.

        Raises:
            RuntimeError: not healthy within ``timeout_s`` seconds.
        """
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout_s:
            try:
                if httpx.get(f"{self.base_url}/healthz", timeout=5).status_code == 200:
                    return time.monotonic() - t0
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        raise RuntimeError(f"stack not healthy after {timeout_s} s (logs in {self.data / 'logs'})")

    # ---------------------------------------------------------------- faults
    def stop(self, name: str, sig: int = signal.SIGTERM, *, timeout_s: float = 30) -> None:
        """Send ``sig`` to the process group of part ``name`` and wait for it to exit."""
        proc = self.procs[name]
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, sig)
            try:
                proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def stop_postgres(self) -> None:
        """Fast shutdown of PostgreSQL (SIGINT: open sessions are cut, as in a crash of the server)."""
        self.stop("postgres", signal.SIGINT)

    def exited(self) -> list[str]:
        """Parts whose process has exited."""
        return [name for name, proc in self.procs.items() if proc.poll() is not None]

    # ---------------------------------------------------------------- users and uploads
    def new_users(self, count: int, *, credits: int) -> list[tuple[uuid.UUID, str]]:
        """Create ``count`` confirmed users with ``credits`` credits (15 at sign-up, more granted);
        return ``(user_id, access_token)`` from a real login through the API."""
        from datetime import UTC, datetime, timedelta

        from sqlalchemy.orm import Session

        from fotopronta import ledger
        from fotopronta.accounts import create_user

        out: list[tuple[uuid.UUID, str]] = []
        with httpx.Client(base_url=self.base_url, timeout=60) as client:
            for i in range(count):
                email = f"venditore{i}-{uuid.uuid4().hex[:6]}@example.it"
                with Session(self.engine) as session, session.begin():
                    profile = create_user(session, email=email, password=PASSWORD)
                    if credits > profile.credits_remaining:
                        ledger.grant(
                            session,
                            user_id=profile.id,
                            amount=credits - profile.credits_remaining,
                            idempotency_key=f"bench-grant:{profile.id}",
                            expires_at=datetime.now(UTC) + timedelta(days=30),
                        )
                    user_id = profile.id
                resp = client.post("/api/auth/login", json={"email": email, "password": PASSWORD})
                resp.raise_for_status()
                out.append((user_id, resp.json()["access_token"]))
        return out

    # ---------------------------------------------------------------- checks
    def check(self) -> Check:
        """Read the database: job states, charges and success notifications per job, and every
        user's balance against the sum of their ledger."""
        from fotopronta.models import CreditLedgerEntry, Notification, PhotoProcessingJob, Profile

        with self.engine.connect() as conn:
            statuses = dict(
                conn.execute(
                    select(PhotoProcessingJob.status, func.count()).group_by(PhotoProcessingJob.status)
                ).all()
            )
            charges = dict(
                conn.execute(
                    select(CreditLedgerEntry.job_id, func.count())
                    .where(CreditLedgerEntry.kind == "charge")
                    .group_by(CreditLedgerEntry.job_id)
                ).all()
            )
            notes = dict(
                conn.execute(
                    select(Notification.related_job_id, func.count())
                    .where(Notification.type == "success")
                    .group_by(Notification.related_job_id)
                ).all()
            )
            ledger_sums = dict(
                conn.execute(
                    select(CreditLedgerEntry.user_id, func.sum(CreditLedgerEntry.amount)).group_by(
                        CreditLedgerEntry.user_id
                    )
                ).all()
            )
            balances = dict(conn.execute(select(Profile.id, Profile.credits_remaining)).all())
        jobs = sum(statuses.values())
        completed = statuses.get("completed", 0)
        failed = statuses.get("failed", 0)
        return Check(
            jobs=jobs,
            completed=completed,
            failed=failed,
            not_terminal=jobs - completed - failed,
            charges_per_job_max=max(charges.values(), default=0),
            jobs_charged_twice=sum(1 for n in charges.values() if n > 1),
            success_notes_max=max(notes.values(), default=0),
            balances_off=sum(1 for uid, bal in balances.items() if int(ledger_sums.get(uid, 0)) != bal),
            users=len(balances),
        )

    def job_counts(self) -> dict[str, int]:
        """Jobs per status now."""
        from fotopronta.models import PhotoProcessingJob

        with self.engine.connect() as conn:
            rows = conn.execute(
                select(PhotoProcessingJob.status, func.count()).group_by(PhotoProcessingJob.status)
            ).all()
        return {str(status): int(n) for status, n in rows}

    def job_times(self) -> list[tuple[Any, Any, Any, str]]:
        """``(id, created_at, completed_at, status)`` of every job."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                text("SELECT id, created_at, completed_at, status FROM photo_processing_jobs")
            ).all()
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    # ---------------------------------------------------------------- memory
    def rss_mb(self) -> dict[str, float]:
        """Resident memory (MB) of each part, summed over its whole process tree."""
        out: dict[str, float] = {}
        for name, proc in self.procs.items():
            try:
                root = psutil.Process(proc.pid)
                tree = [root, *root.children(recursive=True)]
            except psutil.NoSuchProcess:
                continue
            total = 0
            for p in tree:
                with contextlib.suppress(psutil.Error):
                    total += p.memory_info().rss
            out[name] = total / 1e6
        return out

    # ---------------------------------------------------------------- tear-down
    def close(self) -> None:
        """Stop every part (API and workers first, PostgreSQL last) and remove the data directory."""
        if self._engine is not None:
            self._engine.dispose()
        for name in ("api", "worker-photo-jobs", "worker-retouch", "temporal", "postgres"):
            if name in self.procs:
                self.stop(name, signal.SIGINT if name == "postgres" else signal.SIGTERM)
        if not self.keep_data:
            shutil.rmtree(self.data, ignore_errors=True)
