"""A remove.bg-compatible endpoint (``/v1.0``): ``POST /v1.0/removebg`` and ``GET /v1.0/account``, so
code written for remove.bg's API (its documented request forms, its client libraries) works against
FotoPronta by changing the base URL and the key.

The request is remove.bg's: the photo as multipart ``image_file``, or ``image_file_b64`` / ``image_url``
(multipart, ``application/x-www-form-urlencoded`` or JSON), with ``size``, ``type``, ``format``,
``bg_color``, ``crop``, ``crop_margin``, ``channels``. It runs synchronously on top of the same job as
``POST /v1/jobs`` (an AI job of 1 credit, the same ``PhotoJobWorkflow`` and ledger, visible in /photos):
the route waits for the job's transparent cutout and renders it as asked. The answer is remove.bg's:
the image bytes, or ``{"data": {"result_b64": …}}`` with ``Accept: application/json``; headers
``X-Credits-Charged``, ``X-Width``, ``X-Height``, ``X-Foreground-*``; errors
``{"errors": [{"title", "code", "detail"}]}`` with remove.bg's status codes (400, 402, 403 for a bad key,
429), titles and details in Italian. Parameters FotoPronta does not implement (``roi``, ``scale``,
``position``, shadows, background images) are refused with 400 ``unsupported_parameter`` unless they
carry their default value.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import dataclasses
import io
import json
import time
import uuid
import zipfile
from typing import Any

import psycopg
from fastapi import APIRouter, FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import OperationalError as SAOperationalError
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException as StarletteHTTPException
from temporalio.service import RPCError

from activities.contracts import workflow_id_for_job
from api.deps import TemporalDep
from api.errors import HTTP_MESSAGES, ApiError, is_database_unavailable
from api.public.auth import Caller, require_scope
from api.public.jobs import (
    ImageSource,
    _checked,
    _job_options,
    _profile,
    _url_name,
    create_jobs,
    start_workflows,
)
from api.public.problems import STATE_RATE_WINDOW, TITLES, PublicApiMiddleware, rate_headers
from api.public.schemas import JobOptionsIn
from api.services import photos as photo_service
from api.services import public_jobs as service
from api.services.api_keys import KeyCaller
from api.text_rules import safe_filename
from fotopronta.db import session_factory
from fotopronta.domain import FINAL_STATUSES, JobStatus
from fotopronta.models import PhotoProcessingJob
from fotopronta.ratelimit import Window
from fotopronta.settings import get_settings
from fotopronta.storage import BUCKET_PROCESSED, ObjectNotFoundError, get_storage, result_key

SIZES = {
    "preview": 250_000,
    "small": 250_000,
    "regular": 250_000,
    "medium": 1_500_000,
    "hd": 4_000_000,
    "full": 25_000_000,
    "4k": 25_000_000,
    "auto": 25_000_000,
    "50MP": 50_000_000,
}
"""remove.bg's ``size`` values and the most output pixels each allows (the result is scaled down to it)."""
TYPES = frozenset({"auto", "car", "product", "person", "animal", "graphic", "transportation"})
FORMATS = frozenset({"auto", "png", "jpg", "zip", "webp"})
CHANNELS = frozenset({"rgba", "alpha"})
UNSUPPORTED_DEFAULTS: dict[str, frozenset[str]] = {
    "roi": frozenset({"", "0% 0% 100% 100%"}),
    "scale": frozenset({"", "original"}),
    "position": frozenset({"", "original"}),
    "add_shadow": frozenset({"", "false", "0"}),
    "shadow_type": frozenset({"", "none"}),
    "shadow_opacity": frozenset({"", "auto"}),
    "bg_image_url": frozenset({""}),
    "bg_image_file": frozenset({""}),
}
"""Parameters FotoPronta does not implement, with the values that mean "not used"."""
CREDITS_PER_IMAGE = 1
"""What a remove.bg request costs here: one AI job (1 credit) whatever the ``size``."""
POLL_S = 0.25


class RemoveBgError(Exception):
    """An error in remove.bg's shape: HTTP ``status``, ``code``, Italian ``title`` and ``detail``."""

    def __init__(self, status: int, code: str, title: str, detail: str | None = None) -> None:
        super().__init__(title)
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail


