"""Imports point one way (docs/architecture.md, "Who owns what").

* ``activities/`` never imports ``workflows/``: the inputs, names and constants both sides use live in
  :mod:`activities.contracts`, below the workflows.
* The two model scripts, the download (``infra/provision_model.py``) and the int8 builder
  (``infra/quantize_model.py``), share :mod:`infra.model_files` and neither imports the other;
  ``infra/provision.py`` runs one after the other.

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


def test_the_model_scripts_share_a_helper_instead_of_importing_each_other() -> None:
    quantize = _imported_modules(REPO / "infra" / "quantize_model.py")
    download = _imported_modules(REPO / "infra" / "provision_model.py")
    assert not {m for m in quantize if m.startswith("infra.provision")}, quantize
    assert not {m for m in download if m.startswith("infra.quantize_model")}, download
    assert "infra.model_files" in quantize and "infra.model_files" in download
    assert not {m for m in _imported_modules(REPO / "infra" / "model_files.py") if m.startswith("infra")}
    both = _imported_modules(REPO / "infra" / "provision.py")
    assert {"infra.provision_model", "infra.quantize_model"} <= both, both
