"""Pick the product, not the most salient blob; and say how sure we are.

One job per module, all driven by one frozen configuration (:class:`PickConfig`, shipped values in
:data:`SHIPPED_PICK`) passed in:

* :mod:`.config`: every threshold and switch, with the source of its value;
* :mod:`.signals`: cheap signals of a mask (edge sharpness along its outline, area, border, focus);
* :mod:`.passes`: the doubt test and the multi-pass pick (:func:`pick_product`);
* :mod:`.crops`: second looks on a crop (the zoom on a small product, the refocus on a soft one);
* :mod:`.guard`: never much less than plain rembg (:func:`guard`, :func:`refocus_fallback`);
* :mod:`.confidence`: the confidence, the review flag and the ``processing_details`` entries;
* :mod:`.second`: a second opinion on a small product's matte (the network on its box, mirrored);
* :mod:`.through`: a region inside the matte that continues the backdrop seen around it (an opening kept whole);
* :mod:`.joined`: another object in the matte (a part off the frame of other colours, an outline along blurred edges);
* :mod:`.cut`: a graph cut with colour models from the matte's rim and the backdrop that gives part of the matte to
  the backdrop;
* :mod:`.busy`: how busy the backdrop is (a higher review bar there).

``retouch.pipeline.product_matte`` chains them: pick -> refine -> guard -> refocus after a fallback -> (openings)
-> second opinion -> backdrop through the product -> another object in the matte -> the graph cut's disagreement
-> the busy backdrop.
"""

from __future__ import annotations

from .busy import backdrop_busy, with_backdrop_busy
from .confidence import confidence, details
from .config import SHIPPED_PICK, PickConfig
from .crops import REFOCUS_SOURCE, ZOOM_SOURCE
from .cut import clear_backdrop_pieces, cut_backdrop, with_cut_disagreement
from .guard import guard, refocus_fallback
from .joined import joined_evidence, joined_signals, with_joined_object
from .passes import in_doubt, pick_product
from .second import second_opinion, wants_second_opinion, with_second_opinion
from .signals import Pick, edge_sharpness, focus_contrast, frame_sides, mask_signals
from .through import backdrop_through, through_regions, with_backdrop_through

__all__ = [
    "REFOCUS_SOURCE",
    "SHIPPED_PICK",
    "ZOOM_SOURCE",
    "Pick",
    "PickConfig",
    "backdrop_busy",
    "backdrop_through",
    "clear_backdrop_pieces",
    "confidence",
    "cut_backdrop",
    "details",
    "edge_sharpness",
    "focus_contrast",
    "frame_sides",
    "guard",
    "in_doubt",
    "joined_evidence",
    "joined_signals",
    "mask_signals",
    "pick_product",
    "refocus_fallback",
    "second_opinion",
    "through_regions",
    "wants_second_opinion",
    "with_backdrop_busy",
    "with_backdrop_through",
    "with_cut_disagreement",
    "with_joined_object",
    "with_second_opinion",
]
