"""Which candidate regions of the matte the openings step cuts (:func:`_select`), and the clutter cut with them
(:func:`_clutter`)."""

from __future__ import annotations

import numpy as np
from PIL import Image
from scipy import ndimage as ndi

from ..ring_openings import round_holes
from .arrays import (
    _grey,
    _grown_box,
    _label_means,
    _label_medians,
    _resize_f,
    _texture,
)
from .config import OpeningsConfig


def _clutter(
    cut: np.ndarray, fg: np.ndarray, rgb_s: np.ndarray, cfg: OpeningsConfig, wheels: np.ndarray | None = None
) -> np.ndarray:
    """Flat pieces of clutter seen through a cut opening, to cut with it.

    Clutter behind an opening (a poster, a toy, a coloured box) whose colour the ring around the product
    does not show is explained by neither colour model; the product model, fitted to every matte pixel
    the background model does not explain, takes it for product. Such a piece is flat (one colour), lies
    against the cut opening and has a colour found nowhere else on the product. At the colour tests'
    resolution: a *flat piece* is a connected region of the remaining matte (``fg`` and not ``cut``) whose
    colour step to every 4-neighbour, after a 3 x 3 mean, is under ``cfg.clutter_step``; one is cut, with
    the seam (pixels within 3 px of both the piece and the cut) between them, when it holds at least ``cfg.clutter_px`` px and at most
    ``cfg.clutter_max`` times the area cut so far, is not thin (a 3 x 3 erosion keeps half of it: spokes and
    straps are thin), at least ``cfg.clutter_cut`` of the band 3-5 px around it is cut opening, and under
    ``cfg.clutter_similar`` of the rest of the matte (beyond 5 px of it) is within ``cfg.clutter_colour``
    of its median colour. A piece reaching into a recognised wheel (``wheels``) is its hub and stays.

    Args:
        cut: bool (H, W), the openings cut so far.
        fg: bool (H, W), the matte (alpha >= 0.5).
        rgb_s: float32 (H, W, 3) in [0, 1], the photo.
        cfg: the step's constants.
        wheels: bool (H, W), the recognised wheels' discs (sectors, spokes and hub), or ``None``.

    Returns:
        bool (H, W): the pixels to cut as well (all False when there are none).
    """
    sm = ndi.uniform_filter(rgb_s, size=(3, 3, 1), mode="nearest")
    step = np.zeros(fg.shape, np.float32)
    dy = np.abs(np.diff(sm, axis=0)).max(-1)
    dx = np.abs(np.diff(sm, axis=1)).max(-1)
    step[1:] = np.maximum(step[1:], dy)
    step[:-1] = np.maximum(step[:-1], dy)
    step[:, 1:] = np.maximum(step[:, 1:], dx)
    step[:, :-1] = np.maximum(step[:, :-1], dx)
    rest = fg & ~cut
    flat = rest & (step < cfg.clutter_step)
    lab, n = ndi.label(flat)
    if n == 0:
        return np.zeros_like(cut)
    near = ndi.binary_dilation(cut, iterations=5)
    near3 = ndi.binary_dilation(cut, iterations=3)
    touch = np.unique(lab[near & flat])
    sizes = np.bincount(lab.ravel(), minlength=n + 1)
    boxes = ndi.find_objects(lab)
    add = np.zeros_like(cut)
    cut_area = float(cut.sum())
    h, w = fg.shape
    for j in touch[touch > 0]:
        area = float(sizes[j])
        if area < cfg.clutter_px or area > cfg.clutter_max * cut_area:
            continue
        ys, xs = boxes[j - 1]
        y0, y1 = max(0, ys.start - 6), min(h, ys.stop + 6)
        x0, x1 = max(0, xs.start - 6), min(w, xs.stop + 6)
        mm = lab[y0:y1, x0:x1] == j
        if ndi.binary_erosion(mm).sum() < 0.5 * area or (
            wheels is not None and wheels[y0:y1, x0:x1][mm].any()
        ):
            continue
        band = ndi.binary_dilation(mm, iterations=5) & ~ndi.binary_dilation(mm, iterations=2)
        share = float((band & cut[y0:y1, x0:x1]).sum()) / max(float(band.sum()), 1.0)
        if share < cfg.clutter_cut:
            continue
        colour = np.median(rgb_s[y0:y1, x0:x1][mm], axis=0)
        far = rest.copy()
        far[y0:y1, x0:x1] &= ~ndi.binary_dilation(mm, iterations=5)
        similar = float((np.abs(rgb_s[far] - colour).max(-1) < cfg.clutter_colour).mean())
        if similar < cfg.clutter_similar:
            # with the piece, the blurred seam between it and the opening (not the one along the product)
            seam = ndi.binary_dilation(mm, iterations=3) & near3[y0:y1, x0:x1] & rest[y0:y1, x0:x1]
            add[y0:y1, x0:x1] |= mm | seam
    return add


