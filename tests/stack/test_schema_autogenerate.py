"""The models and the migrations describe the same schema: Alembic's autogenerate, run against a database
with every migration applied and filtered as ``migrations/env.py`` filters it, proposes no change.

In particular ``rate_limit_hits``, which only plain SQL uses (:mod:`fotopronta.ratelimit`) and which has
no model, is left alone (:data:`fotopronta.models.RAW_SQL_TABLES`) instead of being proposed for a drop.
"""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from fotopronta.db import get_engine
from fotopronta.models import RAW_SQL_TABLES, Base, include_object
from fotopronta.settings import Settings


def test_autogenerate_finds_nothing_to_change(postgres: Settings) -> None:
    with get_engine().connect() as conn:
        assert set(inspect(conn).get_table_names()) >= RAW_SQL_TABLES  # the migrations created them
        assert not RAW_SQL_TABLES & set(Base.metadata.tables)  # and no model describes them
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "include_object": include_object}
        )
        diff = compare_metadata(context, Base.metadata)
    assert diff == []
