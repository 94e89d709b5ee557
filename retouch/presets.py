"""Output presets for the marketplaces FotoPronta sellers publish on.

Sources of the numbers:

* Amazon "Product image requirements" (Seller Central help page G1881): main image on pure white
  (RGB 255,255,255), the product filling 85% or more of the frame, at least 1000 px on the long side
  for zoom (we deliver 2000 x 2000), JPEG preferred, sRGB. A photo under 1000 px on its long side is
  framed at its native resolution instead of being enlarged, and the result says so.
* Zalando partner content guidelines: 1801 x 2600 px portrait (ratio 1:1.444), light/white background.
* Etsy seller handbook: listing photos at least 2000 px on the side we scale (here the long side).
* Shopify help centre: square product images at 2048 x 2048 px for zoom.
* ``original``: the input's own size and framing; only the background and light change.

Also the smart-background categories (:data:`SMART_BACKGROUND_CATEGORIES`). Standard library only: the
API validates upload options against these without loading the pipeline (tests/test_lean_imports.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

__all__ = [
    "DEFAULT_PRESET",
    "PresetName",
    "Preset",
    "PRESETS",
    "SMART_BACKGROUND_CATEGORIES",
    "SMART_BACKGROUND_LABELS",
    "get_preset",
]

#: Smart background categories (SPEC.md §9), rendered by :func:`retouch.backgrounds.render_background`.
SMART_BACKGROUND_CATEGORIES = (
    "minimal_studio",
    "home_lifestyle",
    "outdoor_natural",
    "professional_office",
    "seasonal_themed",
)

#: The Italian name of each smart background category, as the upload page offers them.
SMART_BACKGROUND_LABELS: dict[str, str] = {
    "minimal_studio": "Studio minimal",
    "home_lifestyle": "Casa e lifestyle",
    "outdoor_natural": "Esterni naturali",
    "professional_office": "Ufficio professionale",
    "seasonal_themed": "Stagionale a tema",
}


@dataclass(frozen=True)
class Preset:
    """How a result is framed and sized.

    Attributes:
        name: preset key (``amazon`` ...).
        width, height: fixed output size in px, or ``None`` (see ``long_side``; both ``None`` and
            ``long_side`` ``None`` = keep the input size).
        long_side: when set (and width/height are ``None``), the output keeps the input's aspect ratio
            with this many px on its long side.
        fill: target share of the frame taken by the product's bounding box along its limiting axis
            (0.85 = Amazon's 85% rule); ``None`` = keep the original framing.
        min_fill: the compliance threshold for the fill ratio (``None`` = no rule).
        require_white: the compliance report checks a pure white (255,255,255) background.
        label: human (Italian) label for the UI.
        marketplace: the marketplace's name, for messages (``Amazon``).
        min_long_side: the marketplace's minimum long side in px; a photo under it keeps its native
            resolution (see :func:`retouch.layout.plan_placement`) and the compliance report says so.
    """

    name: str
    width: int | None = None
    height: int | None = None
    long_side: int | None = None
    fill: float | None = 0.85
    min_fill: float | None = None
    require_white: bool = True
    label: str = ""
    marketplace: str = ""
    min_long_side: int | None = None

    def below_minimum_notice(self) -> str:
        """The Italian notice for a result kept below ``min_long_side`` (empty without a minimum)."""
        if self.min_long_side is None:
            return ""
        return f"Risoluzione sotto il minimo {self.marketplace}: {self.min_long_side} px sul lato lungo"

    def output_size(self, in_w: int, in_h: int) -> tuple[int, int]:
        """Return the output (width, height) in px for an input of ``in_w`` x ``in_h`` px."""
        if self.width is not None and self.height is not None:
            return self.width, self.height
        if self.long_side is not None:
            if in_w >= in_h:
                return self.long_side, max(1, round(in_h * self.long_side / in_w))
            return max(1, round(in_w * self.long_side / in_h)), self.long_side
        return in_w, in_h


PresetName = Literal["original", "amazon", "zalando", "etsy", "shopify"]
"""The name of every output preset (the keys of :data:`PRESETS`)."""

PRESETS: dict[str, Preset] = {
    "amazon": Preset(
        "amazon",
        2000,
        2000,
        fill=0.86,
        min_fill=0.85,
        label="Amazon – 2000×2000, prodotto all’85%",
        marketplace="Amazon",
        min_long_side=1000,
    ),
    "zalando": Preset("zalando", 1801, 2600, fill=0.85, min_fill=None, label="Zalando – 1801×2600"),
    "etsy": Preset("etsy", long_side=2000, fill=0.85, min_fill=None, label="Etsy – lato lungo 2000 px"),
    "shopify": Preset("shopify", 2048, 2048, fill=0.85, min_fill=None, label="Shopify – 2048×2048"),
    "original": Preset("original", fill=None, min_fill=None, label="Dimensioni originali"),
}


DEFAULT_PRESET: PresetName = "original"
"""The preset of a job whose seller chose none: the photo keeps its size and framing. Every default
preset (the upload form, the job options, the workflow inputs, the pipeline, the CLI) is this one."""

assert set(get_args(PresetName)) == set(PRESETS), "PresetName and PRESETS name the same presets"


def get_preset(name: str) -> Preset:
    """Return the preset called ``name``.

    Raises:
        ValueError: unknown preset (Italian message listing the valid ones).
    """
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(f"Preset sconosciuto: {name!r} (validi: {', '.join(PRESETS)})") from None
