"""Helpers shared by the benchmarks: paths, photo discovery, table printing."""

from __future__ import annotations

import sys

# the photo paths are the validation sets' (re-exported here for the benchmark and tuning scripts)
from validation_sets.photos import GT, IMAGE_EXTS, PHOTOS, REPO, list_images

__all__ = ["GT", "IMAGE_EXTS", "PHOTOS", "REPO", "list_images", "print_table", "require_photos", "setup"]


def setup() -> None:
    """Make ``retouch`` importable when run as ``python bench/x.py`` (the model directory is
    ``U2NET_HOME``, else the repository's ``.data/models``: :class:`retouch.models.NetworkConfig`)."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))


def require_photos() -> None:
    """Exit with a message (code 0: nothing to measure is not a failure) when the photos are absent."""
    if not (GT / "images").is_dir():
        print(f"Foto condivise assenti ({PHOTOS}): benchmark saltato.")
        raise SystemExit(0)


def print_table(headers: list[str], rows: list[list[object]], *, floatfmt: str = ".3f") -> None:
    """Print a plain Markdown table (numbers formatted with ``floatfmt``)."""

    def fmt(v: object) -> str:
        if isinstance(v, float):
            return format(v, floatfmt)
        return str(v)

    cells = [[fmt(v) for v in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in cells:
        print("| " + " | ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) + " |")
