"""``/v1`` routes: jobs, batches and the account, for API keys (see ``docs/public-api.md``).

Thin routes: they read the request (multipart ``image_file`` or JSON ``image_url`` /
``image_file_b64``), check the image with the web upload's own checks (:mod:`api.uploads`, the same
Italian messages) before anything is stored or charged, hand the transaction to
:mod:`api.services.public_jobs` and start the ``PhotoJobWorkflow`` of each new job. Every ``POST``
accepts an ``Idempotency-Key`` (:mod:`api.services.idempotency`).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import hashlib
import json
import logging
import uuid
from collections.abc import Awaitable, Callable
from pathlib import PurePath
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, Header, Query, Request, status
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ValidationError
from starlette.datastructures import UploadFile
from temporalio.client import Client
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError

from activities.contracts import CancelInput, workflow_id_for_job
from api.deps import TemporalDep, effective_role
from api.errors import ApiError
from api.http_headers import content_disposition
from api.job_control import run_job_update
from api.public.auth import Caller, ReadCaller, WriteCaller
from api.public.problems import PROBLEM_MEDIA_TYPE, STATE_EXTRA_HEADERS, problem
from api.public.schemas import (
    AccountOut,
    BatchCreateJson,
    BatchItemIn,
    BatchOut,
    JobCreateJson,
    JobList,
    JobOptionsIn,
    JobOut,
    Problem,
    PublicStatus,
    RejectedItem,
    ReworkIn,
    check_metadata,
)
from api.routes.photos import upload_options
from api.services import idempotency
from api.services import photos as photo_service
from api.services import public_jobs as service
from api.services.api_keys import KeyCaller
from api.text_rules import has_control_characters, safe_filename
from api.uploads import UPLOAD_TITLE, ImageInfo, inspect_image
from fotopronta.db import session_factory
from fotopronta.domain import CANCELLABLE_STATUSES, JOB_COSTS, JobType, UserRole
from fotopronta.models import PhotoProcessingJob, Profile
from fotopronta.safe_fetch import FetchError, fetch
from fotopronta.settings import get_settings
from retouch.presets import SMART_BACKGROUND_CATEGORIES
from workflows.photo_job import PhotoJobWorkflow
from workflows.starter import TEMPORAL_UNAVAILABLE, start_job_workflow

log = logging.getLogger("fotopronta.api.public")
router = APIRouter(tags=["jobs"])

IdempotencyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        max_length=255,
        description="Chiave unica per questa richiesta (≤ 255 caratteri): un nuovo invio con la stessa "
        "chiave e lo stesso corpo riceve la stessa risposta, senza un secondo lavoro né un secondo addebito.",
    ),
]
ERRORS: dict[int | str, dict[str, Any]] = {
    code: {
        "model": Problem,
        "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        "description": desc,
    }
    for code, desc in {
        400: "Richiesta non valida (immagine, URL, opzioni)",
        401: "Chiave API mancante, non valida o revocata",
        402: "Tetto mensile di crediti della chiave raggiunto",
        403: "Permesso mancante o account non abilitato",
        404: "Risorsa non trovata (o di un altro account)",
        409: "Conflitto (stato del lavoro, richiesta con la stessa Idempotency-Key in corso)",
        413: "Richiesta troppo grande",
        415: "Tipo di contenuto non supportato",
        422: "Dati non validi, o Idempotency-Key riutilizzata con un altro corpo",
        429: "Troppe richieste o troppi lavori in corso",
        503: "Servizio momentaneamente non disponibile",
    }.items()
}
CREDIT_HEADERS = {
    "X-Credits-Charged": {
        "description": "Crediti addebitati da questa richiesta (per un nuovo lavoro: il suo costo, "
        "riservato all'avvio e restituito se il lavoro fallisce)",
        "schema": {"type": "integer"},
    },
    "X-Credits-Remaining": {"description": "Crediti rimasti all'account", "schema": {"type": "integer"}},
}
IMAGE_OPTION_PROPS: dict[str, Any] = {
    "service": {"type": "string", "enum": ["ai", "designer"], "default": "ai"},
    "preset": {"type": "string", "default": "original"},
    "background": {"type": "string", "default": "white"},
    "output_format": {"type": "string", "enum": ["jpg", "webp", "png"], "default": "jpg"},
    "notes": {"type": "string", "maxLength": 2000},
    "external_id": {"type": "string", "maxLength": 255},
    "metadata": {"type": "string", "description": "Oggetto JSON di coppie chiave/valore testuali."},
}
JOB_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["image_file"],
                    "properties": {
                        "image_file": {"type": "string", "format": "binary"},
                        **IMAGE_OPTION_PROPS,
                    },
                }
            },
            "application/json": {"schema": {"$ref": "#/components/schemas/JobCreateJson"}},
        },
    }
}
BATCH_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["image_file"],
                    "properties": {
                        "image_file": {"type": "array", "items": {"type": "string", "format": "binary"}},
                        **{
                            k: v
                            for k, v in IMAGE_OPTION_PROPS.items()
                            if k not in ("external_id", "metadata")
                        },
                    },
                }
            },
            "application/json": {"schema": {"$ref": "#/components/schemas/BatchCreateJson"}},
        },
    }
}


@dataclasses.dataclass
class ImageSource:
    """Where one photo comes from, before it is fetched or checked: a file, base64 text or a URL."""

    filename: str
    data: bytes | None = None
    b64: str | None = None
    url: str | None = None
    external_id: str | None = None
    metadata: dict[str, str] | None = None

    def fingerprint(self) -> dict[str, Any]:
        """What identifies it in the request's fingerprint (file contents as their SHA-256)."""
        raw = self.data if self.data is not None else (self.b64 or "").encode()
        return {
            "name": self.filename,
            "sha256": hashlib.sha256(raw).hexdigest() if self.url is None else None,
            "url": self.url,
            "external_id": self.external_id,
            "metadata": self.metadata,
        }


