"""The one mailer of FotoPronta: every e-mail is stored in ``email_outbox`` and logged, and with the
``smtp`` backend also delivered over SMTP (aiosmtplib, optional STARTTLS and login).

Backends (setting ``FOTOPRONTA_MAIL_BACKEND``; default ``outbox``, or ``smtp`` in production):

- ``outbox``: development and tests. Nothing leaves the machine; ``/dev/mail`` and ``GET /api/dev/mail``
  show the stored messages with their links so a person or a script can follow them.
- ``smtp``: ``FOTOPRONTA_SMTP_HOST``/``PORT``/``USER``/``PASSWORD``/``FROM``/``STARTTLS``.

Links in e-mails are built from :func:`fotopronta.links.public_base_url` (the web app's address). Texts are Italian.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid
from urllib.parse import urlencode

import aiosmtplib

from fotopronta.db import session_scope
from fotopronta.links import public_base_url
from fotopronta.models import EmailOutbox
from fotopronta.settings import Settings, get_settings

log = logging.getLogger("fotopronta.mail")

PRODUCT = "FotoPronta"


class MailDeliveryError(Exception):
    """The SMTP server refused the message or could not be reached (the outbox row stays unsent)."""


@dataclass(frozen=True)
class Email:
    """One plain-text e-mail: recipient address, subject, body and the links the body contains."""

    to: str
    subject: str
    text: str
    links: list[str] = field(default_factory=list)


def public_link(path: str, **query: str) -> str:
    """``{public_url}{path}?{query}`` (query values URL-encoded), e.g. ``/auth/callback?token_hash=…``."""
    base = public_base_url()
    return f"{base}{path}" + (f"?{urlencode(query)}" if query else "")


def signup_confirmation_email(*, to: str, link: str, ttl_s: int) -> Email:
    """The sign-up confirmation (SPEC §8 'Controlla la tua email per confermare l'account').

    ``link`` is ``{public_url}/auth/callback?token_hash=…&type=signup``; ``ttl_s`` its validity in seconds.
    Nothing the sign-up form sent is echoed (the greeting has no name): anyone can sign up with
    someone else's address, so the text must be ours alone.
    """
    hours = max(1, ttl_s // 3600)
    text = (
        f"Ciao,\n\ngrazie per esserti registrato a {PRODUCT}! Per attivare il tuo account e ricevere "
        f"i 15 crediti gratuiti, conferma il tuo indirizzo email aprendo questo link:\n\n{link}\n\n"
        f"Il link è valido per {hours} ore e può essere usato una sola volta.\n"
        "Se non hai creato tu questo account, ignora questa email.\n\nIl team di " + PRODUCT
    )
    return Email(to=to, subject=f"Conferma il tuo account {PRODUCT}", text=text, links=[link])


def password_reset_email(*, to: str, code: str, link: str, code_ttl_s: int, link_ttl_s: int) -> Email:
    """The password-reset e-mail: a 6-digit code (for ``/verify-otp``) and a reset link
    (``{public_url}/auth/callback?token_hash=…&type=recovery``); TTLs in seconds."""
    text = (
        "Ciao,\n\nabbiamo ricevuto una richiesta di reimpostazione della password del tuo account "
        f"{PRODUCT}.\n\n"
        f"Il tuo codice di verifica è: {code}\n"
        f"(valido {code_ttl_s // 60} minuti: inseriscilo nella pagina 'Verifica codice').\n\n"
        "In alternativa apri questo link per scegliere una nuova password "
        f"(valido {link_ttl_s // 60} minuti):\n\n"
        f"{link}\n\nCodice e link possono essere usati una sola volta. Se non hai richiesto tu il reset, "
        f"ignora questa email: la tua password resta invariata.\n\nIl team di {PRODUCT}"
    )
    return Email(to=to, subject=f"Reimposta la password di {PRODUCT}", text=text, links=[link])


def photo_ready_email(
    *, to: str, first_name: str | None, photo_name: str, note: str | None, link: str
) -> Email:
    """'Foto pronta': the design team delivered ``photo_name``; the designer's note to the client, when
    there is one, is quoted; ``link`` is ``{public_url}/photos``."""
    greeting = f"Ciao {first_name}," if first_name else "Ciao,"
    note_text = f"\n\nNota del grafico:\n{note}" if note else ""
    text = (
        f"{greeting}\n\nil nostro team grafico ha completato {photo_name}: la foto è pronta da scaricare."
        f"{note_text}\n\nLa trovi tra le tue foto processate:\n\n{link}\n\nIl team di {PRODUCT}"
    )
    return Email(to=to, subject=f"Foto pronta: {photo_name}", text=text, links=[link])


def waiting_expired_email(*, to: str, first_name: str | None, photo_name: str, days: int, link: str) -> Email:
    """The end of a wait for credits: ``photo_name`` waited ``days`` days without credits, was not
    processed and nothing was charged; ``link`` is ``{public_url}/photos``, where it can be reprocessed
    once credits are bought, or deleted."""
    greeting = f"Ciao {first_name}," if first_name else "Ciao,"
    text = (
        f"{greeting}\n\nla foto {photo_name} è rimasta in attesa di crediti per {days} giorni: non l'abbiamo "
        "elaborata e non ti abbiamo addebitato nulla.\n\nLa trovi tra le tue foto così come l'hai "
        "caricata: acquista crediti e premi 'Rielabora', oppure eliminala. Come ogni foto, viene "
        f"cancellata dai nostri server dopo 30 giorni.\n\n{link}\n\nIl team di {PRODUCT}"
    )
    return Email(to=to, subject=f"Foto non elaborata: {photo_name}", text=text, links=[link])


def webhook_disabled_email(*, to: str, first_name: str | None, url: str, link: str) -> Email:
    """An endpoint of the seller's failed every delivery for three days and was disabled: ``url`` is
    the endpoint, ``link`` is ``{public_url}/developers``, where its log shows the failed attempts."""
    greeting = f"Ciao {first_name}," if first_name else "Ciao,"
    text = (
        f"{greeting}\n\nda tre giorni il tuo endpoint webhook {url} non risponde correttamente ai nostri "
        "invii: lo abbiamo disattivato e non riceverà nuovi eventi.\n\nNella pagina Sviluppatori trovi il "
        "registro dei tentativi con i codici di risposta: quando il server è di nuovo raggiungibile, "
        f"registra di nuovo l'endpoint e usa 'Reinvia' per gli eventi persi.\n\n{link}\n\nIl team di {PRODUCT}"
    )
    return Email(to=to, subject="Endpoint webhook disattivato", text=text, links=[link])


def deliver_stored(email: Email) -> bool:
    """Deliver an e-mail already stored in the outbox, by SMTP when the backend is ``smtp`` (blocking:
    for activities running in worker threads, which store the row in their own transaction). Returns
    whether it was handed to SMTP; with the ``outbox`` backend it stays in the outbox only.

    Raises:
        MailDeliveryError: SMTP delivery failed.
    """
    settings = get_settings()
    if settings.effective_mail_backend != "smtp":
        return False
    asyncio.run(_smtp_send(email, settings))
    return True


def _store(email: Email) -> uuid.UUID:
    with session_scope() as session:
        row = EmailOutbox(to_address=email.to, subject=email.subject, text=email.text, links=email.links)
        session.add(row)
        session.flush()
        return row.id


def _mark_sent(outbox_id: uuid.UUID) -> None:
    with session_scope() as session:
        row = session.get_one(EmailOutbox, outbox_id)
        row.sent_at = datetime.now(UTC)


async def _smtp_send(email: Email, settings: Settings) -> None:
    message = EmailMessage()
    message["From"] = settings.smtp_from
    message["To"] = email.to
    message["Subject"] = email.subject
    message["Message-ID"] = make_msgid(domain="fotopronta.it")
    message.set_content(email.text)
    try:
        await aiosmtplib.send(
            message,
            hostname=settings.smtp_host,
            port=settings.smtp_port,
            username=settings.smtp_user,
            password=settings.smtp_password,
            start_tls=settings.smtp_starttls,
            timeout=settings.smtp_timeout_s,
        )
    except (aiosmtplib.SMTPException, OSError) as exc:
        raise MailDeliveryError(f"SMTP {settings.smtp_host}:{settings.smtp_port}: {exc}") from exc


async def send_email(email: Email) -> uuid.UUID:
    """Store ``email`` in the outbox, log it (its links only in development: they are secrets), and
    deliver it when the backend is ``smtp``.

    Returns:
        The ``email_outbox`` row id (``sent_at`` is set once SMTP accepted the message).

    Raises:
        MailDeliveryError: SMTP delivery failed (the outbox row is kept, unsent).
    """
    settings = get_settings()
    outbox_id = await asyncio.to_thread(_store, email)
    backend = settings.effective_mail_backend
    # links carry sign-in secrets (confirmation, reset): logged only in development
    links = email.links if settings.is_development else f"[{len(email.links)} omessi]"
    log.info("e-mail %s to %s: %s (backend %s) links=%s", outbox_id, email.to, email.subject, backend, links)
    if backend == "smtp":
        await _smtp_send(email, settings)
        await asyncio.to_thread(_mark_sent, outbox_id)
    return outbox_id
