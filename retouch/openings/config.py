"""The constants of :func:`retouch.openings.clear_openings`, in one frozen configuration."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT_OPENINGS", "OpeningsConfig"]


@dataclass(frozen=True)
class OpeningsConfig:
    """Constants of :func:`clear_openings`, all chosen on tuning photos only (GT tuning fold, tuning
    composites, tuning see-through photos, ``nomask/bike.jpg`` and the ``nomask`` cars;
    the see-through openings records in ``docs/decisions/``).

    Attributes:
        work_pixels: work resolution of the colour tests (pixels).
        posterior: posterior probability of "background" (smoothed over 5 x 5 px) above which a matte
            pixel is a candidate opening pixel.
        min_share: smallest opening cleared, as a share of the matte's area.
        soft_min_share: smallest opening cleared where the matte is half-transparent (mean alpha below
            ``soft_alpha``) and the network unsure (mean below ``unsure``).
        soft_alpha: see ``soft_min_share``.
        max_share: largest share of the matte cleared at once (more: the product itself looks like the
            background; nothing is cleared and the result is reported as doubtful).
        texture: median local texture of the background around the product (grey standard deviation
            over 5 x 5 px at ``work_pixels``, grey in [0, 1]; 0.008 = 2 levels of 255) from which the
            background's texture is evidence. On a plainer backdrop colour alone proves little: only
            regions the network was unsure of are cut.
        texture_ratio: the range of a region's median fine texture (5 x 5 px grey standard deviation at
            the working resolution) over the background ring's, within which a confidently matted,
            background-coloured region on a textured background is cut. The fine scale tells gravel,
            grass and foliage from a car's smooth paint that the coarse scale confuses.
        unsure: mean network confidence under which a flat background-coloured region is also cleared.
        outer_contact: largest share of a candidate region's outline that may run along the outside
            background (an opening is bounded mostly by the product).
        typical: share of a candidate region's pixels whose colour is as typical of the background as
            70 % of the background's own pixels (log density under the background mixture).
        grow: smoothed posterior of "background" down to which matte pixels joined to a cut opening are
            cut too (hysteresis).
        grow_max: largest growth factor of that hysteresis: a cut region whose joined component is more
            than this many times its own size spreads into the product (a car's panel, a shrub) and is
            not cut at all but counted as doubtful.
        thin_posterior: pixel posterior of "product" from which a pixel inside an opening is kept as a
            thin structure.
        thin_contrast: grey-level contrast (in [0, 1], top-hat over 5 x 5 px) of a thin structure
            against its surroundings.
        wheels: whether wheels are recognised by their shape (:func:`retouch.wheel_openings.wheel_sectors`);
            False gives the region tests alone. The ``wheel_*`` constants (the wheel
            openings record in ``docs/decisions/``; colour tests' resolution) are:
        wheel_posterior: unsmoothed posterior of "background" from which a matte pixel can be a sector's.
        wheel_sector_px: smallest sector piece (px).
        wheel_sectors: fewest sectors (runs of angles) around the wheel's centre.
        wheel_radius: smallest minor semi-axis of the wheel's ellipse (px).
        wheel_aspect: smallest minor / major axis ratio (a wheel seen at an angle).
        wheel_fit: smallest IoU of the filled sectors and their fitted ellipse.
        wheel_cover: smallest share of the ellipse covered by the sectors.
        wheel_gaps: largest share of the angles taken by the lines between sectors.
        wheel_radial: smallest share of the non-sector pixels of the band 0.3-0.9 of the radius lying in
            those lines' angles (spokes run toward the centre; clutter and a rim's pattern do not).
        wheel_rim: smallest matte share of the annulus 1.1-1.35 of the radius (a tyre or the body).
        wheel_rim_bg: largest background-like share of that annulus.
        wheel_typical: smallest share of the sectors' pixels as typical of the background as 70 % of its
            own (a smooth studio backdrop makes few pixels "typical": the shape carries the evidence).
        early_share: the step stops after the background model (before the product model is fitted) when
            fewer than this share of the matte, divided by ``typical``, is as typical of the background as
            70 % of its own pixels: too few for any opening (a wheel on a studio backdrop has 0.4 %; the
            see-through openings' fourth-round record in ``docs/decisions/``).
        clutter: whether flat pieces of a colour found nowhere else on the product, lying against a cut
            opening, are cut with it (:func:`_clutter`); False leaves them to the region tests. The
            ``clutter_*`` constants (the fourth-round record in ``docs/decisions/``;
            colour tests' resolution, colours in [0, 1]) are:
        clutter_step: largest colour step (max over R, G, B, to a 4-neighbour, after a 3 x 3 mean) inside a
            flat piece.
        clutter_px: smallest flat piece (px).
        clutter_max: largest flat piece, as a multiple of the area cut so far.
        clutter_cut: smallest share of the band 3-5 px around the piece that is cut opening.
        clutter_colour: colour distance (max over R, G, B) within which another matte pixel has the piece's
            colour.
        clutter_similar: largest share of the rest of the matte (beyond 5 px of the piece) having the piece's
            colour: a colour found nowhere else on the product.
        holes: whether holes punched through the product (a ring, a hoop, a frame) are recognised by their
            shape and surface around the enclosed regions the colour tests refuse on a plain backdrop or as
            atypical (:func:`retouch.ring_openings.round_holes`); False gives the step without it. The
            ``hole_*`` constants (the ring and frame openings record in ``docs/decisions/``; shape at the
            colour tests' resolution, colours in [0, 1], texture at the working resolution) are:
        hole_fit: smallest IoU of a piece (holes filled) and the ellipse of its second moments.
        hole_solidity: smallest area over convex hull area (a frame's rectangle), instead of ``hole_fit``.
        hole_radius: smallest minor semi-axis of that ellipse (px).
        hole_band: smallest share of the band 4-6 px around the piece that is product (matte, not typical
            of the background).
        hole_colour: largest median distance (max over R, G, B) of the piece's pixels to the backdrop's
            quadratic surface fitted over the background ring (a studio sweep's gradient continues behind
            the product) ...
        hole_typical: ... or smallest share of its pixels typical of the background's colour mixture (a
            patterned backdrop no smooth surface follows).
        hole_pixel: distance to that surface within which a matte pixel has the backdrop's colour (it, or
            being typical of the background, makes a pixel part of a piece).
        hole_core: smallest share of a piece that is refused candidate region (the rest: backdrop-coloured
            matte pixels joined to it, which the product's colour model claimed).
        hole_texture: range of the piece's median fine texture over the background ring's.
        hole_busy: largest share of the piece's pixels whose fine texture exceeds 3 times the background
            ring's median (a hubcap's bolts, a window's reflections).
        ghosts: whether half-transparent background-coloured pixels inside the outline are cleared
            (:func:`_clear_ghosts`).
        keep_thin: whether thin product parts crossing a cut opening are kept (:func:`_keep_thin`).
    """

    work_pixels: int = 120_000
    posterior: float = 0.75
    min_share: float = 0.01
    soft_min_share: float = 0.001
    soft_alpha: float = 0.75
    max_share: float = 0.8
    texture: float = 0.008
    texture_ratio: tuple[float, float] = (0.6, 1.8)
    unsure: float = 0.85
    outer_contact: float = 0.15
    typical: float = 0.5
    grow: float = 0.5
    grow_max: float = 4.0
    thin_posterior: float = 0.4
    thin_contrast: float = 0.035
    wheels: bool = True
    wheel_posterior: float = 0.5
    wheel_sector_px: int = 12
    wheel_sectors: int = 4
    wheel_radius: float = 6.0
    wheel_aspect: float = 0.6
    wheel_fit: float = 0.65
    wheel_cover: float = 0.5
    wheel_gaps: float = 0.35
    wheel_radial: float = 0.35
    wheel_rim: float = 0.9
    wheel_rim_bg: float = 0.1
    wheel_typical: float = 0.1
    early_share: float = 0.0025
    clutter: bool = True
    clutter_step: float = 0.04
    clutter_px: int = 20
    clutter_max: float = 1.0
    clutter_cut: float = 0.3
    clutter_colour: float = 0.08
    clutter_similar: float = 0.02
    holes: bool = True
    hole_fit: float = 0.85
    hole_solidity: float = 0.9
    hole_radius: float = 4.0
    hole_band: float = 0.9
    hole_colour: float = 0.03
    hole_texture: tuple[float, float] = (0.7, 1.25)
    hole_busy: float = 0.02
    hole_pixel: float = 0.06
    hole_core: float = 0.2
    hole_typical: float = 0.5
    ghosts: bool = True
    keep_thin: bool = True


#: The configuration the pipeline uses.
DEFAULT_OPENINGS = OpeningsConfig()