def _bad_request(detail: str, code: str) -> ApiError:
    return ApiError(400, detail, code, UPLOAD_TITLE)


def _one_source(
    *, filename: str, data: bytes | None, b64: str | None, url: str | None, **extra: Any
) -> ImageSource:
    """Exactly one of file, base64 and URL.

    Raises:
        ApiError: 400 ``missing_image`` / ``multiple_images``.
    """
    given = [x for x in (data, b64, url) if x is not None]
    if not given:
        raise _bad_request(
            "Manca la foto: inviala come 'image_file', 'image_file_b64' o 'image_url'.", "missing_image"
        )
    if len(given) > 1:
        raise _bad_request(
            "Invia la foto in un solo modo: 'image_file', 'image_file_b64' o 'image_url'.", "multiple_images"
        )
    return ImageSource(filename=filename, data=data, b64=b64, url=url, **extra)


def _url_name(url: str) -> str:
    name = PurePath(urlsplit(url).path).name
    return safe_filename(name) or "foto" if name else "foto"


async def _form_parts(request: Request, *, many: bool) -> tuple[list[ImageSource], dict[str, str]]:
    """The images and text fields of a multipart form (``image_file`` once, or repeated for a batch).

    Raises:
        ApiError: 400 ``missing_image``, ``too_many_parts``, ``invalid_filename``; 422 for bad metadata.
    """
    settings = get_settings()
    limit = settings.max_batch_files_admin if many else 1
    form = await request.form(max_files=limit + 1, max_fields=20)
    files = [f for f in form.getlist("image_file") if isinstance(f, UploadFile)]
    if len(files) > limit:
        raise _bad_request(f"Puoi inviare al massimo {limit} foto per richiesta.", "too_many_files")
    fields = {k: v for k, v in form.multi_items() if isinstance(v, str)}
    for field in ("image_file_b64", "image_url"):
        if field in fields:
            fields[f"_{field}"] = fields.pop(field)
    sources = []
    max_bytes = settings.max_file_bytes
    for upload in files:
        name = safe_filename(upload.filename or "foto")
        if name is None:
            raise _bad_request("Il nome del file contiene caratteri non ammessi.", "invalid_filename")
        data = await upload.read(max_bytes + 1)
        sources.append(ImageSource(filename=name or "foto", data=data))
    if not many:
        metadata = _form_metadata(fields.get("metadata"))
        source = _one_source(
            filename=sources[0].filename if sources else "foto",
            data=sources[0].data if sources else None,
            b64=fields.get("_image_file_b64"),
            url=fields.get("_image_url"),
            external_id=_form_external_id(fields.get("external_id")),
            metadata=metadata,
        )
        if source.url:
            source.filename = _url_name(source.url)
        return [source], fields
    if not sources:
        raise _bad_request("Manca la foto: invia uno o più campi 'image_file'.", "missing_image")
    return sources, fields


