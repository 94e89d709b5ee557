"""``python -m api``: serve the API with uvicorn on the configured host and port."""

import uvicorn

from fotopronta.logs import configure_logging
from fotopronta.settings import get_settings

if __name__ == "__main__":
    settings = get_settings()
    configure_logging(settings.log_format)
    uvicorn.run(
        "api.main:app", host=settings.api_host, port=settings.api_port, log_level="info", log_config=None
    )
