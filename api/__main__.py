"""``python -m api``: serve the API with uvicorn on the configured host and port."""

import uvicorn

from fotopronta.settings import get_settings

if __name__ == "__main__":
    settings = get_settings()
    uvicorn.run("api.main:app", host=settings.api_host, port=settings.api_port, log_level="info")
