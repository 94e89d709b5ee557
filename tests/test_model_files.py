""":func:`infra.model_files.ensure_model_file`, the one way both model scripts write a pinned file: kept
when its md5 is right, produced and checked otherwise, never left half-written or wrong."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from infra.model_files import ModelChecksumError, ensure_model_file, md5_of

GOOD = b"rete neurale"
GOOD_MD5 = hashlib.md5(GOOD).hexdigest()


def test_a_file_with_the_right_md5_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "m.onnx"
    target.write_bytes(GOOD)

    def produce(partial: Path) -> None:
        raise AssertionError(f"nothing to produce, asked for {partial}")

    assert ensure_model_file(target, GOOD_MD5, produce) == target
    assert target.read_bytes() == GOOD


def test_a_missing_or_wrong_file_is_produced_and_checked(tmp_path: Path) -> None:
    target = tmp_path / "models" / "m.onnx"
    calls: list[Path] = []

    def produce(partial: Path) -> None:
        assert not target.exists() or target.read_bytes() == b"vecchio"  # written beside, not over it
        calls.append(partial)
        partial.write_bytes(GOOD)

    assert ensure_model_file(target, GOOD_MD5, produce) == target
    target.write_bytes(b"vecchio")
    ensure_model_file(target, GOOD_MD5, produce)
    assert md5_of(target) == GOOD_MD5 and len(calls) == 2
    assert sorted(p.name for p in target.parent.iterdir()) == ["m.onnx"]


def test_a_wrong_product_or_a_failure_leaves_nothing_behind(tmp_path: Path) -> None:
    target = tmp_path / "m.onnx"
    target.write_bytes(b"vecchio")
    with pytest.raises(ModelChecksumError, match="m.onnx: md5"):
        ensure_model_file(target, GOOD_MD5, lambda partial: partial.write_bytes(b"altro"))

    def fail(partial: Path) -> None:
        partial.write_bytes(b"meta")
        raise OSError("disco pieno")

    with pytest.raises(OSError, match="disco pieno"):
        ensure_model_file(target, GOOD_MD5, fail)
    assert target.read_bytes() == b"vecchio"  # left as it was
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]
