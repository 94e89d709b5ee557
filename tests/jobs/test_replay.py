"""Replay recorded workflow histories against the current workflow code: a non-deterministic change
to ``PhotoJobWorkflow`` or ``CreditExpiryWorkflow`` fails here (STYLE.md: replay tests before
changing a workflow; use ``workflow.patched()`` for changes to running ones).

Histories come from real runs of the job tests (``FOTOPRONTA_RECORD_HISTORIES=1``, see
``tests/utils/histories.py``): AI success with retention, bad image, waiting for credits, worker
crash, human completed/rejected/escalated, credit expiry.
"""

from __future__ import annotations

import pytest
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer

from tests.utils.histories import HISTORIES_DIR
from workflows.credit_expiry import CreditExpiryWorkflow
from workflows.photo_job import PhotoJobWorkflow

HISTORY_FILES = sorted(HISTORIES_DIR.glob("*.json"))


def test_histories_are_recorded() -> None:
    names = {p.stem for p in HISTORY_FILES}
    assert {
        "ai-completed-retention",
        "ai-bad-image",
        "human-completed",
        "human-rejected",
        "human-deadline-escalation",
        "credit-expiry",
        "ai-search-attributes",  # JobStatus upserts behind workflow.patched("search-attributes-status")
    } <= names


@pytest.mark.parametrize("path", HISTORY_FILES, ids=[p.stem for p in HISTORY_FILES])
async def test_replay(path) -> None:  # type: ignore[no-untyped-def]
    history = WorkflowHistory.from_json(f"replay-{path.stem}", path.read_text())
    replayer = Replayer(workflows=[PhotoJobWorkflow, CreditExpiryWorkflow])
    result = await replayer.replay_workflow(history, raise_on_replay_failure=True)
    assert result.replay_failure is None
