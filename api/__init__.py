"""FotoPronta HTTP API (FastAPI): authentication, photos, and the web app's static files."""
