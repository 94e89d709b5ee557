"""FotoPronta shared domain and persistence layer.

Imported by both the HTTP API (``api/``) and the Temporal activities (``activities/``): settings,
SQLAlchemy models, object storage, the credit ledger, and the command-line entry point.
"""
