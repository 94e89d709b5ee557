"""Faults during load, on a stack of its own (separate PostgreSQL, Temporal dev server, worker and API
processes on free ports), so stopping PostgreSQL does not touch the session's stack. A few real photos
are uploaded through the API, then PostgreSQL is stopped for 10 s, the Temporal server for 10 s and the
retouch worker is killed mid-photo: the fault benchmark's own command (``make bench-faults``) with fewer
photos, whose JSON report this test reads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SHARED_PHOTOS

pytestmark = pytest.mark.stack

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(not (SHARED_PHOTOS / "nomask").is_dir(), reason="../shared/photos absent")
def test_faults_during_load_every_photo_once_and_503_while_the_database_is_down(tmp_path: Path) -> None:
    out = tmp_path / "faults.json"
    command = [sys.executable, "-m", "bench.system.faults", "--photos", "6", "--users", "1"]
    command += ["--outage-s", "10", "--finish-timeout-s", "240", "--json", str(out)]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=900)
    assert out.is_file(), done.stdout[-4000:] + done.stderr[-4000:]
    report = json.loads(out.read_text())
    phases = report["phases"]

    # while PostgreSQL was down the API answered 503 in Italian with Retry-After, never a bare 500
    assert report["db_down_codes"].get("503", 0) > 0, phases
    assert set(report["db_down_codes"]) <= {"503", "200"}, phases  # 200: a probe in flight at the stop
    assert report["db_down_body"] == {
        "detail": "Servizio momentaneamente non disponibile, riprova tra poco.",
        "code": "service_unavailable",
    }
    assert report["db_down_retry_after"] is not None and int(report["db_down_retry_after"]) > 0
    # and recovered by itself once the database was back
    assert report["db_recovered_s"] is not None and report["db_recovered_s"] < 30, phases
    # an upload while Temporal was down is accepted (the reconciler starts its workflows later)
    assert report["temporal_upload_status"] == 201, phases
    assert report["killed_mid_photo"], phases
    check = report["check"]
    assert check is not None
    assert check["jobs"] == 8 and check["completed"] == 8, phases
    assert check["jobs_charged_twice"] == 0 and check["charges_per_job_max"] == 1
    assert check["success_notes_max"] == 1
    assert check["balances_off"] == 0
    assert check["ok"] and done.returncode == 0, phases
