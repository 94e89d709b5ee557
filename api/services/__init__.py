"""The service layer (full-stack-fastapi-template's ``crud``/services habit): one module an area, each
holding the transactions and rules of that area, so a route only checks its input, calls one service
function and starts or updates workflows.

Why ``api/services/`` and not ``fotopronta/services/``: these functions speak HTTP's language to the
client (they raise :class:`api.errors.ApiError` with the Italian message, code and toast title, and
return the :mod:`api.schemas` shapes), which only the API process needs. ``fotopronta/`` stays the
code shared with the worker (models, ledger, payments, storage), imported by activities too.

Services are synchronous (SQLAlchemy sessions block): async routes call them through
``run_in_threadpool``. A service that writes commits its own transaction and says so.
"""
