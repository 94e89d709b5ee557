"""Command-line helper: run the pipeline on files without the server.

The project's ``fotopronta retouch IN... -o OUT/`` command builds its parser with
:func:`add_arguments` and calls :func:`run`. This is the only module of the package that touches files.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .encode import encode_png
from .errors import BadImageError
from .models import NetworkConfig, network_path
from .pipeline import SMART_BACKGROUND_CATEGORIES, RetouchOptions, retouch
from .presets import DEFAULT_PRESET, PRESETS
from .segment import DEFAULT_MODEL, NETWORK_SLOTS

__all__ = ["add_arguments", "run", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the retouch options to ``parser``.

    Positional ``inputs`` (one or more files), ``-o/--output`` directory, ``--preset``, ``--matte``,
    ``--cutout``, ``--no-shadow``, ``--background CATEGORY``, ``--model NAME``, ``--report FILE.json``,
    ``--models-dir DIR`` (where the model files are), plus the optional seller hints ``--brand``,
    ``--category`` and ``--short-id``.
    """
    parser.add_argument("inputs", metavar="IN", nargs="+", type=Path, help="foto da elaborare")
    parser.add_argument("-o", "--output", metavar="OUT", type=Path, required=True, help="cartella di uscita")
    parser.add_argument("--preset", default=DEFAULT_PRESET, choices=sorted(PRESETS), help="preset di uscita")
    parser.add_argument("--matte", action="store_true", help="salva anche NAME.matte.png (maschera 8 bit)")
    parser.add_argument(
        "--cutout", action="store_true", help="salva anche NAME.cutout.png (RGBA trasparente)"
    )
    parser.add_argument("--no-shadow", dest="shadow", action="store_false", help="senza ombra")
    parser.add_argument(
        "--background",
        metavar="CATEGORY",
        default=None,
        choices=SMART_BACKGROUND_CATEGORIES,
        help="sfondo intelligente (default: bianco puro)",
    )
    parser.add_argument(
        "--model", metavar="NAME", default=DEFAULT_MODEL, help="modello rembg (default u2netp)"
    )
    parser.add_argument(
        "--report",
        metavar="FILE.json",
        type=Path,
        default=None,
        help="scrive un rapporto JSON: per ogni foto i file prodotti e i processing_details "
        "(confidence, needs_review ...)",
    )
    parser.add_argument("--brand", default=None, help="marca (per il nome file SEO)")
    parser.add_argument("--category", default=None, help="categoria prodotto (per il nome file SEO)")
    parser.add_argument("--short-id", dest="short_id", default=None, help="id breve nel nome file SEO")
    parser.add_argument(
        "--models-dir",
        dest="models_dir",
        metavar="DIR",
        type=Path,
        default=None,
        help="cartella dei modelli (default: U2NET_HOME, altrimenti .data/models)",
    )
    parser.add_argument(
        "--network-int8",
        dest="network_int8",
        choices=("auto", "0", "1"),
        default=None,
        help="copia di u2netp per i passaggi a 256 px: 1 = int8, 0 = fp32, auto = int8 dove la CPU ha "
        "VNNI e il file int8 esiste (default: RETOUCH_NETWORK_INT8, altrimenti auto)",
    )


def _write_outputs(out_dir: Path, name: str, result: Any, args: argparse.Namespace) -> tuple[list[str], str]:
    """Write ``NAME.jpg`` and ``NAME.webp`` of a :class:`retouch.RetouchResult` into ``out_dir``, and the matte and
    cutout PNGs when ``args`` asks for them; returns the file names written and the line's suffix."""
    outputs = [f"{name}.jpg", f"{name}.webp"]
    (out_dir / outputs[0]).write_bytes(result.jpeg)
    (out_dir / outputs[1]).write_bytes(result.webp)
    extra = ""
    if getattr(args, "matte", False):
        outputs.append(f"{name}.matte.png")
        (out_dir / outputs[-1]).write_bytes(encode_png(result.matte))
        extra += " +matte"
    if getattr(args, "cutout", False):
        outputs.append(f"{name}.cutout.png")
        (out_dir / outputs[-1]).write_bytes(result.cutout_png())
        extra += " +cutout"
    return outputs, extra


