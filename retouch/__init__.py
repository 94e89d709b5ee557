"""FotoPronta image pipeline: pure functions on arrays and bytes (no network, database or file I/O).

Public API (the Temporal activity, the API and the CLI code against these names)::

    from retouch import retouch, RetouchOptions, RetouchResult, BadImageError, PRESETS
    result = retouch(data, RetouchOptions(preset="amazon"), cutout=True)
    result.jpeg, result.webp, result.details, result.matte, result.cutout_png()  # cutout: needs cutout=True

Modules: ``decode`` (formats, orientation, ICC, refusals), ``segment`` (U^2-Net at 256 px and rembg
sessions, created once per process),
``matte`` (guided-filter refinement, trapped background), ``composite`` (edge tightening,
decontamination, shadow, blend), ``correct`` (light, colour, dust), ``layout`` + ``presets`` (framing),
``backgrounds`` (procedural smart backgrounds), ``colors`` (dominant colours, Italian names, SEO name),
``compliance`` (marketplace rules), ``encode`` (JPEG/WebP/PNG), ``metrics`` (quality measures used by
the tests and the benchmarks), ``cli`` (the ``fotopronta retouch`` command).
"""

from .errors import BadImageError
from .pipeline import SMART_BACKGROUND_CATEGORIES, RetouchOptions, RetouchResult, retouch
from .presets import PRESETS, Preset
from .segment import get_session, warm_up

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