class _FineTexture:
    """The fine texture of the whole working image (the step's largest single cost on photos whose candidates fail
    the cheaper tests), the candidate labels at its resolution and the ring's median texture, computed once on the
    first call: ``(tex_f float (H, W), lab_f int32 (H, W), fine_bg float)``."""

    def __init__(
        self,
        small: np.ndarray,
        shape: tuple[int, ...],
        box: tuple[slice, slice],
        lab_b: np.ndarray,
        ring: np.ndarray,
    ) -> None:
        self.small, self.shape, self.box, self.lab_b, self.ring = small, shape, box, lab_b, ring
        self.cache: list[tuple[np.ndarray, np.ndarray, float]] = []

    def __call__(self) -> tuple[np.ndarray, np.ndarray, float]:
        if not self.cache:
            small = self.small
            tex_f = _texture(_grey(small) / 255.0)
            size_f = (small.shape[1], small.shape[0])
            lab = np.zeros(self.shape, np.int32)
            lab[self.box] = self.lab_b
            lab_f = np.asarray(Image.fromarray(lab, "I").resize(size_f, Image.Resampling.NEAREST))
            ring_f = _resize_f(self.ring.astype(np.float32), size_f) > 0.99
            fine_bg = max(float(np.median(tex_f[ring_f])) if ring_f.any() else 0.0, 1e-9)
            self.cache.append((tex_f, lab_f, fine_bg))
        return self.cache[0]


