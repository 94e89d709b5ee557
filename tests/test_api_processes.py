"""The API's process count comes from a setting (default one per CPU), and several
processes get prometheus-client's multiprocess directory so ``/metrics`` adds them up."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from api.server import prepare_multiprocess_metrics, worker_count
from fotopronta.settings import Settings


def test_worker_count_defaults_to_the_cpus_and_follows_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert worker_count(Settings(api_workers=None)) == 6
    assert worker_count(Settings(api_workers=3)) == 3
    assert worker_count(Settings(api_workers=0)) == 1
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert worker_count(Settings(api_workers=None)) == 1


def test_multiprocess_metrics_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # setenv first, so that monkeypatch records the variable's original state (absent) and restores it:
    # prepare_multiprocess_metrics sets it in os.environ itself, which would leak into later tests
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "recorded")
    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    settings = Settings(data_dir=tmp_path)
    prepare_multiprocess_metrics(settings, 1)
    assert "PROMETHEUS_MULTIPROC_DIR" not in os.environ  # one process: the default registry
    stale = tmp_path / "prometheus" / "counter_1.db"
    stale.parent.mkdir()
    stale.write_bytes(b"old")
    prepare_multiprocess_metrics(settings, 2)
    assert os.environ["PROMETHEUS_MULTIPROC_DIR"] == str(tmp_path / "prometheus")
    assert not stale.exists()  # emptied at start: no counts from a previous run
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", "/elsewhere")
    prepare_multiprocess_metrics(settings, 4)
    assert os.environ["PROMETHEUS_MULTIPROC_DIR"] == "/elsewhere"  # the environment wins
