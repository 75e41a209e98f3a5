"""Pip dice (d6): find pips, group them into faces, pick each die's top face and read its value.

Works on dark pips on a light die (white die, black pips) and light pips on a dark die; nothing is
tuned to one dice set: the pip mask comes from a morphological black-hat / top-hat whose threshold is
Otsu's on each frame, and every distance is measured in pip diameters or pip pitches.

Pips (find_pips): compact elliptical blobs on a plain surround. Pips merged into one blob by blur or
close spacing are split apart at a higher threshold (_split_blob); a pip crowded by its neighbours
or by blur (a weak pip, surround SNR 4..8) is read only beside strong ones, and a blurred pip whose
halo fills its surround (a faint pip, SNR 2..4) only on a face of 4 to 6 pips whose layout vouches for
it (_layout_face), which vouches for weak pips too. A pip a motion blur drew out into a streak, whose
ring runs along the streak into the die's blurred edge or the next pip, is measured beside the streak
(streak_snr) and, on a plain face there, read as a faint pip.

How a face is told from its neighbours: pips of one face share one size and one foreshortening, lie
within ~4 pip diameters of each other and have clean die body between them (group_faces); a tangle
of pips (touching dice, a top face linked to its side face) is split into the subsets that fit a d6
layout (split_group). The face that looks most squarely at the camera (largest, roundest pips or
layout) is the top face; flatter pip groups beside it are the die's side faces (a camera looking
obliquely sees them), and so are groups foreshortened alike that lie from it toward the camera: the
frame's own direction, which the pairs told apart by shape give (_toward_camera; below the top faces
for an upright camera, left, right or above in a turned photo). Where that direction lies across the
foreshortening two such faces share, it cannot tell which is the top face, and both are unsure
(_top_unknown). Confidence comes from the affine fit to the d6 layout, the pips' shape agreeing with
the face's foreshortening plus at most a motion-blur streak (blur_ratio), pip size consistency and
contrast; 1 to 3 pips must also sit on a plain face (face_roughness), since a glyph or a speck
can look like a pip (3 pips in a row smeared alike are a die in motion even on a rough
face: kept, flagged unsure), and a 2 or 4 must have a bare centre (no faint pip of a 3 or 5). A face
holds nothing but its pips: another mark on it puts the count in doubt (stray_marks; beside a lone pip, any
mark of pip contrast on its face, a numeral's stroke however ragged: _face_marked; a pip like it where
its 2's other pip would be, taken into an unsure face: _doubt_twin_taken); a pip is an ellipse
(a triangle is a d4 seen from above: Pip.triangle_fill), one paint-filled dent plain inside (pip_marks). A glint
on a glossy die (the lamp's reflection, white) may have washed out a pip of a fuller face: a face of 1-4 pips near
one that could hide a pip is unsure, and no die body round it vouches for it (glints.hides_pip).
A top face far more foreshortened than the other dice's is a die not lying flat: reported as cocked
(GEN-D01). A face the frame's edge cuts may have lost pips there, so it is not read sure
(layout_in_frame): its own layout's places reach past the edge, or its die's face runs on past its
pips to the edge as a face cut to some of its pips does (runs_off: a 4 cut to one column shows a 2
whose layout lies inside the frame), while a whole face by the edge, its die ending inside the frame
or cut only past its pips' reach, stays sure. A face foreshortened as a side face is, by an edge past
which its die's top face may lie, is not read sure either (top_face_past_edge).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field, replace
from typing import Callable

import cv2
import numpy as np
from scipy import ndimage

from dicetower.readings import UNSURE_BELOW

from . import glints
from .boxes import meets
from .noise import SMOOTH_FROM, noise_sigma

#: Canonical pip layouts of a d6 face, in units of the pip pitch, centred on the face.
D6_LAYOUTS: dict[int, np.ndarray] = {
    1: np.array([[0, 0]], float),
    2: np.array([[-1, -1], [1, 1]], float),
    3: np.array([[-1, -1], [0, 0], [1, 1]], float),
    4: np.array([[-1, -1], [-1, 1], [1, -1], [1, 1]], float),
    5: np.array([[-1, -1], [-1, 1], [1, -1], [1, 1], [0, 0]], float),
    6: np.array([[-1, -1], [-1, 0], [-1, 1], [1, -1], [1, 0], [1, 1]], float),
}

#: Per layout: the design matrix [x y 1] of the canonical pips and its pseudo-inverse (affine fits).
_LAYOUT_DESIGN = {n: (A, np.linalg.pinv(A)) for n, A in
                  ((n, np.hstack([pts, np.ones((len(pts), 1))])) for n, pts in D6_LAYOUTS.items())}

LINK_DIAMETERS = 4.2  # pips of one face lie within this many pip diameters of a neighbour on it
TWO_DIAMETERS = 6.5  # the two pips of a 2 lie within this many pip diameters (small pips on a large face)
MIN_PIP_AREA_PX = 6.0  # smaller blobs are noise at the analysis scale
#: a cube's top and side faces seen with roundness r_top, r_side (cosines of perpendicular tilts) have
#: r_top^2 + r_side^2 <= 1 under a distant camera; up to this with a near camera and measuring noise
PERPENDICULAR_FACES = 1.3
FACE_SIDE_DIAMETERS = 4.6  # a d6 face's side is about this many pip diameters
SIDE_REACH_DIAMETERS = 5.0  # a die's side faces lie within about one face side (~5 pip diameters) of its top face
SIDE_FACE_SIDES = 1.2  # ... their centres within this many face sides (face_side) of its top face's centre
SAME_DIE_PIPS = 2.0  # the faces of one die have pips whose major axes agree within this factor
MAX_SPLIT_PIPS = 9  # pips searched at once when splitting a tangle (time grows as C(n, 6))
CENTRE_FRACTION = 0.5  # a 2's or 4's centre (a 4's side's middle) with pip response above this fraction of the threshold: a faint pip
FACE_MARGIN = 0.6  # a face's pips lie within its layout's square grown by this many pitches (pip edge + slack)
NEAR_FACE = 2.5  # pitches from a face's centre within which a frontal pip left out puts its reading in doubt
SUPERSET_SPAN = 2.3  # how far from each pip of a face its pips lie, in its span (a 6's farthest from two side by side)
AMBIGUOUS_CAP = 0.6  # confidence cap of a face split from pips that could also be its own
LEFTOVER_FACE = 0.5  # pips left over from a split stay one face when they fit one at least this well
SEAM_FRACTION = 0.8  # a seam between faces or dice: pip response above this fraction of the pip threshold
#: face_roughness of the face around 1..3 pips: up to this, plain (die faces measured 0.02, 99% under
#: 0.035 for 2s and 3s, 0.10 for 1s); above it the reading loses confidence (a blurred 2 or 3 stays,
#: flagged unsure, so a die in motion is not lost); a lone pip above twice it is no face at all.
#: Marks on numbered dice, glyphs and glass measured 0.07 and more (1st percentile).
PLAIN_FACE = 0.05
#: face_roughness above which 2 or 3 pips are no die at all (printed keys and glyphs measured 0.3 and
#: more; a motion-blurred die's soft edges and pip halos up to 0.25, kept and flagged unsure)
NO_FACE = 0.3
#: a plain face's deviations (face_roughness: their 90th percentile) hold this many sigmas of a camera's white noise
#: (a Gaussian's 90th percentile of absolute deviations), taken off them for a face's confidence (face_roughness's
#: noise, _grain): matteop65's photos with noise of 6 and 12 grey levels a channel (the bench's grainy row) read 1s
#: on faces plain but for the grain unsure (roughness 0.06-0.09). Not for whether there is a face at all (NO_FACE,
#: 2 x PLAIN_FACE): taken off there too, a glyph on a dark key in a grainy frame was read as an unsure 1
NOISE_DEVIATION = 1.645
#: pip_marks of a lone pip above this: marks inside the "pip" (a small die's numerals and facets, the
#: hole of a numeral), so its reading as a 1 is unsure. One paint-filled dent is plain inside: matteop65's
#: 1s measured 0.03..0.29 (median 0.11), rendered and drawn 1s up to 0.19; small dice on a dark floor
#: taken for the pip of a 1 whose face is the floor, 0.44..3.2.
MARKED_PIP = 0.35
#: Pip.triangle_fill of a lone pip above this: a triangle, no pip (a d4 seen from above on a dark floor,
#: taken for the pip of a 1 whose face is the floor), so its reading as a 1 is unsure. An ellipse, seen
#: at any slant, fills pi / (3 sqrt 3) = 0.60 of the smallest triangle around it, a triangle 1.0; half-way.
#: matteop65's sure 1s measured up to 0.71 (pixels), rendered d4s taken for a 1's pip 0.85 and 0.89.
TRIANGLE_FILL = 0.8
#: At a close-up scale, pips under this fraction of the pip filter of the finer scale read before it (in
#: that scale's px) are that scale's to find, not this one's (read_faces' finer): a close-up is for pips
#: too large for the finer filter. Half: a margin under the filter's reach (pips up to its size).
SPANNED_BY_FINER = 0.5
MIN_SNR = 8.0  # surround_snr below this: not a pip on a plain die face on its own (a weak pip)
WEAK_SNR = 4.0  # surround_snr of a weak pip (a pip crowded by its face's other pips or by blur) at least
#: surround_snr of a faint pip at least (a blurred pip whose halo fills its ring): kept only on a face of
#: 4..6 pips that fits a d6 layout (_layout_face)
FAINT_SNR = 2.0  # grain, creases and glyph pieces score about 2 (measured on lurig wood photos)
SNR_SPREAD = 5.0  # a few weak pips this many times fainter than a face's strong ones: another face's?
PIXEL_BLUR = 0.6  # blur_ratio of sharp pips (99th percentile of sure 4s and 5s on matteop65)
MAX_BLUR = 2.5  # blur_ratio of a pip smeared over 2.5 times its width: still read, if its face is seen squarely
#: In a frame enlarged by interpolation (read_faces' enlarged: detect's finer reads of small dice), a face's pip
#: areas spread, from where each pip falls on the frame's pixel grid alone, by up to this over the pips' mean
#: diameter (px there) as a coefficient of variation: a 5 on a die of 19 px, pips ~2 px, enlarged twice measured
#: areas of 9..19 px^2 (cv 0.29), so it was no face by its layout and split into two 2s and a 1. Whether a group of
#: pips is one face by its layout (split_group's whole group, _layout_face) allows it; a face's confidence does not
#: (allowed there too, a side face below a 1 read as a sure 4 on a matteop65 photo shrunk by 0.8; in every face
#: confidence of every read, a photo shrunk by 0.65 lost its three 1s), nor does a read of the frame's own pixels
#: (there too, two sure 4s of matteop65 photos at half size became unsure). Tried in the first form: 1.0 gained 23
#: right dice of 1.5's 28 in renders of pip d6 at 25-45 px, 2.0 none more.
GRID_SIZE_SPREAD = 1.5
SQUARE_FACE = 0.8  # face roundness (layout_fit) from which a face is seen squarely
MOTION_ALIGN = 10.0  # degrees: pips smeared by one motion blur point their major axes within this of their mean
#: Two elongated pips whose major axes lie more than this many degrees apart point crosswise (nearer
#: perpendicular than alike): no pips of one face, whose circles a tilt or a motion blur stretch along one
#: direction (MOTION_ALIGN), but a numeral's digits and strokes (crosswise_pips).
CROSSWISE_DEGREES = 45.0
PIP_SOLIDITY = 0.8  # a pip blob's area over its convex hull's at least (cables, grain and merged pips: less)
PIECE_SOLIDITY = 0.75  # the same for a pip cut from merged pips (the watershed's cut is ragged)
PIP_CORE = 0.5  # a ragged blob's core: its pixels above this fraction of its peak response (_cored_pip)
SPLIT_STEP = 1.2  # threshold step when splitting merged pips apart (x the previous threshold)
#: A pip-shaped blob at least this round (minor over major axis) that falls apart into two pieces whose centres lie
#: closer than their mean diameter is one pip whose response rings its middle (_ring_halves), not two merged pips
RING_PIP_ROUNDNESS = 0.8
#: levels of splitting at most: a 6 merged into one blob falls apart into its columns, then its columns
#: into pips. A third level split numerals' strokes and wood grain (a quarter of lurig's splits) into
#: pieces no face was read from on lurig, realdice or matteop65, and no reading changed without it.
MAX_SPLIT_DEPTH = 2
#: Which sides of an image read for pips (left, right, top, bottom) are the frame's edges: all, for a whole frame.
FRAME_EDGES = (True, True, True, True)


@dataclass
class Pip:
    """One pip blob. x, y: centre (px); area (px^2); roundness: minor/major ellipse axis (0..1];
    angle: direction of the ellipse's major axis (degrees, image x towards y); contrast: 0..255
    response of the pip against its surround; blob: index of the blob at the frame's pip threshold
    that the pip was found in (pips split apart from one blob share it; -1 when unknown); snr: its
    surround_snr (below MIN_SNR a weak pip, only read as part of a face with strong pips or of a face
    its layout vouches for; below WEAK_SNR a faint pip, only read on such a face: _layout_face);
    outline: the blob's outer contour (Nx1x2 int px of the frame it was found in; None when not
    known), which triangle_fill is measured on; frayed: a ragged blob of a pip's size taken for a faint
    pip (_frayed_pip): a face that counts it is unsure."""

    x: float
    y: float
    area: float
    roundness: float
    angle: float
    contrast: float
    blob: int = -1
    snr: float = math.inf
    outline: np.ndarray | None = field(default=None, repr=False, compare=False)
    frayed: bool = False
    #: equivalent circle diameter, px: set from area when the pip is made (its measures do not change after;
    #: dataclasses.replace makes a new pip), not on each asking: a frame's pairwise tests ask ~10^5 times
    diameter: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.diameter = 2.0 * math.sqrt(self.area / math.pi)

    @functools.cached_property
    def triangle_fill(self) -> float:
        """The outline's area over the smallest triangle's around it (0..1; an ellipse 0.60, a triangle
        1.0: TRIANGLE_FILL; 0.0 when there is no outline). Measured when first asked: only a lone pip's
        is (read_faces), and cv2.minEnclosingTriangle costs more than the rest of a pip's measures."""
        if self.outline is None:
            return 0.0
        triangle, _ = cv2.minEnclosingTriangle(self.outline)
        return float(cv2.contourArea(self.outline) / max(triangle, 1e-6))

    @functools.cached_property
    def cov(self) -> np.ndarray:
        """2x2 covariance (px^2, read-only) of the pip's fitted ellipse as a uniform disc-like blob: axis
        variances (axis length / 4)^2 along its major and minor axes. Made when first asked: blur_ratio asks
        it of a pip in every face split_group tries it in."""
        major = math.sqrt(4.0 * self.area / (math.pi * max(self.roundness, 0.05)))
        minor = self.roundness * major
        a = math.radians(self.angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        cov = rot @ np.diag([major * major / 16.0, minor * minor / 16.0]) @ rot.T
        cov.setflags(write=False)
        return cov

    @property
    def major(self) -> float:
        """Major axis of the fitted ellipse, px: the diameter over the square root of the roundness (a
        tilt foreshortens a pip's minor axis only)."""
        return self.diameter / math.sqrt(max(self.roundness, 0.1))


@dataclass
class PipFace:
    """The top face of one pip die.

    value:      number of pips (1..6), or None when the pips do not make a d6 face
    confidence: 0..1 from layout fit, pip size consistency, roundness and contrast
    box:        (x, y, w, h) px of the face, in the frame the pips were found in
    cocked:     True when a neighbouring face is as visible as this one (die not lying flat, GEN-D01)
    polarity:   "dark" (dark pips on a light die) or "light" (light pips on a dark die)
    centre:     (x, y) px of the face centre
    runs_off:   True when the die's face runs on past its pips to the frame's edge as a face cut to
                some of its pips does (runs_off): pips of it may lie past the edge (see layout_in_frame)
    runs_off_asked: True when read_faces asked runs_off of it (a face read sure, not a lone pip at a close-up
                scale): runs_off False then says the edge cuts no pips of it off (lone_pip_in_frame)
    dice_as_pips: True when its 3 or more "pips" are marked inside (_marked_inside): small dice taken for pips,
                each showing its own (read unsure; detect._finer_faces reads their own pips at a finer scale)
    uncapped:   the confidence read before a doubt a die body round the face may answer (None: no such doubt):
                a lone pip's before detect._plausible_polarity capped it, of the frame's other pip polarity, or before
                the face round it, not quite plain, cost it some (reader.read_as_one); 2 or 3 pips' before the face
                round them, not plain, cost it some
                (face_roughness: a mottled die), or before a 3's one weak pip capped it, or a 2's or 3's weak pips
                beside one strong one where the face shows no fuller face's other pips (_no_fuller_face)
                (reader._vouched_by_body)
    weak:       no die by itself, but a die body round it may be one (read_faces' weak_ones): a lone weak pip, at
                most AMBIGUOUS_CAP (a small 1 pip of a die's other pips' size, blurred: surround_snr 4..8), or two
                far pips on a face not plain (_pair_far_pips' declined pair: a marbled die's 2, or two dice), at
                0.0, uncapped at its own confidence where the face shows no fuller face's other pips (_no_fuller_face),
                else at most AMBIGUOUS_CAP (reader._vouched_by_body)
    before_glint: the confidence read before a glint near it put its count in doubt (glints.hides_pip; 2 pips or
                more, no other doubt), or None: its pips are as sure a face of its polarity as that says (as_face),
                for the frame's pip polarity (detect._plausible_polarity) and for telling it from a glint
                (reader._glint); no die body answers the doubt on its count
    before_side: the confidence a 1 was read with before a side face beside it put it in doubt, and nothing else did
                (its pip's twin taken for a side face, which may be the other pip of a 2; a top face the frame's
                direction cannot tell from the side face beside it), or None: a finer read of its region that sees
                no such doubt reads it again (detect._finer_faces)
    """

    pips: list[Pip]
    value: int | None
    confidence: float
    box: tuple[int, int, int, int]
    cocked: bool
    polarity: str
    centre: tuple[float, float] = field(default=(0.0, 0.0))
    runs_off: bool = False
    runs_off_asked: bool = False
    dice_as_pips: bool = False
    uncapped: float | None = None
    weak: bool = False
    before_glint: float | None = None
    before_side: float | None = None

    @property
    def as_face(self) -> float:
        """How sure its pips make a die's face of its polarity, its count aside (0..1): before_glint where a glint
        put only its count in doubt, else its confidence."""
        return self.confidence if self.before_glint is None else self.before_glint


def doubted(face: PipFace, cap: float = AMBIGUOUS_CAP) -> PipFace:
    """face at most cap confident (a copy), for a doubt no die body answers: no uncapped confidence kept."""
    return replace(face, confidence=min(face.confidence, cap), uncapped=None, before_glint=None, before_side=None)


def pip_response(gray: np.ndarray, polarity: str, kernel_px: int) -> np.ndarray:
    """Local contrast of pip-sized blobs. gray: HxW uint8; polarity "dark" -> black-hat (dark blobs on
    light), "light" -> top-hat (light blobs on dark); kernel_px: odd structuring size, larger than a pip.
    The structuring element is OpenCV's ellipse of kernel_px; its closing and opening are made with the
    rectangles it is the union of (_ellipse_rectangles), the same pixels a third faster.
    Returns HxW uint8."""
    rects = _ellipse_rectangles(kernel_px)
    if polarity == "dark":
        return cv2.subtract(_morph(_morph(gray, rects, cv2.dilate, cv2.max), rects, cv2.erode, cv2.min), gray)
    return cv2.subtract(gray, _morph(_morph(gray, rects, cv2.erode, cv2.min), rects, cv2.dilate, cv2.max))


@functools.lru_cache(maxsize=None)
def _ellipse_rectangles(kernel_px: int) -> tuple[tuple[np.ndarray, tuple[int, int]], ...]:
    """OpenCV's elliptical structuring element of side kernel_px (odd) as the union of rectangles, one
    per row width (its rows are centred runs, widest in the middle rows): (kernel, anchor) each, the
    anchor placing the rectangle where it lies in the ellipse. Dilation (erosion) by a union of
    elements is the maximum (minimum) of the dilations (erosions) by each, and OpenCV filters a
    rectangle separably."""
    se = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kernel_px, kernel_px))
    widths = se.sum(axis=1)
    centre = kernel_px // 2
    out = []
    for w in sorted(set(int(v) for v in widths if v > 0)):
        rows = np.flatnonzero(widths >= w)
        out.append((np.ones((int(rows[-1] - rows[0] + 1), w), np.uint8), (w // 2, centre - int(rows[0]))))
    return tuple(out)


def _morph(gray: np.ndarray, rects: tuple[tuple[np.ndarray, tuple[int, int]], ...],
           op: Callable[..., np.ndarray], combine: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """gray (HxW uint8) dilated (op cv2.dilate, combine cv2.max) or eroded (cv2.erode, cv2.min) by the
    union of rects ((kernel, anchor) each, _ellipse_rectangles)."""
    out = op(gray, rects[0][0], anchor=rects[0][1])
    for kernel, anchor in rects[1:]:
        out = combine(out, op(gray, kernel, anchor=anchor))
    return out


def _median(values: np.ndarray) -> float:
    """The median of a 1-D array (np.median's value) by a partial sort, several times faster on the
    small arrays of one blob."""
    k = values.size // 2
    if values.size % 2:
        return float(np.partition(values, k)[k])
    part = np.partition(values, (k - 1, k))
    return (float(part[k - 1]) + float(part[k])) / 2.0


def _quantile(values: np.ndarray, q: float) -> float:
    """The q-quantile (0 <= q <= 1) of a non-empty 1-D array as np.percentile(values, 100 q) gives it (linear
    interpolation between the two order statistics round q (n - 1)), by a partial sort: np.percentile cost 128 us a
    call on numpy 2.4 (a pip's few dozen levels), this 6. Equal to it within float32 rounding (np.percentile
    interpolates a float32 array in float32)."""
    at = q * (values.size - 1)
    lo = int(at)
    hi = min(lo + 1, values.size - 1)
    part = np.partition(values, (lo, hi))
    a, b = float(part[lo]), float(part[hi])
    return a + (b - a) * (at - lo)


def surround_snr(gray: np.ndarray, x: float, y: float, radius: float) -> float:
    """How cleanly a blob at (x, y) px of the given radius (px) sits on a plain die face: the contrast
    between the blob's centre and a ring at 1.3..2.3 radii, over the ring's robust spread (median absolute
    deviation, so a neighbouring pip cutting the ring does not count). A pip on a die face scores well
    above MIN_SNR; dark spots on grain, cables or die edges score near 2."""
    return _snr(*_ring_and_inner(gray, x, y, radius))


def _ring_and_inner(gray: np.ndarray, x: float, y: float, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """The grey levels (of gray: HxW uint8, 1-D uint8 each) of the ring at 1.3..2.3 radii (px) around
    (x, y) px and of the blob's centre (within half a radius, at least 1.5 px): the surround and the
    centre surround_snr compares."""
    r_out = 2.3 * radius
    h, w = gray.shape
    x0, x1 = max(int(x - r_out) - 1, 0), min(int(x + r_out) + 2, w)
    y0, y1 = max(int(y - r_out) - 1, 0), min(int(y + r_out) + 2, h)
    win = gray[y0:y1, x0:x1]
    d2 = (np.arange(y0, y1) - y)[:, None] ** 2 + (np.arange(x0, x1) - x)[None, :] ** 2
    ring = win[(d2 > (1.3 * radius) ** 2) & (d2 < r_out * r_out)]
    inner = win[d2 < max(0.5 * radius, 1.5) ** 2]
    return ring, inner


def pip_marks(gray: np.ndarray, pip: Pip) -> float:
    """How far the inside of a pip (its ellipse shrunk to 0.6, in gray: HxW uint8, pip in gray's px)
    is from plain: the 90th percentile of its grey levels' deviations from their median, over the pip's
    contrast (the median of a ring at 1.7..2.5 of its radii, on the face around it, against the inside's
    median). A pip is one paint-filled dent: under 0.3; a small die taken for a pip shows its numerals
    and facets inside, 0.44 and more (MARKED_PIP). 0.0 when the frame cuts the inside off."""
    major = pip.major
    minor = major * pip.roundness
    r_out = 1.25 * major
    h, w = gray.shape
    x0, x1 = max(int(pip.x - r_out) - 1, 0), min(int(pip.x + r_out) + 2, w)
    y0, y1 = max(int(pip.y - r_out) - 1, 0), min(int(pip.y + r_out) + 2, h)
    t = math.radians(pip.angle)
    dx = (np.arange(x0, x1) - pip.x)[None, :]
    dy = (np.arange(y0, y1) - pip.y)[:, None]
    u = (dx * math.cos(t) + dy * math.sin(t)) / (major / 2)
    v = (-dx * math.sin(t) + dy * math.cos(t)) / max(minor / 2, 0.5)
    e = u * u + v * v
    win = gray[y0:y1, x0:x1].astype(np.float32)
    inner, ring = win[e < 0.6 ** 2], win[(e > 1.7 ** 2) & (e < 2.5 ** 2)]
    if inner.size == 0 or ring.size < 8:
        return 0.0
    level = _median(inner)
    contrast = abs(_median(ring) - level)
    return _quantile(np.abs(inner - level), 0.9) / max(contrast, 1.0)


def _snr(surround: np.ndarray, inner: np.ndarray) -> float:
    """The contrast between a blob's centre pixels (inner) and its surround (1-D uint8 grey levels), over
    the surround's robust spread (1.4826 x its median absolute deviation, so a neighbouring pip in it
    does not count) plus 1; 0 when the surround has under 8 pixels or the centre none (the frame cuts
    them off)."""
    if surround.size < 8 or inner.size == 0:
        return 0.0
    med, spread = _level_and_spread(surround)
    return float(abs(med - _median(inner)) / (spread + 1.0))


def _level_and_spread(values: np.ndarray) -> tuple[float, float]:
    """The median of grey levels (1-D uint8, at least one) and their robust spread: 1.4826 x their
    median absolute deviation (the standard deviation for normal noise; a few outliers, such as a
    neighbouring pip in a ring, do not count). Both are read off histograms (of the levels, then of
    twice their deviations, whole numbers as the median is a whole or half level): the values _median
    gives, exactly, without sorting the ring's hundreds of pixels twice (16 -> 12 us a ring on lurig)."""
    n = values.size
    middle = ((n - 1) // 2, n // 2)  # the order statistics whose mean is the median (one for odd n)
    low, high = np.bincount(values, minlength=256).cumsum().searchsorted(middle, side="right")
    twice_med = int(low) + int(high)
    twice_dev = np.abs(values.astype(np.int16) * 2 - twice_med)
    dev_low, dev_high = np.bincount(twice_dev).cumsum().searchsorted(middle, side="right")
    return twice_med / 2.0, 1.4826 * ((int(dev_low) + int(dev_high)) / 4.0)


def streak_snr(gray: np.ndarray, ellipse: tuple[tuple[float, float], tuple[float, float], float]) -> float:
    """surround_snr of a pip smeared into a streak, measured beside it: over the band along its major
    axis (within its half-length) at 1.3..2.3 half-widths from it. ellipse: ((x, y), (w, h), angle) px and
    degrees as cv2.fitEllipse gives it, over gray (HxW uint8). Along a motion streak lie what the blur
    smeared into it (the next pip of its column, the die's blurred edge), so the ring of surround_snr
    misses a streaked pip that the plain face beside it shows clearly."""
    (x, y), (w, h), angle = ellipse
    a, b = max(w, h) / 2.0, max(min(w, h) / 2.0, 1.0)
    t = math.radians(angle if w >= h else angle + 90.0)
    r_out = max(a, 2.3 * b)
    hh, ww = gray.shape
    x0, x1 = max(int(x - r_out) - 1, 0), min(int(x + r_out) + 2, ww)
    y0, y1 = max(int(y - r_out) - 1, 0), min(int(y + r_out) + 2, hh)
    dx = (np.arange(x0, x1) - x)[None, :]
    dy = (np.arange(y0, y1) - y)[:, None]
    u = dx * math.cos(t) + dy * math.sin(t)
    v = np.abs(-dx * math.sin(t) + dy * math.cos(t))
    win = gray[y0:y1, x0:x1]
    band = win[(np.abs(u) < a) & (v > 1.3 * b) & (v < 2.3 * b)]
    inner = win[(u / max(0.5 * a, 1.5)) ** 2 + (v / max(0.5 * b, 1.5)) ** 2 < 1.0]
    return _snr(band, inner)


@dataclass
class _Blob:
    """A blob of the pip mask as _blob_shape measures it: its outer contour (Nx1x2 int px), area
    (px^2), bounding box (x, y, w, h px), and whether its shape is a pip's (a filled, convex ellipse,
    fitted as (centre, axes, angle) by cv2.fitEllipse) rather than ragged (merged pips, grain, cables)."""

    contour: np.ndarray
    area: float
    box: tuple[int, int, int, int]
    ellipse: tuple[tuple[float, float], tuple[float, float], float] | None

    @property
    def splittable(self) -> bool:
        """Large enough to hold two pips (MIN_PIP_AREA_PX each)."""
        return self.area >= 2 * MIN_PIP_AREA_PX

    @functools.cached_property
    def inside(self) -> np.ndarray:
        """hxw uint8 over the blob's box: 1 on the blob (its contour filled), 0 elsewhere; read-only. Drawn when
        first asked: a ragged blob is asked it to be split (_split_blob), then for its core (_cored_pip)."""
        x, y, w, h = self.box
        inside = np.zeros((h, w), np.uint8)
        cv2.drawContours(inside, [self.contour], -1, 1, -1, offset=(-x, -y))
        inside.setflags(write=False)
        return inside


def _blob_shape(c: np.ndarray, shape: tuple[int, ...], piece: bool, max_side: float, min_area: float) -> _Blob | None:
    """The blob of outer contour c (Nx1x2 int px of a frame of shape (H, W)), or None when it is no
    pip nor merged pips: smaller than MIN_PIP_AREA_PX, or cut by the frame's edge (not whole), or not
    wanted: its bounding box longer than max_side px, or its area under min_area px^2. Its ellipse is
    None when it is ragged: solidity (area over its convex hull's) under PIP_SOLIDITY (PIECE_SOLIDITY
    for a piece cut by a watershed, whose cut is ragged) or not filling its fitted ellipse (0.6..1.4
    of its area). Cheap tests first: most blobs of a scene fail them, before the hull and the ellipse
    are fitted."""
    if len(c) < 5:
        return None
    area = cv2.contourArea(c)
    if area < MIN_PIP_AREA_PX or area < min_area:
        return None
    x, y, bw, bh = cv2.boundingRect(c)
    if x == 0 or y == 0 or x + bw >= shape[1] or y + bh >= shape[0]:
        return None  # cut by the frame edge: not a whole pip
    if max(bw, bh) > max_side:
        return None
    blob = _Blob(c, area, (x, y, bw, bh), None)
    # a pip fills its fitted ellipse and is convex; cables, grain, creases and merged pips do not
    if area / max(cv2.contourArea(cv2.convexHull(c)), 1e-6) < (PIECE_SOLIDITY if piece else PIP_SOLIDITY):
        return blob
    (cx, cy), (w, h), angle = cv2.fitEllipse(c)
    major, minor = max(w, h), min(w, h)
    if major <= 0:
        return None
    if 0.6 < area / max(math.pi * major * minor / 4.0, 1e-6) < 1.4:
        blob.ellipse = ((cx, cy), (w, h), angle)
    return blob


def _blob_pip(blob: _Blob, response: np.ndarray, snr: float) -> Pip:
    """The pip of a pip-shaped blob (blob.ellipse set) of the pip_response map response (HxW uint8),
    given its surround_snr."""
    assert blob.ellipse is not None
    (cx, cy), (w, h), angle = blob.ellipse
    major, minor = max(w, h), min(w, h)
    x, y, bw, bh = blob.box
    contrast = float(response[y:y + bh, x:x + bw][blob.inside > 0].mean())
    major_angle = angle if w >= h else angle + 90.0
    return Pip(float(cx), float(cy), float(blob.area), float(minor / major), float(major_angle % 180.0), contrast,
               snr=snr, outline=blob.contour)


def _frayed_pip(blob: _Blob, response: np.ndarray, gray: np.ndarray) -> Pip | None:
    """The pip a ragged blob (blob.ellipse None) of a pip's size may be: faint (snr FAINT_SNR) and
    frayed, its ellipse the one of its second moments; None when it is no pip's shape at all:
    narrower than 1:2, or on a surround busier than a weak pip's (surround_snr under WEAK_SNR). A pip
    whose outline a dark exposure or the camera's noise frayed fails the pip shape test (_blob_shape's
    solidity) and does not fall apart: matteop65's four_50 at half brightness lost one pip of its 4 so
    and read as a sure 2 (the pips left out taken for a side face), six_45 with grey-level noise of sd
    8 a pip of its 6 and read as a sure 4. The ellipse is not fitted (cv2.fitEllipse: 50 us a blob)."""
    m = cv2.moments(blob.contour)
    half_sum, root = (m["mu20"] + m["mu02"]) / 2, math.hypot((m["mu20"] - m["mu02"]) / 2, m["mu11"])
    if m["m00"] <= 0 or half_sum - root < 0.25 * (half_sum + root):  # axes go as their square roots
        return None  # most ragged blobs (grain, strokes) are long
    # the ellipse of the blob's moments (a filled ellipse's full axis is 4 x sqrt(eigenvalue / area))
    major, minor = 4 * math.sqrt((half_sum + root) / m["m00"]), 4 * math.sqrt((half_sum - root) / m["m00"])
    cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
    if surround_snr(gray, cx, cy, major / 2.0) < WEAK_SNR:
        return None
    angle = math.degrees(0.5 * math.atan2(2 * m["mu11"], m["mu20"] - m["mu02"]))  # the major axis's
    pip = _blob_pip(_Blob(blob.contour, blob.area, blob.box, ((cx, cy), (major, minor), angle)), response, FAINT_SNR)
    pip.frayed = True
    return pip


def _cored_pip(blob: _Blob, response: np.ndarray, gray: np.ndarray, level: float, max_side: float,
               min_area: float) -> Pip | None:
    """The pip a ragged blob (blob.ellipse None) that does not fall apart holds as its one core, or None.
    A pip's halo may run into a weaker tail at the pip threshold level: the dark edge between a light die and a
    darker floor or the die's shadow (a pip near its face's edge), or the light edge of a die on a floor darker still
    (light pips). The blob is then ragged, has one peak only, so _split_blob finds no two cores, and the pip was
    lost. Its core is the blob's pixels above PIP_CORE (half) of its peak response, the peak at least twice level
    (the tail under half of it), in one piece, grown back by one pixel (4-neighbour) over the blob: a pip when that is
    pip-shaped (_blob_shape's ellipse, at max_side px and min_area px^2 as the blob was) and some of the blob is left
    over, with the surround_snr of the core (FAINT_SNR at least; a weak or faint pip is weighed as any other).
    response: HxW uint8 pip_response of gray (HxW uint8). Renders of random-coloured pip d6 (300 scenes each):
    at 25-45 px 813 -> 825 of 1168 dice read right, unsure 365 -> 352; at 60-90 px 1064 -> 1075, unsure 189 -> 174;
    at 18-36 px 506 -> 515, sure and wrong 17 -> 15; crowds of 12-21 dice 3642 -> 3665 of 4878, 4307 -> 4323
    found; none more sure and wrong. The bench reads as before but two shrunk matteop65 frames' unsure side faces
    (one an unsure 4 no one threw, now gone) and one more turned die unsure (54 of 3240); every 8th matteop65 photo
    cut through each die by the frame's edge reads one more crop sure and wrong (38): dice_46, where a camera low
    over the table sees side faces about as large as top faces and the frame's direction is a near thing
    (_toward_camera), one side face's pip found split that face into two groups, and their two votes turned it.
    Without the peak test the edges of dice on a floor of about their grey (a core 100 and tail 68 over level 56)
    were taken for pips, stray marks that put 12 right sure faces of the 60-90 px renders in doubt."""
    x, y, w, h = blob.box
    inside = blob.inside
    crop = response[y:y + h, x:x + w] * inside
    at = PIP_CORE * float(crop.max())
    if at < level:
        return None  # no core stands out of the blob: grain, an edge, a crease
    above = (crop > at).view(np.uint8)
    if cv2.connectedComponents(above)[0] != 2:  # the background and one core
        return None
    core = cv2.bitwise_and(cv2.dilate(above, cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))), inside)
    if cv2.countNonZero(core) == cv2.countNonZero(inside):
        return None  # no tail: the blob is ragged by itself
    outer, _ = cv2.findContours(core, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE, offset=(x, y))
    pip = _blob_shape(outer[0], response.shape, False, max_side, min_area) if len(outer) == 1 else None
    if pip is None or pip.ellipse is None:
        return None
    (cx, cy), axes, _ = pip.ellipse
    snr = surround_snr(gray, cx, cy, max(axes) / 2.0)
    if snr < FAINT_SNR:
        return None
    cored = _blob_pip(pip, response, snr)
    cored.outline = None  # the core grown by a pixel is too coarse an outline to tell a triangle by (triangle_fill)
    return cored


def _split_blob(response: np.ndarray, mask: np.ndarray, level: float, relief: np.ndarray,
                offset: tuple[int, int]) -> tuple[list[np.ndarray], float]:
    """A blob of merged pips (mask: hxw uint8, 1 on the blob, over response, an hxw uint8 crop) split
    into its pips: the lowest threshold above level (in steps of SPLIT_STEP) at which the blob falls
    apart into two or more cores (of 2 px or more), each core then grown back over the blob by a
    watershed on the response (relief: (h+2)x(w+2)x3 uint8, 255 - response as BGR over the crop grown
    by 1 px each side; the watershed never reads that outer ring, which it marks as boundary). Returns
    the outer contours (Nx1x2 int px, the crop's px plus offset (x, y): the frame's) of the pieces of
    MIN_PIP_AREA_PX or more, piece by piece, [] when the blob does not fall apart, and the threshold
    that split it. Thresholds are tried while 4 or more pixels lie above them (two
    cores of 2 px; counting the blob's peaks first to stop at the second highest cost more than the
    few thresholds it spares)."""
    masked = response * mask
    t = level * SPLIT_STEP
    while True:
        _, above = cv2.threshold(masked, t, 1, cv2.THRESH_BINARY)  # masked > t (uint8: > floor(t), the same)
        if cv2.countNonZero(above) < 4:
            return [], t  # too few pixels left for two cores of 2 px, here or at any higher threshold
        n, cores = cv2.connectedComponents(above)
        if n > 2:  # two blobs or more above t (label 0 is the background): are two of them cores?
            seeds = np.bincount(cores.ravel(), minlength=n) >= 2  # cores of 2 px or more
            seeds[0] = False  # the background
            if np.count_nonzero(seeds) >= 2:
                break
        t *= SPLIT_STEP
    if np.count_nonzero(seeds) < n - 1:  # a blob of 1 px above t is no core: no marker
        cores = np.where(seeds, np.arange(n, dtype=np.int32), 0)[cores]
    # padded by 1 px: OpenCV's watershed marks the image's outer ring as boundary
    markers = cv2.copyMakeBorder(cores, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    cv2.watershed(relief, markers)
    labels = np.maximum(markers[1:-1, 1:-1] * mask, 0)  # the watershed's lines between pieces: 0
    sizes = np.bincount(labels.ravel(), minlength=n)[:n]
    pieces = np.flatnonzero(seeds & (sizes > 0) & (sizes < cv2.countNonZero(mask)))
    if len(pieces) < 2:
        return [], t
    found: list[np.ndarray] = []
    for k in pieces.tolist():
        if sizes[k] >= MIN_PIP_AREA_PX:
            outer, _ = cv2.findContours((labels == k).view(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE,
                                        offset=offset)
            found += outer
    return found, t


def find_pips(response: np.ndarray, gray: np.ndarray, max_diameter: float, min_contrast: float = 25.0,
              within: list[tuple[int, int, int, int]] | None = None,
              min_diameter: float = 0.0) -> tuple[list[Pip], float]:
    """Pip candidates in a pip_response map (of gray, HxW uint8): Otsu threshold (never below
    min_contrast), then elliptical, compact blobs on a plain surround (surround_snr >= MIN_SNR; weak
    and faint ones down to FAINT_SNR are kept with their snr, for read_faces to weigh) whose
    equivalent circle diameter is under max_diameter px (the pip filter's size: a larger blob is no
    pip it can measure).
    A blob that is no ellipse (pips merged by blur or close spacing) is split at a higher threshold
    (_split_blob) and its pieces tested again; a blob that is a pip itself (an ellipse on a plain
    surround, surround_snr >= MIN_SNR) stays whole, and one on a busier surround stays whole unless
    it falls apart into two or more pips. within: boxes (x, y, w, h px); when given, only the blobs
    whose box meets one of them are looked at (the threshold is still the whole map's). min_diameter:
    pips under this equivalent diameter (px) are not wanted; a blob smaller than that is not split,
    since its pieces are smaller still (read_faces' close-up scales: the finer scale reads those).
    A blob inside another's hole is looked at too (pips ringed by their die's dark outline or a floor's grain were
    unread: renders of random-coloured pip d6 at 60-90 px, right 1075 -> 1078 of 1168, crowds 3665 -> 3673 of 4878;
    every bench image read as before but one fickett d12 tile, an unsure 8, now an unsure d6 2 of its numeral's
    strokes).
    A ragged blob that does not fall apart may hold one pip whose halo runs into a weaker tail (a die's edge
    beside it): the blob's core is that pip (_cored_pip). A ragged blob of a pip's size that has no such core may be
    a pip whose outline frayed: it is a faint pip (_frayed_pip), read only on a face its layout vouches for, and
    never as a sure one.
    Returns (pips, threshold used)."""
    otsu, mask = cv2.threshold(response, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)  # mask: response > otsu
    thr = max(float(otsu), min_contrast)
    if thr > otsu:
        _, mask = cv2.threshold(response, thr, 255, cv2.THRESH_BINARY)  # response > thr (uint8: > floor(thr))
    # every blob's outer contour, a blob inside another's hole too (RETR_CCOMP: outer contours have no parent): a die's
    # outline or a floor's grain darker than both the die and the floor rings its face, and its pips lie in the hole
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    contours = [c for c, h in zip(contours, hierarchy[0] if hierarchy is not None else []) if h[3] < 0]
    if within is not None:
        contours = [c for c in contours if any(meets(cv2.boundingRect(c), b) for b in within)]
    max_area = math.pi / 4.0 * max_diameter * max_diameter
    min_area = math.pi / 4.0 * min_diameter * min_diameter
    max_face = FACE_SIDE_DIAMETERS * max_diameter  # the face of the largest pips
    relief: list[np.ndarray] = []

    def split(blob: _Blob, level: float, depth: int, blob_id: int) -> list[Pip]:
        """The pips the blob falls apart into (none when it does not)."""
        if not blob.splittable or depth >= MAX_SPLIT_DEPTH:
            return []
        x, y, w, h = blob.box
        if not relief:  # the watershed's relief, made once per frame when its first blob is split
            relief.append(cv2.cvtColor(255 - response, cv2.COLOR_GRAY2BGR))
        # a blob is whole in the frame (_blob_shape), so its box grown by 1 px lies in the frame
        pieces, split_at = _split_blob(response[y:y + h, x:x + w], blob.inside, level,
                                       relief[0][y - 1:y + h + 1, x - 1:x + w + 1], (x, y))
        return [q for o in pieces for q in pips_of(o, split_at, depth + 1, blob_id)]

    def pips_of(c: np.ndarray, level: float, depth: int, blob_id: int) -> list[Pip]:
        blob = _blob_shape(c, response.shape, depth > 0, max_face, min_area)
        if blob is None:
            return []  # no pip, nor merged pips of one face (a dome's rim, a cable, a tray's edge), nor one wanted
        if blob.ellipse is None:  # ragged: merged pips, or no pip at all
            found = split(blob, level, depth, blob_id)
            if not found and blob.area < max_area:  # one pip whose halo runs into a weaker tail?
                cored = _cored_pip(blob, response, gray, level, max_face, min_area)
                if cored is not None:
                    cored.blob = blob_id
                    return [cored]
            if found or depth > 0 or not blob.splittable or blob.area >= max_area:
                return found
            frayed = _frayed_pip(blob, response, gray)  # a pip's size, whole: a pip whose outline frayed?
            if frayed is None:
                return []
            frayed.blob = blob_id
            return [frayed]
        (cx, cy), axes, _ = blob.ellipse
        if blob.area >= max_area:
            # too large to be one pip itself: only its pieces may be pips, and those only when its
            # surround is not plain (a plain one makes it one large blob, never split)
            if surround_snr(gray, cx, cy, max(axes) / 2.0) >= MIN_SNR:
                return []
            return split(blob, level, depth, blob_id)
        snr = surround_snr(gray, cx, cy, max(axes) / 2.0)
        # merged pips have no plain ring around them: a pip on a busier one may be several
        found = split(blob, level, depth, blob_id) if snr < MIN_SNR else []
        if _ring_halves(axes, found):
            found = []  # one pip split at its middle, where its response dips
        if len(found) >= 2:
            return found
        if snr < FAINT_SNR and min(axes) < SQUARE_FACE * max(axes) and streak_snr(gray, blob.ellipse) >= MIN_SNR:
            snr = FAINT_SNR  # a pip smeared into a streak (alone or cut from a bar): faint, read only on a face its layout vouches for
        if snr < FAINT_SNR:
            return found
        pip = _blob_pip(blob, response, snr)
        pip.blob = blob_id
        return [pip]  # a blob that does not fall apart into pips is one pip (smeared, or its halo blurred)

    pips = [pip for i, c in enumerate(contours) for pip in pips_of(c, thr, 0, i)]
    unique: list[Pip] = []
    for pip in pips:  # a blob reached along two splitting paths is one pip
        if all(abs(pip.x - q.x) + abs(pip.y - q.y) > 1.0 for q in unique):
            unique.append(pip)
    return unique, thr


def _ring_halves(axes: tuple[float, float], pieces: list[Pip]) -> bool:
    """Whether the pieces a pip-shaped blob (its fitted ellipse's axes, px) fell apart into are halves of one pip's
    ring of response, not merged pips: two pieces of a blob at least RING_PIP_ROUNDNESS round, their centres closer
    than their mean diameter (px). A dented pip catching the light in its middle, or a light pip whose paint is
    thinner there, has a response that rings it: a dark red 3's pip on an orange die near its edge rose to 74-77 on
    its rim and 52 in its middle over the frame's threshold of 40; its blob (27 px^2, 5.9 x 6.2 px) stood on a
    surround of the die's edge (surround_snr 5.3, under MIN_SNR), so it was split at 58 into pieces of 10 and 8 px^2
    2.8 px apart, and the 3 read as a 2 and two twin pips. Two merged pips make a blob about twice as long as wide,
    and the cores they fall apart into lie a pip's diameter apart or more. Renders of pip d6 in random colours (300
    scenes each): right at 60-90 px 1107 -> 1110 of 1168, crowds 3696 -> 3699 of 4878, at 18-36 px one die unsure ->
    sure; at 25-45 px a die read right by chance (confidence 0.0) is read wrong (0.02); none more sure and wrong, every
    bench image as before. Tried apart: roundness alone kept a small die's merged pips whole (a 5 on a 21 px die read
    finer, its pieces 10 px apart and 6.4 across: then an unsure 1), nearness alone a blob at a matteop65 die's lower
    edge (pieces 5.5 px apart and 5.6 across), which turned that photo's sure 1 unsure."""
    if len(pieces) != 2 or min(axes) < RING_PIP_ROUNDNESS * max(axes):
        return False
    a, b = pieces
    return math.hypot(a.x - b.x, a.y - b.y) < 0.5 * (a.diameter + b.diameter)


def _pip_discs(pips: list[Pip]) -> np.ndarray:
    """(N, 3) float64 per pip: its centre x, y (px) and the reach round it (px) where _segment_clear
    samples no die body: 0.75 of its diameter from its centre, plus a pixel (its contour, whose area
    gives the diameter, runs through its edge pixels' centres, and a sample is the pixel nearest its
    point; pips 3 px across show their edge pixels at 0.75 diameters). Made once for the frame's pips,
    not once per segment tested."""
    return np.array([[p.x, p.y, 0.75 * p.diameter + 1.0] for p in pips], np.float64).reshape(-1, 3)


def _segment_clear(a: Pip, b: Pip, response: np.ndarray, thr: float, discs: np.ndarray) -> bool:
    """True when the die body between pips a and b has no dark crease (no other pip, no gap between
    two dice or two faces): _segments_clear for the one segment."""
    return bool(_segments_clear(np.array([[a.x, a.y, b.x, b.y]]), response, thr, discs)[0])


def _segments_clear(ends: np.ndarray, response: np.ndarray, thr: float, discs: np.ndarray) -> np.ndarray:
    """Per segment (ends: (K, 4) float64, x, y of one end and x, y of the other, px), True when the die
    body along it has no dark crease (no other pip, no gap between two dice or two faces): the response
    (HxW uint8) stays above SEAM_FRACTION of the pip threshold thr on at most 12 % of its samples, one
    sample a px from end to end, those within a pip's reach left out (discs: _pip_discs of the frame's
    pips); fewer than 2 samples left: clear. Returns (K,) bool. Every segment at once: a pip's reach is
    tested only on segments whose middle lies within half the segment's length of it (no nearer sample
    can reach it), not every pip on every sample."""
    k = len(ends)
    if k == 0:
        return np.zeros(0, bool)
    ax, ay, bx, by = (ends[:, c] for c in range(4))
    n = np.array([max(int(math.hypot(x1 - x0, y1 - y0)), 2) for x0, y0, x1, y1 in ends.tolist()])
    seg = np.repeat(np.arange(k), n)
    start = np.cumsum(n) - n
    # np.linspace(a, b, n) for x and y per segment, as it computes them
    t = (np.arange(len(seg)) - start[seg]).astype(np.float64)
    xs, ys = t * ((bx - ax) / (n - 1))[seg] + ax[seg], t * ((by - ay) / (n - 1))[seg] + ay[seg]
    last = start + n - 1
    xs[last], ys[last] = bx, by
    # the pips that may reach a segment, then each such pip's reach on that segment's samples
    half = 0.5 * np.hypot(bx - ax, by - ay)
    mid_to_pip = np.hypot(((ax + bx) / 2)[:, None] - discs[None, :, 0], ((ay + by) / 2)[:, None] - discs[None, :, 1])
    near_k, near_j = np.nonzero(mid_to_pip <= half[:, None] + discs[None, :, 2] + 1e-6)
    per = n[near_k]
    pair = np.repeat(np.arange(len(near_k)), per)
    sample = start[near_k][pair] + (np.arange(len(pair)) - (np.cumsum(per) - per)[pair])
    j = near_j[pair]
    off = np.ones(len(seg), bool)
    off[sample[np.hypot(xs[sample] - discs[j, 0], ys[sample] - discs[j, 1]) < discs[j, 2]]] = False
    h, w = response.shape
    vals = response[np.clip(ys[off].round().astype(int), 0, h - 1), np.clip(xs[off].round().astype(int), 0, w - 1)]
    kept = np.bincount(seg[off], minlength=k)
    over = np.bincount(seg[off][vals > SEAM_FRACTION * thr], minlength=k)
    return (kept < 2) | (over / np.maximum(kept, 1) <= 0.12)


def _linked(a: Pip, b: Pip) -> bool:
    """Geometric test that two pips may belong to one face: close in pip diameters, same size and
    the same foreshortening."""
    d = math.hypot(a.x - b.x, a.y - b.y)
    dia = 0.5 * (a.diameter + b.diameter)
    ratio = max(a.area, b.area) / max(min(a.area, b.area), 1e-6)
    return d <= LINK_DIAMETERS * dia and ratio <= 1.8 and _roundness_alike(a, b, 0.25)


def crosswise_pips(group: list[Pip]) -> bool:
    """Whether two pips of a group (one face's) are elongated crosswise, so they are no pips of one
    face: each plainly elongated (roundness under SQUARE_FACE, as _smeared_alike asks, and 1 - roundness
    over 2/d for a pip d px across, twice what cv2.fitEllipse's half-pixel errors make a round pip's
    roundness off by: see _roundness_alike; a near-round blob's axis points anywhere) and their major
    axes more than CROSSWISE_DEGREES apart. The pips of one face are circles on one plane: a tilt
    foreshortens them all along one direction, and a motion blur smears them all along one; a
    numbered die's digits, read as pips, point each its own way. Measured: realdice's d20 digits read
    as a 2, 0.63..0.77 round, axes 63 and 75 degrees apart (on a third photo one digit measured 0.81,
    round by this test; on a fourth the two point alike, 23 and 26 degrees); matteop65's pip faces of
    2 to 6 pips (1075, photos and close-ups), none crosswise (their pips 0.88 round at the median, 0.74
    at the 10th percentile); drawn pip faces, sharp or smeared, 22 degrees at most between elongated
    pips. group: one face's pips (px of the frame they were found in, or scaled to it)."""
    long = [p for p in group if p.roundness < SQUARE_FACE and 1.0 - p.roundness > 2.0 / max(p.diameter, 1e-6)]
    for a, b in itertools.combinations(long, 2):
        if _axial_turn(a.angle, b.angle) > CROSSWISE_DEGREES:
            return True
    return False


def _roundness_alike(a: Pip, b: Pip, tolerance: float) -> bool:
    """True when pips a and b are foreshortened alike: their roundness (minor / major axis) differs by
    at most tolerance, or by at most what pixels let it be measured to where that is more. cv2.fitEllipse's
    axes on a blob are off by up to half a pixel each, so the roundness of a round pip d px across is off
    by up to 1/d (both axes off, opposite ways), and a difference of two pips by up to 2/d: 0.54 for pips
    3.7 px across (small dice at the analysis scale, 640 px long: any photo's), within _linked's 0.25
    from 8 px on and twins' 0.2 from 10 px on."""
    return abs(a.roundness - b.roundness) <= max(tolerance, 4.0 / (a.diameter + b.diameter))


def group_faces(pips: list[Pip], response: np.ndarray, thr: float) -> list[list[Pip]]:
    """Group pips into faces (single linkage over _linked pairs with a clear segment between them, and
    over pips split apart from one blob that lie within LINK_DIAMETERS of each other: merged by blur,
    their pieces differ in size and shape and the blob joins them, but they lie on one face)."""
    parent = list(range(len(pips)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    # both links need pips within LINK_DIAMETERS of each other: the pairs that are, found at once
    xy = np.array([[p.x, p.y] for p in pips]).reshape(-1, 2)
    dia = np.array([p.diameter for p in pips])
    reach = LINK_DIAMETERS * 0.5 * (dia[:, None] + dia[None, :]) * (1 + 1e-9)  # slack for rounding
    near = np.triu(np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1]) <= reach, 1)
    links, tested = [], []
    for i, j in zip(*np.nonzero(near)):
        a, b = pips[i], pips[j]
        if a.blob >= 0 and a.blob == b.blob:
            if math.hypot(a.x - b.x, a.y - b.y) <= LINK_DIAMETERS * 0.5 * (a.diameter + b.diameter):
                links.append((i, j))
        elif _linked(a, b):
            tested.append((i, j))
    if tested:
        ends = np.array([[pips[i].x, pips[i].y, pips[j].x, pips[j].y] for i, j in tested])
        links += [ij for ij, clear in zip(tested, _segments_clear(ends, response, thr, _pip_discs(pips))) if clear]
    for i, j in links:
        parent[root(i)] = root(j)
    groups: dict[int, list[Pip]] = {}
    for i, p in enumerate(pips):
        groups.setdefault(root(i), []).append(p)
    return list(groups.values())


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _frontalness(group: list[Pip]) -> float:
    """How squarely a face looks at the camera: mean pip area times mean roundness."""
    return _mean([p.area for p in group]) * _mean([p.roundness for p in group])


def _extent(group: list[Pip]) -> float:
    xs = [p.x for p in group]
    ys = [p.y for p in group]
    return max(max(xs) - min(xs), max(ys) - min(ys)) + max(p.diameter for p in group)


def _centre(group: list[Pip]) -> tuple[float, float]:
    return _mean([p.x for p in group]), _mean([p.y for p in group])


def layout_fit(group: list[Pip]) -> tuple[float, np.ndarray | None]:
    """How well the pip centres make the d6 layout of their count: (error, face_shape).
    error: RMS distance to the best affine image of the layout, in pip pitches (0 = exact; inf for 7+
    pips). face_shape (4 and 5 pips): 2x2 covariance of the image of a circle on the face under that
    affine map, scaled to a largest eigenvalue of 1 (its eigenvalue ratio is the squared face
    roundness); its pips, circles on that face, are foreshortened alike (see blur_ratio).
    None for 1..3 pips (too few to fix the map) and for 6 (dice space a six's rows unlike its columns)."""
    n = len(group)
    if n not in D6_LAYOUTS:
        return math.inf, None
    pts = np.array([[p.x, p.y] for p in group])
    dia = _mean([p.diameter for p in group])
    if n == 1:
        return 0.0, None
    if n == 2:
        pitch_in_dia = math.hypot(*(pts[1] - pts[0])) / dia / (2 * math.sqrt(2))
        return max(0.0, 0.7 - pitch_in_dia, pitch_in_dia - TWO_DIAMETERS / (2 * math.sqrt(2))), None
    if n == 3:
        # collinear, the middle pip half-way between the outer two
        d = np.linalg.norm(pts[:, None] - pts[None], axis=2)
        i, j = np.unravel_index(np.argmax(d), d.shape)
        middle = 3 - int(i) - int(j)
        mid = (pts[i] + pts[j]) / 2
        return float(np.linalg.norm(pts[middle] - mid) / max(d[i, j] / 2, 1e-6)), None
    err, sol = _layout_map(pts)
    if n == 6:  # dice space a six's rows unlike its columns: its layout does not fix the face's shape
        return err, None
    linear = sol[:2, :]  # image point = canonical point (row vector) @ linear + offset
    shape = linear.T @ linear
    return err, shape / max(float(np.linalg.eigvalsh(shape)[-1]), 1e-9)


def _layout_map(pts: np.ndarray) -> tuple[float, np.ndarray]:
    """The affine map from the canonical d6 layout of len(pts) pips (2..6, pts: Nx2 px) that fits the
    pip centres best: (RMS error in pitches, 3x2 map M, read-only, image point = [u v 1] @ M). For 2 and 3
    the similarity taking the layout's diagonal onto the outer two pips; for 4..6 the least-squares affine
    map over the assignments a convex pattern allows (pips ordered around the centre; for 6, two
    columns of three). Kept for the same pip centres, which a frame asks of again and again (a face's
    confidence, then the marks on it, then its layout in the frame: half of a small-dice frame's ~200 fits)."""
    pts = np.ascontiguousarray(pts, np.float64)
    return _layout_map_of(pts.tobytes(), len(pts))


@functools.lru_cache(maxsize=1024)
def _layout_map_of(centres: bytes, n: int) -> tuple[float, np.ndarray]:
    """_layout_map of the n pip centres whose (n, 2) float64 array's bytes are centres."""
    pts = np.frombuffer(centres, np.float64).reshape(n, 2).copy()
    err, m = _fit_layout_map(pts)
    m.setflags(write=False)
    return err, m


def _fit_layout_map(pts: np.ndarray) -> tuple[float, np.ndarray]:
    """_layout_map, fitted."""
    n = len(pts)
    if n <= 3:
        d = np.linalg.norm(pts[:, None] - pts[None], axis=2)
        i, j = np.unravel_index(np.argmax(d), d.shape)
        half = (pts[j] - pts[i]) / 2  # canonical (1, 1) - centre
        rot = np.array([[half[0] + half[1], half[1] - half[0]], [half[0] - half[1], half[0] + half[1]]]) / 2
        return 0.0, np.vstack([rot, (pts[i] + pts[j]) / 2])
    orders = np.array(list(_six_orders(pts) if n == 6 else _ring_orders(pts, centre_pip=n == 5)))
    A, A_pinv = _LAYOUT_DESIGN[n]
    dst = pts[orders]  # (orders, n, 2)
    sol = A_pinv @ dst  # least-squares affine map from the canonical layout, per order: (orders, 3, 2)
    resid = A @ sol - dst
    pitch = np.sqrt(np.abs(np.linalg.det(sol[:, :2, :]))) + 1e-6
    errs = np.sqrt((resid ** 2).sum(axis=2).mean(axis=1)) / pitch
    k = int(errs.argmin())
    return float(errs[k]), sol[k].copy()  # not a view keeping every order's map


#: a lone pip's layout pitch in pip diameters (the centre pip of a 1 to the corners' rows and columns)
LONE_PITCH_DIAMETERS = 1.5


#: directions (over half a turn, 1 degree apart) in which lone_pip_in_frame looks at a lone pip's corner places
_PAIR_DIRECTIONS = np.linspace(0.0, math.pi, 180, endpoint=False)


def lone_pip_in_frame(face: PipFace, gray: np.ndarray) -> bool:
    """Whether a face of one dark pip is a 1 whose layout lies in the frame gray (HxW uint8, the face's px) however
    its face is turned, where layout_in_frame asks every corner place of every turn to lie in it:
    - the pip lies a diameter or more inside the frame: with less of its face seen toward the edge, runs_off's lines
      cannot tell a 2 cut to one pip, its twin past the edge (matteop65 photos cut so, 0.6 and 0.8 diameters in,
      read as sure 1s);
    - in every direction (_PAIR_DIRECTIONS), one of the two corner places opposite each other
      LONE_PITCH_DIAMETERS x sqrt 2 diameters from it (a 3's pair; a 5's are two such pairs) lie in the frame, each
      with half a diameter round it: a 3 or 5 centred on the pip would show a corner pip there;
    - the face there is plain: the 90th percentile of the grey levels' deviations, over the annulus where corner pips
      of any turn would lie (their places, a pip's radius either side) within the frame, from the face's level round
      the pip (the median 0.8 to 1.2 major axes from it, as runs_off's), is at most twice PLAIN_FACE of the pip's
      contrast (grain, _grain, taken off in quadrature as face_roughness does). A pip is a 1's only at its face's
      middle: a corner pip of a larger face that the edge cut to it has the die's edge, and the floor, that close;
    - the edge cuts no pip near it (_pip_cut_by_edge: a line of 3 cut to its end pip and a sliver of its middle);
    - read_faces looked along the edge for a face cut to it (PipFace.runs_off_asked; not for a lone pip at a
      close-up scale: there the twin of a 2 cut to one pip, past the edge, is told by nothing) and found none.
    So a 1 whose die one edge cuts is whole: matteop65's dice_37, its pip 1.34 diameters from the bottom edge, and
    the same die in the bench's shrunk, grainy and small-dice frames were unsure. Their annuli measured 0.03-0.065
    (grainy 0.084 -> 0.056 without its grain); matteop65 photos and close-ups cut through a 4's or 5's pip box (0.4
    of it kept: a lone corner pip at the edge, read as a sure 1 without the annulus) 0.13-0.53, most over 0.18.
    Not for a light pip (False): a light mark with no die seen round it is what a glyph or highlight makes
    (reader._glint), and the edge may cut off its die (a laptop key's light glyph 1.2 diameters from the top edge in
    the bench's glint row read so as a sure 1); nor for a face of other pips."""
    if len(face.pips) != 1 or face.polarity != "dark" or face.runs_off or not face.runs_off_asked:
        return False
    pip, (height, width) = face.pips[0], gray.shape[:2]
    dia, half = pip.diameter, pip.diameter / 2
    if not (dia <= pip.x <= width - dia and dia <= pip.y <= height - dia):
        return False

    def seen(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return (x >= half) & (x <= width - half) & (y >= half) & (y <= height - half)

    reach = LONE_PITCH_DIAMETERS * math.sqrt(2) * dia
    dx, dy = reach * np.cos(_PAIR_DIRECTIONS), reach * np.sin(_PAIR_DIRECTIONS)
    if not (seen(pip.x + dx, pip.y + dy) | seen(pip.x - dx, pip.y - dy)).all():
        return False
    r_out = reach + half
    x0, x1 = max(int(pip.x - r_out) - 1, 0), min(int(pip.x + r_out) + 2, width)
    y0, y1 = max(int(pip.y - r_out) - 1, 0), min(int(pip.y + r_out) + 2, height)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d = np.hypot(xx - pip.x, yy - pip.y)
    win = gray[y0:y1, x0:x1].astype(np.float32)
    ring, inside = win[(d > 0.8 * pip.major) & (d < 1.2 * pip.major)], win[d < 0.3 * dia + 0.5]
    annulus = win[np.abs(d - reach) <= half]
    if ring.size < 8 or inside.size == 0 or annulus.size < 8:
        return False
    level = _median(ring)
    contrast = level - _median(inside)
    if contrast <= 0.0 or _pip_cut_by_edge(gray, pip, level, contrast, 2 * reach + half):
        return False
    deviation = _quantile(np.abs(annulus - level), 0.9)
    if deviation > 2 * PLAIN_FACE * contrast:
        deviation = _without_grain(deviation, _grain(gray))
    return deviation <= 2 * PLAIN_FACE * contrast


def _pip_cut_by_edge(gray: np.ndarray, pip: Pip, level: float, contrast: float, reach: float) -> bool:
    """Whether the frame's edge cuts a dark pip within reach px of a lone dark pip (gray: HxW uint8, the frame, the
    pip in its px; level: its face's grey level, contrast: the pip's below it): along the frame's border within
    reach, a run of pixels darker than half-way to the pip, no longer than 1.5 of the pip's diameters, with lighter
    pixels either side, and at its darkest three quarters of the way (a pip's sliver; a shadow or the floor runs on
    further, or is not as dark: matteop65's wood in shade, half-way to a 1's pip, a run of 3 px along the border
    by dice_37's 1). A line of 3 cut to its end pip and a sliver of its middle, a 2 cut to one pip and a sliver of
    the other (its place on the diagonal, twice a 3's corner's reach)."""
    height, width = gray.shape[:2]
    for across, along, border in ((pip.y, pip.x, gray[0]), (height - 1 - pip.y, pip.x, gray[-1]),
                                  (pip.x, pip.y, gray[:, 0]), (width - 1 - pip.x, pip.y, gray[:, -1])):
        if across > reach:
            continue
        span = math.sqrt(reach * reach - across * across)
        levels = border[max(int(along - span), 0):int(along + span) + 1].astype(np.float32)
        runs = np.flatnonzero(np.diff(np.concatenate(([0], (levels < level - contrast / 2).astype(np.int8), [0]))))
        for start, end in zip(runs[::2], runs[1::2]):
            if (0 < start and end < levels.size and end - start <= 1.5 * pip.diameter
                    and levels[start:end].min() < level - 0.75 * contrast):
                return True
    return False


def layout_in_frame(face: PipFace, shape: tuple[int, ...]) -> bool:
    """Whether every place of the d6 layout a face's pips fix (the 3x3 grid of pip places through its
    layout map, _layout_map: a 2's and a 4's missing middle and corner places too), each with half a
    pip's diameter round it, lies inside a frame of shape (H, W, ...) in the face's px, and the die's
    face does not run on past its pips to the frame's edge (PipFace.runs_off). A place off the frame
    may hold a pip the frame cuts off: a 3 whose corner pip is off the frame shows a 2's layout, a 5
    a 4's. A pattern of a larger face may be cut too, beyond the places the visible pips fix: a 4 cut
    to one column shows a 2 whose diagonal layout lies inside the frame, a 6 cut so a 3 or a 4, a 3
    cut to a corner and its centre a 2 of half the pitch; its die's face then runs on to the edge
    where the missing pips lie, as a whole face's, ending inside the frame, does not. A lone pip fixes
    no orientation: its corner places may lie anywhere on a circle of LONE_PITCH_DIAMETERS x sqrt 2
    diameters round it. False for a face with no pips."""
    if not face.pips or face.runs_off:
        return False
    height, width = shape[0], shape[1]
    dia = _mean([p.diameter for p in face.pips])
    if len(face.pips) == 1:
        p = face.pips[0]
        r = (LONE_PITCH_DIAMETERS * math.sqrt(2) + 0.5) * dia
        return r <= p.x <= width - r and r <= p.y <= height - r
    _, m = _layout_map(np.array([[p.x, p.y] for p in face.pips]))
    grid = np.array([[u, v, 1.0] for u in (-1, 0, 1) for v in (-1, 0, 1)]) @ m
    half = dia / 2
    return bool((grid[:, 0] >= half).all() and (grid[:, 0] <= width - half).all()
                and (grid[:, 1] >= half).all() and (grid[:, 1] <= height - half).all())


#: under a camera looking down from 45 degrees or higher (over a tray), a die's top face is at least cos 45
#: degrees round (minor / major axis: the sine of the elevation) and a side face at most that (its cosine):
#: a face less round may be a side face (top_face_past_edge)
SIDE_FACE_ROUNDNESS = math.sqrt(0.5)
#: face sides from a face's centre within which a frame's edge may have cut off its die's top face: a side
#: face of roundness SIDE_FACE_ROUNDNESS and its top face (as round, the two perpendicular) lie this many
#: face sides apart, centre to centre ((r_side + r_top) / 2), and the top face's pips up to half a pip further
TOP_FACE_REACH = SIDE_FACE_ROUNDNESS + 0.5 / FACE_SIDE_DIAMETERS


def top_face_past_edge(face: PipFace, shape: tuple[int, ...]) -> bool:
    """Whether a pip face may be a side face of a die whose top face the frame's edge cut off: it is less
    round than SIDE_FACE_ROUNDNESS (more foreshortened than a top face seen from 45 degrees: its layout's
    roundness where a 4 or 5 gives one, which a blur does not flatten, else its pips' mean) and its centre
    lies within TOP_FACE_REACH face sides (face_side) of an edge of a frame of shape (H, W, ...), in the
    face's px. Where the top face is in the frame, its pairing with its side faces hides them (read_faces);
    where the edge cut it off, the side face is all the frame shows of the die. Measured on matteop65 photos
    cut through a die's pip box on each side (40, 60 and 75 % of it kept, every 8th photo: 2061 sure
    readings): sure and wrong 78 -> 37, of the dice cut 15 -> 2; every uncut photo reads as before, and
    of the bench's close-ups one 6 by the edge, right, is now unsure. False for a face with no pips."""
    if not face.pips or _face_roundness(face.pips) >= SIDE_FACE_ROUNDNESS:
        return False
    cx, cy = _centre(face.pips)
    height, width = shape[0], shape[1]
    return min(cx, cy, width - 1 - cx, height - 1 - cy) <= TOP_FACE_REACH * face_side(face.pips)


def runs_off(group: list[Pip], gray: np.ndarray, polarity: str, edges: tuple[bool, bool, bool, bool] = FRAME_EDGES,
             lopsided: bool = True) -> bool:
    """Whether the die face under a group of pips (1..5: a 6 is a whole face) runs on past them to the
    frame's edge as a face cut to some of its pips does (gray: HxW uint8, the group's px; polarity:
    "dark" or "light" pips): pips of a larger face may lie past the edge, so its count is unsure.
    edges: which of gray's sides (left, right, top, bottom) are the frame's edges (FRAME_EDGES: all; a
    region cut from a frame, detect._finer_faces, has sides inside it, past which the die goes on).

    Looked at along three lines from the pips' centre toward each edge within a face side (face_side)
    of a pip: square to the edge and at 45 degrees either side (a 2 cut to one pip has its missing
    pip on the diagonal). Along a line, the face runs on to the edge when nothing but face lies
    between: a pixel of the face is as plain as a face, within twice PLAIN_FACE of the pips' contrast
    of the face's grey level (the median 0.8 to 1.2 major axes round its pips; the contrast against
    the pips' median within 0.35); a run of other pixels between face pixels up to 1.5 major axes
    long is a pip with its blurred rim, and one where the line meets the edge is a pip the edge cuts
    when as dark as half-way to the pips, or when under half a pip wide with face beside it on the
    border (the rim of a pip whose centre lies past the edge). A face that ends before the edge (the
    die's edge and the table between, as Valid/valid_8's 2 4 px from the top edge) is whole that way.

    A face that runs on to the edge is cut when
    - square to the edge, a place of a larger face (_larger_face_places: a 2 or 3 in a line as a
      column of a 4 or 6, a 2 as a 3's corner and centre, a 2:1 block of 4 as two rows of a 6) lies
      past the edge, within a pip's radius of it, and within a face's diagonal (sqrt 2 x face_side)
      of the face's far end the other way (the larger face is a face, no larger); or
    - the edge lies more than half a pip's diameter further from the centre than the face's own end
      the other way: every d6 layout and its square face are symmetric about the face's centre, and a
      face cut to some of its pips reaches further toward its missing ones. This holds while the edge
      lies within a face's diagonal (sqrt 2 x face_side) of the face's far end; what runs on beyond
      is no longer its face (a white die's side face as light as its top: a close-up whose crop
      cuts the die).
    A whole face whose die the edge cuts no further from its pips' centre than the face reaches the
    other way stays whole (Valid/valid_24's square 4, its face's corner cut by the top edge; valid_62's
    1, its face reaching the top edge). Geometry only from the d6 layouts and FACE_SIDE_DIAMETERS.
    Measured on matteop65 photos cut through a die's pip box on each side, 40, 60 and 75 % of the box
    kept (1607 cut dice): read sure and wrong 266 -> 5; the 353 uncut photos read the same. Bench's
    close-up row: unsure 19.8 -> 22.5 % (dice the crop cuts at 0.3 of the frame, as Valid/valid_80's 3
    read as a sure 2 before), none read wrong.
    lopsided: False asks the first of the two tests alone (a larger face's place past the edge; read_faces at a
    close-up scale, its finer given, asks so): a die filling the frame has white side faces as light as its top
    face running on to the edge, farther than the face reaches the other way (tests/vision/test_vision_reader: a
    4 filling the frame read unsure so). Until session 46 close-up scales asked neither; bench's close-ups
    cut through each of their dice (each side, 40, 60 and 75 % of the pip box kept: 2189 frames) read 189 cut
    dice sure, every one wrong (a 6 cut to a column as a 2), 18 with the first test, 16 of them a 2 cut to one
    pip read as a 1: a lone pip is not asked at a close-up scale, as a 1's pip is larger than other faces'
    pips, so face_side overstates its face (a white 1 filling the frame on a table of its colour:
    tests/vision/test_vision_pip_close_ups). The close-up row's dice the crop cuts read sure and wrong 1 -> 0,
    and 2 of its 177 whole dice, by the edge or filling the frame, went unsure (the row: 10.9 -> 12.0 %)."""
    if not group or len(group) >= 6:
        return False
    h, w = gray.shape
    reach = face_side(group)
    major = sorted(p.major for p in group)[len(group) // 2]
    dia = _mean([p.diameter for p in group])
    near = [edge for edge in range(4) if edges[edge] and any(d <= reach for d in (
        (p.x, w - 1 - p.x, p.y, h - 1 - p.y)[edge] for p in group))]
    if not near:
        return False
    xs, ys = [p.x for p in group], [p.y for p in group]
    x0, x1 = max(int(min(xs) - 1.2 * major), 0), min(int(max(xs) + 1.2 * major) + 2, w)
    y0, y1 = max(int(min(ys) - 1.2 * major), 0), min(int(max(ys) + 1.2 * major) + 2, h)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d = np.min([np.hypot(xx - p.x, yy - p.y) for p in group], axis=0)
    win = gray[y0:y1, x0:x1]
    ring, inner = win[(d > 0.8 * major) & (d < 1.2 * major)], win[d < 0.35 * major]
    if ring.size == 0 or inner.size == 0:
        return True  # no face round the pips in the frame: they lie on its edge
    sign = 1.0 if polarity == "dark" else -1.0
    face_level = float(np.median(ring))
    contrast = (face_level - float(np.median(inner))) * sign
    if contrast <= 0.0:
        return False  # no face of these pips round them (face_roughness drops such groups)
    cx, cy = _centre(group)

    def profile(u: tuple[float, float], length: float) -> tuple[np.ndarray, np.ndarray]:
        """Depth toward the pips' level along the line from the centre in direction u (a unit
        vector), and where it is no face."""
        t = np.arange(0.0, length + 1.0)
        px = np.clip(np.round(cx + u[0] * t).astype(int), 0, w - 1)
        py = np.clip(np.round(cy + u[1] * t).astype(int), 0, h - 1)
        depth = (face_level - gray[py, px].astype(np.float32)) * sign
        return depth, np.abs(depth) > 2 * PLAIN_FACE * contrast

    def exit_length(u: tuple[float, float]) -> float:
        """px from the centre along u to the frame's border."""
        lengths = []
        for along, low, high in ((u[0], cx, w - 1 - cx), (u[1], cy, h - 1 - cy)):
            if along > 1e-9:
                lengths.append(high / along)
            elif along < -1e-9:
                lengths.append(low / -along)
        return min(lengths)

    def on_face(start: int, run: np.ndarray, size: int, border_face: bool = False) -> bool:
        """A run of other pixels that is a pip on the face with its blurred rim (up to 1.5 major axes
        long), between face pixels, or, where the profile ends (the frame's edge), a pip the edge cuts:
        as dark as a pip, or under half a pip wide beside face on the frame's border (border_face: the
        rim of a pip whose centre lies past the edge, the face round it reaching the border)."""
        if run.size > 1.5 * major:
            return False
        return start + run.size < size or float(run.max()) >= contrast / 2 or (border_face and run.size < dia / 2)

    def border_face(x: float, y: float) -> bool:
        """Whether face pixels lie on the frame's border within a pip's diameter of its point (x, y)."""
        xi, yi = min(max(int(round(x)), 0), w - 1), min(max(int(round(y)), 0), h - 1)
        if xi in (0, w - 1):
            line = gray[max(int(y - dia), 0):min(int(y + dia) + 1, h), xi]
        else:
            line = gray[yi, max(int(x - dia), 0):min(int(x + dia) + 1, w)]
        return bool((np.abs(face_level - line.astype(np.float32)) <= 2 * PLAIN_FACE * contrast).any())

    places = _larger_face_places(group)
    diagonal = math.sqrt(0.5)
    for edge in near:
        nx, ny = ((-1, 0), (1, 0), (0, -1), (0, 1))[edge]
        # square to the edge and at 45 degrees to it either side: a face's missing pips may lie either way
        for u in ((nx, ny), ((nx - ny) * diagonal, (ny + nx) * diagonal), ((nx + ny) * diagonal, (ny - nx) * diagonal)):
            dist = exit_length(u)
            depth, other = profile(u, dist)
            beside = border_face(cx + u[0] * dist, cy + u[1] * dist)
            if not all(on_face(start, run, depth.size, beside) for start, run in _runs(depth, other)):
                continue  # the face ends before the edge: whole this way
            back = (-u[0], -u[1])
            depth, other = profile(back, min(dist + dia, exit_length(back)))
            far = next((start for start, run in _runs(depth, other) if not on_face(start, run, depth.size)),
                       depth.size - 1)
            # a place of a larger face's pips mostly past the edge (its centre within a pip's radius of
            # it), within a face's diagonal of the face's far end
            if u == (nx, ny) and any((x, w - 1 - x, y, h - 1 - y)[edge] < dia / 2
                                     and (x - cx) * nx + (y - cy) * ny + far <= math.sqrt(2) * reach
                                     for x, y in places):
                return True
            # the face's far end and the edge more than a face's diagonal apart: what runs on toward the
            # edge is no longer this face (a side face as light as it, the next die), which lies whole inside
            if lopsided and far + dia / 2 < dist <= math.sqrt(2) * reach - far:
                return True
    return False


def _larger_face_places(group: list[Pip]) -> list[tuple[float, float]]:
    """Where pips of a larger d6 face lie (px) if the group is the part of it a straight cut leaves:
    for a 2 or 3 in a line, a column (or row) of a 4, 5 or 6, whose other column lies the line's
    length aside, either side, and for a 2 also a 3's or 5's corner and centre, whose far corner lies
    the line's length on past either pip; for a 4 whose layout is a rectangle twice as long as wide
    on a face seen squarely (its sides' ratio under sqrt 0.5 of its pips' roundness, half-way between
    a square and a 2:1 block), two rows of a 6, whose third row lies the short side's length on,
    either side. [] for other groups (a lone pip fixes no direction; a square 4 and a 5 are whole
    layouts)."""
    pts = np.array([[p.x, p.y] for p in group])
    if len(group) == 4:
        _, m = _layout_map(pts)
        half_sides = sorted((m[0], m[1]), key=lambda v: float(np.linalg.norm(v)))
        ratio = float(np.linalg.norm(half_sides[0])) / max(float(np.linalg.norm(half_sides[1])), 1e-9)
        if ratio >= math.sqrt(0.5) * _mean([p.roundness for p in group]):
            return []
        step = 2 * half_sides[0]
        return [(float(x), float(y)) for q in pts for x, y in (q - step, q + step)]
    if len(group) not in (2, 3):
        return []
    d = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    i, j = np.unravel_index(np.argmax(d), d.shape)
    a, b = pts[i], pts[j]
    line = b - a
    aside = np.array([-line[1], line[0]])
    places = [q + s * aside for q in pts for s in (-1, 1)]
    if len(group) == 2:
        places += [b + line, a - line]
    return [(float(x), float(y)) for x, y in places]


def _runs(values: np.ndarray, where: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """The runs of values (1-D) where `where` (bool, same length) holds, in order: (start index, values)."""
    labels, n = ndimage.label(where)
    return [(int(np.flatnonzero(labels == k)[0]), values[labels == k]) for k in range(1, n + 1)]


def _face_reach(part: list[Pip], p: Pip) -> float:
    """How far pip p lies from the face of part (1..6 pips), in pitches of its d6 layout: the larger
    canonical coordinate of p through the part's layout map (the face's own pips lie at 1 or less, its
    edge at about 1.6); for a lone pip, its distance over 1.5 pip diameters."""
    return float(_face_reaches(part, np.array([[p.x, p.y]]))[0])


def _face_reaches(part: list[Pip], points: np.ndarray) -> np.ndarray:
    """_face_reach of each of points ((N, 2) float64, x and y px) from the face of part, the part's layout
    map fitted once (_layout_map tries every assignment of a 4..6 pip face's pips: stray_marks asks it of
    every pip in the frame): (N,) float64."""
    if len(points) == 0:
        return np.zeros(0)
    if len(part) == 1:
        q = part[0]
        return np.hypot(points[:, 0] - q.x, points[:, 1] - q.y) / (1.5 * q.diameter)
    _, m = _layout_map(np.array([[q.x, q.y] for q in part]))
    linear = m[:2, :]
    if abs(float(np.linalg.det(linear))) < 1e-6:
        return np.zeros(len(points))
    uv = np.linalg.solve(linear.T, (points - m[2]).T)  # 2 x N, every point at once
    return np.abs(uv).max(axis=0)


def blur_ratio(group: list[Pip], face_shape: np.ndarray) -> float:
    """How far the pips' shape departs from the face's foreshortening, as a motion blur: the mean pip
    covariance split into a disc foreshortened like the face (face_shape, see layout_fit) plus a blur
    streak (the rank-1 rest, a streak of length L px has variance L^2/12); returns L over the disc's
    diameter (0 = pips foreshortened exactly like the face; a pip smeared over its own width = 1)."""
    cov = np.mean([p.cov for p in group], axis=0)
    w, v = np.linalg.eigh(face_shape)
    inv_sqrt = v @ np.diag(1.0 / np.sqrt(np.maximum(w, 1e-6))) @ v.T
    disc = max(float(np.linalg.eigvalsh(inv_sqrt @ cov @ inv_sqrt)[0]), 1e-9)  # largest disc that fits
    streak = max(float(np.trace(cov - disc * face_shape)), 0.0)
    return math.sqrt(12.0 * streak) / (4.0 * math.sqrt(disc))


def _ring_orders(pts: np.ndarray, centre_pip: bool):
    """Assignments of 4 corner pips (plus the centre pip for 5) to the canonical layout: corners in
    angular order around the centroid, every rotation and both directions."""
    c = pts - pts.mean(0)
    idx = list(range(len(pts)))
    centre: list[int] = []
    if centre_pip:
        k = int(np.argmin((c ** 2).sum(1)))
        centre = [k]
        idx.remove(k)
    ring = sorted(idx, key=lambda i: math.atan2(c[i, 1], c[i, 0]))
    # canonical corners (-1,-1), (-1,1), (1,-1), (1,1) in angular order: 0, 1, 3, 2
    for direction in (ring, ring[::-1]):
        for r in range(4):
            rot = direction[r:] + direction[:r]
            yield [rot[0], rot[1], rot[3], rot[2]] + centre


def _six_orders(pts: np.ndarray):
    """Assignments of 6 pips to the 2x3 layout: the two pips nearest the centroid are the middle row,
    the other four are corners in angular order (every rotation and both directions), and the middle
    pips go to either column."""
    c = pts - pts.mean(0)
    by_dist = list(np.argsort((c ** 2).sum(1)))
    mid, corners = by_dist[:2], by_dist[2:]
    ring = sorted(corners, key=lambda i: math.atan2(c[i, 1], c[i, 0]))
    for direction in (ring, ring[::-1]):
        for r in range(4):
            rot = direction[r:] + direction[:r]
            for m_a, m_b in (mid, mid[::-1]):
                # canonical order: (-1,-1) (-1,0) (-1,1) (1,-1) (1,0) (1,1)
                yield [rot[0], m_a, rot[1], rot[3], m_b, rot[2]]


#: face_confidence's answers while a read_faces call is under way (None otherwise), which asks many faces' again
#: (split_group, then the face read: a quarter of a small-dice frame's 180): (ids of the face's pips in order, thr, the
#: grid spread allowed) -> (its pips, held so that no other pip takes their ids, the answer). A pip's measures are
#: set as find_pips makes it.
_confidences: dict[tuple[tuple[int, ...], float, float], tuple[list[Pip], float]] | None = None
#: The pip size spread the pixel grid makes (GRID_SIZE_SPREAD) while a read_faces call of an enlarged frame is under
#: way, else 0.0: face_confidence(one_face=True) allows it.
_grid_spread = 0.0


def face_confidence(group: list[Pip], thr: float, one_face: bool = False) -> float:
    """0..1: layout fit x agreement of the pips' foreshortening with the face's x pip size consistency
    (pips split apart from one blob counted at their mean size) x contrast margin over the threshold.
    one_face: asked whether the group is one face by its layout, not for a reading's confidence; in an
    enlarged frame (read_faces' enlarged) the size consistency then allows the spread of the pixel grid
    (GRID_SIZE_SPREAD)."""
    known = _confidences
    if known is None:
        return _face_confidence(group, thr, one_face)
    key = (tuple(id(p) for p in group), thr, _grid_spread if one_face else 0.0)
    if key not in known:
        known[key] = (list(group), _face_confidence(group, thr, one_face))
    return known[key][1]


def _face_confidence(group: list[Pip], thr: float, one_face: bool = False) -> float:
    """face_confidence, computed."""
    err, face_shape = layout_fit(group)
    if not math.isfinite(err):
        return 0.0
    # pips split apart from one blob share its area: the watershed cut between merged pips is no
    # measure of their sizes
    blob_area: dict[int, list[float]] = {}
    for p in group:
        if p.blob >= 0:
            blob_area.setdefault(p.blob, []).append(p.area)
    areas = np.array([_mean(blob_area[p.blob]) if p.blob >= 0 else p.area for p in group])
    cv = float(areas.std() / areas.mean()) if len(group) > 1 else 0.0
    if one_face and _grid_spread:  # the grid's part of the spread, for pips of the group's mean diameter, taken out
        cv = math.sqrt(max(0.0, cv * cv - (_grid_spread / (2.0 * math.sqrt(float(areas.mean()) / math.pi))) ** 2))
    q_layout = math.exp(-((err / 0.35) ** 2))
    q_shape = 1.0
    if face_shape is not None:
        # pixels make small pips measure a little less round than their face (blur_ratio up to
        # PIXEL_BLUR); more is motion blur, told from a face that is not this face (two rows of a six
        # read as a foreshortened four) only on a face seen squarely
        beta = blur_ratio(group, face_shape)
        w = np.linalg.eigvalsh(face_shape)
        squarely = math.sqrt(max(float(w[0]), 0.0) / max(float(w[1]), 1e-9)) >= SQUARE_FACE
        excess = max(0.0, beta - (MAX_BLUR if squarely else PIXEL_BLUR))
        q_shape = math.exp(-((excess / 0.2) ** 2))
    q_size = math.exp(-((cv / 0.45) ** 2))
    q_contrast = min(1.0, min(p.contrast for p in group) / (1.6 * thr))
    return float(q_layout * q_shape * q_size * (0.6 + 0.4 * q_contrast))


def _face_box(group: list[Pip]) -> tuple[int, int, int, int]:
    """Box of the whole face around its pips: the pip pattern grown by one pip diameter each side."""
    dia = float(np.mean([p.diameter for p in group]))
    margin = 1.0 * dia if len(group) > 1 else 1.5 * dia
    x0 = min(p.x for p in group) - dia / 2 - margin
    y0 = min(p.y for p in group) - dia / 2 - margin
    x1 = max(p.x for p in group) + dia / 2 + margin
    y1 = max(p.y for p in group) + dia / 2 + margin
    return int(round(x0)), int(round(y0)), int(round(x1 - x0)), int(round(y1 - y0))


def _roundness(group: list[Pip]) -> float:
    return _mean([p.roundness for p in group])


def _layout_roundness(group: list[Pip]) -> float | None:
    """Minor/major axis ratio of a face's image from its layout (4 and 5 pips that fit one), else None."""
    if len(group) not in (4, 5):
        return None
    err, face_shape = layout_fit(group)
    if face_shape is None or err >= 0.35:
        return None
    w = np.linalg.eigvalsh(face_shape)
    return math.sqrt(max(float(w[0]), 0.0) / max(float(w[1]), 1e-9))


def _face_roundness(group: list[Pip]) -> float:
    """A face's roundness (minor / major axis): its layout's where a 4 or 5 gives one (_layout_roundness),
    which a blur does not flatten, else its pips' mean (_roundness)."""
    return _layout_roundness(group) or _roundness(group)


def _axial_turn(a: float, b: float) -> float:
    """Degrees (0..90) between two axes given as directions in degrees [0, 180) (a pip's major axis,
    Pip.angle; _pip_direction): an axis turned by 180 degrees is the same axis."""
    turn = abs(a - b) % 180.0
    return min(turn, 180.0 - turn)


def _axial_mean(angles: list[float]) -> float:
    """The mean of axes given as directions in degrees (an axis turned by 180 degrees is the same axis),
    degrees in [0, 180): the angles doubled, averaged as unit vectors, halved."""
    c = sum(math.cos(math.radians(2 * a)) for a in angles)
    s = sum(math.sin(math.radians(2 * a)) for a in angles)
    return (math.degrees(math.atan2(s, c)) / 2.0) % 180.0


def _pip_direction(group: list[Pip]) -> float:
    """Mean direction of the pips' major axes, degrees in [0, 180) (axial mean)."""
    return _axial_mean([p.angle for p in group])


def _squash_direction(group: list[Pip]) -> float:
    """The direction a face's pips are squashed along (a tilt foreshortens them so): the mean of their minor axes,
    degrees in [0, 180) (_pip_direction turned a quarter turn)."""
    return (_pip_direction(group) + 90.0) % 180.0


def _perpendicular_possible(g: list[Pip], h: list[Pip]) -> bool:
    """Whether pip groups g and h can be two perpendicular faces of one cube: their roundnesses r_g,
    r_h (cosines of perpendicular tilts) have r_g^2 + r_h^2 <= PERPENDICULAR_FACES. A face's roundness is
    its pips' (foreshortened like their face) or, where a 4 or 5 gives one, its layout's when that is less
    round (faint, small pips in a dim, grainy frame measure rounder than their face is: a side face's 5 at
    0.78 under a 4 at 0.90, its layout squashed to half, was read as a die of its own), or its layout's when
    both groups' pips are smeared alike (a motion blur shared by the frame or by one die; pips alone would
    make both faces look tilted)."""
    rg, rh = min(_roundness(g), _face_roundness(g)), min(_roundness(h), _face_roundness(h))
    if max(rg, rh) < SQUARE_FACE and abs(rg - rh) <= 0.15 and _axial_turn(_pip_direction(g), _pip_direction(h)) <= 25.0:
        rg, rh = _face_roundness(g), _face_roundness(h)
    return rg * rg + rh * rh <= PERPENDICULAR_FACES


def face_side(group: list[Pip]) -> float:
    """Estimated side (px) of the die face whose pips are group (one face's, px of one frame):
    FACE_SIDE_DIAMETERS pip diameters, from the pips' median major axis (which foreshortening does not shrink)."""
    majors = sorted(p.major for p in group)
    return FACE_SIDE_DIAMETERS * majors[len(majors) // 2]


def _side_face_by_shape(g: list[Pip], h: list[Pip]) -> bool | None:
    """Whether pip group g is a side face of the die whose top face is group h, from the two faces'
    shapes alone: False when g does not lie beside h (within one face side) or the two cannot be faces of
    one die; True when h looks more squarely at the camera (larger and rounder pips, or a rounder layout
    where a 4 or 5 gives one, which blur does not flatten); None when the two are alike and only where g
    lies from h can tell (_is_side_face). Larger pips alone do not make a top face: dice of two sizes may
    lie side by side; nor two faces both seen squarely (_perpendicular_possible); nor pips of another size
    (their major axes, which a tilt does not shrink, differ over SAME_DIE_PIPS times: a glare blob on a die
    is no top face whose side faces are the dice around it)."""
    gx, gy = _centre(g)
    hx, hy = _centre(h)
    dist = math.hypot(gx - hx, gy - hy)
    if dist > 0.5 * (_extent(g) + _extent(h)) + SIDE_REACH_DIAMETERS * _mean([p.diameter for p in h]):
        return False
    if not _perpendicular_possible(g, h):
        return False  # both seen too squarely to be two perpendicular faces of one cube
    if max(face_side(g), face_side(h)) > SAME_DIE_PIPS * min(face_side(g), face_side(h)):
        return False  # one die's pips are of one size, and their major axes, which a tilt does not shrink, show it
    front_g, front_h = _frontalness(g), _frontalness(h)
    flatter = _face_roundness(h) - _face_roundness(g)
    if (front_h > 3.0 * front_g and flatter >= 0.1) or (flatter >= 0.2 and front_h > front_g):
        return True
    return None


def _within_side_reach(groups: list[list[Pip]], tops: list[list[Pip]]) -> np.ndarray:
    """(len(groups), len(tops)) bool: False where group g lies too far from group h for _side_face_by_shape
    (its first test, every pair at once; it says False there), True where that test is left to it. The
    distance is numpy's hypot here, so a pair within a billionth of the reach is left to it.
    A frame of small dice read at twice the scale holds a hundred groups; each pair's test alone costs more
    than this whole matrix."""
    if not groups or not tops:
        return np.zeros((len(groups), len(tops)), bool)

    def summary(gs: list[list[Pip]]) -> np.ndarray:  # per group: centre x, y, extent, mean pip diameter
        return np.array([(*_centre(g), _extent(g), _mean([p.diameter for p in g])) for g in gs])

    g, h = summary(groups), summary(tops)
    dist = np.hypot(g[:, None, 0] - h[None, :, 0], g[:, None, 1] - h[None, :, 1])
    reach = 0.5 * (g[:, None, 2] + h[None, :, 2]) + SIDE_REACH_DIAMETERS * h[None, :, 3]
    return dist <= reach * (1 + 1e-9) + 1e-9


BELOW = (0.0, 1.0)  # image direction (x right, y down) from a top face to its side faces for an upright camera above the tray


def _is_side_face(g: list[Pip], h: list[Pip], toward: tuple[float, float] = BELOW) -> bool:
    """True when pip group g is a side face of the die whose top face is group h: by the faces' shapes
    (_side_face_by_shape), or, the two alike, when g lies from h along `toward` (a unit image vector,
    x right, y down: the frame's direction from a top face to the side faces the camera sees,
    _toward_camera; BELOW for an upright camera above the tray) within about one face side and h is not
    far less frontal."""
    by_shape = _side_face_by_shape(g, h)
    return _lies_toward(g, h, toward) if by_shape is None else by_shape


def _lies_toward(g: list[Pip], h: list[Pip], toward: tuple[float, float]) -> bool:
    """Whether pip group g lies from group h along `toward` (a unit image vector, x right, y down) within
    about one face side, h not far less frontal: g is h's side face when the two are alike in shape
    (_is_side_face)."""
    gx, gy = _centre(g)
    hx, hy = _centre(h)
    dx, dy = gx - hx, gy - hy
    along = dx * toward[0] + dy * toward[1]
    across = abs(dy * toward[0] - dx * toward[1])
    side = max(face_side(g), face_side(h))
    return (along > 0.5 * across and math.hypot(dx, dy) < SIDE_FACE_SIDES * side
            and _frontalness(h) > 0.5 * _frontalness(g))


#: degrees within which two faces' foreshortening (their pips' minor axes) agree, and within which a pair lies
#: along it (_top_unknown); a tilt compresses a die's top face and the side face toward the camera alike
FORESHORTEN_ALIGN = 30.0


def _top_unknown(g: list[Pip], h: list[Pip], toward: tuple[float, float]) -> bool:
    """Whether pip groups g and h, alike in shape (_side_face_by_shape gives None), may be one die's top face
    and the side face its camera sees while the frame's direction toward the camera, toward (a unit image
    vector, _toward_camera), cannot say which is which. A camera's tilt compresses a die's top face and the
    side face toward it along one image direction, and that side face lies from the top face along it: so the
    two are one die when both are foreshortened (pip roundness under SQUARE_FACE) along directions within
    FORESHORTEN_ALIGN degrees and one lies from the other along that direction, within about one face side
    (SIDE_FACE_SIDES, as _lies_toward). toward tells the top face only when it lies along that direction too;
    across it (more than 45 degrees off), it is no evidence (a photo turned a quarter turn whose frame has no
    pair of faces its shapes tell: toward stays BELOW while its side faces lie left or right of their top
    faces). Such a pair's two faces are both in doubt, neither hidden (read_faces). Measured on every
    matteop65 photo turned by 90, 180 and 270 degrees (3240 dice): sure dice no one threw (a side face read
    beside its top face) 28 -> 15, unsure 0.9 -> 2.0 %; the upright photos, the small-dice frames and the
    close-ups read as before (one small die more unsure). At 40 degrees, 8 such dice, but the upright
    photos lost 2 dice and went 0.9 -> 1.4 % unsure; with the shared direction pooled over the pips, not
    face for face (a 5's pips outweigh a 1's), the upright photos went 0.93 -> 1.02 % unsure."""
    if _roundness(g) >= SQUARE_FACE or _roundness(h) >= SQUARE_FACE:
        return False
    minor_g, minor_h = _squash_direction(g), _squash_direction(h)
    if _axial_turn(minor_g, minor_h) > FORESHORTEN_ALIGN:
        return False
    (gx, gy), (hx, hy) = _centre(g), _centre(h)
    dx, dy = gx - hx, gy - hy
    if math.hypot(dx, dy) >= SIDE_FACE_SIDES * max(face_side(g), face_side(h)):
        return False
    minor = _axial_mean([minor_g, minor_h])  # the direction both faces are compressed along, face for face
    along = math.degrees(math.atan2(dy, dx)) % 180.0
    if _axial_turn(along, minor) > FORESHORTEN_ALIGN:
        return False
    return _axial_turn(math.degrees(math.atan2(toward[1], toward[0])) % 180.0, minor) > 45.0


#: the four image axes (unit vectors, x right, y down) a frame's direction toward the camera may take (_toward_camera)
_AXES = (BELOW, (0.0, -1.0), (-1.0, 0.0), (1.0, 0.0))
#: the axis most side faces lie nearest to is the frame's direction toward the camera (_toward_camera) with this many
#: times BELOW's votes: BELOW is the upright camera's, most frames', and faces flattened otherwise (a glint washing out
#: some of a face's pips) pair by shape with faces beside them in any direction
PLURALITY_OVER_BELOW = 2.0
#: degrees within which a side face of two pips or more lies from its top face along the way its pips are squashed
#: (their minor axes) for its pair to vote for the frame's direction (_toward_camera): a camera sees a side face
#: squashed along its own direction, and two side faces of a die at once, up to 45 degrees either side of it; 15 more
#: for the pips' axes, which a few px of pip and a glint's wash blur (a glint-row side 2 squashed 46 degrees off the
#: way it lies from its 1)
SIDE_SQUASH_ALIGN = 60.0


def _nearest_axis(dx: float, dy: float) -> tuple[float, float]:
    """The image axis (unit vector, x right, y down) nearest to the direction (dx, dy)."""
    return (math.copysign(1.0, dx), 0.0) if abs(dx) > abs(dy) else (0.0, math.copysign(1.0, dy))


def _toward_camera(side_pairs: list[tuple[list[Pip], list[Pip]]]) -> tuple[float, float]:
    """The frame's own image direction from a top face to the side faces the camera sees, as an image
    axis (a unit vector, x right, y down: BELOW, above, left or right), from the pairs whose shapes alone
    tell the side face from the top face (_side_face_by_shape), which does not depend on how the camera
    or the photo is turned (a tower camera mounted on its side, a phone photo whose EXIF turn was
    stripped: the side faces lie left, right or above their top faces). The image axis most pairs (by their
    votes) lie nearest to, when that is one axis other than BELOW with PLURALITY_OVER_BELOW times BELOW's votes or
    more; else the axis nearest the pairs' mean direction (a camera sees two side faces of a die at once, up to 45
    degrees either side of its direction, so the pairs scatter that far, and _is_side_face's cone around the axis
    spans more), when more pairs lie nearest to it than to BELOW; else BELOW (an upright camera above the tray,
    also when no pair tells or the pairs' directions cancel out). side_pairs: (side face, top face) pip groups,
    the pairs _side_face_by_shape calls side faces.
    Before session 65 the mean's axis alone was asked, and a camera above and a little left of the dice lost its
    majority: in matteop65's dice_25 turned 180 degrees, pairs worth 3 votes lie above their 1s (and a little left
    of them), 1 left and 1 below (a side face paired with the next die's 1); their mean's axis, "left", tied BELOW
    (1 vote each), and the frame was read as upright: a 1's side 3 was read as a sure 3 in place of the 1. Every
    matteop65 photo turned by 90, 180 and 270 degrees (3240 dice): sure dice no one threw 11 -> 9, found 3206 ->
    3207, right 3199 -> 3200, none read worse; every bench row, render probe and numbered set as before, die by die.
    With the plurality alone (any lead over BELOW), 11 -> 8, but an upright glint-row photo whose glints flattened
    faces above a 3 and a 2 (5 votes above, 3 below) was read as turned, and the 3 (unsure) as an unsure 5.
    A pair whose top face is itself the side face of another pair is no evidence (a side face has none of its own);
    its share of its side face's vote is lost, not passed to that face's other pairs. dice_25 turned 90 degrees
    clockwise: two side faces paired with a 1 (left) and with that 1's other side face, a 5 (below), gave "below" 1.5
    votes against "left"'s 2.5, and the mean, which the 5's own pair pulled right, lay nearest below: a 1's side 3
    was read as a sure die. The turned photos: 9 -> 8 sure dice no one threw, nothing else changed; passed on to the
    other pairs, a small-dice region read finer turned "right" on two such side faces, and a sure 1 was unsure.
    Nor is a pair whose side face, of two pips or more, is squashed across the way it lies from its top face (its
    pips' minor axes more than SIDE_SQUASH_ALIGN degrees off that way): a camera sees a side face squashed along its
    own direction, so that face is another die's, seen from the side. dice_27 turned 180 degrees: a 1's side 2 above
    it (the camera's way) and another die's side 5 below it, squashed left-right, tied the frame's direction, which
    stayed BELOW: its three 1s were taken for side faces and lost, and the 2 was read as a sure die. The turned photos:
    sure dice no one threw 8 -> 3, found 3207 -> 3210, right 3200 -> 3203, unsure 29 -> 27; a shrunk photo's 2 read
    sure (right, unsure before), a crowd render's 2 read unsure as a 2 (a d10 8 before); every other bench row, render
    probe and numbered set as before, die by die. A lone pip's own axis is a few px: asked of lone pips too (at 45
    degrees), dice_20 turned a quarter turn lost two 1s. At 45 degrees, a glint-row side 2 squashed 46 degrees off its
    way lost its vote and that frame read two unsure side faces as dice.
    A side face paired with several top faces (a lone pip beside two dice) is one face seen once, at most
    one of whose pairs is real: its pairs share one vote, in the mean and in the counts. Counted once per pair,
    such a pip turned matteop65's dice_46 (five 1s, the frame turned a quarter turn) to "below", and two side
    faces were read as a sure 2 and 5. Measured on every matteop65 photo turned by 90, 180 and 270 degrees (3240
    dice): sure dice no one threw 15 -> 13, unsure 1.97 -> 1.70 %, per die 0.9870 -> 0.9877; the upright
    photos, close-ups, small-dice frames and the numbered sets read as before, figure for figure.
    One pair may be one die seen from across by a near camera (a die left of the camera shows its right
    side face): bench's small-dice frame 0012 turns right on such a pair at the analysis scale, and a 2 on a
    side face below another 1 is read as a sure die. Asking for two pairs (session 27) removed it and changed
    nothing else on the bench's matteop65 rows, but a turned dice_42, whose one pair is its only evidence,
    then read 3 side faces as dice (tests/vision/test_vision_turned_photos): not kept.
    A camera low over the table (about 45 degrees) sees a die's top face and two side faces about alike, and one
    side face may pair by shape with the other, flatter one, which lies across the camera's direction: dice_46 cut
    by the frame's edge (its right column of dice cut away) turned "left" on that one pair and read two side faces
    as a sure 2 and 5. Tried in session 46: a pair gives no vote when a third face, not its top face's side face by
    shape and its top face's match or rounder, lies beside both (any of the two may be the die's top face). Every
    8th matteop65 photo cut through each die by the frame's edges: sure and wrong 37 -> 18; every photo turned by
    90/180/270 degrees: sure dice no one threw 13 -> 10, unsure 1.64 -> 1.85 %, but two_29 turned 180 degrees
    lost the only pairs that told its direction and read two side faces as sure 4s no one threw: not kept.
    Tried in session 47: the side faces of one top face that lie in one direction from it share one vote (one side
    face found split into two groups, as a cut dice_46 did once its pips' halos were cored, _cored_pip): the cut
    probe above 38 -> 45 sure and wrong, the turned photos' sure dice no one threw 13 -> 15: not kept."""
    sides = [id(g) for g, _ in side_pairs]
    units, weights = [], []
    for g, h in side_pairs:
        if id(h) in sides:  # its top face is a side face itself, which has none of its own: no evidence
            continue
        (gx, gy), (hx, hy) = _centre(g), _centre(h)
        if len(g) > 1 and _axial_turn(_squash_direction(g),
                                      math.degrees(math.atan2(gy - hy, gx - hx)) % 180.0) > SIDE_SQUASH_ALIGN:
            continue  # squashed across the way it lies from its top face: another die's side face
        d = math.hypot(gx - hx, gy - hy)
        if d > 0:
            units.append(((gx - hx) / d, (gy - hy) / d))
            weights.append(1.0 / sides.count(id(g)))
    if not units:
        return BELOW
    mx = sum(w * ux for w, (ux, _) in zip(weights, units))
    my = sum(w * uy for w, (_, uy) in zip(weights, units))
    if math.hypot(mx, my) < 1e-9:
        return BELOW
    nearest = [_nearest_axis(*u) for u in units]

    def votes(a: tuple[float, float]) -> float:
        return sum(w for w, n in zip(weights, nearest) if n == a)

    most = max(votes(a) for a in _AXES)
    leading = [a for a in _AXES if votes(a) >= most - 1e-9]
    if len(leading) == 1 and leading[0] != BELOW and most >= PLURALITY_OVER_BELOW * votes(BELOW) - 1e-9:
        return leading[0]
    axis = _nearest_axis(mx, my)
    return axis if votes(axis) > votes(BELOW) + 1e-9 else BELOW


def _flag_cocked(faces: list[PipFace]) -> None:
    """Flag a die as cocked (GEN-D01) when its top face is far more foreshortened than the other
    dice's top faces in the same frame (a tilted face). Needs two or more dice to compare."""
    if len(faces) < 2:
        return
    rounds = [_roundness(f.pips) for f in faces]
    typical = float(np.median(rounds))
    for f, r in zip(faces, rounds):
        f.cocked = r < 0.7 * typical


def split_group(group: list[Pip], thr: float) -> list[tuple[list[Pip], bool]]:
    """A pip group that is not one clean d6 face (touching dice, or a side face's pips linked to the
    top face) split into faces: repeatedly take the largest subset that fits a d6 layout with confidence
    >= UNSURE_BELOW (a sure reading), looking first among the pips about as frontal as the most frontal
    one, and in a tangle of more than MAX_SPLIT_PIPS pips among the nearest ones; what is left stays one
    group when it fits a layout with confidence >= LEFTOVER_FACE, else each left-over pip is a face of
    its own (a 1, a side face's pip: a 1 is not joined to a side pip into a "2").
    Returns (face pips, ambiguous): ambiguous when a pip left out lies on the face (_face_reach within
    1 + FACE_MARGIN pitches: it may be one of the face's pips), or near it (within NEAR_FACE pitches)
    looking as frontal as the face's own pips and not where a side face would be (the face may have
    been cut from the wrong pips), or when pips left out make a sure face of more pips with it
    (_sure_superset: the face may have been cut short), so the reading must not be given as sure."""
    if face_confidence(group, thr, one_face=True) >= UNSURE_BELOW:
        return [(group, False)]
    rest = sorted(group, key=lambda p: -p.area * p.roundness)
    cache: dict[tuple[int, ...], float] = {}

    def conf(sub: tuple[Pip, ...]) -> float:
        key = tuple(sorted(id(p) for p in sub))
        if key not in cache:
            cache[key] = face_confidence(list(sub), thr)
        return cache[key]

    def largest_fit(pool: list[Pip]) -> list[Pip] | None:
        if len(pool) > MAX_SPLIT_PIPS:  # a large tangle: search around its most frontal pip
            anchor = pool[0]
            pool = sorted(pool, key=lambda p: math.hypot(p.x - anchor.x, p.y - anchor.y))[:MAX_SPLIT_PIPS]
        for m in range(min(6, len(pool)), 1, -1):
            best = max(itertools.combinations(pool, m),
                       key=lambda sub: (conf(sub) >= UNSURE_BELOW, _frontalness(list(sub))))
            if conf(best) >= UNSURE_BELOW:
                return list(best)
        return None

    parts: list[list[Pip]] = []
    unplaced: list[Pip] = []
    while len(rest) > 1:
        # first among the pips that look as squarely at the camera as the most frontal one (top faces)
        f_max = rest[0].area * rest[0].roundness
        found = largest_fit([p for p in rest if p.area * p.roundness >= 0.7 * f_max]) or largest_fit(rest)
        if found is None:
            if len(rest) <= MAX_SPLIT_PIPS:
                break
            unplaced.append(rest.pop(0))  # nothing fits around this pip: go on with the next one
            continue
        parts.append(found)
        rest = [p for p in rest if p not in found]
    leftover = unplaced + rest
    if leftover and face_confidence(leftover, thr) >= LEFTOVER_FACE:
        parts.append(leftover)
    else:  # pips that make no face together: each its own (a die's 1, a side face's pip)
        parts += [[p] for p in leftover]
    out: list[tuple[list[Pip], bool]] = []
    for part in parts:
        typical = float(np.median([p.area * p.roundness for p in part]))
        others = [p for p in group if p not in part]
        out.append((part, any(_face_reach(part, p) <= 1.0 + FACE_MARGIN
                              or (_face_reach(part, p) <= NEAR_FACE and p.area * p.roundness >= 0.6 * typical
                                  and not _is_side_face([p], part))
                              for p in others)
                    or _sure_superset(part, others, conf, [q for q in parts if q is not part])))
    return out


def _sure_superset(part: list[Pip], others: list[Pip], conf: Callable[[tuple[Pip, ...]], float],
                   other_parts: list[list[Pip]]) -> bool:
    """Whether part (a face split_group cut from its group, 2..5 pips) and some of others (the group's other pips)
    make a sure face of more pips (conf >= UNSURE_BELOW; conf: split_group's cached face_confidence), those others
    not all lying where the part's side face would (_is_side_face: then they are that face's, as a 4's side
    face's pips beside it are), or making one of the split's other parts (other_parts) whole: then the split cut
    one face in two. The split may have cut a face short: it takes the most frontal pips' face first, and at
    ~4 px a pip's roundness is measured only roughly (matteop65 photos shrunk by 0.65..0.85: a 6 touching its
    neighbour read as its four most frontal pips, a sure 4, two of its own pips 0.6 x as frontal; a 4 as two
    sure 2s, the less frontal pair lying below the other, where a side face would).
    Tried: the others within SUPERSET_SPAN x the part's span of each of its pips, the nearest six."""
    if not 2 <= len(part) <= 5:
        return False
    xy = np.array([[p.x, p.y] for p in part])
    span = max(math.hypot(a.x - b.x, a.y - b.y) for a, b in itertools.combinations(part, 2))
    farthest = {id(p): float(np.hypot(xy[:, 0] - p.x, xy[:, 1] - p.y).max()) for p in others}
    near = sorted((p for p in others if farthest[id(p)] <= SUPERSET_SPAN * span), key=lambda p: farthest[id(p)])[:6]
    side = {id(p): _is_side_face([p], part) for p in near}
    whole = {frozenset(map(id, q)) for q in other_parts}
    return any((not all(side[id(p)] for p in extra) or frozenset(map(id, extra)) in whole)
               and conf(tuple(part) + extra) >= UNSURE_BELOW
               for m in range(min(6 - len(part), len(near)), 0, -1) for extra in itertools.combinations(near, m))


def _grain(gray: np.ndarray) -> float:
    """The white noise left in gray (HxW uint8; grey levels, noise.noise_sigma) where it is noise.SMOOTH_FROM or more:
    a grainy camera's, as far as the reader's smoothing left it; else 0.0 (a sharp frame's faces measured as they
    are, and a region too small to measure)."""
    sigma = noise_sigma(gray) if min(gray.shape[:2]) >= 3 else 0.0
    return sigma if sigma >= SMOOTH_FROM else 0.0


def _without_grain(deviation: float, grain: float) -> float:
    """A plain face's 90th-percentile grey-level deviation (grey levels) with a camera's white noise of grain grey
    levels (_grain) taken off in quadrature: NOISE_DEVIATION of its sigmas are the noise's share of it."""
    return math.sqrt(max(deviation * deviation - (NOISE_DEVIATION * grain) ** 2, 0.0))


def face_roughness(group: list[Pip], gray: np.ndarray, polarity: str, noise: float = 0.0,
                   glints_out: bool = False) -> float:
    """How far the face around a few pips (1..3; any 2..6 in a d6 layout) is from plain: the 90th percentile of the grey-level
    deviations from the median over the face around them (out to the face's edge, on the face, i.e.
    foreshortened like the pips; the pips themselves left out), as a fraction of the pips' contrast. A die face measures ~0.02; the dots of glyphs, specks on a mottled
    die or spots on a dome measure 0.05 and more. polarity: "dark" or "light" pips; a face that is not
    lighter than dark pips (darker than light pips) is no face of theirs: inf (the hole in a light
    glyph on a black key). noise: the grey levels of white noise left in gray (noise.noise_sigma, _grain), whose
    share of the deviations (NOISE_DEVIATION of its sigmas) is taken off them in quadrature: grain is no mark on the
    face (0.0: none taken off). glints_out: a glint on the face round dark pips is no mark on it either
    (glints.on_face): its pixels are left out, and the deviations are measured toward the pips' side only, a glint's
    halo fading out lighter than the face (their 95th percentile: a plain face's 90th of both sides)."""
    ref = max(group, key=lambda p: p.area)
    major = _mean([p.major for p in group])
    roundness = max(_roundness(group), 0.1)
    cx, cy = _centre(group)
    a = math.radians(ref.angle)
    cos_a, sin_a = math.cos(a), math.sin(a)

    def face_uv(xx: np.ndarray, yy: np.ndarray, x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
        """Offsets from (x, y) on the face (px, foreshortening undone)."""
        u = (xx - x) * cos_a + (yy - y) * sin_a
        v = -(xx - x) * sin_a + (yy - y) * cos_a
        return u, v / roundness

    def face_dist(xx: np.ndarray, yy: np.ndarray, x: float, y: float) -> np.ndarray:
        return np.hypot(*face_uv(xx, yy, x, y))

    # the face edge: ~1.6 diameters of a 1's (large) pip beyond it; ~0.8 beyond the corner pips of a 2
    # or 3, along the face's sides, which run at 45 degrees to the line of pips (a square: a disc
    # through the corners would reach past the middle of the sides)
    corner = max(float(face_dist(np.array(p.x), np.array(p.y), cx, cy)) for p in group)
    reach = corner + (1.6 if len(group) == 1 else 0.8) * major
    h, w = gray.shape
    x0, x1 = max(int(cx - reach), 0), min(int(cx + reach) + 1, w)
    y0, y1 = max(int(cy - reach), 0), min(int(cy + reach) + 1, h)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    if len(group) == 1:
        region = face_dist(xx, yy, cx, cy) < reach
    else:
        far = max(group, key=lambda p: float(face_dist(np.array(p.x), np.array(p.y), cx, cy)))
        du, dv = face_uv(np.array(far.x), np.array(far.y), cx, cy)
        diag = math.atan2(float(dv), float(du))
        u, v = face_uv(xx, yy, cx, cy)
        half = corner / math.sqrt(2) + 0.8 * major
        region = np.ones(u.shape, bool)
        for side_angle in (diag + math.pi / 4, diag - math.pi / 4):
            region &= np.abs(u * math.cos(side_angle) + v * math.sin(side_angle)) < half
    inner = np.zeros_like(region)
    for p in group:
        d = face_dist(xx, yy, p.x, p.y)
        region &= d > 0.8 * major
        inner |= d < 0.4 * major
    win = gray[y0:y1, x0:x1].astype(np.float32)
    ring, pips = win[region], win[inner]
    if ring.size < 8 or pips.size == 0:
        return math.inf
    med = float(np.median(ring))
    contrast = (med - float(np.median(pips))) * (1.0 if polarity == "dark" else -1.0)
    if contrast <= 0.0:
        return math.inf
    lit = glints.on_face(gray, (x0, y0), region, med, (cx, cy, reach)) if glints_out and polarity == "dark" else None
    if lit is not None:
        region &= ~lit
        ring = win[region]
    # the light falling across the face (a plane of grey levels) is no mark on it
    design = np.column_stack([xx[region] - cx, yy[region] - cy, np.ones(ring.size)])
    plane, *_ = np.linalg.lstsq(design, ring, rcond=None)
    resid = ring - design @ plane
    if lit is None:
        deviation = _quantile(np.abs(resid - np.median(resid)), 0.9)
    else:
        deviation = _quantile(np.maximum(np.median(resid) - resid, 0.0), 0.95)
    return _without_grain(deviation, noise) / max(contrast, 1.0)


def merge_halves(groups: list[list[Pip]], thr: float) -> list[list[Pip]]:
    """Join neighbouring groups that are parts of one face the seam test kept apart (the two columns
    of a 6, a 4 and its centre pip): alike in pip size and foreshortening, and together a d6 layout
    fitting with confidence >= UNSURE_BELOW while each alone is a weaker or smaller reading."""
    groups = list(groups)
    merged = True
    while merged:
        merged = False
        front = [_frontalness(g) for g in groups]
        rounds = [_roundness(g) for g in groups]
        centres = [_centre(g) for g in groups]
        for (i, g), (j, h) in itertools.combinations(enumerate(groups), 2):
            if len(g) + len(h) > 6:
                continue
            front_g, front_h = front[i], front[j]
            if max(front_g, front_h) > 1.5 * min(front_g, front_h) or abs(rounds[i] - rounds[j]) > 0.15:
                continue
            (gx, gy), (hx, hy) = centres[i], centres[j]
            dia = _mean([p.diameter for p in g + h])
            if math.hypot(gx - hx, gy - hy) > LINK_DIAMETERS * dia:
                continue
            if face_confidence(g + h, thr) >= UNSURE_BELOW:
                groups.remove(g)
                groups.remove(h)
                groups.append(g + h)
                merged = True
                break
    return groups


def read_faces(gray: np.ndarray, polarity: str, kernel_px: int,
               within: list[tuple[int, int, int, int]] | None = None, finer: float | None = None,
               edges: tuple[bool, bool, bool, bool] = FRAME_EDGES, weak_ones: bool = False,
               enlarged: bool = False, rough_ones: bool = False) -> list[PipFace]:
    """Top faces of the pip dice in one grayscale frame. gray: HxW uint8 (analysis scale); polarity:
    "dark" or "light" pips; kernel_px: structuring size (odd, larger than a pip); within: boxes (x, y,
    w, h, gray's px) to look for pips in (find_pips), None for the whole frame. Boxes in gray's px.
    finer: when the frame was also read at `finer` (> 1) times this scale (gray is a close-up scale),
    the pips that scale's filter spans are left to it: pips under SPANNED_BY_FINER x kernel_px / finer
    px across here are no pips (the strokes of a numbered die's numerals inside a dice tray, read here
    as the pips of a sure 2). edges: which of gray's sides (left, right, top, bottom) are the frame's
    edges, where a face may be cut (runs_off; FRAME_EDGES: all of them, gray is the whole frame). weak_ones: a
    lone weak pip (surround_snr WEAK_SNR..MIN_SNR) on a plain face is read too, as an unsure 1 flagged
    PipFace.weak: no die by itself (a speck), but the 1 of a die body round it (detect.find_pip_faces' set_aside);
    so is a pair of far pips on a face not plain, as a weak 2 (a marbled die's 2, or two dice on a floor). enlarged:
    gray is the frame enlarged by interpolation, where pip sizes spread with the frame's pixel grid (GRID_SIZE_SPREAD:
    allowed in telling whether pips are one face by their layout). rough_ones: a lone strong pip (surround_snr at least
    MIN_SNR) on a face rougher than a 1's may be, up to NO_FACE, is read too, as a weak 1 (PipFace.weak) a die body
    round it may vouch for up to AMBIGUOUS_CAP: a small die's face measures so enlarged (detect.rough_lone_pip)."""
    global _confidences, _grid_spread
    _confidences = {}
    _grid_spread = GRID_SIZE_SPREAD if enlarged else 0.0
    try:
        return _read_faces(gray, polarity, kernel_px, within, finer, edges, weak_ones, rough_ones)
    finally:
        _confidences = None
        _grid_spread = 0.0


def _read_faces(gray: np.ndarray, polarity: str, kernel_px: int, within: list[tuple[int, int, int, int]] | None,
                finer: float | None, edges: tuple[bool, bool, bool, bool], weak_ones: bool,
                rough_ones: bool) -> list[PipFace]:
    """read_faces, read."""
    response = pip_response(gray, polarity, kernel_px)
    smallest = 0.0 if finer is None else SPANNED_BY_FINER * kernel_px / finer
    pips, thr = find_pips(response, gray, kernel_px, within=within, min_diameter=smallest)
    pips = [p for p in pips if p.diameter >= smallest]
    groups = merge_halves(group_faces(pips, response, thr), thr)
    off_layout = [g for g in groups if any(q.snr < WEAK_SNR for q in g) and not _layout_face(g, gray, polarity, thr)]
    faint = {id(p) for g in off_layout for p in g if p.snr < WEAK_SNR}
    # faint pips left out of a group, by the group's other pips (linked to them): one where a 3 has its third puts
    # a 2 in doubt (_third_pip_beyond), as does any pip found that is no part of a face (found: the faint ones too)
    left_faint = {id(p): [q for q in g if q.snr < WEAK_SNR] for g in off_layout for p in g if p.snr >= WEAK_SNR}
    found = pips
    # ... and of a group all smeared alike: a motion blur may have smeared those pips' face's own pips faint (a 3
    # whose corner pips are streaks)
    left_out = {id(p): left_faint[id(p)] for g in off_layout if _smeared_alike(g) for p in g if p.snr >= WEAK_SNR}
    if faint:  # faint pips off a face of 4..6 pips in a d6 layout are no pips: group the others again without them
        pips = [p for p in pips if id(p) not in faint]
        groups = merge_halves(group_faces(pips, response, thr), thr)
    parts = [part for g in groups for part in split_group(g, thr)]
    groups = [g for g, _ in parts]
    # a side face only hides groups beside a top face: a group that is itself some die's side face
    # does not make a neighbouring die's top face a side face (dice touching in a row); nor does a group
    # of weak pips alone, which is read as no face at all (a glyph, a smear)
    faces_possible = [h for h in groups if any(p.snr >= MIN_SNR for p in h)]
    # _is_side_face, with the shape decided once per pair: the pairs it decides give the frame's direction
    may_be_beside = _within_side_reach(groups, faces_possible)
    by_shape = {(id(g), id(h)): _side_face_by_shape(g, h) if may_be_beside[i, j] else False
                for i, g in enumerate(groups) for j, h in enumerate(faces_possible) if h is not g}
    toward = _toward_camera([(g, h) for g in groups for h in faces_possible if h is not g and by_shape[id(g), id(h)]])
    side_of = [[h for h in faces_possible if h is not g and (
        _lies_toward(g, h, toward) if by_shape[id(g), id(h)] is None else bool(by_shape[id(g), id(h)]))]
        for g in groups]
    sides = [bool(s) for s in side_of]
    # pairs of one die whose top face the frame's direction cannot tell: both faces in doubt, neither hidden
    top_unknown = {id(p) for i, j in zip(*np.nonzero(may_be_beside)) if groups[i] is not faces_possible[j]
                   and by_shape[id(groups[i]), id(faces_possible[j])] is None
                   and _top_unknown(groups[i], faces_possible[j], toward) for p in groups[i] + faces_possible[j]}
    for _ in range(4):  # settle which groups are top faces (a chain of touching dice settles in a few rounds)
        tops = {id(h) for h, side in zip(groups, sides) if not side}
        now = [any(id(h) in tops for h in s) for s in side_of]
        if now == sides:
            break
        sides = now
    # a lone pip taken for the side face of a lone pip just like it (same size and shape, not flatter)
    # may be the other pip of that one's 2: the 1 read there is in doubt; and so is a lone top pip it
    # is the twin of with clear die body between them (a 2's pip taken for the side face of a touching
    # die's pip leaves the 2 read as a 1). Not for a side pip a region's side cuts (_cut_by_region): what it shows of
    # the pip is a part, no twin of anything (a 1's region cut through the 3 on its die's side face below it, and the
    # part of a pip left was taken for the 1's twin: bench's small-dice frame 0000)
    lone_tops = [h[0] for h, side in zip(groups, sides) if len(h) == 1 and not side]
    lone_sides = {id(g[0]): g[0] for g, side in zip(groups, sides) if side and len(g) == 1
                  and not _cut_by_region(g[0], gray.shape, edges)}
    twin_side = {id(h[0]) for g, of in zip(groups, side_of) if len(g) == 1 and id(g[0]) in lone_sides
                 for h in of if len(h) == 1 and twins(g[0], h[0])}
    discs = _pip_discs(pips)
    twin_side |= {id(k) for p in lone_sides.values() for k in lone_tops
                  if twins(p, k) and _segment_clear(p, k, response, thr, discs)}
    mottled: list[list[Pip]] = []  # pairs _pair_far_pips would have joined as a 2 but for the face round them
    parts = _pair_far_pips([part for part, side in zip(parts, sides) if not side], pips, gray, polarity, response, thr,
                           mottled)
    declined = {id(p) for pair in mottled for p in pair}
    # a mark on a face that is not its pip (a numeral's stroke beside two others read as a 2, a speck):
    # the face's count is in doubt, and so is the mark read as a 1 of its own
    table = PipTable(pips)
    strays = {id(g): stray_marks(g, table) for g, _ in parts}
    in_faces = {id(p) for g, _ in parts if len(g) > 1 for p in g}
    loose = [p for p in found if id(p) not in in_faces]
    on_a_face = {id(q) for qs in strays.values() for q in qs}
    faces: list[PipFace] = []
    glint_lit: set[int] = set()  # id() of the groups read as faces only with a glint on the face left out
    grain: float | None = None  # the noise left in gray (_grain), measured when a face first needs it
    for g, ambiguous in parts:
        n = len(g)
        value = n if n in D6_LAYOUTS else None
        conf = face_confidence(g, thr) if value is not None else 0.0
        if n > 1 and len({p.blob for p in g}) == 1:
            continue  # a face's pips are not all one blob split in pieces: that is a mark, a numeral, a letter
        vouchable: float | None = None  # the confidence before doubts a die body round the face may answer
        weak = sum(p.snr < MIN_SNR for p in g)
        lone_weak = False
        if weak and not _layout_face(g, gray, polarity, thr):  # a face of 4..6 pips in a d6 layout vouches for them
            lone_weak = weak_ones and n == 1 and g[0].snr >= WEAK_SNR
            if (weak == n or any(p.snr < WEAK_SNR for p in g)) and not lone_weak:
                continue  # weak pips are read only beside strong ones
            if n < 4 or n - weak < 2:
                if (n == 3 and weak == 1) or (n in (2, 3) and weak == n - 1
                                              and _no_fuller_face(g, gray, response, polarity)):
                    # a 3 with one weak pip, or a 2 or 3 with one strong pip whose face shows no fuller face's other
                    # pips (renders: a 4 or 6 of weak pips, two found): its die's body may vouch for it
                    vouchable = conf
                conf = min(conf, AMBIGUOUS_CAP)  # too little layout to vouch for a weak pip
        if n <= 3:  # few pips are weak evidence of a die: the face around them must be plain
            roughness = face_roughness(g, gray, polarity)
            rough = roughness > (2 * PLAIN_FACE if n == 1 else NO_FACE)
            # a glint on the face round dark pips is no mark on it (whether it hides a pip is hides_pip's, below); not
            # at a close-up scale, where a "pip" may be a cluster of a die's pips, or a die, and its "glints" white dice
            lit = rough and polarity == "dark" and finer is None
            if lit:
                roughness = min(roughness, face_roughness(g, gray, polarity, glints_out=True))
                rough = roughness > (2 * PLAIN_FACE if n == 1 else NO_FACE)
                if not rough:
                    glint_lit.add(id(g))
            rough_one = rough_ones and n == 1 and roughness <= NO_FACE and g[0].snr >= MIN_SNR
            if rough and (n != 3 or not _smeared_alike(g)) and not rough_one:
                continue  # no plain die face: a speck on a patterned die, a glyph's dots, keys, a spot on glass
            # 3 pips in a row smeared alike on a rough face: a die in motion, its blurred edges over its face;
            # kept, its confidence lost to the roughness below (flagged unsure, not dropped: a die is not lost).
            # Not 2: two strokes side by side are a numeral's "11" as often as a blurred 2
            if rough or not _blurred_two(g, gray, response, thr):
                if vouchable is None:  # 2 or 3 pips on a mottled die, or a 1 on a face not quite plain (renders of pip
                    vouchable = conf  # d6 at 60-90 px: 0.08..0.11): its body may vouch for them
                # its confidence: how rough with the camera's grain taken off (whether it is a face at all is
                # told above as measured: grain is no face either)
                if roughness > PLAIN_FACE:
                    grain = _grain(gray) if grain is None else grain
                    plain = face_roughness(g, gray, polarity, grain, glints_out=lit) if grain > 0.0 else roughness
                    conf *= math.exp(-((max(0.0, plain - PLAIN_FACE) / (0.4 * PLAIN_FACE)) ** 2))
            if rough:  # smeared by a motion blur: no die body answers that; but a lone strong pip (rough_ones) is a
                # weak 1, its die body's to vouch for as far as the cap (vouchable: its confidence before the roughness)
                vouchable = min(vouchable, AMBIGUOUS_CAP) if rough_one and vouchable is not None else None
                lone_weak = lone_weak or rough_one
        marked_inside = _marked_inside(g, gray)
        marked = (n in (2, 4) and _centre_marked(g, response, thr)) or marked_inside \
            or (n == 1 and g[0].triangle_fill > TRIANGLE_FILL)
        # a faint pip left out where the face has its pips (NEAR_FACE), or where a 3 seen as a 2 has its
        # third (the 2's line continued past either pip): the face's count is in doubt
        doubt = any(_face_reach(g, q) <= NEAR_FACE or _on_line_beyond(g, q) for p in g for q in left_out.get(id(p), []))
        # a frayed pip (_frayed_pip) may be a speck as well: the face's count is in doubt (a side face a
        # frayed speck completes to a d6 layout would be read as a die of its own)
        # a 1 whose twin lies where its 2's other pip would, the face round the two not plain (_pair_far_pips'
        # declined): one 2 on a mottled face as likely as two dice (a marbled blue 2 read as a sure 1 and an unsure 1)
        doubt = doubt or any(p.frayed for p in g) or bool(strays[id(g)]) \
            or (n == 1 and (id(g[0]) in on_a_face or id(g[0]) in declined)) \
            or crosswise_pips(g) \
            or (n == 2 and _third_pip_beyond(g, [q for p in g for q in left_faint.get(id(p), [])], loose, found,
                                              response, thr)) \
            or _fainter_than_face(g)  # a numeral's digits; another face's pips
        if n == 1 and not doubt and conf > AMBIGUOUS_CAP:
            doubt = _face_marked(g[0], gray, response, thr)
        # a doubt a side face beside it puts on it: a 1 whose twin a side face took, a top face the frame cannot tell
        beside = (n == 1 and id(g[0]) in twin_side) or any(id(p) in top_unknown for p in g)
        # a 1 in doubt for that alone: its region, read finer, may see that side face whole (_finer_faces)
        before_side = conf if beside and n == 1 and not (doubt or ambiguous or marked) else None
        doubt = doubt or beside
        glint = False
        # a glint may hide a pip (of a face of 1-4 pips, or of the top face beside a side face: one seen obliquely,
        # or of 1-3 pips squashed alike)
        if not doubt and max(conf, vouchable or 0.0) >= UNSURE_BELOW:
            centres = np.array([[p.x, p.y] for p in g])
            squash = (_roundness(g), _pip_direction(g)) if n <= 3 and _smeared_alike(g) else None
            glint = doubt = glints.hides_pip(centres, np.array([p.diameter for p in g]),
                                             _layout_map(centres)[1] if n > 1 else None, gray, squash)
        # its pips are a face of its polarity as sure as read: its count alone is in doubt (not for a lone pip: a
        # glint may throw specks beside it)
        before_glint = conf if glint and n > 1 and not (ambiguous or marked) else None
        if ambiguous or marked or doubt:  # a faint pip where a fuller face has one; marks inside a lone "pip" (a small die)
            conf = min(conf, AMBIGUOUS_CAP)
            vouchable = None
        # at every scale, close-ups' too, where only a larger face's place past the edge tells, and not of a lone
        # pip (runs_off); a face already unsure is not looked at again
        asked = value is not None and (finer is None or n > 1) and conf >= UNSURE_BELOW
        cut = asked and runs_off(g, gray, polarity, edges, lopsided=finer is None)
        faces.append(PipFace(g, value, conf, _face_box(g), False, polarity, _centre(g), runs_off=cut,
                             runs_off_asked=asked, dice_as_pips=marked_inside and n >= 3, uncapped=vouchable,
                             weak=lone_weak, before_glint=before_glint, before_side=before_side))
    faces = _glint_split_parts(faces, glint_lit)
    _doubt_twin_taken(faces, pips, response, thr)
    _doubt_faces_too_near(faces)
    _flag_cocked(faces)
    faces = _drop_odd_lone_pips(faces)
    if weak_ones:  # a pair declined for the face round it: no die by itself, the 2 of a die body round it
        for pair in mottled:
            # unsure even so: a 4 whose other two pips went unfound on that face is two far pips as well; what a
            # die body round it restores is its own confidence only where that face shows no such pip
            full = face_confidence(pair, thr)
            alone = _no_fuller_face(pair, gray, response, polarity)
            faces.append(PipFace(pair, 2, 0.0, _face_box(pair), False, polarity, _centre(pair),
                                 uncapped=full if alone else min(full, AMBIGUOUS_CAP), weak=True))
    return faces


def _marked_inside(group: list[Pip], gray: np.ndarray) -> bool:
    """Whether a face's "pips" are marks inside something else: every one of them but one (a lone pip: itself)
    marked inside (pip_marks over MARKED_PIP; gray: HxW uint8, the pips' frame), as a small die showing its own
    pips or numerals is and one paint-filled dent is not. A lone pip so marked is a small die, no 1; a 2 whose
    pips are, a numeral's strokes or two small dice. Small white dice on a wooden floor are light blobs of a
    pip's size at the analysis scale: matteop65 photos of dice showing 1, tiled 4 x 4 into one 2560x1920 photo
    (dice ~17 px at 640 px), had four dice lying in a square read as a sure 4 of light pips, marked 0.32..0.83,
    and their 1s lost. Faces of 3 pips or more read on matteop65's photos, their close-ups, small-dice frames and
    negatives have at most 2 of 3 pips so marked (three_29, blurred, unsure anyway) and 4 of 6 (six_43). Stops at
    the second plain pip: a real face costs about two pip_marks."""
    plain_allowed = 1 if len(group) > 1 else 0
    plain = 0
    for p in group:
        if pip_marks(gray, p) <= MARKED_PIP:
            plain += 1
            if plain > plain_allowed:
                return False
    return True


def _smeared_alike(group: list[Pip]) -> bool:
    """True when the pips of a face are smeared alike by a motion blur: each elongated (roundness under
    SQUARE_FACE) along one direction (within MOTION_ALIGN degrees). A blur spreads the die's edges and
    the pips' halos over the face, so its roughness is no sign of a glyph or a speck there."""
    if any(p.roundness >= SQUARE_FACE for p in group):
        return False
    mean = _pip_direction(group)
    return all(_axial_turn(p.angle, mean) <= MOTION_ALIGN for p in group)


def _in_motion(group: list[Pip]) -> bool:
    """True when every pip of a face is strong (surround_snr >= MIN_SNR) and smeared alike by a motion
    blur (_smeared_alike)."""
    return all(p.snr >= MIN_SNR for p in group) and _smeared_alike(group)


def _blurred_two(group: list[Pip], gray: np.ndarray, response: np.ndarray, thr: float) -> bool:
    """True when a 2 is a die's face in motion, whose roughness (its edges and pips' halos spread over
    the face) is no sign of a speck or glyph: both pips strong, smeared alike (_in_motion) and plain
    inside (pip_marks at most MARKED_PIP; gray: HxW uint8, the pips' frame), as close
    as pips of one face are (within LINK_DIAMETERS: a pair farther apart may be pips of two faces, a
    top face's 1 and its side face's pip), and bare where a 3 would have its third pip
    (_centre_marked with beyond; response: HxW uint8 pip response, thr its threshold)."""
    if len(group) != 2 or not _in_motion(group) or any(pip_marks(gray, p) > MARKED_PIP for p in group):
        return False  # marks inside the strokes: pieces of a numeral (a "2" or "5" on a small die), no smeared pips
    a, b = group
    if math.hypot(a.x - b.x, a.y - b.y) > LINK_DIAMETERS * 0.5 * (a.diameter + b.diameter):
        return False
    return not _centre_marked(group, response, thr, beyond=True)


def _fainter_than_face(group: list[Pip]) -> bool:
    """Whether a face's strong pips (surround_snr at least MIN_SNR) outnumber weak ones SNR_SPREAD times fainter
    than their median: a face's pips are painted alike and blur alike, so a few such pips beside many clear ones
    may be another face's. matteop65 photos shrunk by 0.6..0.75: four_42's 4 (pips at snr ~62) and two pips of its
    side face seen edge-on (3.4..6.2) were read as a sure 6, the layout vouching for them. A motion blur makes most
    of a face's pips weak, not a few: a 5 smeared along its columns has four corner pips split from bars at 2..7 and
    its centre pip clear at 26..58. Sure faces with weak pips in every matteop65 photo at 1.0, 0.75, 0.6 and 0.5 of
    its size: their strong pips' median at most 2.7 x their weakest (blurred dice), four_42's 10 and more."""
    strong = [p.snr for p in group if p.snr >= MIN_SNR]
    if not strong:
        return False
    level = _median(np.array(strong))
    faint = sum(SNR_SPREAD * p.snr < level for p in group if p.snr < MIN_SNR)
    return 0 < faint < len(strong)


def _layout_face(group: list[Pip], gray: np.ndarray, polarity: str, thr: float) -> bool:
    """True when 4..6 pips make a d6 face by their layout alone, however blurred each one is: it fits
    with face_confidence >= UNSURE_BELOW (layout, foreshortening, pip sizes, contrast) and the face
    around them is lighter than dark pips, darker than light ones (face_roughness is finite; gray: HxW
    uint8). Such a face vouches for pips whose own surround a blur has filled (weak and faint pips):
    four to six blobs in a d6 lattice, alike in size and shape, are no accident of grain or glyphs."""
    return (4 <= len(group) <= 6 and face_confidence(group, thr, one_face=True) >= UNSURE_BELOW
            and face_roughness(group, gray, polarity) < math.inf)


def _cut_by_region(pip: Pip, shape: tuple[int, ...], edges: tuple[bool, bool, bool, bool]) -> bool:
    """Whether pip (a blob found in a grey image of shape (H, W)) reaches within a px of a side of that image that is
    not the frame's edge (edges: left, right, top, bottom, True for the frame's, as read_faces'): the image is a region
    of the frame (detect._region_faces) whose side cut the blob, and the pip seen is a part of one. Its reach is half
    its ellipse's major axis (Pip.major, px)."""
    h, w = shape[:2]
    reach = pip.major / 2 + 1.0
    return any(not frame and gap <= reach for frame, gap in zip(edges, (pip.x, w - 1 - pip.x, pip.y, h - 1 - pip.y)))


def twins(a: Pip, b: Pip) -> bool:
    """True when pips a and b may be the two pips of one 2 (_pair_far_pips pairs only such): within
    TWO_DIAMETERS, areas within 1.5x, roundness within 0.2 (widened for small pips: _roundness_alike)."""
    d = math.hypot(a.x - b.x, a.y - b.y)
    return (d <= TWO_DIAMETERS * 0.5 * (a.diameter + b.diameter) and max(a.area, b.area) <= 1.5 * min(a.area, b.area)
            and _roundness_alike(a, b, 0.2))


def _doubt_twin_taken(faces: list[PipFace], pips: list[Pip], response: np.ndarray, thr: float) -> None:
    """Make unsure (confidence at most AMBIGUOUS_CAP) each 1 whose pip has a twin (twins: where the
    other pip of its 2 would be) with clear die body between them (_segment_clear over response, HxW
    uint8, above thr) that an unsure face of 2 or more pips (confidence under UNSURE_BELOW) took:
    touching dice whose light pips show no seam between them, a 2's pip linked to a neighbour's pip,
    leave the 1 a 2 in doubt. pips: every pip found in the frame; faces: read_faces' faces, changed in place. A twin
    in a side face of several pips is a side face's pip (a 1 seen obliquely shows them) and doubts nothing; a
    lone pip taken for a side face is weighed by read_faces (twin_side)."""
    taken = {id(p) for f in faces if len(f.pips) > 1 and f.confidence < UNSURE_BELOW for p in f.pips}
    discs = _pip_discs(pips)
    for f in faces:
        if len(f.pips) != 1 or f.confidence <= AMBIGUOUS_CAP:
            continue
        a = f.pips[0]
        if any(id(q) in taken and twins(a, q) and _segment_clear(a, q, response, thr, discs) for q in pips):
            f.confidence = AMBIGUOUS_CAP


def _glint_split_parts(faces: list[PipFace], glint_lit: set[int]) -> list[PipFace]:
    """faces without those read only with a glint on the face left out (glint_lit: id() of their pips' lists) that lie
    nearer another face read than two dice's top faces can (SIDE_FACE_ROUNDNESS face sides, face_side, the larger of
    the two): a glint that washed out a pip between them split one face, whose die the other reads (the bench's glint
    row: a 4 read as a 2 and, beside it, a 1)."""
    def near(f: PipFace, g: PipFace) -> bool:
        return math.dist(f.centre, g.centre) < SIDE_FACE_ROUNDNESS * max(face_side(f.pips), face_side(g.pips))
    return [f for f in faces if id(f.pips) not in glint_lit
            or not any(g is not f and g.value is not None and near(f, g) for g in faces)]


def _doubt_faces_too_near(faces: list[PipFace]) -> None:
    """Make unsure (confidence at most AMBIGUOUS_CAP, nothing uncapped for a die body to vouch for) both faces of
    each pair of read faces, one of them or both sure, whose centres lie closer than SIDE_FACE_ROUNDNESS face
    sides (face_side, the larger of the two): two dice's top faces lie at least a face side apart, foreshortened
    to no less than that under a camera looking down from 45 degrees or higher, and a die's side face is no face
    read_faces gives. Two such faces are one face the pip search kept apart (a 4 as two 2s, or as a 2 and a
    weak 1, a pip's outline frayed by a JPEG) or a face and a mark on it. faces: read_faces' faces, changed in
    place."""
    read = [f for f in faces if f.value is not None]
    if len(read) < 2:
        return
    # every pair at once: a frame of small dice read at twice the scale holds a hundred faces
    centres = np.array([_centre(f.pips) for f in read])
    sides = np.array([face_side(f.pips) for f in read])
    sure = np.array([f.confidence >= UNSURE_BELOW for f in read])
    dist = np.hypot(centres[:, None, 0] - centres[None, :, 0], centres[:, None, 1] - centres[None, :, 1])
    near = (dist < SIDE_FACE_ROUNDNESS * np.maximum(sides[:, None], sides[None, :])) & (sure[:, None] | sure[None, :])
    np.fill_diagonal(near, False)
    for i in np.flatnonzero(near.any(axis=1)):
        read[i].confidence, read[i].uncapped = min(read[i].confidence, AMBIGUOUS_CAP), None


class PipTable:
    """A frame's pips (pips: list[Pip]) as arrays, made once for tests asked of every pip of the frame per
    face (stray_marks): x, y, diameter ((N,) float64 px each), and at: id of a pip -> its places in pips."""

    def __init__(self, pips: list[Pip]):
        self.pips = pips
        self.x, self.y, self.diameter = np.array([[p.x, p.y, p.diameter] for p in pips], np.float64).reshape(-1, 3).T
        self.at: dict[int, list[int]] = {}
        for i, p in enumerate(pips):
            self.at.setdefault(id(p), []).append(i)


def stray_marks(group: list[Pip], pips: PipTable) -> list[Pip]:
    """The pips found in the frame (pips) but not in group that lie on the group's face: their edge
    nearest the face's centre within 1 + FACE_MARGIN pitches of its layout (_face_reach), where the
    face's own pips lie. A die's top face holds nothing but its pips; another mark of pip contrast on
    it (any size: a pip of a fuller face, or a numeral of a die that is no d6, whose other strokes were
    taken for a 2's pips) puts the count in doubt. Every pip at once (read_faces asks it of each face)."""
    cx, cy = _centre(group)
    others = np.ones(len(pips.pips), bool)
    for p in group:
        others[pips.at.get(id(p), [])] = False
    marks = np.flatnonzero(others)
    x, y = pips.x[marks], pips.y[marks]
    d = np.hypot(x - cx, y - cy)
    step = np.minimum(pips.diameter[marks] / 2.0, d) / np.maximum(d, 1e-9)  # to the mark's edge nearest the centre
    edges = np.column_stack([x + (cx - x) * step, y + (cy - y) * step])
    return [pips.pips[i] for i in marks[_face_reaches(group, edges) <= 1.0 + FACE_MARGIN]]


def _face_marked(pip: Pip, gray: np.ndarray, response: np.ndarray, thr: float) -> bool:
    """True when the face of a lone pip (in gray: HxW uint8) holds another mark: a blob of the pip mask
    (response: HxW uint8, gray's pip_response, above thr, find_pips' level: of pip contrast;
    MIN_PIP_AREA_PX or more, so no noise) of any shape, no longer than half a face side (a numeral's
    stroke, a speck; not a seam or a die's edge, which runs along a side), some of it within half a
    face side of the pip (FACE_SIDE_DIAMETERS of its major axes a side, foreshortened like the pip:
    the disc surely on the face of a 1 whose pip is as large as its other pips), on the same face:
    the grey levels between the pip and the mark stay those of the ring around the pip (within 3
    robust spreads of its median), no edge between.
    A d6's 1 holds its pip alone: matteop65's 1s (pips ~0.15 of the face) show the pips of their
    side faces from 2.9 major axes on; a stroke of a dark d20's numerals, taken for a light pip, has
    its other strokes on the same body at 2.2 (a "1" there, sure before)."""
    major = pip.major
    reach = FACE_SIDE_DIAMETERS / 2.0 * major
    h, w = gray.shape
    x0, x1 = max(int(pip.x - 2 * reach), 0), min(int(pip.x + 2 * reach) + 2, w)
    y0, y1 = max(int(pip.y - 2 * reach), 0), min(int(pip.y + 2 * reach) + 2, h)
    n, labels, stats, _ = cv2.connectedComponentsWithStats((response[y0:y1, x0:x1] > thr).view(np.uint8))
    own = labels[min(max(int(round(pip.y)) - y0, 0), y1 - y0 - 1), min(max(int(round(pip.x)) - x0, 0), x1 - x0 - 1)]
    a = math.radians(pip.angle)
    cos_a, sin_a, roundness = math.cos(a), math.sin(a), max(pip.roundness, 0.1)
    face: tuple[float, float] | None = None  # the ring's median and tolerance, measured once needed
    px, py = pip.x - x0, pip.y - y0  # the pip in the window
    for k in range(1, n):
        bx, by, bw, bh, area = (int(v) for v in stats[k])
        if k == own or area < MIN_PIP_AREA_PX or max(bw, bh) > reach:
            continue
        if math.hypot(max(bx - px, 0.0, px - (bx + bw - 1)), max(by - py, 0.0, py - (by + bh - 1))) > reach:
            continue  # all of it farther than reach in the image, so on the face too
        ys, xs = np.nonzero(labels[by:by + bh, bx:bx + bw] == k)
        dx, dy = xs + (x0 + bx) - pip.x, ys + (y0 + by) - pip.y
        d = np.hypot(dx * cos_a + dy * sin_a, (-dx * sin_a + dy * cos_a) / roundness)  # on the face
        i = int(d.argmin())
        if d[i] > reach:
            continue
        if face is None:
            ring, _ = _ring_and_inner(gray, pip.x, pip.y, major / 2.0)
            if ring.size < 8:
                return False  # the frame cuts the face off: nothing to compare with
            level, spread = _level_and_spread(ring)
            face = (level, 3.0 * (spread + 1.0))
        length = math.hypot(float(dx[i]), float(dy[i]))
        t = np.linspace(0.0, 1.0, max(int(length), 2))
        between = (t * length > 0.75 * major) & ((1.0 - t) * length > 1.5)  # off the pip and the mark
        if not between.any():
            return True  # the mark lies against the pip
        g = gray[np.round(pip.y + t[between] * float(dy[i])).astype(int),
                 np.round(pip.x + t[between] * float(dx[i])).astype(int)].astype(np.float32)
        if float((np.abs(g - face[0]) <= face[1]).mean()) >= 0.9:
            return True
    return False


def _on_line_beyond(group: list[Pip], q: Pip, diameters: float = 1.0) -> bool:
    """True when group is 2 pips a, b and pip q lies within `diameters` pip diameters of where a 3's third pip
    would be, the 2's line continued past either pip by their spacing (2a - b or 2b - a)."""
    if len(group) != 2:
        return False
    a, b = group
    reach = diameters * 0.5 * (a.diameter + b.diameter)
    return any(math.hypot(q.x - x, q.y - y) <= reach for x, y in ((2 * a.x - b.x, 2 * a.y - b.y), (2 * b.x - a.x, 2 * b.y - a.y)))


def _third_pip_beyond(group: list[Pip], joined: list[Pip], loose: list[Pip], found: list[Pip], response: np.ndarray,
                      thr: float) -> bool:
    """Whether a 2 (group: its two pips) may be a 3 whose third pip was not joined to it: a pip lies within half a
    pip diameter of where a 3 has its third (_on_line_beyond: a 3's pips are evenly spaced on a line, and an affine
    view keeps them so), foreshortened as the 2's pips are (_roundness_alike, as _linked asks: one plane) or less (a
    pip rounder than the 2's is no side face's, seen more obliquely than a top; a white die ~30 px with red pips read
    finer, interpolated: its 3's end pip measured 1.0 round, the others 0.7, and they read as a sure 2), and it is
    of joined (faint pips left out of the group the 2's pips were first found in, so linked to them) or of loose
    (the pips found in the frame, faint ones too, that are no part of a face of two pips or more) with clear die
    body between it and the 2's nearer pip (_segment_clear off every pip of found, all the pips found in the frame;
    response: HxW uint8 pip response, thr its threshold).
    Renders of 3s (d6, 40-80 px, random body colours and inks, marbled; 826 dice in 200 scenes): 7 were read as
    sure 2s, a corner pip smaller than the others (area ratio over _linked's 1.8, so not linked) or faint by the
    die's edge (left out); 1 with this. Of 826 rendered 2s as many are read sure as before (326). On matteop65,
    beyond a 2's pip lie a neighbour's side-face pips: flatter than the 2's (two_20), a pip of a face of their own,
    across the seam between the dice, or a pip diameter off the line (its photos at half size): none puts a real 2
    in doubt."""
    for q in joined + loose:
        if not _on_line_beyond(group, q, 0.5) or not all(_roundness_alike(p, q, 0.25) or q.roundness > p.roundness
                                                          for p in group):
            continue
        nearer = min(group, key=lambda p: math.hypot(p.x - q.x, p.y - q.y))
        if any(q is j for j in joined) or _segment_clear(nearer, q, response, thr, _pip_discs(found)):
            return True  # (the discs made only here: few pips lie where a 3's third would)
    return False


def _disc_mean(image: np.ndarray, x: float, y: float, r: float) -> float | None:
    """The mean of image (HxW) over the disc of radius r px round (x, y) px; None where no pixel of it lies in image."""
    h, w = image.shape
    x0, x1 = max(int(x - r), 0), min(int(x + r) + 1, w)
    y0, y1 = max(int(y - r), 0), min(int(y + r) + 1, h)
    if x0 >= x1 or y0 >= y1:
        return None
    yy, xx = np.mgrid[y0:y1, x0:x1]
    disc = image[y0:y1, x0:x1][np.hypot(xx - x, yy - y) <= r]
    return float(disc.mean()) if disc.size else None


def _centre_marked(group: list[Pip], response: np.ndarray, thr: float, beyond: bool = False) -> bool:
    """True when a 2's or 4's pattern holds a faint pip where a fuller face has one: the centre of a 2
    or 4 (a 3 or a 5 whose centre pip was not found), or the middle of a 4's side (a 6 whose columns a
    motion blur smeared into bars, their middle pips lost in them); with beyond, also a 2's line
    continued past either pip by their spacing (a 3 whose corner pip was lost: its other two pips look
    like a 2). Marked: the mean pip response
    (HxW uint8) over a disc of 0.3 pip diameters there exceeds the face's own level (the same disc
    half-way from the centre to each pip, plain body on every d6 layout) by CENTRE_FRACTION of the pip
    threshold thr."""
    cx, cy = _centre(group)
    r = max(0.3 * _mean([p.diameter for p in group]), 1.0)

    def disc_mean(x: float, y: float) -> float:
        mean = _disc_mean(response, x, y, r)
        return 0.0 if mean is None else mean  # off the frame (a 2's line continued past a pip near its edge): no mark

    level = float(np.median([disc_mean((cx + p.x) / 2, (cy + p.y) / 2) for p in group]))
    spots = [(cx, cy)]
    if len(group) == 4:
        _, m = _layout_map(np.array([[p.x, p.y] for p in group]))
        spots += [tuple(np.array([u, v, 1.0]) @ m) for u, v in ((-1, 0), (1, 0), (0, -1), (0, 1))]
    if beyond and len(group) == 2:
        a, b = group
        spots += [(2 * a.x - b.x, 2 * a.y - b.y), (2 * b.x - a.x, 2 * b.y - a.y)]
    return any(disc_mean(x, y) > level + CENTRE_FRACTION * thr for x, y in spots)


def _pair_far_pips(parts: list[tuple[list[Pip], bool]], pips: list[Pip], gray: np.ndarray, polarity: str,
                   response: np.ndarray, thr: float, declined: list[list[Pip]]) -> list[tuple[list[Pip], bool]]:
    """Top faces of one pip that are the two pips of a 2 with small pips (farther apart than
    LINK_DIAMETERS, up to TWO_DIAMETERS): alike in size and shape (twins), plain inside (pip_marks at
    most MARKED_PIP), on a plain face (face_roughness at most twice PLAIN_FACE) with clean die body
    between them (no seam, no other pip near the segment). Nearest pairs first. parts: (face pips,
    ambiguous) of the top faces; pips: every pip found in gray (HxW uint8, pips of polarity "dark" or
    "light") with response and thr. Returns parts with such pairs joined. declined gets each pair
    that was all that but for the face round it (two dice on a floor, or one 2 on a mottled face: read_faces
    puts each 1 read there in doubt, and with weak_ones reads the pair as a weak 2 a die body may vouch for)."""
    lone = [i for i, (g, _) in enumerate(parts) if len(g) == 1]
    discs = _pip_discs(pips)
    pairs = []
    for i, j in itertools.combinations(lone, 2):
        a, b = parts[i][0][0], parts[j][0][0]
        if not twins(a, b) or not _segment_clear(a, b, response, thr, discs):
            continue
        d = math.hypot(a.x - b.x, a.y - b.y)
        mx, my = (a.x + b.x) / 2, (a.y + b.y) / 2
        if any(p is not a and p is not b and math.hypot(p.x - mx, p.y - my) < d / 2 + p.diameter for p in pips):
            continue
        if max(pip_marks(gray, a), pip_marks(gray, b)) > MARKED_PIP:
            continue  # marks inside: two small dice on a floor, no 2
        if face_roughness([a, b], gray, polarity) > 2 * PLAIN_FACE:
            declined.append([a, b])
            continue  # not on a plain face: two dice on a floor, or one 2 on a mottled face
        pairs.append((d, i, j))
    used: set[int] = set()
    joined: list[tuple[list[Pip], bool]] = []
    for _, i, j in sorted(pairs):
        if i not in used and j not in used:
            used |= {i, j}
            joined.append((parts[i][0] + parts[j][0], parts[i][1] or parts[j][1]))
    return [part for k, part in enumerate(parts) if k not in used] + joined


#: Two or three pips a die body may vouch for (_no_fuller_face) are their own face, not part of a fuller face whose
#: other pips went unfound, when the grey level where such a face has pips departs from the face's own by at most
#: FULLER_PLACES_PLAIN of the pips' contrast, and the pip response anywhere else on the face peaks at most at
#: FULLER_PIP_RESPONSE of theirs. Measured on renders of pip d6 in random colours (300 scenes at 60-90 px and 300 at
#: 25-45 px), on the far pairs a die body vouched for: the 2s' places departed 0.33 of the contrast at most and their
#: faces' response peaked at 0.40 at most; 4s (two of their pips found) 0.92 and 0.81 at the least, a 6 of weak pips
#: 0.21 (its two found pips on no diagonal of its face) and 0.72. The same limits, asked of 2s and 3s with weak pips
#: (session 52), read none more sure and wrong in the render probes.
FULLER_PLACES_PLAIN = 0.5
FULLER_PIP_RESPONSE = 0.55


def _no_fuller_face(group: list[Pip], gray: np.ndarray, response: np.ndarray, polarity: str) -> bool:
    """Whether 2 or 3 pips show their face (two pips a die body may vouch for: _pair_far_pips' declined pair, or a 2 or
    3 with one strong pip) and no part of a fuller face whose other pips went unfound. Their face is the square the two
    farthest apart are the diagonal of (a 3's middle pip at its centre). Where a fuller face with them at its corners
    has pips (the other diagonal's corners: a 4, 5 or 6; a 2's centre: a 3 or 5) the face is plain: a disc of 0.35 pip
    diameters there departs from the face's own grey level (the median of the same discs half-way from the centre to
    each corner, plain body on every d6 layout) by at most FULLER_PLACES_PLAIN of the pips' contrast; and the pip
    response over the square (grown by a tenth: a 6's middle pips lie on its sides), but within a pip diameter of each
    pip, peaks at FULLER_PIP_RESPONSE of the lowest of the pips' own or less (a 6 of weak pips, two of them found on no
    diagonal of it). gray, response: HxW uint8, the pips' frame and its pip response (pip_response); polarity: "dark"
    or "light". False where a place lies off the frame."""
    a, b = max(itertools.combinations(group, 2), key=lambda ab: (ab[0].x - ab[1].x) ** 2 + (ab[0].y - ab[1].y) ** 2)
    cx, cy = (a.x + b.x) / 2.0, (a.y + b.y) / 2.0
    hx, hy = (b.x - a.x) / 2.0, (b.y - a.y) / 2.0
    corners = [(a.x, a.y), (b.x, b.y), (cx + hy, cy - hx), (cx - hy, cy + hx)]
    r = max(0.35 * (a.diameter + b.diameter) / 2.0, 1.0)
    face_levels = [_disc_mean(gray, (cx + x) / 2.0, (cy + y) / 2.0, r) for x, y in corners]
    centre = [(cx, cy)] if len(group) == 2 else []  # a 3's middle pip lies there
    places = [_disc_mean(gray, x, y, r) for x, y in corners[2:] + centre]
    pip_levels = [_disc_mean(gray, p.x, p.y, r) for p in (a, b)]
    face_known = [v for v in face_levels if v is not None]
    places_known = [v for v in places if v is not None]
    pips_known = [v for v in pip_levels if v is not None]
    if len(face_known) < 4 or len(places_known) < len(places) or len(pips_known) < 2:
        return False
    face = float(np.median(face_known))
    contrast = (face - float(np.mean(pips_known))) * (1.0 if polarity == "dark" else -1.0)
    if contrast <= 0.0 or any(abs(face - v) > FULLER_PLACES_PLAIN * contrast for v in places_known):
        return False
    half2 = hx * hx + hy * hy
    reach = 1.2 * math.sqrt(half2)
    h, w = response.shape
    x0, x1 = max(int(cx - reach) - 1, 0), min(int(cx + reach) + 2, w)
    y0, y1 = max(int(cy - reach) - 1, 0), min(int(cy + reach) + 2, h)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    ux, uy = xx - cx, yy - cy
    square = np.abs(ux * hx + uy * hy) + np.abs(uy * hx - ux * hy) <= 1.1 * half2
    for p in group:
        square &= (xx - p.x) ** 2 + (yy - p.y) ** 2 > p.diameter ** 2
    own = min(float(response[min(int(round(p.y)), h - 1), min(int(round(p.x)), w - 1)]) for p in group)
    return not square.any() or float(response[y0:y1, x0:x1][square].max()) <= FULLER_PIP_RESPONSE * max(own, 1.0)


def _drop_odd_lone_pips(faces: list[PipFace]) -> list[PipFace]:
    """Drop lone "pips" of a size no die in the frame has: more than twice or less than half the
    typical pip diameter of the sure multi-pip faces (a die's 1 pip is often larger than its other
    pips, but not twice as large). Plugs, stickers and screw heads are the usual culprits."""
    sizes = sorted(p.diameter for f in faces if len(f.pips) > 1 and f.confidence >= 0.8 for p in f.pips)
    if not sizes:
        return faces
    typical = sizes[len(sizes) // 2]
    return [f for f in faces if len(f.pips) > 1 or 0.5 * typical <= f.pips[0].diameter <= 2.0 * typical]
