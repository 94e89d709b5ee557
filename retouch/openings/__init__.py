"""See-through openings: background seen through a handle, a hoop, a frame or a wheel.

The network often fills an opening of the product with product (a bicycle's rear wheel holding the
boardwalk seen between its spokes, a mug handle holding the table). After the product's matte is
chosen, :func:`clear_openings` looks for regions *inside the matte* whose colours are explained by the
background seen outside the product and not by the product's own colours, and cuts them out; inside
every opening (found here or left open by the network) it keeps the thin product structures that cross
it (spokes, chains, straps) where their colour is the product's.

Colour models are small Gaussian mixtures (k-means centres, per-component diagonal variances and
weights, as in GrabCut's colour model: Rother, Kolmogorov, Blake, "GrabCut", SIGGRAPH 2004), learned from
the confident background in a ring around the product and from the matte's pixels that the background
model does not explain. The colour work runs at <= ~0.12 MP, the texture test of the candidate regions at
the working resolution; a matte with no background-like interior stops after one pass over its pixels.

Modules: :mod:`.config` (the constants), :mod:`.core` (:func:`clear_openings`), :mod:`.regions` (which regions are
cut), :mod:`.thin` (ghosts and thin parts), :mod:`.arrays` (exact array helpers); the shape tests of wheels and
round holes are :mod:`retouch.wheel_openings` and :mod:`retouch.ring_openings`.
"""

from __future__ import annotations

from .config import DEFAULT_OPENINGS, OpeningsConfig
from .core import Openings, clear_openings

__all__ = ["DEFAULT_OPENINGS", "Openings", "OpeningsConfig", "clear_openings"]
