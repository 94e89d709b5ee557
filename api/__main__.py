"""``python -m api``: serve the API with uvicorn on the configured host and port.

uvicorn's own ``X-Forwarded-For`` handling is off (by default it believes the header from 127.0.0.1,
which lets anyone on the host rotate their IP): the API reads the header itself, only from
``FOTOPRONTA_TRUSTED_PROXIES`` (``api.deps.client_ip``).
"""

import uvicorn

from fotopronta.logs import configure_logging
from fotopronta.settings import get_settings

if __name__ == "__main__":
    settings = get_settings()
    configure_logging(settings.log_format)
    uvicorn.run(
        "api.main:app",
        host=settings.api_host,
        port=settings.api_port,
        log_level="info",
        log_config=None,
        proxy_headers=False,
    )