def errors_body(code: str, title: str, detail: str | None) -> dict[str, Any]:
    """``{"errors": [{"title", "code", "detail"}]}``."""
    error = {"title": title, "code": code}
    if detail:
        error["detail"] = detail
    return {"errors": [error]}


def _error_response(request: Request, status: int, code: str, title: str, detail: str | None) -> JSONResponse:
    headers: dict[str, str] = {}
    window = request.scope.get("state", {}).get(STATE_RATE_WINDOW)
    if isinstance(window, Window):
        headers.update(_legacy_rate_headers(window))
    return JSONResponse(errors_body(code, title, detail), status_code=status, headers=headers)


UPLOAD_CODES = {
    "unsupported_type": "invalid_file_type",
    "image_too_large": "resolution_too_high",
    "empty_file": "failed_to_read_image",
    "image_url_invalid": "invalid_image_url",
    "image_url_forbidden": "invalid_image_url",
    "image_url_unresolvable": "failed_image_download",
    "image_url_fetch_failed": "failed_image_download",
    "image_url_timeout": "failed_image_download",
    "invalid_base64": "failed_to_read_image",
    "missing_image": "missing_source",
    "multiple_images": "multiple_sources",
    "api_key_revoked": "auth_failed",
    "invalid_api_key": "auth_failed",
    "missing_api_key": "auth_failed",
}
"""FotoPronta's codes (``/v1``) and the remove.bg code answered for them on ``/v1.0``."""


async def api_error(request: Request, exc: Exception) -> JSONResponse:
    """:class:`ApiError` (keys, limits, the upload checks) in remove.bg's shape; a bad or missing key is
    remove.bg's 403."""
    assert isinstance(exc, ApiError)
    status = 403 if exc.status == 401 else exc.status
    title = exc.title or TITLES.get(exc.status, "Errore")
    return _error_response(request, status, UPLOAD_CODES.get(exc.code, exc.code), title, exc.detail)


async def removebg_error(request: Request, exc: Exception) -> JSONResponse:
    """:class:`RemoveBgError`."""
    assert isinstance(exc, RemoveBgError)
    return _error_response(request, exc.status, exc.code, exc.title, exc.detail)


async def http_error(request: Request, exc: Exception) -> JSONResponse:
    """Starlette's HTTP errors (unknown path, method, a body over its limit while streaming)."""
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 413:
        return _error_response(
            request, 400, "file_too_large", "File troppo grande", "La richiesta supera la dimensione massima."
        )
    detail, code = HTTP_MESSAGES.get(exc.status_code, (str(exc.detail), "http_error"))
    return _error_response(request, exc.status_code, code, TITLES.get(exc.status_code, "Errore"), detail)


async def validation_error(request: Request, exc: Exception) -> JSONResponse:
    """A request that cannot be read: 400 ``invalid_request``."""
    assert isinstance(exc, RequestValidationError)
    return _error_response(request, 400, "invalid_request", "Richiesta non valida", None)


async def server_error(request: Request, exc: Exception) -> JSONResponse:
    """The database is down (503), anything else 500; in remove.bg's shape."""
    if is_database_unavailable(exc):
        response = _error_response(
            request, 503, "service_unavailable", "Servizio non disponibile", "Riprova tra poco."
        )
        response.headers["Retry-After"] = "5"
        return response
    return _error_response(request, 500, "internal_error", "Errore interno", "Riprova tra poco.")


def _legacy_rate_headers(window: Window) -> dict[str, str]:
    """remove.bg's ``X-RateLimit-*`` beside the standard ``RateLimit-*`` (``X-RateLimit-Reset``: Unix
    time)."""
    headers = {
        "X-RateLimit-Limit": str(window.limit),
        "X-RateLimit-Remaining": str(window.remaining),
        "X-RateLimit-Reset": str(int(time.time()) + window.reset_s),
    }
    if not window.allowed:
        headers.update(rate_headers(window))
    return headers


