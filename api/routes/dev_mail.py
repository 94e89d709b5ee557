"""Development-only pages: the e-mail outbox and the local test checkout. Unless
``FOTOPRONTA_ENVIRONMENT`` is exactly ``development`` (production, test, staging, a typo: fail closed)
every route here answers 404.

- ``GET /api/dev/mail`` (JSON, newest first: ``to``, ``subject``, ``text``, ``links``; ``?to=`` filters by
  recipient) and ``GET /dev/mail`` (HTML with clickable links): what the mailer stored, so a person
  or a script running ``make dev`` can follow confirmation and reset links.
- ``GET /dev/checkout/{session_id}``: the test payment page ('MODALITÀ TEST — nessun addebito reale')
  with 'Paga', 'Annulla' and 'Simula scadenza'; ``POST …/pay`` completes the purchase like Stripe's
  webhook and redirects to the success URL; ``POST …/cancel`` marks it ``canceled`` ('Annullato') and
  redirects to the cancel URL; ``POST …/expire`` marks it ``expired`` ('Scaduto') as Stripe's
  ``checkout.session.expired`` would, and goes to ``/credits``. A session that ended unpaid (or is past
  ``checkout_expiry_s``) can no longer be paid. Only with the ``test`` provider.

These pages are public by design (no sign-in): the outbox is the developer's mailbox, and a checkout
page, like Stripe's, is reached by its unguessable session id.
"""

from __future__ import annotations

import html
import uuid
from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse
from pydantic import BaseModel
from sqlalchemy.orm import Session

from api.deps import OptionalTemporalDep, SessionDep
from api.errors import ApiError
from api.job_control import resume_after_credit
from api.services import payments
from api.services.dev_mail import outbox
from fotopronta.links import public_base_url
from fotopronta.payments import UNPAID_ENDED
from fotopronta.settings import get_settings


def development_only() -> None:
    """Dependency: 404 outside development (``Settings.is_production``: any other environment)."""
    if get_settings().is_production:
        raise ApiError(404, "Risorsa non trovata.", "not_found")


def test_checkout_only() -> None:
    """Dependency: 404 unless the test payment provider is active (only in development)."""
    settings = get_settings()
    if settings.is_production or settings.effective_payment_provider != "test":
        raise ApiError(404, "Risorsa non trovata.", "not_found")


router = APIRouter(tags=["dev"], dependencies=[Depends(development_only)])


class MailPublic(BaseModel):
    """One stored e-mail."""

    id: uuid.UUID
    to: str
    subject: str
    text: str
    links: list[str]
    created_at: datetime
    sent_at: datetime | None


def _mails(session: Session, to: str | None) -> list[MailPublic]:
    return [
        MailPublic(
            id=m.id,
            to=m.to_address,
            subject=m.subject,
            text=m.text,
            links=list(m.links or []),
            created_at=m.created_at,
            sent_at=m.sent_at,
        )
        for m in outbox(session, to)
    ]


@router.get("/api/dev/mail", response_model=list[MailPublic], operation_id="dev-mail-list")
def mail_json(
    session: SessionDep, to: Annotated[str | None, Query(max_length=320)] = None
) -> list[MailPublic]:
    """The outbox, newest first (at most 100); ``to`` keeps one recipient's mail."""
    return _mails(session, to)


_PAGE = """<!doctype html><html lang="it"><head><meta charset="utf-8"><title>{title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{{font-family:system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1f2937}}
.test{{background:#fef3c7;border:2px solid #d97706;padding:.75rem 1rem;font-weight:700;border-radius:.5rem}}
article{{border:1px solid #e5e7eb;border-radius:.5rem;padding:1rem;margin:1rem 0}}
pre{{white-space:pre-wrap;font-family:inherit}}
button{{font-size:1rem;padding:.6rem 1.4rem;margin-right:.5rem;border-radius:.4rem;border:1px solid #9ca3af;
cursor:pointer}} .pay{{background:#16a34a;color:#fff;border-color:#16a34a}}
</style></head><body>{body}</body></html>"""


@router.get("/dev/mail", response_class=HTMLResponse, include_in_schema=False)
def mail_html(session: SessionDep, to: Annotated[str | None, Query(max_length=320)] = None) -> HTMLResponse:
    """The outbox as a page: one card per e-mail, links clickable."""
    items = []
    for m in _mails(session, to):
        links = "".join(f'<li><a href="{html.escape(link)}">{html.escape(link)}</a></li>' for link in m.links)
        items.append(
            f"<article><h2>{html.escape(m.subject)}</h2><p>A: <b>{html.escape(m.to)}</b> · "
            f"{m.created_at:%d/%m/%Y %H:%M:%S}</p><pre>{html.escape(m.text)}</pre>"
            f"<ul>{links}</ul></article>"
        )
    body = (
        "<h1>Posta in uscita (sviluppo)</h1><p class='test'>Solo sviluppo: nessuna email è stata spedita.</p>"
        + ("".join(items) or "<p>Nessuna email.</p>")
    )
    return HTMLResponse(_PAGE.format(title="Posta in uscita — FotoPronta", body=body))


