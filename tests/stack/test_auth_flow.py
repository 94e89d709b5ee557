"""Accounts end to end on the real stack (SPEC §2 auth routes, §5, §8 Auth / Reset link / One-time
code): sign-up with an e-mailed confirmation link delivered by the SMTP backend to a real SMTP server
(aiosmtpd on 127.0.0.1), login, reset by 6-digit code and by link, password change, rate limits,
and the development outbox pages."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from sqlalchemy import select, update

from fotopronta.db import session_scope
from fotopronta.links import public_base_url
from fotopronta.models import EmailOutbox, OneTimeCode, RefreshSession, User
from tests.utils.factories import (
    latest_mail,
    login,
    make_user,
    settings_env,
    signup_and_confirm,
    unique_email,
)
from tests.utils.smtp import SmtpServer
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    """A real SMTP server, with the mailer switched to its ``smtp`` backend for the test."""
    server = SmtpServer().start()
    try:
        with settings_env(
            mail_backend="smtp",
            smtp_host="127.0.0.1",
            smtp_port=str(server.port),
            smtp_from="FotoPronta <noreply@fotopronta.test>",
        ):
            yield server
    finally:
        server.stop()


def link_query(link: str) -> dict[str, str]:
    """Query parameters of an e-mailed link."""
    return {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()}


def assert_error(resp: httpx.Response, status: int, detail: str, title: str | None = None) -> None:
    """An API error with this status, Italian ``detail`` and toast ``title``."""
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert body["detail"] == detail, body
    if title is not None:
        assert body.get("title") == title, body


def expire_secrets(email: str, kind: str) -> None:
    """Move the expiry of the user's unused one-time secrets of ``kind`` into the past."""
    with session_scope() as session:
        user_id = session.execute(select(User.id).where(User.email == email)).scalar_one()
        session.execute(
            update(OneTimeCode)
            .where(OneTimeCode.user_id == user_id, OneTimeCode.kind == kind, OneTimeCode.used_at.is_(None))
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )


async def test_signup_confirmation_by_smtp_then_login(
    stack: Stack, api: httpx.AsyncClient, smtp: SmtpServer
) -> None:
    email = unique_email("nuovo")
    resp = await api.post(
        "/api/auth/signup",
        json={"email": email.upper(), "password": "segreto123", "first_name": "Marco", "last_name": "Rossi"},
    )
    assert resp.status_code == 201, resp.text
    body = resp.json()
    assert (body["title"], body["detail"]) == (
        "Registrazione completata",
        "Controlla la tua email per confermare l'account",
    )
    assert body["credits_remaining"] == 15 and body["email"] == email and body["user_role"] == "client"

    # login before confirmation is refused with a clear message
    assert_error(
        await api.post("/api/auth/login", json={"email": email, "password": "segreto123"}),
        401,
        "Email non confermata: apri il link che ti abbiamo inviato per attivare l'account.",
        "Errore accesso",
    )

    # the e-mail really went through SMTP, in Italian, with the callback link on public_url
    [mail] = smtp.wait_for(email)
    assert mail.subject == "Conferma il tuo account FotoPronta"
    assert (
        "conferma il tuo indirizzo email" in mail.text
        and mail.text.startswith("Ciao,\r\n")
        and "Marco" not in mail.text
    )
    link = re.search(r"https?://\S+", mail.text)
    assert link is not None
    assert link.group(0).startswith(f"{public_base_url()}/auth/callback?")
    query = link_query(link.group(0))
    assert query["type"] == "signup" and len(query["token_hash"]) >= 40
    with session_scope() as session:
        row = session.execute(select(EmailOutbox).where(EmailOutbox.to_address == email)).scalar_one()
        assert row.sent_at is not None and row.links == [link.group(0)]
        stored = session.execute(
            select(OneTimeCode.code_hash)
            .join(User, User.id == OneTimeCode.user_id)
            .where(User.email == email, OneTimeCode.kind == "link")
        ).scalar_one()
        assert query["token_hash"] not in stored  # only the SHA-256 is stored

    resp = await api.post("/api/auth/verify", json={"token_hash": query["token_hash"], "type": "signup"})
    assert resp.status_code == 200, resp.text
    session_out = resp.json()
    assert session_out["user"]["email"] == email and session_out["token_type"] == "bearer"
    me = await api.get("/api/me", headers={"Authorization": f"Bearer {session_out['access_token']}"})
    assert me.status_code == 200 and me.json()["credits_remaining"] == 15

    # single use
    assert_error(
        await api.post("/api/auth/verify", json={"token_hash": query["token_hash"], "type": "signup"}),
        400,
        "Link non valido o scaduto",
        "Errore verifica",
    )
    assert_error(
        await api.post("/api/auth/verify", json={"token_hash": "x" * 43, "type": "signup"}),
        400,
        "Link non valido o scaduto",
        "Errore verifica",
    )
    await login(api, email, "segreto123")