@dataclasses.dataclass(frozen=True)
class Render:
    """How the cutout is rendered: the output pixel budget, crop and its margin, channels, the
    background colour (RGBA) and the format."""

    max_pixels: int
    crop: bool
    crop_margin: tuple[float, bool]
    channels: str
    bg_color: tuple[int, int, int, int] | None
    fmt: str
    type: str


def _flag(name: str, value: str) -> bool:
    text = value.strip().lower()
    if text in ("true", "1", "yes", "on"):
        return True
    if text in ("false", "0", "no", "off", ""):
        return False
    raise RemoveBgError(400, f"invalid_{name}", f"Valore non valido per il parametro '{name}'")


def _margin(value: str) -> tuple[float, bool]:
    """``crop_margin``: one value, ``30px`` (absolute) or ``10%`` (of the subject), default 0."""
    text = value.strip()
    try:
        if not text or text == "0":
            return 0.0, False
        if text.endswith("px"):
            number, relative = float(text[:-2]), False
        elif text.endswith("%"):
            number, relative = float(text[:-1]), True
        else:
            raise ValueError(text)
        if number < 0 or (relative and number > 50) or (not relative and number > 500):
            raise ValueError(text)
        return number, relative
    except ValueError as exc:
        raise RemoveBgError(
            400,
            "invalid_crop_margin",
            "Valore non valido per il parametro 'crop_margin'",
            "Usa un solo valore in px (al massimo 500px) o in % (al massimo 50%).",
        ) from exc


def _colour(value: str) -> tuple[int, int, int, int] | None:
    """``bg_color``: a hex code (3, 4, 6 or 8 digits, with or without ``#``) or a colour name."""
    from PIL import ImageColor

    text = value.strip()
    if not text:
        return None
    if all(c in "0123456789abcdefABCDEF" for c in text) and len(text) in (3, 4, 6, 8):
        text = "#" + text
    try:
        rgba = ImageColor.getcolor(text, "RGBA")
    except ValueError as exc:
        raise RemoveBgError(400, "invalid_bg_color", "Valore non valido per il parametro 'bg_color'") from exc
    assert isinstance(rgba, tuple)
    return (int(rgba[0]), int(rgba[1]), int(rgba[2]), int(rgba[3]))


def parse_render(params: dict[str, str]) -> Render:
    """The rendering asked for by remove.bg's parameters.

    Raises:
        RemoveBgError: 400 ``invalid_size``, ``invalid_type``, ``invalid_format``, ``invalid_channels``,
            ``invalid_crop``, ``invalid_crop_margin``, ``invalid_bg_color``, ``unsupported_parameter``.
    """
    for name, defaults in UNSUPPORTED_DEFAULTS.items():
        if params.get(name, "").strip() not in defaults:
            raise RemoveBgError(
                400,
                "unsupported_parameter",
                f"Parametro non supportato: '{name}'",
                "FotoPronta non gestisce ancora questo parametro di remove.bg: toglilo dalla richiesta.",
            )
    size = params.get("size", "preview") or "preview"
    if size not in SIZES:
        raise RemoveBgError(400, "invalid_size", "Valore non valido per il parametro 'size'")
    kind = params.get("type", "auto") or "auto"
    if kind not in TYPES:
        raise RemoveBgError(400, "invalid_type", "Valore non valido per il parametro 'type'")
    fmt = params.get("format", "auto") or "auto"
    if fmt not in FORMATS:
        raise RemoveBgError(400, "invalid_format", "Valore non valido per il parametro 'format'")
    channels = params.get("channels", "rgba") or "rgba"
    if channels not in CHANNELS:
        raise RemoveBgError(400, "invalid_channels", "Valore non valido per il parametro 'channels'")
    _flag("semitransparency", params.get("semitransparency", ""))
    return Render(
        max_pixels=SIZES[size],
        crop=_flag("crop", params.get("crop", "")),
        crop_margin=_margin(params.get("crop_margin", "")),
        channels=channels,
        bg_color=_colour(params.get("bg_color", "")),
        fmt=fmt,
        type=kind,
    )


@dataclasses.dataclass(frozen=True)
class Rendered:
    """The answer's image: ``data``, its media type, size and the foreground box (output pixels)."""

    data: bytes
    media_type: str
    width: int
    height: int
    foreground: tuple[int, int, int, int]


