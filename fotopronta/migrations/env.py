"""Alembic environment: runs migrations online against ``sqlalchemy.url`` from the Config."""

from __future__ import annotations

from alembic import context
from sqlalchemy import engine_from_config, pool

from fotopronta.models import Base, include_object

config = context.config
target_metadata = Base.metadata


def run_migrations_online() -> None:
    """Run every pending migration in one transaction."""
    connectable = engine_from_config(
        config.get_section(config.config_ini_section, {}), prefix="sqlalchemy.", poolclass=pool.NullPool
    )
    with connectable.connect() as connection:
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            compare_type=True,
            include_object=include_object,
        )
        with context.begin_transaction():
            context.run_migrations()


run_migrations_online()
