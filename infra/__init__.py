"""Start-up helpers for the embedded defaults (PostgreSQL, Temporal dev server, model files)."""
