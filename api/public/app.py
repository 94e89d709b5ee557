"""The ``/v1`` sub-application: the public API's routes, its own OpenAPI document
(``/v1/openapi.json``) and interactive reference (``/v1/docs``), served in every environment, and its
RFC 9457 errors (:mod:`api.public.problems`). Mounted by :func:`api.main.create_app`, which shares its
state (the Temporal client) with it."""

from __future__ import annotations

import psycopg
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import OperationalError as SAOperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException

from api.errors import ApiError
from api.public import jobs, webhooks
from api.public.problems import (
    PublicApiMiddleware,
    api_error_problem,
    http_error_problem,
    unavailable_problem,
    validation_problem,
)

DESCRIPTION = """L'API pubblica di FotoPronta: gli stessi lavori, crediti e risultati dell'app web,
per i gestionali, i negozi online e gli script.

Autenticazione: la chiave API (creata nella pagina **Sviluppatori** dell'app) in
`Authorization: Bearer fp_live_…` oppure `X-Api-Key: fp_live_…`.

Errori: `application/problem+json` (RFC 9457) con `type`, `title`, `status`, `detail` (in italiano),
un `code` stabile e `request_id` (anche nell'intestazione `X-Request-Id`).

Limiti: `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` su ogni risposta; `Retry-After`
sul 429. Ogni `POST` accetta `Idempotency-Key`: un nuovo invio con la stessa chiave riceve la stessa
risposta (`Idempotent-Replayed: true`) senza un secondo lavoro né un secondo addebito.
"""


def create_public_app() -> FastAPI:
    """Build the ``/v1`` application (mount it at ``/v1``)."""
    app = FastAPI(
        title="FotoPronta API",
        version="1.0.0",
        description=DESCRIPTION,
        openapi_url="/openapi.json",
        docs_url="/docs",
        redoc_url=None,
        swagger_ui_parameters={"defaultModelsExpandDepth": 0},
    )
    app.add_middleware(PublicApiMiddleware)
    app.add_exception_handler(ApiError, api_error_problem)
    app.add_exception_handler(StarletteHTTPException, http_error_problem)
    app.add_exception_handler(RequestValidationError, validation_problem)
    app.add_exception_handler(SAOperationalError, unavailable_problem)
    app.add_exception_handler(DBAPIError, unavailable_problem)
    app.add_exception_handler(psycopg.OperationalError, unavailable_problem)
    app.add_exception_handler(Exception, unavailable_problem)
    app.include_router(jobs.router)
    app.include_router(webhooks.router)
    return app