def _form_external_id(raw: str | None) -> str | None:
    """``external_id`` of a multipart form, checked as the JSON body's (one line, ≤ 255 characters).

    Raises:
        RequestValidationError: (a 422) otherwise.
    """
    if not raw:
        return None
    if len(raw) > 255 or has_control_characters(raw, allow_newlines=False):
        raise RequestValidationError(
            [
                {
                    "loc": ("body", "external_id"),
                    "msg": "external_id: una sola riga di al massimo 255 caratteri",
                    "type": "value_error",
                }
            ]
        )
    return raw


def _form_metadata(raw: str | None) -> dict[str, str] | None:
    if raw is None or raw == "":
        return None
    try:
        value = json.loads(raw)
        if not isinstance(value, dict):
            raise ValueError("not an object")
        return check_metadata(value)
    except (ValueError, json.JSONDecodeError) as exc:
        raise RequestValidationError(
            [{"loc": ("body", "metadata"), "msg": f"metadata: {exc}", "type": "value_error"}]
        ) from exc


def _parse_json(model: type[BaseModel], body: bytes) -> Any:
    try:
        return model.model_validate_json(body or b"{}")
    except ValidationError as exc:
        raise RequestValidationError(exc.errors(include_url=False)) from exc


def _options_in(fields: dict[str, str]) -> JobOptionsIn:
    known = {k: v for k, v in fields.items() if k in JobOptionsIn.model_fields}
    try:
        return JobOptionsIn.model_validate(known)
    except ValidationError as exc:
        raise RequestValidationError(
            [{**e, "loc": ("body", *e["loc"])} for e in exc.errors(include_url=False)]
        ) from exc


def _content_kind(request: Request) -> Literal["multipart", "json"]:
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media == "multipart/form-data":
        return "multipart"
    if media in ("application/json", ""):
        return "json"
    raise ApiError(
        415,
        "Tipo di contenuto non supportato: usa multipart/form-data o application/json.",
        "unsupported_media_type",
    )


async def _image_bytes(source: ImageSource) -> tuple[bytes, str]:
    """The photo's bytes and file name: the file, the decoded base64 or the safely fetched URL.

    Raises:
        ApiError: 400 ``invalid_base64``, ``file_too_large``, ``image_url_*``.
    """
    max_bytes = get_settings().max_file_bytes
    if source.data is not None:
        return source.data, source.filename
    if source.b64 is not None:
        text = source.b64.split(",", 1)[1] if source.b64.startswith("data:") else source.b64
        if len(text) > (max_bytes + 2) // 3 * 4 + 4:
            return b"\0" * (max_bytes + 1), source.filename  # refused as too large by inspect_image
        try:
            return base64.b64decode("".join(text.split()), validate=True), source.filename
        except (binascii.Error, ValueError) as exc:
            raise _bad_request("'image_file_b64' non è un testo base64 valido.", "invalid_base64") from exc
    assert source.url is not None
    try:
        fetched = await fetch(source.url, max_bytes=max_bytes)
    except FetchError as exc:
        raise ApiError(400, exc.message, exc.code, "Immagine non scaricabile") from exc
    return fetched.data, source.filename


