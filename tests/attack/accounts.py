"""Account attacks against a running FotoPronta stack; one line per attack, expected vs got.

    python -m tests.attack.accounts --base-url http://localhost:8000 [--database-url postgresql://…]

Run it against a stack whose ``FOTOPRONTA_ENVIRONMENT`` is *not* ``development`` (e.g. ``test`` or
``staging``): there the development pages must be gone and the default JWT secret refused. The script
signs up its own throw-away accounts (``attacco-…@example.it``); to confirm them it reads the e-mailed
links from ``/api/dev/mail`` when that answers, else from the ``email_outbox`` table with
``--database-url`` (a reviewer of ``make dev`` has the database; an outside attacker would not).

Attacks, in this order (the login ones last: they use up the client IP's login budget for 15 minutes):

1. ``forged-token``: an admin token signed with the default development secret for our own user id.
2. ``dev-pages``: ``/api/dev/mail`` (everyone's reset codes) and ``/dev/mail`` outside development.
3. ``reuse-after-logout``: an access token used after ``POST /api/auth/logout``.
4. ``reuse-after-password-change``: another session's access token after a password change.
5. ``pre-hijack``: the attacker signs up the victim's address with their password, the victim opens
   the link in their own browser, the attacker logs in with their password.
6. ``login-timing``: median login time for an existing vs an unknown e-mail (wrong password).
7. ``xff-rotation``: failed logins for one account, a new ``X-Forwarded-For`` address each time.
8. ``password-spray``: one password across many accounts from one client.

Exit status 0 when every attack got what was expected, 1 otherwise.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import httpx
import jwt

DEV_JWT_SECRET = "dev-only-insecure-secret-change-me-0123456789abcdef"
"""The development default of ``FOTOPRONTA_JWT_SECRET`` (public: it is in the repository)."""
PASSWORD = "segreto123"


class Attack:
    """Shared state: the base URL, optional database URL and the results printed so far."""

    def __init__(self, base_url: str, database_url: str | None, attempts: int, samples: int) -> None:
        self.base_url = base_url.rstrip("/")
        self.database_url = database_url
        self.attempts = attempts
        self.samples = samples
        self.failures = 0

    def client(self) -> httpx.Client:
        """A fresh client: its own cookie jar, i.e. its own browser."""
        return httpx.Client(base_url=self.base_url, timeout=60)

    def report(self, name: str, expected: str, got: str, ok: bool) -> None:
        """Print one line: ``[OK|FAIL] name: expected …; got …``."""
        self.failures += 0 if ok else 1
        print(f"[{'OK' if ok else 'FAIL'}] {name}: expected {expected}; got {got}", flush=True)

    # --- helpers ----------------------------------------------------------------------------------------
    def signup(self, client: httpx.Client, email: str, password: str = PASSWORD) -> httpx.Response:
        """``POST /api/auth/signup`` for ``email``."""
        return client.post(
            "/api/auth/signup", json={"email": email, "password": password, "first_name": "Attacco"}
        )

    def latest_link(self, email: str) -> str | None:
        """The newest e-mailed link to ``email``: from ``/api/dev/mail`` or the ``email_outbox`` table."""
        with self.client() as c:
            resp = c.get("/api/dev/mail", params={"to": email})
            if resp.status_code == 200 and resp.json():
                return str(resp.json()[0]["links"][0])
        if not self.database_url:
            return None
        import psycopg

        url = self.database_url.replace("postgresql+psycopg://", "postgresql://")
        with psycopg.connect(url) as conn:
            row = conn.execute(
                "SELECT links FROM email_outbox WHERE to_address = %s ORDER BY created_at DESC LIMIT 1",
                (email,),
            ).fetchone()
        return str(row[0][0]) if row and row[0] else None

    def confirm(self, client: httpx.Client, email: str) -> httpx.Response | None:
        """Open the newest e-mailed link of ``email`` with ``client`` (``POST /api/auth/verify``)."""
        link = self.latest_link(email)
        if link is None:
            return None
        query = {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()}
        return client.post(
            "/api/auth/verify", json={"token_hash": query["token_hash"], "type": query["type"]}
        )

    def confirmed_account(self) -> tuple[str, str] | None:
        """A new confirmed account (sign-up and link in the same client), or ``None`` without mail."""
        email = f"attacco-{uuid.uuid4().hex[:10]}@example.it"
        with self.client() as c:
            if self.signup(c, email).status_code != 201:
                return None
            resp = self.confirm(c, email)
        return (email, PASSWORD) if resp is not None and resp.status_code == 200 else None

    def skip(self, name: str, why: str) -> None:
        """Report an attack that could not run."""
        print(f"[SKIP] {name}: {why}", flush=True)

    # --- attacks ------------------------------------------------------------------------------------------
    def forged_token(self) -> None:
        """A token signed with the public development secret must not be accepted."""
        with self.client() as c:
            resp = self.signup(c, f"attacco-{uuid.uuid4().hex[:10]}@example.it")
        if resp.status_code != 201:
            self.skip("forged-token", f"sign-up answered {resp.status_code}")
            return
        now = datetime.now(UTC)
        claims = {
            "sub": resp.json()["id"],
            "role": "admin",
            "sid": str(uuid.uuid4()),
            "iat": now,
            "exp": now + timedelta(hours=1),
            "typ": "access",
        }
        token = jwt.encode(claims, DEV_JWT_SECRET, algorithm="HS256")
        with self.client() as c:
            got = c.get("/api/me", headers={"Authorization": f"Bearer {token}"}).status_code
        self.report("forged-token", "401 on /api/me", str(got), got == 401)

    def dev_pages(self) -> None:
        """Development pages must be 404 outside development."""
        with self.client() as c:
            got = {p: c.get(p).status_code for p in ("/api/dev/mail", "/dev/mail", "/dev/checkout/cs_test_x")}
        self.report("dev-pages", "404 for each", str(got), all(v == 404 for v in got.values()))

    def reuse_after_logout(self, account: tuple[str, str]) -> None:
        """An access token must stop working when its session logs out."""
        with self.client() as c:
            session = c.post("/api/auth/login", json={"email": account[0], "password": account[1]}).json()
            headers = {"Authorization": f"Bearer {session['access_token']}"}
            before = c.get("/api/me", headers=headers).status_code
            c.post("/api/auth/logout", json={"refresh_token": session["refresh_token"]})
            after = c.get("/api/me", headers=headers).status_code
        self.report(
            "reuse-after-logout", "200 then 401", f"{before} then {after}", (before, after) == (200, 401)
        )

    def reuse_after_password_change(self, account: tuple[str, str]) -> None:
        """A password change must sign every other session out at once."""
        with self.client() as c:
            stolen = c.post("/api/auth/login", json={"email": account[0], "password": account[1]}).json()
            mine = c.post("/api/auth/login", json={"email": account[0], "password": account[1]}).json()
            changed = c.post(
                "/api/auth/password/change",
                headers={"Authorization": f"Bearer {mine['access_token']}"},
                json={"current_password": account[1], "new_password": "cambiata123"},
            ).status_code
            got = c.get("/api/me", headers={"Authorization": f"Bearer {stolen['access_token']}"}).status_code
        self.report(
            "reuse-after-password-change",
            "change 200, other session 401",
            f"change {changed}, {got}",
            got == 401,
        )

    def pre_hijack(self) -> None:
        """The attacker's password must not work after the owner confirms the address."""
        victim = f"vittima-{uuid.uuid4().hex[:10]}@example.it"
        with self.client() as attacker:
            if self.signup(attacker, victim, "password-attaccante").status_code != 201:
                self.skip("pre-hijack", "sign-up refused")
                return
            with self.client() as owner:  # the owner's own browser
                confirmed = self.confirm(owner, victim)
            if confirmed is None:
                self.skip("pre-hijack", "no e-mailed link readable (pass --database-url)")
                return
            got = attacker.post("/api/auth/login", json={"email": victim, "password": "password-attaccante"})
        self.report(
            "pre-hijack",
            "attacker's login 401 after the owner confirmed",
            f"confirm {confirmed.status_code}, attacker login {got.status_code}",
            got.status_code == 401,
        )

    def login_timing(self, account: tuple[str, str]) -> None:
        """Wrong-password logins must take as long for an existing as for an unknown e-mail."""

        emails = {"known": account[0], "unknown": f"nessuno-{uuid.uuid4().hex[:10]}@example.it"}
        times: dict[str, list[float]] = {"known": [], "unknown": []}
        with self.client() as c:
            for _ in range(self.samples):  # interleaved, so load changes hit both alike
                for kind, email in emails.items():
                    start = time.perf_counter()
                    c.post("/api/auth/login", json={"email": email, "password": "sbagliata-davvero"})
                    times[kind].append((time.perf_counter() - start) * 1000)
        known, unknown = statistics.median(times["known"]), statistics.median(times["unknown"])
        ratio = unknown / known if known else 0.0
        self.report(
            "login-timing",
            "unknown/known median ratio within 0.5-2",
            f"known {known:.0f} ms, unknown {unknown:.0f} ms (ratio {ratio:.2f})",
            0.5 <= ratio <= 2,
        )

    def _first_429(
        self, name: str, expected: str, request: Callable[[httpx.Client, int], httpx.Response]
    ) -> None:
        statuses: list[int] = []
        with self.client() as c:
            for i in range(self.attempts):
                statuses.append(request(c, i).status_code)
                if statuses[-1] == 429:
                    break
        got = f"first 429 at attempt {len(statuses)}" if 429 in statuses else f"no 429 in {len(statuses)}"
        self.report(name, expected, f"{got} (statuses {sorted(set(statuses))})", 429 in statuses)

    def xff_rotation(self) -> None:
        """Rotating ``X-Forwarded-For`` must not reset the login limit."""
        email = f"bersaglio-{uuid.uuid4().hex[:10]}@example.it"
        self._first_429(
            "xff-rotation",
            f"429 within {self.attempts} failed logins",
            lambda c, i: c.post(
                "/api/auth/login",
                json={"email": email, "password": f"tentativo{i}"},
                headers={"X-Forwarded-For": f"198.51.{i // 250}.{i % 250 + 1}"},
            ),
        )

    def password_spray(self) -> None:
        """One password tried across many accounts from one client must hit a per-IP limit."""
        self._first_429(
            "password-spray",
            f"429 within {self.attempts} accounts",
            lambda c, i: c.post(
                "/api/auth/login",
                json={"email": f"spray-{i}-{uuid.uuid4().hex[:6]}@example.it", "password": "Estate2026!"},
            ),
        )


def main(argv: list[str] | None = None) -> int:
    """Run every attack and print one line each; exit 1 if any got an unexpected answer."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", default="http://localhost:8000")
    parser.add_argument("--database-url", help="to read e-mailed links from email_outbox outside development")
    parser.add_argument("--attempts", type=int, default=40, help="failed logins per limit attack")
    parser.add_argument("--samples", type=int, default=7, help="logins per e-mail for the timing attack")
    args = parser.parse_args(argv)
    attack = Attack(args.base_url, args.database_url, args.attempts, args.samples)
    attack.forged_token()
    attack.dev_pages()
    account = attack.confirmed_account()
    if account is None:
        for name in ("reuse-after-logout", "reuse-after-password-change", "login-timing"):
            attack.skip(name, "could not confirm an account (no /api/dev/mail; pass --database-url)")
    else:
        attack.reuse_after_logout(account)
        attack.reuse_after_password_change(account)
    attack.pre_hijack()
    if account is not None:
        attack.login_timing((account[0], "cambiata123"))
    attack.xff_rotation()
    attack.password_spray()
    return 1 if attack.failures else 0


if __name__ == "__main__":
    sys.exit(main())