def render(cutout_png: bytes, how: Render) -> Rendered:
    """Render the transparent cutout (RGBA PNG) as asked (crop, size, channels, background, format)."""
    from PIL import Image

    with Image.open(io.BytesIO(cutout_png)) as opened:
        img = opened.convert("RGBA")
    box = img.getchannel("A").point(lambda a: 255 if a > 8 else 0).getbbox() or (0, 0, img.width, img.height)
    if how.crop:
        margin, relative = how.crop_margin
        mx = int(round((box[2] - box[0]) * margin / 100)) if relative else int(margin)
        my = int(round((box[3] - box[1]) * margin / 100)) if relative else int(margin)
        canvas = Image.new("RGBA", (box[2] - box[0] + 2 * mx, box[3] - box[1] + 2 * my), (0, 0, 0, 0))
        canvas.paste(img.crop(box), (mx, my))
        img, box = canvas, (mx, my, mx + box[2] - box[0], my + box[3] - box[1])
    if img.width * img.height > how.max_pixels:
        f = (how.max_pixels / (img.width * img.height)) ** 0.5
        size = (max(1, int(img.width * f)), max(1, int(img.height * f)))
        sx, sy = size[0] / img.width, size[1] / img.height
        img = img.resize(size, Image.Resampling.LANCZOS)
        box = (int(box[0] * sx), int(box[1] * sy), int(round(box[2] * sx)), int(round(box[3] * sy)))
    foreground = (box[1], box[0], box[2] - box[0], box[3] - box[1])  # top, left, width, height
    out = io.BytesIO()
    if how.channels == "alpha":
        img.getchannel("A").save(out, "PNG")
        return Rendered(out.getvalue(), "image/png", img.width, img.height, foreground)
    if how.bg_color is not None:
        background = Image.new("RGBA", img.size, how.bg_color)
        img = Image.alpha_composite(background, img)
    fmt = how.fmt
    if fmt == "auto":
        lowest = img.getchannel("A").getextrema()[0]
        fmt = "png" if isinstance(lowest, int | float) and lowest < 255 else "jpg"
    if fmt == "zip":
        rgb = Image.alpha_composite(Image.new("RGBA", img.size, (255, 255, 255, 255)), img).convert("RGB")
        colour, alpha = io.BytesIO(), io.BytesIO()
        rgb.save(colour, "JPEG", quality=92)
        img.getchannel("A").save(alpha, "PNG")
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("color.jpg", colour.getvalue())
            archive.writestr("alpha.png", alpha.getvalue())
        return Rendered(out.getvalue(), "application/zip", img.width, img.height, foreground)
    if fmt == "jpg":
        flat = Image.alpha_composite(Image.new("RGBA", img.size, (255, 255, 255, 255)), img).convert("RGB")
        flat.save(out, "JPEG", quality=92)
        return Rendered(out.getvalue(), "image/jpeg", img.width, img.height, foreground)
    if fmt == "webp":
        img.save(out, "WEBP", quality=92)
        return Rendered(out.getvalue(), "image/webp", img.width, img.height, foreground)
    img.save(out, "PNG")
    return Rendered(out.getvalue(), "image/png", img.width, img.height, foreground)


