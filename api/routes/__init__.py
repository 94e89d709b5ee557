"""API routers, one module per feature."""
