"""Race attacks against a running FotoPronta stack: requests that arrive together.

Run it against ``make dev`` (or any stack)::

    python -m tests.attack.races --base-url http://localhost:8000 [--email … --password …]
        [--temporal-address localhost:7233]

Without ``--email`` it signs up a fresh client (15 credits) and confirms it through the development
outbox (``GET /api/dev/mail``). It prints one line per attack, ``expected`` vs ``got``, and exits 1
when any attack got something other than expected.

Attacks:

- ``parallel-reworks``: 20 parallel ``POST /api/photos/{id}/rework`` on one delivered AI photo: one
  200, nineteen 409 'Hai già chiesto la revisione gratuita…', one designer job on the photo;
- ``rework-vs-delete``: 3 reworks and 3 ``DELETE`` in parallel on one delivered AI photo, on 3 photos:
  no 5xx; a deleted photo is gone with its jobs, a kept one has at most one rework. With
  ``--temporal-address`` (the stack's Temporal frontend) it also checks that no workflow of these jobs
  still runs once its photo is gone;
- ``cancel-then-waiting``: the balance is spent on designer jobs until two AI uploads wait for
  credits, then one designer photo is deleted (its job cancelled, 3 credits released): the two
  waiting jobs must be processed. The other designer photos are deleted at the end (credits back).
  Needs a balance of 3 to 30 credits (a fresh account has 15).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import httpx

from tests.attack.uploads import Attacker, Outcome, small_jpeg

PARALLEL_REWORKS = 20
ALREADY_ASKED = "Hai già chiesto la revisione gratuita di questa foto."
RUNNING_STATES = {"pending", "waiting_for_credits", "processing"}


class Racer(Attacker):
    """The signed-in client of :class:`tests.attack.uploads.Attacker`, plus parallel requests."""

    def photo(self, photo_id: str) -> dict[str, Any] | None:
        """The client's photo by id (``None`` once deleted)."""
        photos = self.http.get("/api/photos", headers=self.headers, params={"limit": 100}).json()["items"]
        return next((p for p in photos if p["id"] == photo_id), None)

    def delivered_photo(self, name: str) -> dict[str, Any]:
        """Upload one AI photo and wait until it is delivered. Raises: RuntimeError otherwise."""
        resp = self.http.post(
            "/api/photos", headers=self.headers, files=[("files", (name, small_jpeg(), "image/jpeg"))]
        )
        if resp.status_code != 201:
            raise RuntimeError(f"upload {resp.status_code} {resp.text[:200]}")
        photo = dict(resp.json()[0])
        status = self.wait_done(photo["id"])
        if status != "completed":
            raise RuntimeError(f"AI job ended {status}")
        return photo

    def together(self, requests: list[tuple[str, str, dict[str, Any] | None]]) -> list[httpx.Response]:
        """Send ``(method, path, json)`` requests all at once (one connection each)."""

        async def run() -> list[httpx.Response]:
            limits = httpx.Limits(max_connections=len(requests))
            async with httpx.AsyncClient(
                base_url=self.http.base_url, timeout=self.http.timeout, limits=limits
            ) as client:
                return list(
                    await asyncio.gather(
                        *(
                            client.request(method, path, headers=self.headers, json=body)
                            for method, path, body in requests
                        )
                    )
                )

        return asyncio.run(run())


def _codes(answers: list[httpx.Response]) -> str:
    counts = Counter(r.status_code for r in answers)
    return ", ".join(f"{n}×{code}" for code, n in sorted(counts.items()))


def attack_parallel_reworks(att: Racer) -> Outcome:
    """20 parallel free-rework requests on one delivered photo."""
    photo = att.delivered_photo("revisione-parallela.jpg")
    pid = photo["id"]
    answers = att.together([("POST", f"/api/photos/{pid}/rework", {"notes": f"n{i}"}) for i in range(20)])
    refused = [r for r in answers if r.status_code == 409]
    messages = {(r.json() or {}).get("detail") for r in refused}
    after = att.photo(pid) or {"jobs": []}
    reworks = sum(1 for j in after["jobs"] if j["job_type"] == "background_removal_human")
    ok = (
        sum(r.status_code == 200 for r in answers) == 1
        and len(refused) == PARALLEL_REWORKS - 1
        and messages == {ALREADY_ASKED}
        and reworks == 1
    )
    got = f"{_codes(answers)}; designer jobs on the photo: {reworks}"
    if refused and messages != {ALREADY_ASKED}:
        got += f"; 409 says {sorted(str(m) for m in messages)}"
    return Outcome("parallel-reworks", "1×200, 19×409 'già chiesto', 1 rework", got, ok)


async def _running_workflows(address: str, job_ids: set[str]) -> list[str]:
    from temporalio.client import Client, WorkflowExecutionStatus
    from temporalio.service import RPCError

    client = await Client.connect(address)
    running = []
    for job_id in job_ids:
        try:
            desc = await client.get_workflow_handle(f"photo-job-{job_id}").describe()
        except RPCError:
            continue
        if desc.status == WorkflowExecutionStatus.RUNNING:
            running.append(job_id)
    return running