async def _params(request: Request) -> tuple[dict[str, str], ImageSource]:
    """remove.bg's parameters and the photo's source from a multipart, urlencoded or JSON body.

    Raises:
        RemoveBgError: 400 ``invalid_request`` (unreadable body), ``missing_source``,
            ``multiple_sources``.
    """
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    data: bytes | None = None
    filename = "foto"
    if media in ("multipart/form-data", "application/x-www-form-urlencoded"):
        form = await request.form(max_files=2, max_fields=30)
        params = {k: v for k, v in form.multi_items() if isinstance(v, str)}
        upload = form.get("image_file")
        if isinstance(upload, UploadFile):
            filename = safe_filename(upload.filename or "foto") or "foto"
            data = await upload.read(get_settings().max_file_bytes + 1)
        if isinstance(form.get("bg_image_file"), UploadFile):
            params["bg_image_file"] = "file"
    elif media in ("application/json", ""):
        try:
            raw = json.loads(await request.body() or b"{}")
            if not isinstance(raw, dict):
                raise ValueError("not an object")
        except (ValueError, json.JSONDecodeError) as exc:
            raise RemoveBgError(400, "invalid_request", "Corpo JSON non valido") from exc
        params = {
            k: ("true" if v is True else "false" if v is False else str(v))
            for k, v in raw.items()
            if v is not None
        }
    else:
        raise RemoveBgError(
            400,
            "invalid_request",
            "Tipo di contenuto non supportato",
            "Usa multipart/form-data, un modulo o JSON.",
        )
    b64, url = params.get("image_file_b64") or None, params.get("image_url") or None
    given = [x for x in (data, b64, url) if x is not None]
    if not given:
        raise RemoveBgError(
            400,
            "missing_source",
            "Nessuna immagine",
            "Invia la foto in 'image_file', 'image_file_b64' o 'image_url'.",
        )
    if len(given) > 1:
        raise RemoveBgError(
            400,
            "multiple_sources",
            "Più sorgenti per l'immagine: invia solo uno tra 'image_file', 'image_file_b64' e 'image_url'.",
        )
    if url:
        filename = _url_name(url)
    return params, ImageSource(filename=filename, data=data, b64=b64, url=url)


async def _wait(job_id: uuid.UUID, timeout_s: float) -> PhotoProcessingJob | None:
    """The job once it ended (or waits for credits); ``None`` after ``timeout_s`` seconds."""
    deadline = time.monotonic() + timeout_s
    waiting = {*FINAL_STATUSES, JobStatus.waiting_for_credits}

    def load() -> PhotoProcessingJob:
        with session_factory()() as session:
            job = session.get_one(PhotoProcessingJob, job_id)
            session.expunge(job)
            return job

    while True:
        job = await run_in_threadpool(load)
        if job.status in waiting:
            return job
        if time.monotonic() >= deadline:
            return None
        await asyncio.sleep(POLL_S)


def _balance(user_id: uuid.UUID) -> int:
    with session_factory()() as session:
        return service.balance(session, user_id)


def _delete_job_photo(caller: KeyCaller, job_id: uuid.UUID) -> None:
    from fotopronta.models import Profile

    with session_factory()() as session:
        profile = session.get_one(Profile, caller.user_id)
        job = session.get_one(PhotoProcessingJob, job_id)
        photo_service.delete_photo(session, profile, job.photo_id)


async def _withdraw(temporal: Any, caller: KeyCaller, job_id: uuid.UUID) -> None:
    """Remove a job that waits for credits (it holds none): its workflow, photo and files."""
    with contextlib.suppress(RPCError):
        await temporal.get_workflow_handle(workflow_id_for_job(str(job_id))).terminate(
            reason="crediti insufficienti per /v1.0/removebg"
        )
    await run_in_threadpool(_delete_job_photo, caller, job_id)


def _cutout(user_id: uuid.UUID, job_id: uuid.UUID) -> bytes:
    try:
        return get_storage().get(BUCKET_PROCESSED, result_key(user_id, job_id, "png"))
    except ObjectNotFoundError as exc:
        raise RemoveBgError(500, "internal_error", "Risultato non disponibile", "Riprova tra poco.") from exc


router = APIRouter(tags=["remove.bg"])


