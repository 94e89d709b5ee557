"""No blocking call on the API's event loop (docs/api.md "One rule for the event loop").

The rule: a route that uses the database (the sync SQLAlchemy ``Session``), storage or Pillow is a
plain ``def`` (FastAPI runs it in its threadpool). A route is ``async def`` only when it awaits an
async client (Temporal, the SSE stream, the upload's ``UploadFile``), and then every use of the
session, of storage and of Pillow in its body goes through ``run_in_threadpool`` (or
``asyncio.to_thread``): the blocking call is an argument of that call, never made on the loop.

The routes come from ``app.routes`` and those of the applications mounted on it (the public API), so a
route added later is checked without touching this file.
The check reads each ``async def`` endpoint's source (and the async helpers in ``api/`` it awaits)
with :mod:`ast`: any reference to a blocking name outside the arguments of a threadpool call fails.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Iterator
from typing import Any

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool
from fastapi.routing import APIRoute
from starlette.routing import Mount

from api.deps import SessionDep, get_session

THREADPOOL_CALLS = {"run_in_threadpool", "to_thread", "run_sync"}
"""Calls whose arguments run off the loop (``fastapi.concurrency``, ``asyncio``, ``anyio.to_thread``)."""

BLOCKING_NAMES = {
    "get_storage",
    "storage",
    "Image",
    "ImageOps",
    "inspect_image",
    "get_engine",
    "session_scope",
    "session_factory",
}
"""Names whose use blocks: storage, Pillow, and opening database connections directly."""


def endpoint_routes(app_routes: list[Any]) -> Iterator[Any]:
    """Every API route (an object with ``endpoint``, ``dependant``, ``methods``, ``path``), routers
    included (FastAPI's ``effective_route_contexts`` where it has them)."""
    for route in app_routes:
        contexts = route.effective_route_contexts() if hasattr(route, "effective_route_contexts") else [route]
        for ctx in contexts:
            if isinstance(ctx, APIRoute) or (hasattr(ctx, "endpoint") and hasattr(ctx, "dependant")):
                yield ctx


def _session_params(route: Any) -> set[str]:
    """Parameters of the route's endpoint that are the request's sync ``Session`` (``SessionDep``)."""
    return {dep.name for dep in route.dependant.dependencies if dep.call is get_session and dep.name}


PROJECT_MODULES = ("api.", "workflows.", "activities.", "fotopronta.")


def _resolve(fn: Callable[..., Any], call: ast.Call) -> Callable[..., Any] | None:
    """The project coroutine function ``call`` names (``helper(...)`` in ``fn``'s module), if any."""
    name = call.func.id if isinstance(call.func, ast.Name) else None
    target = vars(inspect.getmodule(fn)).get(name) if name else None
    if inspect.iscoroutinefunction(target) and str(getattr(target, "__module__", "")).startswith(
        PROJECT_MODULES
    ):
        return target
    return None


def _blocking_uses(
    fn: Callable[..., Any], blocking: set[str], seen: set[Any] | None = None
) -> Iterator[tuple[str, int, str]]:
    """``(function, line, name)`` for each load of a blocking name in ``fn``'s body that is not inside a
    threadpool call's arguments. Nested ``def``/``lambda`` bodies are skipped: they run where they
    are sent. A project coroutine awaited with the session (``await helper(session, ...)``) is checked
    the same way instead, with its own ``session`` parameter as the blocking name."""
    seen = seen if seen is not None else set()
    if fn in seen:
        return
    seen.add(fn)
    tree = _async_def(fn)
    where = f"{fn.__module__}.{fn.__name__}"

    def visit(node: ast.AST) -> Iterator[tuple[str, int, str]]:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) and node is not tree:
            return
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if called in THREADPOOL_CALLS:
                yield from visit(func)
                return
            helper = _resolve(fn, node)
            if helper is not None:
                params = set(inspect.signature(helper).parameters)
                yield from _blocking_uses(helper, BLOCKING_NAMES | ({"session"} & params), seen)
                passed = [a for a in node.args if not (isinstance(a, ast.Name) and a.id in blocking)]
                passed += [
                    k.value
                    for k in node.keywords
                    if not (isinstance(k.value, ast.Name) and k.value.id in blocking)
                ]
                for arg in passed:
                    yield from visit(arg)
                return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in blocking:
            yield where, node.lineno, node.id
        for child in ast.iter_child_nodes(node):
            yield from visit(child)

    for stmt in tree.body:
        yield from visit(stmt)


def _async_def(fn: Callable[..., Any]) -> ast.AsyncFunctionDef:
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    node = tree.body[0]
    assert isinstance(node, ast.AsyncFunctionDef)
    return node


def violations(app_routes: list[Any]) -> list[str]:
    """Every blocking use on the loop in the ``async def`` endpoints of ``app_routes`` and in the
    project coroutines they await with the session."""
    found = []
    for route in endpoint_routes(app_routes):
        if not inspect.iscoroutinefunction(route.endpoint):
            continue
        endpoint = route.endpoint
        blocking = BLOCKING_NAMES | _session_params(route)
        label = f"{'/'.join(sorted(route.methods))} {route.path}"
        for where, line, name in _blocking_uses(endpoint, blocking):
            found.append(f"{label} ({where}, line {line}): '{name}' on the event loop")
    return sorted(set(found))


def with_mounted(app: FastAPI) -> list[Any]:
    """The app's routes and those of the FastAPI applications mounted on it (the public API's ``/v1``
    and ``/v1.0``)."""
    routes = list(app.routes)
    for route in app.routes:
        if isinstance(route, Mount) and isinstance(route.app, FastAPI):
            routes += with_mounted(route.app)
    return routes


def test_no_blocking_call_in_async_routes() -> None:
    from api.main import create_app

    app = create_app(with_lifespan=False)
    routes = with_mounted(app)
    assert sum(1 for _ in endpoint_routes(app.routes)) > 40  # routers included
    assert sum(1 for r in endpoint_routes(routes) if r.path == "/removebg") == 1  # mounted apps included
    found = violations(routes)
    assert not found, "\n".join(found)


def test_the_check_catches_a_blocking_route() -> None:
    """The checker itself: a session query awaited nowhere is caught; the same in a threadpool is not."""
    demo = FastAPI()

    @demo.get("/bad")
    async def bad(session: SessionDep) -> None:
        session.commit()

    @demo.get("/good")
    async def good(session: SessionDep) -> None:
        await run_in_threadpool(session.commit)

    found = violations(demo.routes)
    assert any("/bad" in v and "'session'" in v for v in found), found
    assert not any("/good" in v for v in found), found
