"""The backdrop continuing through the product: a region inside the matte that shows the backdrop seen around it.

An opening kept whole (a hole through a product on a studio gradient, a frame's whole inside, a wheel between
its spokes) is product in the matte but backdrop in the photo; every signal of the network's view reads a good
result. A colour model of the backdrop alone cannot tell it from a product painted in the backdrop's colour (a
silver car beside a grey turntable). :func:`through_regions` asks for more: that the region *continues* the
backdrop seen outside the matte.

On the matte's box (grown by a third, at most :data:`WORK_SIDE` px on its long side) the backdrop is the ring
of clear background just outside the matte; a quadratic surface per channel fitted to that ring by least
squares predicts the backdrop inside the outline, and the ring's own median residual is how well the surface
explains the backdrop. Four tests find regions that continue it:

* **smooth**: where the ring is a smooth backdrop (a gradient, a sweep: residual at most
  :attr:`~retouch.pick.PickConfig.through_smooth_ring`), matte pixels the surface predicts at the noise level
  (residual at most :attr:`~retouch.pick.PickConfig.through_smooth_tol` times the ring's, at least 1 level; no
  clipped pixel) form regions; those that product encloses (at most
  :attr:`~retouch.pick.PickConfig.through_smooth_enclosed` of the pixels around each outside the matte) are the
  backdrop seen through the product, counted together (spokes split a wheel's). Paint does not follow a gradient within a level or two.
* **like**: on any backdrop, matte pixels with the colour of the backdrop next to them (the local Gaussian model
  of the ring: colour within twice its local spread, 12-30 levels, no more textured than it, closer to it than
  to the product's own rim colour) form regions; one that product encloses fully, whose median residual from the
  surface is at most :attr:`~retouch.pick.PickConfig.through_like_residual` times the ring's (it continues the
  backdrop as well as the backdrop itself does) and whose fine detail (median absolute difference between the
  grey image and itself blurred by 1 px: sensor noise, texture) is within a factor
  :attr:`~retouch.pick.PickConfig.through_like_noise` of the ring's, is backdrop too. A product's paint in the
  backdrop's colour reaches the outline, or carries other detail, or departs from the surface.
* **local**: a single surface cannot predict a blurred or photographed backdrop; here every pixel of the box is
  predicted by the ring pixels *near* it (a Gaussian average of the ring's colour, per channel, spread inwards by
  :attr:`~retouch.pick.PickConfig.through_local_sigma` of the matte's long side; three times wider where the near
  ring is thin), and the ring's own residual from that prediction, spread inwards the same way, says how well the
  nearby backdrop is predicted. Matte pixels within :attr:`~retouch.pick.PickConfig.through_local_tol` times that
  local residual (at least 1 level; not clipped) form regions; one of at least
  :attr:`~retouch.pick.PickConfig.through_local_share` of the matte, with at most
  :attr:`~retouch.pick.PickConfig.through_local_enclosed` of the pixels around it outside the matte, a median
  residual no larger than the local ring's (:attr:`~retouch.pick.PickConfig.through_local_residual`) and fine
  detail within :attr:`~retouch.pick.PickConfig.through_local_noise` of the local ring's, is backdrop too.
* **seen**: a blurred or busy backdrop is predicted neither by one surface nor by the ring near an opening deep
  inside the product, but what an opening shows is still backdrop: its colours are *seen* in the ring (some ring
  pixel within :attr:`~retouch.pick.PickConfig.through_seen_tol` levels, RGB distance) and, unlike paint of the
  backdrop's colour, *not* on the product's own rim (the matte pixels 1 px to 6 % of ``scale`` inside the
  outline; no rim pixel within :attr:`~retouch.pick.PickConfig.through_seen_rim` levels); clipped pixels carry
  no evidence. Such pixels form regions; one of at least :attr:`~retouch.pick.PickConfig.through_seen_share` of
  the matte with at most :attr:`~retouch.pick.PickConfig.through_seen_enclosed` of the pixels around it outside
  the matte is backdrop too. A silver car beside a grey turntable shows its grey on its rim as well.

Cost: a few ms CPU per photo, no network pass; :func:`with_backdrop_through` runs it only on results the
confidence does not already flag.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
from scipy import ndimage as ndi
from scipy.spatial import cKDTree

from .box import WORK_SIDE, MatteBox, matte_box, normalized_convolution
from .confidence import confidence
from .config import SHIPPED_PICK, PickConfig
from .signals import Pick

__all__ = [
    "WORK_SIDE",
    "MatteBox",
    "Through",
    "backdrop_through",
    "local_backdrop",
    "matte_box",
    "normalized_convolution",
    "through_regions",
    "with_backdrop_through",
]

#: Channel level (0..255) from which a pixel is clipped: it carries no evidence of continuing a surface.
CLIPPED = 250

_LIBM_NAME = ctypes.util.find_library("m")
_LIBM = ctypes.CDLL(_LIBM_NAME) if _LIBM_NAME else None
#: glibc's ``FE_DFL_ENV``: the default floating-point environment (round to nearest, denormals kept).
_FE_DFL_ENV = ctypes.c_void_p(-1)


@contextmanager
def default_float_environment() -> Iterator[None]:
    """Run the block in the C library's default floating-point environment, then restore the caller's.

    The network sessions flush denormal floats to zero (``session.set_denormal_as_zero``,
    :func:`retouch.segment._session_options`), which sets the FTZ/DAZ bits of the calling thread and leaves them
    set after the run; under them SciPy's :class:`~scipy.spatial.cKDTree` crashes the process (a segmentation
    fault while it builds a tree on some colour sets, measured on ``car-1.jpg``'s backdrop ring). The environment
    is saved with ``fegetenv``, reset with ``fesetenv(FE_DFL_ENV)`` and restored with ``fesetenv``; where no C
    maths library is found the block runs unchanged.

    Raises:
        OSError: the C library refuses to save or restore the environment.
    """
    if _LIBM is None:
        yield
        return
    saved = ctypes.create_string_buffer(64)  # fenv_t is 32 bytes on x86-64, 8 on aarch64
    if _LIBM.fegetenv(saved) != 0 or _LIBM.fesetenv(_FE_DFL_ENV) != 0:
        raise OSError("fegetenv/fesetenv failed")
    try:
        yield
    finally:
        if _LIBM.fesetenv(saved) != 0:
            raise OSError("fesetenv failed restoring the floating-point environment")


def _nearest(points: np.ndarray, queries: np.ndarray, upper: float) -> np.ndarray:
    """Distance (float64, (m,)) from each of ``queries`` (float32 (m, 3)) to the nearest of ``points`` (float32
    (n, 3)), ``inf`` beyond ``upper``: a k-d tree (:class:`scipy.spatial.cKDTree`) built and searched in the
    default floating-point environment (:func:`default_float_environment`)."""
    with default_float_environment():
        d, _ = cKDTree(points).query(queries, k=1, distance_upper_bound=upper)
    return np.asarray(d, np.float64)


@dataclass(frozen=True)
class Through:
    """The regions inside a matte that may continue the backdrop, with what the tests read.

    Attributes:
        ring_residual: median residual (RGB levels, RMS over the channels) of the backdrop ring from its
            quadratic surface; ``inf`` when there is no ring to fit.
        ring_noise: median fine detail of the ring (grey levels).
        smooth: float64 (n, 2): per *smooth* candidate region its share of the matte and the share of the pixels
            around it that lie outside the matte (empty when the ring is not smooth enough, see
            ``smooth_ring``).
        like: float64 (n, 4): per *like* candidate region its share of the matte, the share of the pixels around
            it outside the matte, its median residual over ``ring_residual``, its median fine detail over
            ``ring_noise``.
        local: float64 (n, 4): per *local* candidate region its share of the matte, the share of the pixels
            around it outside the matte, its median residual from the local prediction over the local ring's, its
            median fine detail over the local ring's.
        seen: float64 (n, 2): per *seen* candidate region its share of the matte and the share of the pixels
            around it that lie outside the matte (empty by default).
    """

    ring_residual: float
    ring_noise: float
    smooth: np.ndarray
    like: np.ndarray
    local: np.ndarray
    seen: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))


_NONE = Through(float("inf"), 0.0, np.zeros((0, 2)), np.zeros((0, 4)), np.zeros((0, 4)))


def _regions(cand: np.ndarray, b: np.ndarray, min_px: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Connected (8-neighbour) regions of bool ``cand`` with at least ``min_px`` px: ``(labels (h, w) int,
    kept label ids (n,), per kept region [size px, share of the pixels around it outside bool matte b])``."""
    labels, n = ndi.label(cand, structure=np.ones((3, 3), bool))
    if n == 0:
        return labels, np.zeros(0, int), np.zeros((0, 2))
    sizes = np.bincount(labels.ravel(), minlength=n + 1)
    grown = ndi.maximum_filter(labels, size=3, mode="constant")
    around = (grown > 0) & ~cand
    b_count = np.bincount(grown[around], minlength=n + 1)
    e_count = np.bincount(grown[around & ~b], minlength=n + 1)
    keep = np.flatnonzero(sizes >= min_px)
    keep = keep[keep > 0]
    stats = np.stack([sizes[keep], e_count[keep] / np.maximum(b_count[keep], 1)], -1).astype(np.float64)
    return labels, keep, stats


