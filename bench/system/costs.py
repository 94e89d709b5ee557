"""Per-photo costs of the system (the inputs of ``docs/scaling.md``).

Measured on a :class:`bench.system.stack.OwnStack` around one pass of photos (``bench/system/load.py``'s quiet pass):

- **CPU seconds** of each part (user + system, summed over the part's process tree, ``psutil``);
- **PostgreSQL writes**: committed transactions and rows inserted/updated/deleted
  (``pg_stat_database`` of the ``fotopronta`` database) and its size growth (``pg_database_size``);
- **stored bytes**: growth of the local object store (originals, results, previews);
- **Temporal**: the history of a sample of the pass's job workflows, read back with the client: events
  per workflow and the billable actions among them, counted as Temporal Cloud counts them
  (https://docs.temporal.io/cloud/actions: workflow start, activity start or retry, timer, signal,
  update, search-attribute upsert, side effect/marker; workflow tasks and queries are not actions).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from sqlalchemy import text

from bench.system.stack import OwnStack

ACTION_EVENTS = {
    "EVENT_TYPE_WORKFLOW_EXECUTION_STARTED",
    "EVENT_TYPE_ACTIVITY_TASK_SCHEDULED",
    "EVENT_TYPE_TIMER_STARTED",
    "EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED",
    "EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED",
    "EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES",
    "EVENT_TYPE_MARKER_RECORDED",
    "EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED",
    "EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED",
}
"""History events that Temporal Cloud bills as one action each (activity retries show up as
``attempt`` > 1 on the started event and are added separately)."""


@dataclass
class Snapshot:
    """Counters at one instant: CPU seconds per part, PostgreSQL counters, stored bytes."""

    cpu_s: dict[str, float] = field(default_factory=dict)
    pg: dict[str, int] = field(default_factory=dict)
    stored_bytes: int = 0


def _tree_cpu_s(pid: int) -> float:
    total = 0.0
    try:
        root = psutil.Process(pid)
        tree = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    for proc in tree:
        with contextlib.suppress(psutil.Error):
            t = proc.cpu_times()
            total += t.user + t.system
    return total


def _dir_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) if root.exists() else 0


def snapshot(stack: OwnStack) -> Snapshot:
    """Read every counter of ``stack`` now."""
    snap = Snapshot()
    for name, proc in stack.procs.items():
        snap.cpu_s[name] = _tree_cpu_s(proc.pid)
    with stack.engine.connect() as conn:
        row = conn.execute(
            text(
                "SELECT xact_commit, tup_inserted, tup_updated, tup_deleted, pg_database_size(datname)"
                " FROM pg_stat_database WHERE datname = current_database()"
            )
        ).one()
    snap.pg = dict(zip(("commits", "inserted", "updated", "deleted", "db_bytes"), map(int, row), strict=True))
    snap.stored_bytes = _dir_bytes(stack.data / "storage")
    return snap


def per_photo(before: Snapshot, after: Snapshot, photos: int) -> dict[str, float]:
    """The growth of every counter from ``before`` to ``after`` divided by ``photos``: keys
    ``cpu_s:<part>``, ``cpu_s:total``, ``pg:<counter>``, ``stored_bytes``."""
    out: dict[str, float] = {}
    for part, value in after.cpu_s.items():
        out[f"cpu_s:{part}"] = (value - before.cpu_s.get(part, 0.0)) / photos
    out["cpu_s:total"] = sum(v for k, v in out.items() if k.startswith("cpu_s:"))
    for key, value in after.pg.items():
        out[f"pg:{key}"] = (value - before.pg.get(key, 0)) / photos
    out["stored_bytes"] = (after.stored_bytes - before.stored_bytes) / photos
    return out


async def _histories(address: str, workflow_ids: list[str]) -> list[Counter[str]]:
    from temporalio.api.enums.v1 import EventType
    from temporalio.client import Client

    client = await Client.connect(address)
    out: list[Counter[str]] = []
    for wid in workflow_ids:
        history = await client.get_workflow_handle(wid).fetch_history()
        counts: Counter[str] = Counter()
        for event in history.events:
            etype = EventType.Name(event.event_type)
            counts["events"] += 1
            if etype in ACTION_EVENTS:
                counts["actions"] += 1
            if (
                etype == "EVENT_TYPE_ACTIVITY_TASK_STARTED"
                and event.activity_task_started_event_attributes.attempt > 1
            ):
                counts["actions"] += 1  # a retried activity is one more action
                counts["retries"] += 1
            if etype == "EVENT_TYPE_ACTIVITY_TASK_SCHEDULED":
                counts["activities"] += 1
        out.append(counts)
    return out


def temporal_costs(
    stack: OwnStack, job_ids: list[Any], *, sample: int = 30, seed: int = 13
) -> dict[str, float]:
    """Mean history events, billable actions, activities and activity retries per job workflow, over
    a random ``sample`` of ``job_ids`` (workflow ids ``photo-job-{job_id}``, DESIGN.md)."""
    from activities.contracts import workflow_id_for_job

    chosen = random.Random(seed).sample(list(job_ids), min(sample, len(job_ids)))
    if not chosen:
        return {}
    counts = asyncio.run(_histories(stack.temporal_address, [workflow_id_for_job(str(j)) for j in chosen]))
    keys = ("events", "actions", "activities", "retries")
    return {k: sum(c[k] for c in counts) / len(counts) for k in keys} | {"sampled": float(len(counts))}
