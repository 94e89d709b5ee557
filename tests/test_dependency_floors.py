"""Which of our top-level folders each folder may use (docs/architecture.md, "Who owns what").

* Tests use the shipped packages, the validation sets (``validation_sets/``) and each other, and no
  other folder of ours: what they share with the benchmarks lives in ``validation_sets/``, which uses
  only shipped code.
* The shipped packages (the folders ``infra/Dockerfile`` copies) use only each other.
* The research tools' own tests live beside them in ``bench/tests`` (pytest's ``testpaths``), so the
  product's tests never depend on ``bench/``.

"Ours" is every folder of the repository with an ``__init__.py``; imports are read from the source with
:mod:`ast` (:func:`tests.test_import_floors._imported_modules`), so a lazy import counts too.
"""

from __future__ import annotations

from tests.test_import_floors import REPO, _imported_modules

SHIPPED = {"api", "workflows", "activities", "fotopronta", "retouch", "infra"}


def _ours_outside(folder: str, allowed: set[str]) -> dict[str, list[str]]:
    """Files under ``folder`` using one of our top-level packages that is not in ``allowed``, with the
    modules they name."""
    ours = {p.name for p in REPO.iterdir() if (p / "__init__.py").is_file()}
    found = {
        str(path.relative_to(REPO)): sorted(
            m for m in _imported_modules(path) if m.split(".")[0] in ours - allowed
        )
        for path in sorted((REPO / folder).rglob("*.py"))
    }
    return {path: mods for path, mods in found.items() if mods}


def test_tests_use_the_shipped_code_the_validation_sets_and_each_other_only() -> None:
    assert _ours_outside("tests", SHIPPED | {"validation_sets", "tests"}) == {}
    assert _ours_outside("validation_sets", SHIPPED | {"validation_sets"}) == {}


def test_shipped_packages_use_shipped_packages_only() -> None:
    for folder in sorted(SHIPPED):
        assert _ours_outside(folder, SHIPPED) == {}, folder


def test_the_shipped_list_is_what_the_image_copies() -> None:
    dockerfile = (REPO / "infra" / "Dockerfile").read_text()
    assert {name for name in SHIPPED if f"COPY {name} {name}" in dockerfile} == SHIPPED
