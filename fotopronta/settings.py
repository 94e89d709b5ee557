"""Application settings, read once from environment variables (prefix ``FOTOPRONTA_``) and ``.env``.

Every port and path the stack uses comes from here, so ``make dev``, the tests and production
(docker-compose) run the same code with different values.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent
DEV_JWT_SECRET = "dev-only-insecure-secret-change-me-0123456789abcdef"


class Settings(BaseSettings):
    """All configuration of FotoPronta.

    Attributes use units in their names or docs: ports are TCP ports, sizes are bytes, durations
    seconds. ``environment`` is ``development`` (embedded defaults, development pages) or anything
    else: every value but exactly ``development`` (``production``, ``test``, ``staging``, a typo) fails
    closed, i.e. behaves as production: the default JWT secret is refused at start-up and the
    development pages (``/dev/mail``, ``/api/dev/mail``, ``/dev/checkout``) answer 404.
    """

    model_config = SettingsConfigDict(env_prefix="FOTOPRONTA_", env_file=".env", extra="ignore")

    environment: str = "development"
    data_dir: Path = REPO_ROOT / ".data"

    # HTTP API
    api_host: str = "127.0.0.1"
    api_port: int = 8000
    api_workers: int | None = None  # uvicorn worker processes; None: one per CPU (os.cpu_count())
    # The web app's address for links (e-mails, payment redirects). Required outside development; in
    # development, unset means "the allowed address the request came to" (fotopronta/links.py).
    public_url: str | None = None
    # host:port of the API's Prometheus metrics (e.g. 0.0.0.0:9465): the only /metrics outside development
    api_metrics_bind: str | None = None
    json_body_max_bytes: int = 16 * 1024  # request body of every route but uploads and the webhook
    # connection-level bounds of the API server (api/http_guard.py; docs/security.md "Slow clients")
    http_max_head_bytes: int = 32 * 1024  # request line + headers; past it 431 and closed
    http_max_headers: int = 100  # header fields per request; past it 431 and closed
    http_head_timeout_s: float = 10  # the whole head, from the connection or the request's first byte
    http_body_grace_s: float = 10  # a body may start slowly for this long ...
    http_body_min_rate: float = 500  # ... then must average this many bytes/s, or the connection closes
    http_keep_alive_s: int = 5  # an idle keep-alive connection is closed after this
    webhook_body_max_bytes: int = 256 * 1024  # the payment provider's signed event
    allowed_hosts: str = ""  # development: host names besides loopback that links may point to (a LAN name)
    web_dist: Path = REPO_ROOT / "web" / "dist"

    # PostgreSQL: an explicit URL (production) or the embedded server (development, tests)
    database_url: str | None = None
    postgres_host: str = "127.0.0.1"
    postgres_port: int = 5433
    postgres_db: str = "fotopronta"
    postgres_user: str = "postgres"
    postgres_password: str = ""

    # Temporal
    temporal_address: str = "127.0.0.1:7233"
    temporal_namespace: str = "default"
    temporal_ui_port: int = 8233
    reconcile_interval_s: float = 30  # the photo-jobs worker's pass over pending jobs without a workflow
    reconcile_min_age_s: float = 30  # only jobs pending for longer than this (the API starts newer ones)
    reconcile_orphans_interval_s: float = 300  # the pass ending running workflows whose job row is gone
    worker_metrics_bind: str | None = None  # e.g. 0.0.0.0:9464: Prometheus metrics of the Temporal SDK
    log_format: Literal["text", "json"] = "text"  # json: one JSON object per line, with the job id
    temporal_ui_url: str = ""
    """Base URL of the Temporal Web UI that admins' links open (e.g. ``https://temporal.example.it``);
    empty: ``http://{host of temporal_address}:{temporal_ui_port}``."""

    # object storage: "local" (a directory) or "s3" (boto3; SeaweedFS in docker-compose, or any S3)
    storage_backend: Literal["local", "s3"] = "local"
    storage_dir: Path | None = None
    s3_endpoint_url: str | None = None
    s3_access_key: str | None = None
    s3_secret_key: str | None = None
    s3_region: str = "eu-south-1"

    # segmentation model (rembg reads U2NET_HOME)
    u2net_home: Path = REPO_ROOT / ".data" / "models"
    rembg_model: str = "u2netp"

    # auth
    jwt_secret: str = DEV_JWT_SECRET
    access_token_ttl_s: int = 3600
    refresh_token_ttl_s: int = 30 * 24 * 3600

    # business constants (SPEC §9)
    signup_free_credits: int = 15
    credit_validity_days: int = 365
    max_batch_files_standard: int = 10
    max_batch_bytes_standard: int = 100 * 1024 * 1024
    max_batch_files_admin: int = 25
    max_batch_bytes_admin: int = 250 * 1024 * 1024
    max_file_bytes: int = 50 * 1024 * 1024

    # accounts, e-mail and payments (SPEC §2, §7, §8)
    signup_link_ttl_s: int = 24 * 3600  # e-mail confirmation link
    recovery_code_ttl_s: int = 15 * 60  # 6-digit reset code
    recovery_link_ttl_s: int = 3600  # reset link
    recovery_code_max_attempts: int = 5  # wrong guesses before a code is burnt
    login_rate_limit: str = "10/15 minutes"  # wrong current passwords at password change, "limits" syntax
    login_ip_rate_limit: str = "30/15 minutes"  # failed logins per client IP or IPv6 /64 (any e-mail)
    # the account lock-out (api.services.auth.login; docs/security.md "Account lock-out"): failed logins
    # from clients without the account's device cookie lock the account itself, whatever the address
    login_lockout_threshold: int = 10  # consecutive failures before the first lock
    login_lockout_base_s: float = 60  # the first lock; each further failure doubles it ...
    login_lockout_max_s: float = 3600  # ... up to this
    login_lockout_reset_s: float = 24 * 3600  # a day without failures starts the count again
    login_device_rate_limit: str = "10/15 minutes"  # failed logins with one device cookie
    device_cookie_ttl_s: int = 365 * 24 * 3600  # the device cookie set by a successful login
    signup_ip_rate_limit: str = "10/hour"  # sign-ups per client IP
    trusted_proxies: str = ""  # comma-separated IPs/CIDRs whose X-Forwarded-For is believed; "" = none
    events_ticket_ttl_s: int = 60  # single-use ticket for GET /api/events
    events_session_check_s: float = 10.0  # an open event stream re-checks its session this often
    otp_rate_limit: str = "10/15 minutes"  # code attempts per e-mail
    forgot_rate_limit: str = "5/hour"  # reset e-mails per e-mail address
    forgot_ip_rate_limit: str = "5/hour"  # reset requests per client IP (any e-mail address)
    mail_backend: Literal["outbox", "smtp"] | None = None  # None: outbox, or smtp in production
    smtp_host: str = "127.0.0.1"
    smtp_port: int = 25
    smtp_user: str | None = None
    smtp_password: str | None = None
    smtp_from: str = "FotoPronta <noreply@fotopronta.it>"
    smtp_starttls: bool = False
    smtp_timeout_s: float = 30
    payment_provider: Literal["stripe", "test"] | None = None  # None: stripe iff a secret key is set
    stripe_secret_key: str | None = None
    stripe_webhook_secret: str | None = None
    stripe_api_base: str = "https://api.stripe.com"
    # an unpaid checkout expires after this many seconds (Stripe accepts 30 min to 24 h)
    checkout_expiry_s: int = 1800

    # public API (/v1, /v1.0)
    api_rate_limit: str = "120/minute"  # requests per API key, "limits" syntax (RateLimit-* headers)
    api_max_jobs_in_flight: int = 100  # an account's jobs started by API keys and not finished yet
    api_keys_per_user: int = 25  # live keys (not revoked) a seller may hold
    idempotency_ttl_s: int = 24 * 3600  # how long an Idempotency-Key and its answer are kept
    idempotency_lock_s: int = 120  # a request in flight holds its key this long (a crash frees it)
    removebg_timeout_s: float = 120.0  # POST /v1.0/removebg waits this long for its job's result
    # image_url fetching (fotopronta/safe_fetch.py): public http(s) only; loopback only when allowed
    # (make dev turns it on for local testing; never in production)
    fetch_allow_loopback: bool = False
    fetch_timeout_s: float = 20.0  # the whole download, redirects included
    fetch_max_redirects: int = 3
    # webhooks: credits.low when a job's reservation takes the balance below this many credits
    webhook_credits_low_threshold: int = 5

    @property
    def temporal_ui_base(self) -> str:
        """The Temporal Web UI's base URL without a trailing slash (see ``temporal_ui_url``)."""
        if self.temporal_ui_url:
            return self.temporal_ui_url.rstrip("/")
        host = self.temporal_address.rsplit(":", 1)[0] or "localhost"
        return f"http://{host}:{self.temporal_ui_port}"

    @property
    def effective_mail_backend(self) -> str:
        """``smtp`` or ``outbox``: the configured backend, else smtp in production and outbox otherwise."""
        return self.mail_backend or ("outbox" if self.is_development else "smtp")

    @property
    def effective_payment_provider(self) -> str:
        """``stripe`` or ``test``: the configured provider, else stripe iff a secret key is set.
        Outside development the default is stripe (the test checkout page is development-only)."""
        if self.payment_provider:
            return self.payment_provider
        return "stripe" if self.stripe_secret_key or not self.is_development else "test"

    @property
    def is_development(self) -> bool:
        """Whether ``environment`` is exactly ``development`` (the only value with conveniences)."""
        return self.environment == "development"

    @property
    def is_production(self) -> bool:
        """Whether development-only pages (``/dev/mail``, test checkout) must be absent: every
        ``environment`` except exactly ``development`` (fail closed: ``test``, ``staging``, typos)."""
        return not self.is_development

    @property
    def trusted_proxy_networks(self) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
        """``trusted_proxies`` parsed (``10.0.0.0/8, 127.0.0.1``); empty means trust no proxy."""
        return [
            ipaddress.ip_network(part.strip(), strict=False)
            for part in self.trusted_proxies.split(",")
            if part.strip()
        ]

    @model_validator(mode="after")
    def _check_secrets(self) -> Settings:
        if not self.is_development and self.jwt_secret == DEV_JWT_SECRET:
            raise ValueError(
                f"FOTOPRONTA_JWT_SECRET must be set outside development (environment={self.environment!r})"
            )
        if not self.is_development and not (self.public_url or "").strip():
            raise ValueError(
                f"FOTOPRONTA_PUBLIC_URL must be set outside development (environment={self.environment!r})"
            )
        self.trusted_proxy_networks  # noqa: B018 - fail at start-up on a malformed entry
        return self

    @property
    def sqlalchemy_url(self) -> str:
        """The SQLAlchemy URL, normalised to the psycopg 3 driver (``postgresql+psycopg://``)."""
        if self.database_url:
            url = self.database_url
        else:
            auth = self.postgres_user + (f":{self.postgres_password}" if self.postgres_password else "")
            url = f"postgresql://{auth}@{self.postgres_host}:{self.postgres_port}/{self.postgres_db}"
        for prefix in ("postgres://", "postgresql://"):
            if url.startswith(prefix):
                return "postgresql+psycopg://" + url[len(prefix) :]
        return url

    @property
    def local_storage_dir(self) -> Path:
        """Root of the local object store (one sub-directory per bucket)."""
        return self.storage_dir or (self.data_dir / "storage")


@lru_cache
def get_settings() -> Settings:
    """Return the process-wide :class:`Settings` (cached; tests call ``get_settings.cache_clear()``)."""
    return Settings()
