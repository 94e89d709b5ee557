"""Recording workflow histories for the replay test (``tests/jobs/test_replay.py``).

Set ``FOTOPRONTA_RECORD_HISTORIES=1`` when running the job tests to (re)write
``tests/jobs/histories/NAME.json`` from real runs; commit them before changing a workflow, so the
replay test catches non-deterministic changes (Temporal samples habit).
"""

from __future__ import annotations

import os
from pathlib import Path

from temporalio.client import WorkflowHandle

HISTORIES_DIR = Path(__file__).resolve().parents[1] / "jobs" / "histories"


async def maybe_record(handle: WorkflowHandle, name: str) -> None:
    """Write the handle's current history as JSON when recording is switched on."""
    if not os.environ.get("FOTOPRONTA_RECORD_HISTORIES"):
        return
    history = await handle.fetch_history()
    HISTORIES_DIR.mkdir(parents=True, exist_ok=True)
    (HISTORIES_DIR / f"{name}.json").write_text(history.to_json())