async def test_signup_and_login_errors(stack: Stack, api: httpx.AsyncClient) -> None:
    email, password = make_user()
    assert_error(
        await api.post("/api/auth/signup", json={"email": email, "password": "altra123", "first_name": "X"}),
        400,
        "Un utente con questa email è già registrato",
        "Errore registrazione",
    )
    assert_error(
        await api.post(
            "/api/auth/signup", json={"email": unique_email(), "password": "12345", "first_name": "X"}
        ),
        400,
        "La password deve essere di almeno 6 caratteri",
        "Errore registrazione",
    )
    assert_error(
        await api.post(
            "/api/auth/signup", json={"email": unique_email(), "password": "123456", "first_name": "  "}
        ),
        400,
        "Il nome è obbligatorio.",
        "Errore registrazione",
    )
    assert_error(
        await api.post(
            "/api/auth/signup", json={"email": "non-una-email", "password": "123456", "first_name": "X"}
        ),
        400,
        "Inserisci un indirizzo email valido.",
        "Errore registrazione",
    )
    assert_error(
        await api.post("/api/auth/login", json={"email": email, "password": "sbagliata"}),
        401,
        "Email o password non corretti",
        "Errore accesso",
    )
    assert_error(
        await api.post("/api/auth/login", json={"email": unique_email(), "password": "sbagliata"}),
        401,
        "Email o password non corretti",
        "Errore accesso",
    )
    # an expired confirmation link
    other = unique_email()
    await api.post("/api/auth/signup", json={"email": other, "password": "segreto123", "first_name": "Anna"})
    expire_secrets(other, "link")
    query = link_query((await latest_mail(api, other))["links"][0])
    assert_error(
        await api.post("/api/auth/verify", json=query), 400, "Link non valido o scaduto", "Errore verifica"
    )


async def forgot(api: httpx.AsyncClient, email: str) -> httpx.Response:
    """``POST /api/auth/password/forgot`` and check the answer that never reveals the address."""
    resp = await api.post("/api/auth/password/forgot", json={"email": email})
    assert resp.status_code == 202, resp.text
    assert resp.json() == {
        "title": "Email inviata",
        "detail": "Controlla la tua email per reimpostare la password",
    }
    return resp


async def test_reset_by_code(stack: Stack, api: httpx.AsyncClient, smtp: SmtpServer) -> None:
    email, password = make_user()
    old = (await api.post("/api/auth/login", json={"email": email, "password": password})).json()
    nobody = unique_email("nessuno")
    await forgot(api, nobody)
    assert not [m for m in smtp.messages if nobody in m.rcpt_tos]  # same answer, no e-mail

    await forgot(api, email)
    [mail] = smtp.wait_for(email)
    assert mail.subject == "Reimposta la password di FotoPronta"
    code_match = re.search(r"codice di verifica è: (\d{6})", mail.text)
    assert code_match is not None
    code = code_match.group(1)
    assert "/auth/callback?token_hash=" in mail.text and "type=recovery" in mail.text
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    url = "/api/auth/password/verify-otp"

    assert_error(
        await api.post(url, json={"email": email, "token": "12ab", "password": "nuova123"}),
        400,
        "Inserisci un codice di verifica di 6 cifre.",
        "Codice non valido",
    )
    assert_error(
        await api.post(url, json={"email": email, "token": code, "password": "corta"}),
        400,
        "La password deve essere lunga almeno 6 caratteri.",
        "Password non valida",
    )
    assert_error(
        await api.post(url, json={"email": email, "token": wrong, "password": "nuova123"}),
        400,
        "Il codice di verifica non è valido. Controlla e riprova.",
        "Verifica fallita",
    )
    resp = await api.post(url, json={"email": email, "token": code, "password": "nuova123"})
    assert resp.status_code == 200, resp.text
    assert resp.json()["title"] == "Password aggiornata"
    # single use; the old password and the old sessions no longer work
    assert_error(
        await api.post(url, json={"email": email, "token": code, "password": "ancora123"}),
        400,
        "Il codice di verifica non è valido. Controlla e riprova.",
        "Verifica fallita",
    )
    assert (await api.post("/api/auth/login", json={"email": email, "password": password})).status_code == 401
    assert (
        await api.post("/api/auth/refresh", json={"refresh_token": old["refresh_token"]})
    ).status_code == 401
    await login(api, email, "nuova123")
    # the companion link of the used code is burnt too
    link_q = link_query(re.search(r"https?://\S+", mail.text).group(0))  # type: ignore[union-attr]
    assert_error(
        await api.post("/api/auth/verify", json=link_q),
        400,
        "Il link per il reset della password non è valido. Richiedi un nuovo link.",
        "Link non valido",
    )

    # an expired code
    await forgot(api, email)
    code = re.search(r"è: (\d{6})", smtp.wait_for(email, count=2)[-1].text).group(1)  # type: ignore[union-attr]
    expire_secrets(email, "code")
    assert_error(
        await api.post(url, json={"email": email, "token": code, "password": "nuova456"}),
        400,
        "Il codice di verifica è scaduto. Richiedi un nuovo codice.",
        "Verifica fallita",
    )
    # a new request replaces the previous code
    await forgot(api, email)
    first = re.search(r"è: (\d{6})", smtp.wait_for(email, count=3)[-1].text).group(1)  # type: ignore[union-attr]
    await forgot(api, email)
    second = re.search(r"è: (\d{6})", smtp.wait_for(email, count=4)[-1].text).group(1)  # type: ignore[union-attr]
    if first != second:
        assert (
            await api.post(url, json={"email": email, "token": first, "password": "nuova789"})
        ).status_code == 400
    assert (
        await api.post(url, json={"email": email, "token": second, "password": "nuova789"})
    ).status_code == 200