def _not_found_page() -> HTMLResponse:
    return HTMLResponse(
        _PAGE.format(title="Pagamento non trovato", body="<h1>Sessione di pagamento non trovata</h1>"),
        status_code=404,
    )


@router.get(
    "/dev/checkout/{session_id}",
    response_class=HTMLResponse,
    include_in_schema=False,
    dependencies=[Depends(test_checkout_only)],
)
def checkout_page(session_id: str, session: SessionDep) -> HTMLResponse:
    """The test checkout page with 'Paga' and 'Annulla'."""
    view = payments.dev_checkout_view(session, session_id)
    if view is None:
        return _not_found_page()
    name, credits, cents, currency, state = (
        view.package_name,
        view.credits,
        view.amount_cents,
        view.currency,
        view.status,
    )
    sid = html.escape(session_id)
    price = f"{cents / 100:.2f}".replace(".", ",")
    done = "<p><b>Questo pagamento è già stato completato.</b></p>" if state == "completed" else ""
    if state in UNPAID_ENDED:
        word = "scaduta" if state == "expired" else "annullata"
        body = (
            f"<p class='test'>MODALITÀ TEST — nessun addebito reale</p><h1>Pagamento FotoPronta</h1>"
            f"<p><b>Questa sessione di pagamento è {word}.</b></p>"
        )
        return HTMLResponse(_PAGE.format(title="Pagamento di prova — FotoPronta", body=body), status_code=410)
    body = (
        f"<p class='test'>MODALITÀ TEST — nessun addebito reale</p><h1>Pagamento FotoPronta</h1>"
        f"<p>Pacchetto <b>{html.escape(name)}</b>: {credits} crediti — "
        f"<b>{price} {html.escape(currency)}</b></p>"
        f"{done}<form method='post' action='/dev/checkout/{sid}/pay' style='display:inline'>"
        f"<button class='pay' type='submit'>Paga</button></form>"
        f"<form method='post' action='/dev/checkout/{sid}/cancel' style='display:inline'>"
        f"<button type='submit'>Annulla</button></form>"
        f"<form method='post' action='/dev/checkout/{sid}/expire' style='display:inline'>"
        f"<button type='submit'>Simula scadenza</button></form>"
    )
    return HTMLResponse(_PAGE.format(title="Pagamento di prova — FotoPronta", body=body))


@router.post(
    "/dev/checkout/{session_id}/pay",
    include_in_schema=False,
    dependencies=[Depends(test_checkout_only)],
    response_model=None,
)
async def checkout_pay(
    session_id: str, session: SessionDep, temporal: OptionalTemporalDep
) -> RedirectResponse | HTMLResponse:
    """'Paga': complete the purchase (once) and redirect (303) to the dashboard's success URL."""
    view = await run_in_threadpool(payments.dev_checkout_view, session, session_id)
    if view is None:
        return _not_found_page()
    if view.status in UNPAID_ENDED:
        return await run_in_threadpool(checkout_page, session_id, session)
    result = await run_in_threadpool(payments.complete_by_session_id, session, session_id, None)
    if result is not None and result.newly_completed:
        await resume_after_credit(temporal, session, result.user_id)
    base = public_base_url()
    return RedirectResponse(f"{base}/dashboard?success=true&session_id={session_id}", status_code=303)


@router.post(
    "/dev/checkout/{session_id}/cancel",
    include_in_schema=False,
    dependencies=[Depends(test_checkout_only)],
    response_model=None,
)
def checkout_cancel(session_id: str, session: SessionDep) -> RedirectResponse | HTMLResponse:
    """'Annulla': nothing is charged, a pending purchase becomes ``canceled``; redirect (303) to the
    dashboard's cancel URL."""
    if not payments.end_dev_session(session, session_id, "canceled"):
        return _not_found_page()
    return RedirectResponse(f"{public_base_url()}/dashboard?canceled=true", status_code=303)


@router.post(
    "/dev/checkout/{session_id}/expire",
    include_in_schema=False,
    dependencies=[Depends(test_checkout_only)],
    response_model=None,
)
def checkout_expire(session_id: str, session: SessionDep) -> RedirectResponse | HTMLResponse:
    """'Simula scadenza': the session expires unpaid, as Stripe's ``checkout.session.expired`` would
    report; a pending purchase becomes ``expired``. Redirect (303) to ``/credits``."""
    if not payments.end_dev_session(session, session_id, "expired"):
        return _not_found_page()
    return RedirectResponse(f"{public_base_url()}/credits", status_code=303)
