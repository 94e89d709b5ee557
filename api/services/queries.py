"""Small SQL helpers the services share: a consistent read snapshot, LIKE patterns and one sorted
page with its total."""

from __future__ import annotations

from typing import Any, TypeVarTuple

from sqlalchemy import ColumnElement, Row, Select, func, or_, select
from sqlalchemy.orm import Session


def begin_snapshot(session: Session) -> None:
    """End ``session``'s current transaction and start a ``REPEATABLE READ`` one, so every following
    statement reads the same snapshot of the database.

    Needed where one answer takes several statements (a page of photos, then their jobs through
    ``selectinload``, then the counters): under PostgreSQL's default ``READ COMMITTED`` each statement
    sees the rows committed before *it* started, so a job completed between the two could be listed
    ``completed`` on a photo still ``processing`` (seen once in CI). Whatever the session did before
    (the authentication reads) is committed first; it must hold no pending writes the caller wants
    to roll back. PostgreSQL takes the snapshot at the first statement, not at ``BEGIN``.
    """
    session.commit()
    session.connection(execution_options={"isolation_level": "REPEATABLE READ"})


def escape_like(text: str) -> str:
    """``text`` with ``\\``, ``%`` and ``_`` escaped for a LIKE pattern (``escape="\\\\"``)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def like_pattern(term: str) -> str:
    """``%term%`` lower-cased for a case-insensitive LIKE on ``lower(column)``, wildcards escaped."""
    return "%" + escape_like(term.lower()) + "%"


def contains_any(term: str, *columns: Any) -> ColumnElement[bool]:
    """Any of ``columns`` (NULL as empty) contains ``term``, case-insensitively."""
    pattern = like_pattern(term)
    return or_(*(func.lower(func.coalesce(col, "")).like(pattern, escape="\\") for col in columns))


_Cols = TypeVarTuple("_Cols")


def sorted_page(
    session: Session,
    query: Select[*_Cols],
    column: Any,
    tiebreak: Any,
    *,
    order: str,
    page: int,
    size: int,
) -> tuple[list[Row[*_Cols]], int]:
    """Page ``page`` (from 1) of ``size`` rows of ``query`` ordered by ``column`` (``order`` ``asc`` or
    ``desc``, nulls last) then ``tiebreak``, and how many rows the whole query has."""
    total = session.execute(select(func.count()).select_from(query.subquery())).scalar_one()
    direction = column.asc().nulls_last() if order == "asc" else column.desc().nulls_last()
    rows = session.execute(query.order_by(direction, tiebreak).offset((page - 1) * size).limit(size)).all()
    return list(rows), int(total)
