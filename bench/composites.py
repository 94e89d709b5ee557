"""Re-export of :mod:`validation_sets.composites` for the tuning and confirmation scripts that still
import it from here (``from .composites import …``)."""

from validation_sets.composites import *  # noqa: F403
from validation_sets.composites import _group  # noqa: F401  (a private helper ``tune_pick`` reads)
