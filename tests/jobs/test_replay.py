"""Replay recorded workflow histories against the current workflow code: a non-deterministic change
to ``PhotoJobWorkflow``, ``CreditExpiryWorkflow`` or ``WebhookDeliveryWorkflow`` fails here (STYLE.md: replay tests before
changing a workflow; use ``workflow.patched()`` for changes to running ones).

Histories come from real runs of the job tests (``FOTOPRONTA_RECORD_HISTORIES=1``, see
``tests/utils/histories.py``) and live in one append-only folder per workflow version,
``tests/jobs/histories/<WorkflowType>/v<N>-<patch ids>/`` (``tests/jobs/histories/README.md``).
Every file of every folder is replayed; the checks below keep the folders honest: each has histories
and a ``MANIFEST`` whose sha256 sums match them (an edited history fails), each history's patch
markers belong to its folder's patch set, and the newest folder of each workflow matches the patch
ids its code calls (a new ``workflow.patched()`` id needs a new recording).
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer

from tests.utils.histories import (
    HISTORIES_DIR,
    MANIFEST,
    VersionDir,
    current_version_dir,
    history_files,
    patch_markers,
    read_manifest,
    sha256_of,
    version_dirs,
    workflow_patches,
    workflow_type_of,
)
from workflows import credit_expiry, photo_job, webhook_delivery
from workflows.credit_expiry import CreditExpiryWorkflow
from workflows.photo_job import PhotoJobWorkflow
from workflows.webhook_delivery import WebhookDeliveryWorkflow

WORKFLOWS = {
    "PhotoJobWorkflow": photo_job,
    "CreditExpiryWorkflow": credit_expiry,
    "WebhookDeliveryWorkflow": webhook_delivery,
}
HISTORY_FILES = history_files()


def _id(version: VersionDir, path: Path) -> str:
    return f"{version.workflow}/{version.path.name}/{path.stem}"


def _load(path: Path) -> WorkflowHistory:
    return WorkflowHistory.from_json(f"replay-{path.stem}", path.read_text())


def test_histories_are_recorded() -> None:
    names = {p.stem for _, p in HISTORY_FILES}
    assert {
        "ai-completed-retention",
        "ai-bad-image",
        "human-completed",
        "human-rejected",
        "human-deadline-escalation",
        "human-cancelled",  # the cancel update behind workflow.patched("seller-cancel-before-start")
        "credit-expiry",
        "ai-search-attributes",  # JobStatus upserts behind workflow.patched("search-attributes-status")
        "webhook-three-days",  # WebhookDeliveryWorkflow: ten attempts on the schedule
    } <= names


def test_folders_follow_the_scheme() -> None:
    """Only workflow folders (with version folders) and the README at the top; version numbers
    unique per workflow; each version folder has at least one history and a MANIFEST, nothing else."""
    top = sorted(p.name for p in HISTORIES_DIR.iterdir())
    assert top == sorted(["README.md", *WORKFLOWS]), top
    versions = version_dirs()  # raises on a folder name outside the scheme
    for workflow in WORKFLOWS:
        numbers = [v.number for v in versions if v.workflow == workflow]
        assert numbers and len(numbers) == len(set(numbers)), (workflow, numbers)
    for version in versions:
        files = sorted(p.name for p in version.path.iterdir())
        assert version.histories, f"{version.path} has no history: record one or remove the folder"
        assert files == sorted([MANIFEST, *(p.name for p in version.histories)]), files


@pytest.mark.parametrize("version", version_dirs(), ids=lambda v: f"{v.workflow}/{v.path.name}")
def test_manifest_matches_the_histories(version: VersionDir) -> None:
    """Append-only: a recorded history is never edited (its sha256 is in the folder's MANIFEST)."""
    manifest = read_manifest(version.path)
    assert sorted(manifest) == [p.name for p in version.histories]
    changed = [p.name for p in version.histories if sha256_of(p) != manifest[p.name]]
    assert not changed, f"histories edited after recording (record a new one instead): {changed}"


@pytest.mark.parametrize("workflow", sorted(WORKFLOWS))
def test_patches_list_every_patched_call(workflow: str) -> None:
    """Each ``workflow.patched(X)`` in the module uses an id listed in its ``PATCHES``."""
    module = WORKFLOWS[workflow]
    tree = ast.parse(inspect.getsource(module))
    called = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("patched", "deprecate_patch")
        ):
            arg = node.args[0]
            called.add(arg.value if isinstance(arg, ast.Constant) else getattr(module, ast.unparse(arg)))
    assert called == set(workflow_patches(workflow))


@pytest.mark.parametrize("workflow", sorted(WORKFLOWS))
def test_the_current_code_has_recorded_histories(workflow: str) -> None:
    """The newest version folder holds histories of the current code's patch set: after adding a
    ``workflow.patched()`` id, record a history into the new folder (docs/workflows.md "Changing a workflow")."""
    folder = current_version_dir(workflow, workflow_patches(workflow))
    assert folder.is_dir(), (
        f"no histories recorded with {workflow}'s current patches: run the job tests with "
        f"FOTOPRONTA_RECORD_HISTORIES=1 to create {folder.relative_to(HISTORIES_DIR)}"
    )


@pytest.mark.parametrize(("version", "path"), HISTORY_FILES, ids=[_id(v, p) for v, p in HISTORY_FILES])
def test_history_belongs_to_its_folder(version: VersionDir, path: Path) -> None:
    history = _load(path)
    assert workflow_type_of(history) == version.workflow
    assert patch_markers(history) <= version.patches


@pytest.mark.parametrize(("version", "path"), HISTORY_FILES, ids=[_id(v, p) for v, p in HISTORY_FILES])
async def test_replay(version: VersionDir, path: Path) -> None:
    history = _load(path)
    replayer = Replayer(workflows=[PhotoJobWorkflow, CreditExpiryWorkflow, WebhookDeliveryWorkflow])
    result = await replayer.replay_workflow(history, raise_on_replay_failure=True)
    assert result.replay_failure is None