def local_backdrop(
    rgb: np.ndarray, ring: np.ndarray, sigma: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The backdrop's local colour model: the ring's colour, colour spread and texture spread inwards.

    Each pixel gets the ring's Gaussian-weighted mean colour, its spread and its 3 x 3 grey texture
    (:func:`normalized_convolution` with ``sigma``; three times wider where the near ring is thin).

    Args:
        rgb: float32 (h, w, 3) the photo on the box.
        ring: bool (h, w) the clear-backdrop pixels.
        sigma: the Gaussian's spread (px).

    Returns:
        float32 (h, w) arrays ``(dist, spread, tex, tex_bg)``: each pixel's RGB distance from the local backdrop
        colour, the backdrop's local colour spread (RGB levels), the pixel's own texture and the backdrop's
        local texture (grey levels).
    """
    grey = rgb.mean(-1)
    m1 = ndi.uniform_filter(grey, 3, mode="nearest")
    tex = np.sqrt(np.maximum(ndi.uniform_filter(grey * grey, 3, mode="nearest") - m1 * m1, 0.0))
    stack = np.concatenate([rgb, rgb * rgb, tex[..., None]], -1)
    near, den = normalized_convolution(stack, ring, sigma)
    far, _ = normalized_convolution(stack, ring, 3.0 * sigma)
    t = np.clip(den / 0.05, 0.0, 1.0)[..., None]
    est = t * near + (1.0 - t) * far
    mean, sq, tex_bg = est[..., :3], est[..., 3:6], est[..., 6]
    spread = np.sqrt(np.maximum(sq - mean * mean, 0.0).sum(-1))
    dist = np.sqrt(((rgb - mean) ** 2).sum(-1))
    return dist, spread, tex, tex_bg


def through_regions(small: np.ndarray, alpha: np.ndarray, *, config: PickConfig = SHIPPED_PICK) -> Through:
    """The candidate regions of the four tests (module docstring) with the measures the thresholds are applied to.

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) final matte in [0, 1] at the same resolution.
        config: :attr:`~PickConfig.through_smooth_ring` and :attr:`~PickConfig.through_smooth_tol` (which
            pixels are smooth candidates), :attr:`~PickConfig.through_local_sigma` and
            :attr:`~PickConfig.through_local_tol` (which are local candidates).

    Returns:
        :class:`Through`; no regions for an empty matte or one without at least 8 px of clear-background ring.
    """
    box = matte_box(small, alpha)
    if box is None:
        return _NONE
    rgb0, b, ring, scale = box.rgb, box.matte, box.ring, box.scale
    area = int(b.sum())

    # the quadratic surface of the backdrop, fitted to the ring
    hh, ww = b.shape
    yy, xx = np.mgrid[0:hh, 0:ww].astype(np.float32) * (2.0 / max(hh, ww))
    yy -= 1.0
    xx -= 1.0
    terms = np.stack([np.ones_like(yy), yy, xx, yy * yy, yy * xx, xx * xx], -1)
    tr = terms[ring].astype(np.float64)
    coef = np.linalg.solve(tr.T @ tr + 1e-6 * np.eye(tr.shape[1]), tr.T @ rgb0[ring].astype(np.float64))
    residual = np.sqrt(((rgb0 - terms @ coef.astype(np.float32)) ** 2).mean(-1))
    ring_res = float(np.median(residual[ring]))
    grey0 = rgb0.mean(-1)
    detail = np.abs(grey0 - ndi.gaussian_filter(grey0, 1.0, mode="nearest"))
    ring_noise = float(np.median(detail[ring]))

    smooth = np.zeros((0, 2))
    if ring_res <= config.through_smooth_ring:
        cand = b & (residual <= max(config.through_smooth_tol * ring_res, 1.0)) & (rgb0.max(-1) < CLIPPED)
        _, _, st = _regions(cand, b, max(4.0, 0.002 * area))
        smooth = np.stack([st[:, 0] / area, st[:, 1]], -1) if len(st) else smooth

    # the local colour model of the backdrop (colour, spread, texture of the ring, spread inwards)
    rgb = ndi.gaussian_filter(rgb0, (1.0, 1.0, 0), mode="nearest")
    sigma = max(2.0, 0.15 * scale)
    dist, spread, tex, tex_bg = local_backdrop(rgb, ring, sigma)
    d_in = ndi.distance_transform_edt(b)
    like = b & (dist <= np.clip(2.0 * spread, 12.0, 30.0)) & (tex <= 1.5 * tex_bg + 2.0)
    rim = b & (d_in > 1.0) & (d_in <= max(3.0, 0.06 * scale))
    prod, pden = normalized_convolution(rgb, rim, sigma)
    like &= (dist < np.sqrt(((rgb - prod) ** 2).sum(-1))) | (pden < 1e-3)
    labels, keep, st = _regions(like, b, max(9.0, 0.003 * area))
    like_rows = np.zeros((0, 4))
    if keep.size:
        res_med = np.asarray(ndi.median(residual, labels, keep), np.float64)
        det_med = np.asarray(ndi.median(detail, labels, keep), np.float64)
        like_rows = np.stack(
            [
                st[:, 0] / area,
                st[:, 1],
                res_med / max(ring_res, 1e-3),
                det_med / max(ring_noise, 1e-3),
            ],
            -1,
        )
    return Through(
        ring_res,
        ring_noise,
        smooth,
        like_rows,
        _local(rgb0, b, ring, detail, scale, config),
        _seen(rgb0, b, ring, rim, config),
    )


def _seen(
    rgb: np.ndarray, b: np.ndarray, ring: np.ndarray, rim: np.ndarray, config: PickConfig
) -> np.ndarray:
    """The *seen* test's candidate regions (module docstring) on the box: float32 ``rgb`` (h, w, 3), bool matte
    ``b``, backdrop ``ring`` and product ``rim`` (h, w); float64 (n, 2) as :attr:`Through.seen`.

    Nearest colours by k-d tree (:func:`_nearest`, searched only up to the tolerances): a few ms
    at the box's scale. Not measured (no region) when :attr:`~PickConfig.through_seen_share` is above 1: no region
    could pass."""
    if config.through_seen_share > 1.0:
        return np.zeros((0, 2))
    cand = b & (rgb.max(-1) < CLIPPED)
    pix = rgb[cand]
    if not len(pix):
        return np.zeros((0, 2))
    d_bg = _nearest(rgb[ring], pix, config.through_seen_tol + 1e-3)
    ok = d_bg <= config.through_seen_tol
    if ok.any() and rim.any():
        d_rim = _nearest(rgb[rim], pix[ok], config.through_seen_rim + 1e-3)
        ok[ok] = d_rim > config.through_seen_rim
    cand[cand] = ok
    area = int(b.sum())
    _, keep, st = _regions(cand, b, max(9.0, 0.003 * area))
    if not keep.size:
        return np.zeros((0, 2))
    return np.stack([st[:, 0] / area, st[:, 1]], -1)


def _local(
    rgb: np.ndarray, b: np.ndarray, ring: np.ndarray, detail: np.ndarray, scale: float, config: PickConfig
) -> np.ndarray:
    """The *local* test's candidate regions (module docstring) on the box: float32 ``rgb`` (h, w, 3), bool
    matte ``b`` and ``ring`` (h, w), float32 fine ``detail`` (h, w), the matte's long side ``scale`` (px); float64
    (n, 4) as :attr:`Through.local`."""
    sigma = max(2.0, config.through_local_sigma * scale)

    def spread(values: np.ndarray) -> np.ndarray:
        near, den = normalized_convolution(values, ring, sigma)
        far, _ = normalized_convolution(values, ring, 3.0 * sigma)
        t = np.clip(den / 0.05, 0.0, 1.0)[..., None]
        return t * near + (1.0 - t) * far

    residual = np.sqrt(((rgb - spread(rgb)) ** 2).mean(-1))
    local = spread(np.stack([residual, detail], -1))
    ratio = residual / np.maximum(local[..., 0], 1.0)
    cand = b & (ratio <= config.through_local_tol) & (rgb.max(-1) < CLIPPED)
    area = int(b.sum())
    labels, keep, st = _regions(cand, b, max(9.0, 0.003 * area))
    if not keep.size:
        return np.zeros((0, 4))
    res_med = np.asarray(ndi.median(ratio, labels, keep), np.float64)
    det_med = np.asarray(ndi.median(detail / np.maximum(local[..., 1], 0.3), labels, keep), np.float64)
    return np.stack([st[:, 0] / area, st[:, 1], res_med, det_med], -1)


def _largest_passing(
    regions: np.ndarray, share: float, enclosed: float, residual: float, noise: float
) -> float:
    """Largest share of the matte among ``regions`` (float64 (n, 4): share, outside share, residual ratio, detail
    ratio, as :attr:`Through.like` and :attr:`Through.local`) of at least ``share``, at most ``enclosed`` outside,
    a residual ratio of at most ``residual`` and a detail ratio within a factor ``noise``; 0.0 when none passes."""
    if not len(regions):
        return 0.0
    ok = (
        (regions[:, 0] >= share)
        & (regions[:, 1] <= enclosed)
        & (regions[:, 2] <= residual)
        & (regions[:, 3] >= 1.0 / noise)
        & (regions[:, 3] <= noise)
    )
    return float(regions[ok, 0].max()) if ok.any() else 0.0


def backdrop_through(found: Through, *, config: PickConfig = SHIPPED_PICK) -> float:
    """Share of the matte (in [0, 1]) that passes any test (module docstring): the enclosed smooth regions
    together (a wheel's backdrop is split by its spokes) when they cover at least
    :attr:`~PickConfig.through_smooth_share`, the largest backdrop-coloured region that passes, the largest
    local region that passes, or the largest seen region that passes, whichever is largest; 0.0 when none does.

    Args:
        found: :func:`through_regions`' answer.
        config: the tests' thresholds (``through_*`` fields of :class:`PickConfig`).
    """
    best = 0.0
    s = found.smooth
    if len(s):
        enclosed = float(s[s[:, 1] <= config.through_smooth_enclosed, 0].sum())
        if enclosed >= config.through_smooth_share:
            best = enclosed
    best = max(
        best,
        _largest_passing(
            found.like,
            config.through_like_share,
            config.through_like_enclosed,
            config.through_like_residual,
            config.through_like_noise,
        ),
        _largest_passing(
            found.local,
            config.through_local_share,
            config.through_local_enclosed,
            config.through_local_residual,
            config.through_local_noise,
        ),
    )
    sn = found.seen
    if len(sn):
        ok = (sn[:, 0] >= config.through_seen_share) & (sn[:, 1] <= config.through_seen_enclosed)
        if ok.any():
            best = max(best, float(sn[ok, 0].max()))
    return best


def with_backdrop_through(
    small: np.ndarray, alpha: np.ndarray, pick: Pick, *, config: PickConfig = SHIPPED_PICK
) -> Pick:
    """``pick`` with the signal ``through`` (:func:`backdrop_through`) added where it can change the review
    flag: the test is switched on (:attr:`~PickConfig.review_through` above 0) and :func:`confidence` does not
    flag the result already. Nothing else changes (the matte is never touched).

    Args:
        small: uint8 (H, W, 3) photo at the working resolution.
        alpha: float32 (H, W) final matte in [0, 1].
        pick: the result's :class:`Pick` (its ``signals`` are updated in place and it is returned).
        config: the thresholds.
    """
    if config.review_through <= 0 or confidence(pick.signals, config=config)[1]:
        return pick
    pick.signals["through"] = backdrop_through(through_regions(small, alpha, config=config), config=config)
    return pick