@router.post(
    "/removebg",
    operation_id="removebg",
    dependencies=[require_scope("jobs:write")],  # type: ignore[list-item]
    responses={
        200: {
            "content": {
                "image/png": {},
                "image/jpeg": {},
                "image/webp": {},
                "application/zip": {},
                "application/json": {},
            }
        },
        400: {"description": "Parametri o immagine non validi (nessun credito addebitato)"},
        402: {"description": "Crediti insufficienti"},
        403: {"description": "Chiave API non valida"},
        429: {"description": "Troppe richieste"},
    },
)
async def remove_background(request: Request, caller: Caller, temporal: TemporalDep) -> Response:
    """Remove the background of one photo, as remove.bg's `POST /v1.0/removebg` does (see the module
    docstring)."""
    params, source = await _params(request)
    how = parse_render(params)
    profile = await run_in_threadpool(_profile, caller.user_id)
    if profile.credits_remaining < CREDITS_PER_IMAGE:
        raise RemoveBgError(
            402, "insufficient_credits", "Crediti insufficienti", "Acquista crediti su FotoPronta."
        )
    options = _job_options(profile, JobOptionsIn(output_format="png"), caller)
    upload = await _checked(source, None)
    jobs = await run_in_threadpool(create_jobs, caller, [upload], options)
    await start_workflows(temporal, jobs, profile.email)
    job_id = jobs[0].id
    done = await _wait(job_id, get_settings().removebg_timeout_s)
    if done is None:
        raise RemoveBgError(
            503,
            "processing_timeout",
            "Elaborazione ancora in corso",
            f"Il risultato non è pronto in tempo: il lavoro {job_id} continua e lo trovi con GET /v1/jobs/{job_id}.",
        )
    if done.status == JobStatus.waiting_for_credits:
        await _withdraw(temporal, caller, job_id)
        raise RemoveBgError(
            402, "insufficient_credits", "Crediti insufficienti", "Acquista crediti su FotoPronta."
        )
    if done.status != JobStatus.completed:
        code = "unknown_foreground" if done.error_code == "bad_image" else "failed_to_read_image"
        raise RemoveBgError(400, code, "Impossibile elaborare l'immagine", done.error_message)
    cutout = await run_in_threadpool(_cutout, caller.user_id, job_id)
    result = await run_in_threadpool(render, cutout, how)
    remaining = await run_in_threadpool(_balance, caller.user_id)
    top, left, width, height = result.foreground
    headers = {
        "X-Credits-Charged": str(CREDITS_PER_IMAGE),
        "X-Credits-Remaining": str(remaining),
        "X-Width": str(result.width),
        "X-Height": str(result.height),
        "X-Foreground-Top": str(top),
        "X-Foreground-Left": str(left),
        "X-Foreground-Width": str(width),
        "X-Foreground-Height": str(height),
        "X-Job-Id": str(job_id),
    }
    if how.type != "auto":
        headers["X-Type"] = how.type
    window = request.scope.get("state", {}).get(STATE_RATE_WINDOW)
    if isinstance(window, Window):
        headers.update(_legacy_rate_headers(window))
    if "application/json" in request.headers.get("accept", ""):
        body = {
            "data": {
                "result_b64": base64.b64encode(result.data).decode(),
                "foreground_top": top,
                "foreground_left": left,
                "foreground_width": width,
                "foreground_height": height,
            }
        }
        return JSONResponse(body, headers=headers)
    return Response(result.data, media_type=result.media_type, headers=headers)


@router.get("/account", operation_id="removebg-account")
def account(caller: Caller, request: Request) -> JSONResponse:
    """remove.bg's account answer: the credits (all of them pay-as-you-go here); no free calls."""
    with session_factory()() as session:
        credits = service.balance(session, caller.user_id)
    headers: dict[str, str] = {}
    window = request.scope.get("state", {}).get(STATE_RATE_WINDOW)
    if isinstance(window, Window):
        headers.update(_legacy_rate_headers(window))
    body = {
        "data": {
            "attributes": {
                "credits": {
                    "total": float(credits),
                    "subscription": 0.0,
                    "payg": float(credits),
                    "enterprise": 0.0,
                },
                "api": {"free_calls": 0, "sizes": "all"},
            }
        }
    }
    return JSONResponse(body, headers=headers)


def create_removebg_app() -> FastAPI:
    """Build the ``/v1.0`` application (mount it at ``/v1.0``)."""
    app = FastAPI(
        title="FotoPronta: API compatibile con remove.bg",
        version="1.0.0",
        description="`POST /v1.0/removebg` e `GET /v1.0/account` come remove.bg: cambia l'indirizzo di base "
        "e la chiave (`X-Api-Key: fp_live_…`). Vedi docs/public-api.md.",
        openapi_url="/openapi.json",
        docs_url=None,
        redoc_url=None,
    )
    app.add_middleware(PublicApiMiddleware)
    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(RemoveBgError, removebg_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, validation_error)
    for kind in (SAOperationalError, DBAPIError, psycopg.OperationalError, Exception):
        app.add_exception_handler(kind, server_error)
    app.include_router(router)
    return app