async def _checked(source: ImageSource, job_id: uuid.UUID | None) -> photo_service.UploadedFile:
    """The photo fetched and checked by content (:func:`api.uploads.inspect_image`).

    Raises:
        ApiError: 400 as :func:`_image_bytes` and :func:`api.uploads.inspect_image`.
    """
    data, name = await _image_bytes(source)
    info: ImageInfo = await run_in_threadpool(
        inspect_image, data, name, max_bytes=get_settings().max_file_bytes
    )
    return photo_service.UploadedFile(
        filename=name,
        data=data,
        info=info,
        job_id=job_id,
        external_id=source.external_id,
        metadata=source.metadata,
    )


def _job_options(profile: Profile, opts: JobOptionsIn, caller: KeyCaller) -> photo_service.JobOptions:
    """The web upload's options from the API's, checked by the web upload's own rules
    (:func:`api.routes.photos.upload_options`).

    Raises:
        ApiError: 400 ``invalid_background_category``, ``invalid_preset``, ``insufficient_credits`` (a
            smart background below its minimum credits), ``invalid_option``.
    """
    if opts.service == "designer":
        if opts.background != "white":
            raise ApiError(
                400, "Lo sfondo intelligente è disponibile solo con service 'ai'.", "invalid_option"
            )
        kind = JobType.background_removal_human
    elif opts.background == "white":
        kind = JobType.background_removal
    elif opts.background in SMART_BACKGROUND_CATEGORIES:
        kind = JobType.smart_backgrounds
    else:
        raise ApiError(400, "Scegli una categoria di sfondo valida.", "invalid_background_category")
    options = upload_options(
        profile,
        job_type=kind.value,
        background_category=opts.background if kind is JobType.smart_backgrounds else None,
        preset=opts.preset,
        shadow=True,
        brand=None,
        category=None,
        client_notes=opts.notes,
    )
    return dataclasses.replace(
        options,
        api=photo_service.ApiOrigin(
            api_key_id=caller.key_id, livemode=caller.mode == "live", output_format=opts.output_format
        ),
    )


def _profile(user_id: uuid.UUID) -> Profile:
    with session_factory()() as session:
        profile = session.get_one(Profile, user_id)
        session.expunge(profile)
        return profile


def create_jobs(
    caller: KeyCaller, uploads: list[photo_service.UploadedFile], options: photo_service.JobOptions
) -> list[PhotoProcessingJob]:
    """:func:`api.services.public_jobs.create_jobs` on a session of its own (blocking: threadpool); the
    jobs come back detached with their photos loaded."""
    with session_factory()() as session:
        jobs, _ = service.create_jobs(session, caller, uploads, options)
        return jobs


def job_answers(caller: KeyCaller, job_ids: list[uuid.UUID]) -> tuple[list[JobOut], int]:
    """The jobs as ``/v1`` shows them, read afresh, and the account's balance (blocking: threadpool)."""
    with session_factory()() as session:
        jobs = service.existing_jobs(session, job_ids)
        return service.job_views(session, jobs), service.balance(session, caller.user_id)


def _batch_answer(
    caller: KeyCaller, order_id: uuid.UUID, job_ids: list[uuid.UUID], rejected: list[RejectedItem]
) -> tuple[BatchOut, int]:
    from fotopronta.models import Order

    with session_factory()() as session:
        jobs = service.existing_jobs(session, job_ids)
        view = service.batch_out(session, session.get_one(Order, order_id), jobs, rejected)
        return view, service.balance(session, caller.user_id)


def _rework(caller: KeyCaller, job_id: uuid.UUID, reason: str) -> tuple[PhotoProcessingJob, str, str]:
    with session_factory()() as session:
        job = service.owned_job(session, caller, job_id)
        profile = session.get_one(Profile, caller.user_id)
        return photo_service.request_rework(session, profile, job.photo_id, reason)