async def test_reset_by_link(stack: Stack, api: httpx.AsyncClient) -> None:
    email, password = make_user()
    normal = await login(api, email, password)
    await forgot(api, email)
    mail = await latest_mail(api, email)
    query = link_query(mail["links"][0])
    assert query["type"] == "recovery"
    assert mail["links"][0].startswith(f"{public_base_url()}/auth/callback?")

    reset = "/api/auth/password/reset"
    assert_error(
        await api.post(reset, json={"password": "nuova123"}),
        401,
        "Devi utilizzare il link inviato via email per reimpostare la password.",
        "Link mancante",
    )
    assert_error(
        await api.post(reset, json={"password": "nuova123"}, headers=normal),
        403,
        "Il link per il reset della password non è valido. Richiedi un nuovo link.",
        "Link non valido",
    )
    assert_error(
        await api.post(reset, json={"password": "nuova123"}, headers={"Authorization": "Bearer x.y.z"}),
        401,
        "Il link per il reset della password non è valido. Richiedi un nuovo link.",
        "Link non valido",
    )

    resp = await api.post("/api/auth/verify", json=query)
    assert resp.status_code == 200, resp.text
    recovery = {"Authorization": f"Bearer {resp.json()['access_token']}"}
    assert (
        await api.get("/api/me", headers=recovery)
    ).status_code == 200  # signed in, as the SPEC's callback
    assert_error(
        await api.post("/api/auth/verify", json=query),
        400,
        "Il link per il reset della password non è valido. Richiedi un nuovo link.",
        "Link non valido",
    )
    assert_error(
        await api.post(reset, json={"password": "corta"}, headers=recovery),
        400,
        "La password deve essere di almeno 6 caratteri",
        "Errore aggiornamento password",
    )
    resp = await api.post(reset, json={"password": "nuova123"}, headers=recovery)
    assert resp.status_code == 200 and resp.json()["title"] == "Password aggiornata"
    assert_error(
        await api.post(reset, json={"password": "altra123"}, headers=recovery),
        400,
        "Il link per il reset della password non è valido. Richiedi un nuovo link.",
        "Link non valido",
    )
    await login(api, email, "nuova123")

    # expired link
    await forgot(api, email)
    query = link_query((await latest_mail(api, email))["links"][0])
    expire_secrets(email, "link")
    assert_error(
        await api.post("/api/auth/verify", json=query),
        400,
        "Il link per il reset della password è scaduto. Richiedi un nuovo link.",
        "Link non valido",
    )
    # a recovery link also confirms an unconfirmed address (lost confirmation e-mail)
    fresh = unique_email()
    await api.post("/api/auth/signup", json={"email": fresh, "password": "segreto123", "first_name": "Luca"})
    await forgot(api, fresh)
    query = link_query((await latest_mail(api, fresh))["links"][0])
    assert (await api.post("/api/auth/verify", json=query)).status_code == 200
    await login(api, fresh, "segreto123")


