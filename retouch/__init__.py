"""FotoPronta image pipeline: pure functions on arrays and bytes (no network, database or file I/O).

Public API (the Temporal activity, the API and the CLI code against these names)::

    from retouch import retouch, RetouchOptions, RetouchResult, BadImageError, PRESETS
    result = retouch(data, RetouchOptions(preset="amazon"))
"""

from .errors import BadImageError
from .pipeline import SMART_BACKGROUND_CATEGORIES, RetouchOptions, RetouchResult, retouch
from .presets import PRESETS, Preset
from .segment import get_session

__all__ = [
    "BadImageError",
    "PRESETS",
    "Preset",
    "RetouchOptions",
    "RetouchResult",
    "SMART_BACKGROUND_CATEGORIES",
    "get_session",
    "retouch",
]