def _deletable(caller: KeyCaller, job_id: uuid.UUID) -> tuple[uuid.UUID, uuid.UUID | None, str | None]:
    """``(photo id, latest job id, latest job status)`` of the key owner's job."""
    with session_factory()() as session:
        job = service.owned_job(session, caller, job_id)
        profile = session.get_one(Profile, caller.user_id)
        photo, latest = photo_service.deletable(session, profile, job.photo_id)
        return photo.id, latest.id if latest else None, latest.status if latest else None


def _delete(caller: KeyCaller, photo_id: uuid.UUID) -> list[uuid.UUID]:
    with session_factory()() as session:
        profile = session.get_one(Profile, caller.user_id)
        return photo_service.delete_photo(session, profile, photo_id)


async def start_workflows(temporal: Client, jobs: list[PhotoProcessingJob], email: str) -> None:
    """Start each pending job's workflow once (``REJECT_DUPLICATE``: a run that already ended is never
    started again); while Temporal is unreachable the jobs stay ``pending`` for the reconciler."""
    for job in jobs:
        if job.status != "pending":
            continue
        try:
            await start_job_workflow(
                temporal,
                job,
                email=email,
                photo_name=job.photo.original_filename,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            )
        except WorkflowAlreadyStartedError:
            continue
        except TEMPORAL_UNAVAILABLE as exc:
            log.warning("Temporal unreachable (%s): job left pending", exc.__class__.__name__)
            return


def _json(model: BaseModel, status_code: int, headers: dict[str, str]) -> JSONResponse:
    return JSONResponse(model.model_dump(mode="json"), status_code=status_code, headers=headers)


async def idempotent(
    request: Request,
    caller: KeyCaller,
    key: str | None,
    params: Any,
    run: Callable[[idempotency.Claim | None], Awaitable[Response]],
) -> Response:
    """Run ``run`` under the request's ``Idempotency-Key`` (none: just run it): a replay answers the
    first answer with ``Idempotent-Replayed: true``; the answer (or the problem) is stored for retries
    when :func:`api.services.idempotency.keepable`, else the key is unlocked."""
    if key is None:
        return await run(None)
    idempotency.check_key(key)
    fingerprint = idempotency.fingerprint(request.method, request.url.path, params)
    claimed = await run_in_threadpool(idempotency.claim, caller.user_id, key, fingerprint)
    if isinstance(claimed, idempotency.Replay):
        return Response(
            claimed.body,
            status_code=claimed.status,
            headers={**claimed.headers, idempotency.REPLAYED_HEADER: "true"},
        )
    try:
        response = await run(claimed)
    except ApiError as exc:
        response = problem(request, exc.status, exc.detail, exc.code, exc.title)
    except RequestValidationError as exc:
        from api.public.problems import validation_problem

        response = await validation_problem(request, exc)
    except BaseException:
        await run_in_threadpool(idempotency.release, claimed)
        raise
    if idempotency.keepable(response.status_code):
        kept = {
            k: v
            for k, v in response.headers.items()
            if k.lower() in ("content-type", "location", "x-credits-charged", "x-credits-remaining")
        }
        body = bytes(response.body) if isinstance(response.body, bytes | memoryview) else b""
        await run_in_threadpool(idempotency.store_answer, claimed, response.status_code, kept, body)
    else:
        await run_in_threadpool(idempotency.release, claimed)
    return response


