"""FotoPronta image pipeline: pure functions on arrays and bytes (no network, database or file I/O).

Public API (the Temporal activity, the API and the CLI code against these names)::

    from retouch import retouch, RetouchOptions, RetouchResult, BadImageError, PRESETS
    result = retouch(data, RetouchOptions(preset="amazon"), cutout=True)
    result.jpeg, result.webp, result.details, result.matte, result.cutout_png()  # cutout: needs cutout=True

The names load lazily (PEP 562 ``__getattr__``): ``import retouch`` and its light modules
(``presets``, ``limits``, ``names``, ``runtime``, ``errors``: standard library only) never load numpy,
scipy, scikit-image or onnxruntime; ``retouch.retouch`` and friends load the pipeline on first use.
The API process imports only the light modules (``tests/test_lean_imports.py``).

Modules: ``decode`` (formats, orientation, ICC, refusals), ``segment`` (U^2-Net at 256 px and rembg
sessions, created once per process),
``matte`` (guided-filter refinement, trapped background), ``composite`` (edge tightening,
decontamination, shadow, blend), ``correct`` (light, colour, dust), ``layout`` + ``presets`` (framing,
smart-background categories), ``backgrounds`` (procedural smart backgrounds), ``colors`` (dominant
colours, Italian names), ``names`` (SEO file name), ``compliance`` (marketplace rules), ``encode``
(JPEG/WebP/PNG), ``metrics`` (quality measures used by the tests and the benchmarks), ``limits`` (input
size limits), ``runtime`` (``RETOUCH_*`` knobs), ``cli`` (the ``fotopronta retouch`` command).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .errors import BadImageError
    from .pipeline import RetouchOptions, RetouchResult, retouch
    from .presets import PRESETS, SMART_BACKGROUND_CATEGORIES, Preset
    from .segment import get_session, warm_up

_LAZY = {
    "BadImageError": ".errors",
    "PRESETS": ".presets",
    "Preset": ".presets",
    "SMART_BACKGROUND_CATEGORIES": ".presets",
    "RetouchOptions": ".pipeline",
    "RetouchResult": ".pipeline",
    "retouch": ".pipeline",
    "get_session": ".segment",
    "warm_up": ".segment",
}
"""Public name → the submodule that defines it (imported on first access)."""

__all__ = [
    "BadImageError",
    "PRESETS",
    "Preset",
    "RetouchOptions",
    "RetouchResult",
    "SMART_BACKGROUND_CATEGORIES",
    "get_session",
    "retouch",
    "warm_up",
]


def __getattr__(name: str) -> Any:
    """PEP 562: load the submodule that defines ``name`` on first access, then cache the name here."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