async def test_password_change(stack: Stack, api: httpx.AsyncClient) -> None:
    email, password = make_user()
    headers = await login(api, email, password)
    url = "/api/auth/password/change"
    assert (await api.post(url, json={"current_password": password, "new_password": "x"})).status_code == 401
    assert_error(
        await api.post(
            url, headers=headers, json={"current_password": "sbagliata", "new_password": "nuova123"}
        ),
        400,
        "La password attuale non è corretta.",
        "Errore aggiornamento password",
    )
    assert_error(
        await api.post(url, headers=headers, json={"current_password": password, "new_password": "corta"}),
        400,
        "La password deve essere di almeno 6 caratteri",
        "Errore aggiornamento password",
    )
    resp = await api.post(
        url, headers=headers, json={"current_password": password, "new_password": "nuova123"}
    )
    assert resp.status_code == 200 and resp.json()["title"] == "Password aggiornata"
    await login(api, email, "nuova123")
    with session_scope() as session:
        user_id = session.execute(select(User.id).where(User.email == email)).scalar_one()
        live = (
            session.execute(
                select(RefreshSession).where(
                    RefreshSession.user_id == user_id, RefreshSession.revoked_at.is_(None)
                )
            )
            .scalars()
            .all()
        )
        assert len(live) == 2  # the caller's own session (kept signed in) and the login after the change


async def test_rate_limits(stack: Stack, api: httpx.AsyncClient) -> None:
    email, password = make_user()
    for _ in range(10):
        assert_error(
            await api.post("/api/auth/login", json={"email": email, "password": "sbagliata"}),
            401,
            "Email o password non corretti",
            "Errore accesso",
        )
    # even the right password is refused while the account is locked
    assert_error(
        await api.post("/api/auth/login", json={"email": email, "password": password}),
        429,
        "Troppi tentativi di accesso a questo account: riprova tra 1 minuto "
        "o reimposta la password con 'Password dimenticata?'.",
        "Errore accesso",
    )
    other, other_password = make_user()  # other accounts are not affected
    await login(api, other, other_password)

    await forgot(api, other)
    url = "/api/auth/password/verify-otp"
    codes = []
    for attempt in range(10):
        resp = await api.post(url, json={"email": other, "token": f"{attempt:06d}", "password": "nuova123"})
        codes.append(resp.status_code)
    assert set(codes) <= {400, 200}
    assert_error(
        await api.post(url, json={"email": other, "token": "999999", "password": "nuova123"}),
        429,
        "Troppi tentativi. Attendi qualche minuto e riprova.",
        "Verifica fallita",
    )
    # after 5 wrong guesses the code itself is burnt
    with session_scope() as session:
        user_id = session.execute(select(User.id).where(User.email == other)).scalar_one()
        code_row = session.execute(
            select(OneTimeCode).where(OneTimeCode.user_id == user_id, OneTimeCode.kind == "code")
        ).scalar_one()
        assert code_row.used_at is not None and code_row.attempts >= 5

    for _ in range(5):
        await forgot(api, email)
    assert_error(
        await api.post("/api/auth/password/forgot", json={"email": email}),
        429,
        "Troppi tentativi. Attendi qualche minuto e riprova.",
        "Errore reset password",
    )


async def test_dev_mail_pages_and_production(stack: Stack, api: httpx.AsyncClient) -> None:
    email = unique_email()
    await signup_and_confirm(api, email)
    listing = (await api.get("/api/dev/mail")).json()
    assert listing[0]["to"] == email or any(m["to"] == email for m in listing)
    created = [m["created_at"] for m in listing]
    assert created == sorted(created, reverse=True)
    mine = (await api.get("/api/dev/mail", params={"to": email})).json()
    assert len(mine) == 1 and set(mine[0]) >= {"to", "subject", "text", "links"}
    page = await api.get("/dev/mail")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    link = mine[0]["links"][0].replace("&", "&amp;")
    assert f'<a href="{link}">' in page.text

    with settings_env(
        environment="production",
        jwt_secret="prod-secret-" + "x" * 40,
        public_url="https://fotopronta.example",
    ):
        for path in ("/api/dev/mail", "/dev/mail", "/dev/checkout/cs_test_local_x"):
            assert (await api.get(path)).status_code == 404, path