@router.post(
    "/jobs",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=JobOut,
    operation_id="jobs-create",
    openapi_extra=JOB_BODY,
    responses={
        202: {
            "description": "Lavoro accettato",
            "headers": {"Location": {"schema": {"type": "string"}}, **CREDIT_HEADERS},
        },
        **ERRORS,
    },
)
async def create_job(
    request: Request, caller: WriteCaller, temporal: TemporalDep, idempotency_key: IdempotencyHeader = None
) -> Response:
    """Start one job: the photo as multipart `image_file`, or JSON `image_url` / `image_file_b64`,
    with the options. Answers `202` with the job and its `Location`; the photo is checked as the web
    upload checks it (type from the bytes, 50 MB, 80 MP) before anything is stored or charged."""
    if _content_kind(request) == "multipart":
        sources, fields = await _form_parts(request, many=False)
        opts = _options_in(fields)
    else:
        body = _parse_json(JobCreateJson, await request.body())
        opts = JobOptionsIn.model_validate(body.model_dump(include=set(JobOptionsIn.model_fields)))
        source = _one_source(
            filename=_url_name(body.image_url) if body.image_url else "foto",
            data=None,
            b64=body.image_file_b64,
            url=body.image_url,
            external_id=body.external_id,
            metadata=body.metadata,
        )
        sources = [source]
    params = {"options": opts.model_dump(), "images": [s.fingerprint() for s in sources]}

    async def run(claim: idempotency.Claim | None) -> Response:
        profile = await run_in_threadpool(_profile, caller.user_id)
        options = _job_options(profile, opts, caller)
        upload = await _checked(sources[0], claim.job_id(0) if claim else None)
        jobs = await run_in_threadpool(create_jobs, caller, [upload], options)
        await start_workflows(temporal, jobs, profile.email)
        views, remaining = await run_in_threadpool(job_answers, caller, [j.id for j in jobs])
        view = views[0]
        return _json(
            view,
            202,
            {
                "Location": f"/v1/jobs/{view.id}",
                "X-Credits-Charged": str(JOB_COSTS[options.kind]),
                "X-Credits-Remaining": str(remaining),
            },
        )

    return await idempotent(request, caller, idempotency_key, params, run)


@router.post(
    "/batches",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=BatchOut,
    operation_id="batches-create",
    openapi_extra=BATCH_BODY,
    responses={202: {"description": "Lotto accettato", "headers": CREDIT_HEADERS}, **ERRORS},
)
async def create_batch(
    request: Request, caller: WriteCaller, temporal: TemporalDep, idempotency_key: IdempotencyHeader = None
) -> Response:
    """Start a batch of jobs with shared options (one order in the web app): multipart repeated
    `image_file`, or JSON `jobs` (each `image_url` or `image_file_b64`). A photo refused by its content
    or URL is listed in `rejected` with its reason and the others go on; if every photo is refused the
    answer is `400 batch_rejected`."""
    if _content_kind(request) == "multipart":
        sources, fields = await _form_parts(request, many=True)
        opts = _options_in(fields)
    else:
        body = _parse_json(BatchCreateJson, await request.body())
        opts = JobOptionsIn.model_validate(body.model_dump(include=set(JobOptionsIn.model_fields)))
        sources = []
        for item in body.jobs:
            sources.append(_item_source(item))
    params = {"options": opts.model_dump(), "images": [s.fingerprint() for s in sources]}

    async def run(claim: idempotency.Claim | None) -> Response:
        profile = await run_in_threadpool(_profile, caller.user_id)
        settings = get_settings()
        admin = effective_role(profile) is UserRole.admin
        max_jobs = settings.max_batch_files_admin if admin else settings.max_batch_files_standard
        if len(sources) > max_jobs:
            raise ApiError(
                400, f"Puoi inviare al massimo {max_jobs} foto per lotto.", "too_many_files", UPLOAD_TITLE
            )
        options = _job_options(profile, opts, caller)
        uploads: list[photo_service.UploadedFile] = []
        rejected: list[RejectedItem] = []
        for index, source in enumerate(sources):
            try:
                uploads.append(await _checked(source, claim.job_id(index) if claim else None))
            except ApiError as exc:
                rejected.append(RejectedItem(index=index, code=exc.code, detail=exc.detail))
        if not uploads:
            raise ApiError(
                400, "Nessuna foto del lotto è stata accettata: vedi 'rejected'.", "batch_rejected"
            )
        jobs = await run_in_threadpool(create_jobs, caller, uploads, options)
        await start_workflows(temporal, jobs, profile.email)
        order_id = jobs[0].photo.order_id
        assert order_id is not None
        view, remaining = await run_in_threadpool(
            _batch_answer, caller, order_id, [j.id for j in jobs], rejected
        )
        return _json(
            view,
            202,
            {
                "Location": f"/v1/batches/{view.id}",
                "X-Credits-Charged": str(JOB_COSTS[options.kind] * len(jobs)),
                "X-Credits-Remaining": str(remaining),
            },
        )

    return await idempotent(request, caller, idempotency_key, params, run)