def _region_measures(
    cand_b: np.ndarray,
    lab_b: np.ndarray,
    n: int,
    outer_b: np.ndarray,
    p_b: np.ndarray,
    a_b: np.ndarray,
    typical_b: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per label 0..n of the candidate regions ``lab_b`` (int (h, w) on the candidates' box; ``cand_b`` bool, the
    candidates): pixel count, outline pixels, outline pixels touching the outside background ``outer_b``, and the
    mean network mask ``p_b``, matte ``a_b`` and share of background-typical pixels ``typical_b`` (float64 each)."""
    flat = lab_b.ravel()
    sizes = np.bincount(flat, minlength=n + 1)
    counts = sizes.astype(np.float64)
    counts[0] = max(counts[0], 1.0)  # label 0 (no candidate) is never read
    edge = cand_b & ~ndi.binary_erosion(cand_b)
    edge_n = np.bincount(flat, weights=edge.ravel(), minlength=n + 1)
    edge_outer = np.bincount(
        flat, weights=(edge & ndi.binary_dilation(outer_b, iterations=1)).ravel(), minlength=n + 1
    )
    mean_p = _label_means(p_b, flat, counts)
    mean_a = _label_means(a_b, flat, counts)
    typical_share = _label_means(typical_b.astype(np.float32), flat, counts)
    return sizes, edge_n, edge_outer, mean_p, mean_a, typical_share


def _holes(
    tests: list[tuple[int, bool, bool, bool]],
    mean_p: np.ndarray,
    bg_tex: float,
    shape: tuple[int, ...],
    box: tuple[slice, slice],
    lab_b: np.ndarray,
    a_s: np.ndarray,
    typical_px: np.ndarray,
    rgb_s: np.ndarray,
    ring: np.ndarray,
    fine: _FineTexture,
    cfg: OpeningsConfig,
) -> np.ndarray:
    """The holes among the regions of :func:`_select` (bool, the colour tests' resolution): the fully enclosed
    regions refused on a plain backdrop with a confident network, or as atypical, whose shape and surface are a
    hole's (:func:`retouch.ring_openings.round_holes`; none when ``cfg.holes`` is off)."""
    holes = np.zeros(shape, bool)
    refused = [
        j
        for j, _, like_bg, closed in tests
        if closed and (not like_bg or (bg_tex < cfg.texture and mean_p[j] >= cfg.unsure))
    ]
    if cfg.holes and refused:
        # on the whole image: the band around a region may reach beyond the candidates' box
        lab = np.zeros(shape, np.int32)
        lab[box] = lab_b
        product = (a_s >= 0.5) & ~typical_px
        small = fine.small

        def fine_size() -> tuple[np.ndarray, tuple[int, int], float]:
            tex_f, _, fine_bg = fine()
            return tex_f, (small.shape[1], small.shape[0]), fine_bg

        holes = round_holes(lab, refused, product, rgb_s, ring, typical_px, a_s >= 0.5, fine_size, cfg)
    return holes


def _soft_cut(cut: np.ndarray, soft: np.ndarray, box: tuple[slice, slice], lab_b: np.ndarray) -> np.ndarray:
    """bool like ``cut``: its pixels in regions whose label (``lab_b``, labels in ``box``) is ``soft``
    (bool, one entry per label; 0 = no region)."""
    soft = soft.copy()
    soft[0] = False
    out = np.zeros_like(cut)
    out[box] = soft[lab_b] & cut[box]
    return out


def _select(
    cand: np.ndarray,
    outer: np.ndarray,
    ring: np.ndarray,
    rgb_s: np.ndarray,
    p_s: np.ndarray,
    a_s: np.ndarray,
    typical_px: np.ndarray,
    fg_area: float,
    small: np.ndarray,
    cfg: OpeningsConfig,
) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """The candidate regions to cut as openings, the area of those left in doubt, the holes and the soft regions.

    A connected region of ``cand`` (bool, the matte's background-like pixels at the colour tests' resolution)
    is cut when it covers at least ``cfg.min_share`` of the matte (or ``cfg.soft_min_share`` where the matte
    ``a_s`` averages under ``cfg.soft_alpha`` and the network was unsure: a *soft* region), touches the outside
    background (``outer``) along at most ``cfg.outer_contact`` of its outline, has at least ``cfg.typical`` of its
    pixels ``typical_px`` (a soft region need not: the network, the matte and the candidate posterior call it
    background already, while the typical share depends on the ring's mixture, which a small change of the
    matte redraws) and, either the network was unsure of it (mean ``p_s`` < ``cfg.unsure``), or the background
    around the product (``ring``) is textured (median 5 x 5 grey standard deviation >= ``cfg.texture``) and the
    region's median fine texture is within ``cfg.texture_ratio`` of the background's. A region fully enclosed
    by the matte that these tests refuse on a plain backdrop, or as not typical of the background, is cut when
    its shape and surface are a hole's (:func:`retouch.ring_openings.round_holes`, ``cfg.holes``). Regions
    large enough but refused count as doubtful.

    Returns:
        ``(cut, doubtful_pixels, holes, soft)``: bool array like ``cand``, a pixel count, the part of
        ``cut`` that is holes and the part that is soft regions (separate bool arrays like ``cand``).
    """
    cut = np.zeros_like(cand)
    if not cand.any():
        return cut, 0.0, np.zeros_like(cand), np.zeros_like(cand)
    # the regions are labelled and measured on the candidates' box grown by 1 px: the same labels (in the
    # same raster order), outlines (every neighbour of a candidate is in the box) and sums (each region's
    # pixels in the same order) as on the whole image
    box = _grown_box(cand, 1)
    cand_b = cand[box]
    lab_b, n = ndi.label(cand_b)
    sizes, edge_n, edge_outer, mean_p, mean_a, typical_share = _region_measures(
        cand_b, lab_b, n, outer[box], p_s[box], a_s[box], typical_px[box]
    )
    # local texture (grey standard deviation over 5 x 5 px): whether the background around the product is
    # textured at all (at the colour tests' resolution; on a plain backdrop colour alone proves little),
    # and each region's median texture over the background ring's at the working resolution (fine
    # enough to tell gravel or leaves from a car's smooth paint)
    bg_tex = float(np.median(_texture(_grey(rgb_s))[ring]))
    lo, hi = cfg.texture_ratio
    # (label, enclosed, background-like, no contact with the outside at all) of regions large enough
    tests: list[tuple[int, bool, bool, bool]] = []
    # a region the matte itself leaves half-transparent and the network was unsure of may be smaller (the
    # leaves in a frame's narrow corner)
    soft = (mean_a < cfg.soft_alpha) & (mean_p < cfg.unsure)
    for j in range(1, n + 1):
        if sizes[j] >= (cfg.soft_min_share if soft[j] else cfg.min_share) * fg_area:
            enclosed = bool(edge_outer[j] <= cfg.outer_contact * max(edge_n[j], 1.0))
            like_bg = bool(soft[j] or typical_share[j] >= cfg.typical)
            tests.append((j, enclosed, like_bg, bool(edge_outer[j] == 0)))
    fine = _FineTexture(small, cand.shape, box, lab_b, ring)

    tex_ratio = np.zeros(n + 1, np.float64)
    if bg_tex >= cfg.texture and any(e and b and mean_p[j] >= cfg.unsure for j, e, b, _ in tests):
        # only where the texture decides
        tex_f, lab_f, fine_bg = fine()
        tex_ratio = _label_medians(tex_f, lab_f, n) / fine_bg
    holes = _holes(tests, mean_p, bg_tex, cand.shape, box, lab_b, a_s, typical_px, rgb_s, ring, fine, cfg)
    holed = np.unique(lab_b[holes[box]]) if holes.any() else np.zeros(0, np.int32)
    cut |= holes
    doubt = 0.0
    for j, enclosed, like_bg, _ in tests:
        textured = bg_tex >= cfg.texture and lo <= tex_ratio[j] <= hi
        if enclosed and like_bg and (textured or mean_p[j] < cfg.unsure):
            cut[box] |= lab_b == j
        elif j not in holed and (bg_tex >= cfg.texture or mean_p[j] < cfg.unsure):
            # on a plain backdrop a confidently matted region of its colour (a silver car in a grey
            # studio, a white label) is no evidence of an opening either way
            doubt += float(sizes[j])
    return cut, doubt, holes, _soft_cut(cut, soft, box, lab_b)
