"""Recorded workflow histories for the replay test (``tests/jobs/test_replay.py``): where they live and
how new ones are recorded. The folder scheme is described in ``tests/jobs/histories/README.md``.

``tests/jobs/histories/<WorkflowType>/v<N>-<patch ids>/<name>.json`` (plus that folder's ``MANIFEST``):
one folder per workflow version, named by the ``workflow.patched()`` ids the workflow's code held when
the histories were recorded (each workflow module lists them in ``PATCHES``). Folders are append-only:
files are added, never rewritten; ``MANIFEST`` holds each file's sha256 so an edit fails the test.

Set ``FOTOPRONTA_RECORD_HISTORIES=1`` when running the job tests to add histories of real runs to the
folder of the current code (:func:`current_version_dir`, created when the code has a new patch set).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from temporalio.client import WorkflowHandle, WorkflowHistory

HISTORIES_DIR = Path(__file__).resolve().parents[1] / "jobs" / "histories"
MANIFEST = "MANIFEST"
NO_PATCHES = "no-patches"
VERSION_DIR_RE = re.compile(r"^v(?P<number>[1-9][0-9]*)-(?P<patches>[a-z0-9-]+(?:\+[a-z0-9-]+)*)$")
"""``v<N>-<patch id>+<patch id>…`` (ids sorted) or ``v<N>-no-patches``."""


def patch_suffix(patches: Iterable[str]) -> str:
    """The folder-name part for a set of patch ids: sorted, joined by ``+``; ``no-patches`` if none."""
    ids = sorted(set(patches))
    return "+".join(ids) if ids else NO_PATCHES


@dataclass(frozen=True)
class VersionDir:
    """One version folder: ``path`` = ``HISTORIES_DIR/<workflow>/v<number>-<suffix>``."""

    workflow: str
    number: int
    patches: frozenset[str]
    path: Path

    @property
    def histories(self) -> list[Path]:
        return sorted(self.path.glob("*.json"))


def version_dirs(workflow: str | None = None) -> list[VersionDir]:
    """Every version folder (of ``workflow``, or of all workflows), by workflow and then number.

    Raises:
        ValueError: a folder whose name does not follow the scheme.
    """
    found: list[VersionDir] = []
    for wf_dir in sorted(p for p in HISTORIES_DIR.iterdir() if p.is_dir()):
        if workflow is not None and wf_dir.name != workflow:
            continue
        for path in sorted(p for p in wf_dir.iterdir() if p.is_dir()):
            m = VERSION_DIR_RE.match(path.name)
            if m is None:
                raise ValueError(f"{path}: not a version folder (v<N>-<patch ids> or v<N>-{NO_PATCHES})")
            ids = m["patches"]
            patches = frozenset() if ids == NO_PATCHES else frozenset(ids.split("+"))
            found.append(VersionDir(wf_dir.name, int(m["number"]), patches, path))
    return sorted(found, key=lambda v: (v.workflow, v.number))


def history_files() -> list[tuple[VersionDir, Path]]:
    """Every recorded history, with its version folder."""
    return [(v, p) for v in version_dirs() for p in v.histories]


def history_path(name: str) -> Path:
    """The newest recording called ``name`` (``<name>.json``) in any version folder.

    Raises:
        FileNotFoundError: no such history.
    """
    for _, path in reversed(history_files()):
        if path.stem == name:
            return path
    raise FileNotFoundError(f"no recorded history {name!r} under {HISTORIES_DIR}")


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_manifest(folder: Path) -> dict[str, str]:
    """``MANIFEST`` of ``folder`` as ``{file name: sha256}`` (``sha256sum`` format: ``<hex>  <name>``)."""
    entries: dict[str, str] = {}
    for line in (folder / MANIFEST).read_text().splitlines():
        if line.strip():
            digest, name = line.split(maxsplit=1)
            entries[name.strip()] = digest
    return entries


def patch_markers(history: WorkflowHistory) -> set[str]:
    """The ``workflow.patched()`` ids whose markers the history holds."""
    ids: set[str] = set()
    for event in history.events:
        if not event.HasField("marker_recorded_event_attributes"):
            continue
        marker = event.marker_recorded_event_attributes
        if marker.marker_name != "core_patch":
            continue
        for payloads in marker.details.values():
            for payload in payloads.payloads:
                data = json.loads(payload.data)
                ids.add(data["id"] if isinstance(data, dict) else str(data))
    return ids


def workflow_type_of(history: WorkflowHistory) -> str:
    return history.events[0].workflow_execution_started_event_attributes.workflow_type.name


def current_version_dir(workflow: str, patches: Iterable[str]) -> Path:
    """The folder new recordings of ``workflow`` go to: its newest version folder if that folder's
    patch set is ``patches`` (the code's ``PATCHES``), else the next number with that patch set."""
    existing = version_dirs(workflow) if HISTORIES_DIR.is_dir() else []
    wanted = frozenset(patches)
    if existing and existing[-1].patches == wanted:
        return existing[-1].path
    number = existing[-1].number + 1 if existing else 1
    return HISTORIES_DIR / workflow / f"v{number}-{patch_suffix(wanted)}"


def workflow_patches(workflow: str) -> tuple[str, ...]:
    """The ``PATCHES`` list of the workflow's module (``workflows/*.py``)."""
    from workflows import credit_expiry, photo_job, webhook_delivery

    modules = {
        "PhotoJobWorkflow": photo_job,
        "CreditExpiryWorkflow": credit_expiry,
        "WebhookDeliveryWorkflow": webhook_delivery,
    }
    return tuple(modules[workflow].PATCHES)


def add_history(history: WorkflowHistory, name: str) -> Path | None:
    """Add ``history`` as ``<name>.json`` to the current version folder of its workflow and to that
    folder's ``MANIFEST``; ``None`` (nothing written) when the folder already has a file of that name:
    recorded histories are never rewritten."""
    workflow = workflow_type_of(history)
    folder = current_version_dir(workflow, workflow_patches(workflow))
    path = folder / f"{name}.json"
    if path.exists():
        return None
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(history.to_json())
    with (folder / MANIFEST).open("a") as manifest:
        manifest.write(f"{sha256_of(path)}  {path.name}\n")
    return path


async def maybe_record(handle: WorkflowHandle, name: str) -> None:
    """Add the handle's current history (:func:`add_history`) when recording is switched on."""
    if not os.environ.get("FOTOPRONTA_RECORD_HISTORIES"):
        return
    add_history(await handle.fetch_history(), name)