def _item_source(item: BatchItemIn) -> ImageSource:
    return _one_source(
        filename=_url_name(item.image_url) if item.image_url else "foto",
        data=None,
        b64=item.image_file_b64,
        url=item.image_url,
        external_id=item.external_id,
        metadata=item.metadata,
    )


def _state_headers(request: Request, headers: dict[str, str]) -> None:
    """Headers for a route that answers a model (added by :class:`api.public.problems.PublicApiMiddleware`)."""
    request.scope.setdefault("state", {})[STATE_EXTRA_HEADERS] = headers


def _credit_headers(session: Any, caller: KeyCaller, charged: int) -> dict[str, str]:
    return {
        "X-Credits-Charged": str(charged),
        "X-Credits-Remaining": str(service.balance(session, caller.user_id)),
    }


@router.get(
    "/jobs/{job_id}",
    response_model=JobOut,
    operation_id="jobs-read",
    responses={200: {"headers": CREDIT_HEADERS}, **ERRORS},
)
def read_job(job_id: uuid.UUID, caller: ReadCaller) -> Response:
    """One job; its `credits_charged` is what it holds now (0 once given back). Reading charges nothing
    (`X-Credits-Charged: 0`)."""
    with session_factory()() as session:
        job = service.owned_job(session, caller, job_id)
        view = service.job_views(session, [job])[0]
        return _json(view, 200, _credit_headers(session, caller, 0))


@router.get(
    "/jobs",
    response_model=JobList,
    operation_id="jobs-list",
    responses={200: {"headers": CREDIT_HEADERS}, **ERRORS},
)
def list_jobs(
    request: Request,
    caller: ReadCaller,
    limit: Annotated[int, Query(ge=1, le=service.PAGE_MAX)] = service.PAGE_DEFAULT,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
    status: Annotated[PublicStatus | None, Query()] = None,
    external_id: Annotated[str | None, Query(max_length=255)] = None,
) -> JobList:
    """The account's jobs, newest first; `next_cursor` gives the next page. Filters: `status`,
    `external_id`."""
    with session_factory()() as session:
        page = service.list_jobs(
            session, caller, limit=limit, cursor=cursor, status=status, external_id=external_id
        )
        _state_headers(request, _credit_headers(session, caller, 0))
        return page


@router.get(
    "/jobs/{job_id}/result",
    operation_id="jobs-result",
    responses={
        200: {
            "description": "L'immagine elaborata",
            "content": {"image/jpeg": {}, "image/webp": {}, "image/png": {}},
            "headers": CREDIT_HEADERS,
        },
        **ERRORS,
        410: {
            "model": Problem,
            "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
            "description": "File eliminato (30 giorni)",
        },
    },
)
def job_result(
    job_id: uuid.UUID,
    caller: ReadCaller,
    format: Annotated[Literal["jpg", "jpeg", "webp", "png"] | None, Query()] = None,  # noqa: A002  API contract
) -> Response:
    """The result as `jpg`, `webp` or `png` (default: the job's `output_format`). `jpg` and `webp` are
    the retouched photo on its background, framed for the preset; `png` is the transparent cutout (the
    product with an alpha channel, at the photo's own size); for a designer's job, the designer's file
    in the format asked for."""
    fmt = "jpg" if format == "jpeg" else format
    with session_factory()() as session:
        data, media, name = service.result_file(session, caller, job_id, fmt)
        credits = _credit_headers(session, caller, 0)
    return Response(
        data, media_type=media, headers={"Content-Disposition": content_disposition(name), **credits}
    )