def attack_rework_vs_delete(att: Racer, temporal_address: str | None, rounds: int = 3) -> Outcome:
    """3 reworks and 3 deletions at once on each of ``rounds`` delivered photos."""
    codes: Counter[int] = Counter()
    problems: list[str] = []
    gone_jobs: set[str] = set()
    for n in range(rounds):
        photo = att.delivered_photo(f"revisione-contro-eliminazione-{n}.jpg")
        pid = photo["id"]
        jobs = {j["id"] for j in photo["jobs"]}
        rework: tuple[str, str, dict[str, Any] | None] = ("POST", f"/api/photos/{pid}/rework", {})
        remove: tuple[str, str, dict[str, Any] | None] = ("DELETE", f"/api/photos/{pid}", None)
        pair = [rework, remove] if n % 2 == 0 else [remove, rework]  # who is sent first alternates
        calls = pair * 3
        answers = att.together(calls)
        codes.update(r.status_code for r in answers)
        for r in answers:
            if r.status_code == 200:
                jobs.update(j["id"] for j in r.json()["jobs"])
        after = att.photo(pid)
        deleted = any(r.status_code == 204 for r in answers)
        if deleted and after is not None:
            problems.append(f"{pid[:8]}: 204 but still listed")
        if after is not None:
            reworks = sum(1 for j in after["jobs"] if j["job_type"] == "background_removal_human")
            if reworks > 1:
                problems.append(f"{pid[:8]}: {reworks} reworks")
        if after is None:
            gone_jobs |= jobs
    if any(code >= 500 for code in codes):
        problems.append("5xx answers")
    checked = "workflows not checked (no --temporal-address)"
    if not gone_jobs:
        checked = "no photo deleted, no workflow to check"
    elif temporal_address:
        deadline = time.monotonic() + 30
        running = asyncio.run(_running_workflows(temporal_address, gone_jobs))
        while running and time.monotonic() < deadline:
            time.sleep(2)
            running = asyncio.run(_running_workflows(temporal_address, set(running)))
        checked = f"{len(running)} workflow(s) of deleted jobs running"
        if running:
            problems.append(f"running without their job: {', '.join(j[:8] for j in running)}")
    got = f"{', '.join(f'{n}×{c}' for c, n in sorted(codes.items()))}; {checked}"
    if problems:
        got += "; " + "; ".join(problems)
    return Outcome("rework-vs-delete", "no 5xx, ≤1 rework, no orphan workflow", got, not problems)


def attack_cancel_then_waiting(att: Racer) -> Outcome:
    """Spend the balance on designer jobs, let two AI uploads wait, cancel one designer job."""
    expected = "2 waiting jobs processed after the cancel"
    balance = att.credits()
    if not 3 <= balance <= 30:
        return Outcome("cancel-waiting", expected, f"skipped: balance {balance} (needs 3–30)", False)
    spare = balance % 3
    for i in range(spare):  # the remainder goes to AI jobs, so the designer jobs take the rest exactly
        att.delivered_photo(f"resto-{i}.jpg")
    human = att.http.post(
        "/api/photos",
        headers=att.headers,
        data={"job_type": "background_removal_human"},
        files=[("files", (f"grafico-{i}.jpg", small_jpeg(), "image/jpeg")) for i in range(balance // 3)],
    )
    if human.status_code != 201:
        return Outcome("cancel-waiting", expected, f"designer upload {human.status_code}", False)
    human_ids = [p["id"] for p in human.json()]
    for pid in human_ids:
        att.wait_done(pid, timeout_s=60)
    waiting = att.http.post(
        "/api/photos",
        headers=att.headers,
        files=[("files", (f"in-attesa-{i}.jpg", small_jpeg(), "image/jpeg")) for i in range(2)],
    )
    if waiting.status_code != 201:
        return Outcome("cancel-waiting", expected, f"AI upload {waiting.status_code}", False)
    waiting_ids = [p["id"] for p in waiting.json()]
    deadline = time.monotonic() + 60
    states: list[str] = []
    while time.monotonic() < deadline:
        states = [
            (att.photo(pid) or {"jobs": [{"status": "?"}]})["jobs"][-1]["status"] for pid in waiting_ids
        ]
        if all(s == "waiting_for_credits" for s in states):
            break
        time.sleep(1)
    before = "/".join(states)
    cancel = att.http.delete(f"/api/photos/{human_ids[0]}", headers=att.headers)
    after = [att.wait_done(pid, timeout_s=180) for pid in waiting_ids]
    for pid in human_ids[1:]:  # clean up: the credits come back
        att.http.delete(f"/api/photos/{pid}", headers=att.headers)
    ok = (
        before == "waiting_for_credits/waiting_for_credits"
        and cancel.status_code == 204
        and after
        == [
            "completed",
            "completed",
        ]
    )
    got = f"before: {before}; cancel {cancel.status_code}; after: {'/'.join(after)}"
    return Outcome("cancel-waiting", expected, got, ok)


def main(argv: list[str] | None = None) -> int:
    """Run every race once and print one line each; exit 1 when any got an unexpected answer."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--base-url", default="http://localhost:8000")
    parser.add_argument("--email", help="an existing confirmed client (default: sign up a new one)")
    parser.add_argument("--password")
    parser.add_argument("--temporal-address", help="e.g. localhost:7233: also check the workflows")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per HTTP request")
    args = parser.parse_args(argv)

    att = Racer(args.base_url, args.timeout)
    if args.email:
        email, password = args.email, args.password or ""
    else:
        email, password = att.signup()
    att.headers = att.login(email, password)
    print(f"# {args.base_url} as {email}", flush=True)

    outcomes: list[Outcome] = []

    def run(name: str, attack: Callable[[], Outcome]) -> None:
        try:
            outcome = attack()
        except (httpx.HTTPError, RuntimeError) as exc:
            outcome = Outcome(name, "an answer", f"{type(exc).__name__}: {exc}", False)
        outcomes.append(outcome)
        print(outcome.line(), flush=True)

    run("parallel-reworks", lambda: attack_parallel_reworks(att))
    run("rework-vs-delete", lambda: attack_rework_vs_delete(att, args.temporal_address))
    run("cancel-waiting", lambda: attack_cancel_then_waiting(att))
    failed = [o.name for o in outcomes if not o.ok]
    print(
        f"# {len(outcomes) - len(failed)}/{len(outcomes)} as expected"
        + (f"; failed: {failed}" if failed else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
