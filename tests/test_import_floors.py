"""Imports point one way (docs/architecture.md, "Who owns what").

* ``activities/`` never imports ``workflows/``: the inputs, names and constants both sides use live in
  :mod:`activities.contracts`, below the workflows.
* The model provisioning scripts share :mod:`infra.model_files`; the int8 builder
  (``infra/quantize_model.py``) does not import the download script (``infra/provision_model.py``),
  which runs the builder after the download.

Read from the source with :mod:`ast`, so a lazy import inside a function counts as much as one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute names; ``from x import y`` gives ``x`` and ``x.y``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_activities_never_import_workflows() -> None:
    offenders = {
        str(path.relative_to(REPO)): sorted(
            m for m in _imported_modules(path) if m.split(".")[0] == "workflows"
        )
        for path in sorted((REPO / "activities").rglob("*.py"))
    }
    assert {path: mods for path, mods in offenders.items() if mods} == {}


def test_the_int8_builder_does_not_import_the_download_script() -> None:
    quantize = _imported_modules(REPO / "infra" / "quantize_model.py")
    assert not {m for m in quantize if m.startswith("infra.provision_model")}, quantize
    assert "infra.model_files" in quantize
    assert "infra.model_files" in _imported_modules(REPO / "infra" / "provision_model.py")
    assert not {m for m in _imported_modules(REPO / "infra" / "model_files.py") if m.startswith("infra")}