@router.post(
    "/jobs/{job_id}/rework",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=JobOut,
    operation_id="jobs-rework",
    responses={202: {"headers": {"Location": {"schema": {"type": "string"}}, **CREDIT_HEADERS}}, **ERRORS},
)
async def rework_job(
    job_id: uuid.UUID,
    body: ReworkIn,
    request: Request,
    caller: WriteCaller,
    temporal: TemporalDep,
    idempotency_key: IdempotencyHeader = None,
) -> Response:
    """The free designer rework of an AI result (once per photo, within 7 days of delivery), with the
    reason for the designer. Answers `202` with the new designer job (0 credits)."""

    async def run(_claim: idempotency.Claim | None) -> Response:
        rework, email, name = await run_in_threadpool(_rework, caller, job_id, body.reason)
        await start_job_workflow(temporal, rework, email=email, photo_name=name)
        views, remaining = await run_in_threadpool(job_answers, caller, [rework.id])
        headers = {"X-Credits-Charged": "0", "X-Credits-Remaining": str(remaining)}
        return _json(views[0], 202, {"Location": f"/v1/jobs/{views[0].id}", **headers})

    return await idempotent(request, caller, idempotency_key, {"job": str(job_id), **body.model_dump()}, run)


@router.delete(
    "/jobs/{job_id}", status_code=status.HTTP_204_NO_CONTENT, operation_id="jobs-delete", responses=ERRORS
)
async def delete_job(job_id: uuid.UUID, caller: WriteCaller, temporal: TemporalDep) -> Response:
    """Delete the job's photo, its files and its jobs (as the web app's 'Elimina'). A designer job not
    yet started is withdrawn first and its credits given back; refused (`409 photo_busy`) while a job
    is being worked on."""
    photo_id, latest_id, latest_status = await run_in_threadpool(_deletable, caller, job_id)
    if latest_id is not None and latest_status in CANCELLABLE_STATUSES:
        try:
            await run_job_update(
                temporal, latest_id, PhotoJobWorkflow.cancel, CancelInput(actor_id=str(caller.user_id))
            )
        except ApiError as exc:
            raise photo_service.photo_busy() from exc
    job_ids = await run_in_threadpool(_delete, caller, photo_id)
    for gone in job_ids:
        with contextlib.suppress(RPCError):
            await temporal.get_workflow_handle(workflow_id_for_job(str(gone))).terminate(
                reason="foto eliminata dal cliente (API)"
            )
    return Response(status_code=204)


@router.get(
    "/batches/{batch_id}",
    response_model=BatchOut,
    operation_id="batches-read",
    responses={200: {"headers": CREDIT_HEADERS}, **ERRORS},
)
def read_batch(batch_id: uuid.UUID, caller: ReadCaller, request: Request) -> BatchOut:
    """A batch with its jobs and counts by status."""
    with session_factory()() as session:
        view = service.batch_view(session, caller, batch_id)
        _state_headers(request, _credit_headers(session, caller, 0))
        return view


@router.get(
    "/account",
    response_model=AccountOut,
    operation_id="account-read",
    responses={200: {"headers": CREDIT_HEADERS}, **ERRORS},
    tags=["account"],
)
def read_account(caller: Caller, request: Request) -> AccountOut:
    """Credits, the key in use and the limits. Also answers `X-Credits-Remaining`."""
    with session_factory()() as session:
        view = service.account_view(session, caller)
    _state_headers(request, {"X-Credits-Charged": "0", "X-Credits-Remaining": str(view.credits_remaining)})
    return view