def _announced_network(args: argparse.Namespace) -> NetworkConfig | None:
    """The network configuration of ``args`` (``--models-dir``, ``--network-int8``), after printing on stderr
    which u2netp copy runs and why (:func:`retouch.models.network_path`: with ``U2NET_HOME`` set to a folder
    without the int8 copy the fp32 path runs even on a VNNI CPU, and the two give slightly different
    results); ``None``, after an Italian message, when the int8 copy is asked for and missing."""
    network = NetworkConfig(
        models_dir=getattr(args, "models_dir", None), int8=getattr(args, "network_int8", None)
    )
    try:
        print(f"rete: {network_path(network)}", file=sys.stderr)
    except FileNotFoundError as exc:
        print(f"Modello non disponibile: {exc}", file=sys.stderr)
        return None
    return network


def run(args: argparse.Namespace) -> int:
    """Process every input; write ``OUT/NAME.jpg`` and ``OUT/NAME.webp`` (+ matte / cutout PNGs).

    Prints one line per file. A file that fails prints its (Italian) error; the others are still
    processed. With ``--report FILE.json`` it also writes a JSON array with one object per input, in
    input order: ``{"input": path, "ok": bool, "outputs": [file names written], "processing_details":
    {...} | null, "error": str | null}``; ``processing_details`` is :attr:`RetouchResult.details`
    (``confidence`` in [0, 1], ``needs_review``, ``seo_filename`` ...).

    Returns:
        0 when every file succeeded, 1 when at least one failed (2: unusable output directory or report file).
    """
    out_dir: Path = args.output
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"Impossibile creare la cartella di uscita {out_dir}: {exc}", file=sys.stderr)
        return 2
    options = RetouchOptions(
        preset=args.preset,
        shadow=getattr(args, "shadow", True),
        background_category=getattr(args, "background", None),
        brand=getattr(args, "brand", None),
        category=getattr(args, "category", None),
        short_id=getattr(args, "short_id", None),
    )
    model = getattr(args, "model", DEFAULT_MODEL) or DEFAULT_MODEL
    network = _announced_network(args)
    if network is None:
        return 2

    report_path: Path | None = getattr(args, "report", None)

    def one(path: str) -> tuple[bool, str, dict[str, Any]]:
        """Retouch one file and write its outputs; returns (ok, the line to print, its report entry)."""
        name = Path(path).stem
        entry: dict[str, Any] = {"input": str(path), "ok": False, "outputs": [], "processing_details": None}
        entry["error"] = None
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            entry["error"] = f"impossibile leggere il file ({exc.strerror or exc})"
            return False, f"ERRORE {path}: {entry['error']}", entry
        try:
            result = retouch(
                data, options, model_name=model, cutout=bool(getattr(args, "cutout", False)), network=network
            )
        except BadImageError as exc:
            entry["error"] = str(exc)
            return False, f"ERRORE {path}: {exc}", entry
        outputs, extra = _write_outputs(out_dir, name, result, args)
        seo = result.details.get("seo_filename", "")
        entry.update(ok=True, outputs=outputs, processing_details=result.details)
        review = " DA VERIFICARE" if result.details.get("needs_review") else ""
        return (
            True,
            (
                f"OK {path} -> {out_dir / name}.jpg {result.width}x{result.height} "
                f"jpeg {len(result.jpeg) // 1024} KB, webp {len(result.webp) // 1024} KB, seo {seo}{extra}, "
                f"confidence {result.details.get('confidence', 0.0):.2f}{review}"
            ),
            entry,
        )

    # as many photos in flight as the network has slots (one core each): the throughput of the
    # ``retouch`` Temporal worker; lines are printed in input order
    failures = 0
    entries: list[dict[str, Any]] = []
    with ThreadPoolExecutor(max_workers=min(NETWORK_SLOTS, max(1, len(args.inputs)))) as pool:
        for ok, line, entry in pool.map(one, args.inputs):
            print(line, flush=True)
            failures += not ok
            entries.append(entry)
    if report_path is not None:
        try:
            report_path.write_text(json.dumps(entries, ensure_ascii=False, indent=2), encoding="utf-8")
        except OSError as exc:
            print(f"Impossibile scrivere il rapporto {report_path}: {exc}", file=sys.stderr)
            return 2
    return 1 if failures else 0


def main(argv: list[str] | None = None) -> int:
    """Stand-alone entry point: ``python -m retouch.cli IN... -o OUT``."""
    parser = argparse.ArgumentParser(prog="retouch", description="Ritocco foto prodotto (FotoPronta)")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
