"""The public API: ``/v1`` (FotoPronta's own, RFC 9457 errors) and ``/v1.0`` (remove.bg-compatible),
authenticated by the sellers' API keys. Both are sub-applications mounted on :mod:`api.main`'s app,
with their own OpenAPI documents and error shapes, over the same services and workflows as the web app.
"""
