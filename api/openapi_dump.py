"""``python -m api.openapi_dump``: print the API's OpenAPI document (JSON, sorted keys) without a server.

The web app's request and response types are generated from it (``web/openapi.json`` →
``web/src/types/openapi.gen.ts``, ``make api-types``); ``make webtest`` fails when either is stale.
Building the app needs no database, Temporal or settings beyond the defaults: the lifespan is not run.
"""

from __future__ import annotations

import json
import sys

from api.main import create_app


def openapi_json() -> str:
    """The document as stable text: sorted keys, two-space indent, a final newline."""
    document = create_app(with_lifespan=False).openapi()
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> None:
    sys.stdout.write(openapi_json())


if __name__ == "__main__":
    main()
