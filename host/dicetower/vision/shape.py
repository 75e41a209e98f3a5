"""Die type told by shape: d4, d6, d8, d10, d12 or d20 from the die's silhouette and the face edges
inside it (issue 4, item 3), for any die, numbered or not, before its face is read.

    from dicetower.vision.shape import die_type_by_shape
    r = die_type_by_shape(crop_bgr, mask=None)   # crop_bgr: HxWx3 uint8 BGR holding one die
    r = die_type_by_shape(crop_bgr, mask, elevation=view.elevation)   # a camera looking obliquely
    r.die_type      # "d4" | "d6" | "d8" | "d10" | "d12" | "d20"
    r.confidence    # 0..1, calibrated probability of r.die_type
    r.proba         # {"d4": p, ...} over the six types, summing to 1
    r.unsure        # confidence < dicetower.readings.UNSURE_BELOW: flag the die, do not trust the type

How it works:
1. Silhouette. The crop is padded to a square and the die separated from the tray: the Lab
   distance of every pixel from the median colour of the crop's border ring, lightness losses
   counted at half weight (a shadow darkens the tray but keeps its hue), Otsu's threshold, the
   component nearest the centre, holes filled, then refined by GrabCut (less what it grows out to
   the crop's frame: _without_frame_growth). A mask from the detector
   (detect.DieBody.mask) is used instead when given; for the top-down model, which learned from
   segment's silhouettes only, cut back to the die by the same colour distance and filled to the
   convex hull of what is left (trimmed_to_die: the detector's mask holds the die's shadow and the
   tray at its edges), unless that would cut deep into the mask on every side (a two-colour die, one
   colour nearly the tray's: the mask was the die's). When the die is small in the crop (a whole
   photo) the crop is cut again around it, so that every die is described at the same scale.
2. Shape of the outline (rotation and scale invariant): the convex hull's radius r(theta) around
   its centroid, sampled at 90 angles, and the magnitudes of its Fourier harmonics 1..12 over the
   mean radius (a triangle rings at 3, a square at 4, a hexagon at 6, a decagon at 10); vertex
   counts of polygon fits (Douglas-Peucker at 2 to 10 % of the perimeter); solidity,
   circularity, aspect of the minimum-area rectangle; interior angles of the fitted polygon.
3. Face edges inside the die (the up face and its neighbours: triangles for d4/d8/d20,
   pentagons for d12, kites for d10, a square for d6): straight segments found by OpenCV's line
   segment detector inside the eroded silhouette, their count and total length over the die's
   radius, and the Fourier magnitudes of their orientation histogram (period 60 degrees for
   triangles, 90 for squares, 36 for pentagons) together with those of the gradient-orientation
   histogram of the die's interior, and the edge density in rings from the centre outward.
   Then face_structure: where the face edges and numerals lie over the die's radius, which tells
   the look-alikes apart on real photos as on renders (the up face of a d8 is a triangle half the
   die with edges at 0.55 of its radius, a d20's a small triangle with edges at 0.34, a d12's a
   pentagon): per ring, the gradient energy, its share across the radius and its 3-, 5- and 6-fold
   angular harmonics, the numerals' ink; the central numeral's extent; straight edges binned by
   their distance from the centre.
   Last, the numeral net's embedding of the die's middle (NET_NAMES: numerals.face_patch of the
   view, as if seen from above): the net learned numerals on renders of every die type, with the
   edges and neighbouring numerals round the up face, and its view of that face tells d8 from d20
   on real tiles where the edge counts do not.
4. Two multinomial logistic regressions on the standardised features (numpy at run time), their
   logits averaged, give the probabilities: one on every feature, one on the features of the die's
   inside only (INSIDE_FEATURES: face edges and numerals, not the outline). The outline of a real
   crop often tells little or lies: the die is cut by the crop's frame (fickett's tiles), or a
   translucent die on a pale tray gives a ragged silhouette; on fickett_poly_tiles (evaluation only)
   the outline features separate d8 from d20 the other way round than on renders, while the face
   structure separates them the same way and more strongly. Averaging with the inside-only
   expert halves the outline's say. There are two such models (ShapeModels), one per view: the
   top-down one, and the oblique one for a camera looking at the tray from the side (an elevation
   under view.TOP_DOWN_FROM, from view.view_of_scene), trained on renders of dice resting on a face
   seen from OBLIQUE_ELEVATION with their corners rounded as real dice's are (render_oblique_crop),
   together with top-down renders of plain dice (OBLIQUE_PLAIN_PER_TYPE). Seen from the side, a die
   shows its up face squashed near its top and more of its sides, and a small die far from the
   camera shows a rounder outline than sharp renders: the top-down model typed such d20s (a dice
   dome's) as d12s. The oblique model is not used top-down: on real top-down photos it reads worse
   (fickett d6 0.60 against 0.97).
   A photo taken at an angle with no round floor in it (lurig's "angle" shots: a cube showing three
   faces, a d10 seen from its side) is read by the top-down model, and renders do not teach it
   such dice: with the oblique renders (segmented) in its training set, or 600 top-down renders
   tilted up to 60 degrees, the ten lurig angle shots it types wrong on the reader's masks stay
   wrong, their probability of the true type rising by 0.03 at most, while lurig's 95 one-die
   photos fall 0.80 -> 0.77 (oblique renders; 0.80 with the tilted ones) and fickett's 2216 tiles
   0.903 -> 0.895 (both; the top-down model alone on the reader's masks, measured in session 10
   before the renders were speckled). On lurig's photos the features most often farthest from
   renders of the die's type are the edge densities (edges_r*): real dice show more Canny edges
   inside than renders of their type (median 1.0 to 1.5 standard deviations more in the inner three
   rings, on lurig and on fickett alike), which is why half the top-down renders are speckled
   (speckled). Of the ten angle shots, two (d10s seen from the side) are typed right since (reader).
   A dice dome's camera sees a small die (about 60 px) blurred by its roll, and the detector outlines
   it there as the convex hull of a colour region found at half the reading size (detect's
   _colour_regions: coarse steps round the outline), where the oblique renders were sharp and
   outlined by their exact silhouette: half of them are seen so (seen_far), and every render's
   masked description is cut to its mask's box as the reader cuts a body (see render_oblique_set's
   docs for what that changed on realdice_d20).
   Each model's temperature is fitted on out-of-fold logits by likelihood (Guo et al. 2017),
   then raised until the held-out readings that come out sure (confidence >= UNSURE_BELOW) are
   right at least 99 % of the time, on real photos and on renders alike: a sure type can be
   trusted, and a die the model hesitates on is flagged. The look-alikes d8, d12 and d20 are never
   sure by shape alone (temper_lookalikes): their numeral decides (faces.joint_reading).

The models (models/standard/shape.npz) are built by `python -m dicetower.vision.shape` (build_model())
from synthetic renders (synth.render_shape_crop, a third of them cut as close-ups: close_up; for the
top-down model half the numbered dice swirled and ridged as dice makers make them: training_spec, and
half of all speckled: speckled; for
the oblique model render_oblique_crop, half of them seen_far, and plain top-down renders) and the CC0 photos of
../shared/datasets/lurig_dietype (part held out; top-down model only); run time needs OpenCV and
numpy only.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from dicetower.paths import models_dir
from dicetower.vision.fewshot import net_embedding
from dicetower.vision.numerals import face_patch, marks_are_light
from dicetower.vision.view import TOP_DOWN, TOP_DOWN_FROM, check_elevation
from dicetower.readings import UNSURE_BELOW

if TYPE_CHECKING:
    from dicetower.vision.synth import DieSpec

#: The die types told apart, in the model's class order.
DIE_TYPES = ("d4", "d6", "d8", "d10", "d12", "d20")
MODEL_PATH_PARTS = ("standard", "shape.npz")
FEATURE_VERSION = 4

SIDE = 128  # px: the die is described on a SIDE x SIDE square
MIN_SIDE = 12  # px: a crop with a shorter side gets confidence 0 (too small to see a shape)
HARMONICS = 12  # Fourier harmonics of the outline's radius
RAY_ANGLES = 90  # samples of the outline's radius
ORIENT_BINS = 36  # orientation histogram bins over 180 degrees
ORIENT_HARMONICS = 6
TRAY_COLOUR_DIST = 15.0  # Lab units: farther from the tray's colour is die
COLOUR_SHARE = 0.4  # the colour mask is kept when its hull is at least this share of the textured one
SOLID = 0.88  # a die mask covers at least this share of its convex hull
TRAY_TEXTURE = 6.0  # local gradient energy above this many times the tray's is die
MIN_TEXTURE = 25.0  # and above this (mean Sobel magnitude): soft shadow edges stay tray
TEXTURE_WINDOW = 20  # the texture is averaged over 1/TEXTURE_WINDOW of the crop's side
SEGMENT_BINS = ((0.25, 0.5), (0.5, 0.8), (0.8, 1.2), (1.2, 3.0))  # segment lengths over the die's radius
LOOKALIKES = ("d8", "d12", "d20")  # near-round from above; their shares are tempered (temper_lookalikes)
LOOKALIKE_RATIO = 3.0  # the most one look-alike may be favoured over another by shape alone
DP_EPS = (0.02, 0.035, 0.05, 0.07, 0.1)  # polygon-fit tolerances, fraction of the hull's perimeter
#: rings (r over the die's radius) in which the face structure is described (face_structure)
RINGS = ((0.0, 0.25), (0.25, 0.45), (0.45, 0.65), (0.65, 0.85), (0.85, 1.05))
RING_HARMONICS = (3, 5, 6)  # angular symmetries: triangles' 3 (and 6), the d12's pentagons' 5
#: bins of a straight edge's distance from the die's centre over its radius (face_structure)
EDGE_DISTANCE_BINS = ((0.0, 0.2), (0.2, 0.45), (0.45, 0.62), (0.62, 0.8), (0.8, 1.05))
MIN_EDGE = 0.3  # shortest segment (over the die's radius) counted as a face edge
INK_MIN = 18.0  # grey levels: the least top-hat response counted as ink
EDGE_RINGS = (0.0, 0.3, 0.55, 0.8, 1.0)  # ring bounds (r over the die's radius) of the edges_r features
TRIM_SCALE = 2  # trimmed_to_die measures colour on a copy this many times smaller than the view
TRIM_RING = 1 / 16  # trimmed_to_die: the tray is measured outside the mask grown by this share of the view
TRIM_TRAY_MIN = 0.05  # ... when at least this share of the view is left there
SHADOW_CHROMA = 10.0  # Lab units: die_box cuts off only what has the tray's hue to within this (_cut_like_the_tray)
SHADOW_CHROMA_SHARE = 0.3  # ... and this share of the tray's own chroma
TRIM_KEEP = 0.5  # the trimmed mask is kept when it holds at least this share of the detector's


class ShapeModelError(LookupError):
    """The shape model file is missing or unreadable (the message says how to build it)."""


@dataclass
class ShapeResult:
    """The die type a crop shows by its shape. confidence: calibrated probability (0..1) of die_type;
    proba: probability of each of DIE_TYPES."""

    die_type: str
    confidence: float
    proba: dict[str, float] = field(default_factory=dict)

    @property
    def unsure(self) -> bool:
        """True when the caller must flag the die rather than trust its type (RULES.md GEN-D01)."""
        return self.confidence < UNSURE_BELOW


# ---------------------------------------------------------------------------------------------
# silhouette


def _square(crop: np.ndarray, mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
    """Pad crop (border replicated) and mask (zeros) to a square, the die kept centred."""
    h, w = crop.shape[:2]
    d = abs(h - w)
    top, bottom, left, right = (0, 0, d // 2, d - d // 2) if h > w else (d // 2, d - d // 2, 0, 0)
    if d == 0:
        return crop, mask
    sq = cv2.copyMakeBorder(crop, top, bottom, left, right, cv2.BORDER_REPLICATE)
    return sq, (None if mask is None else
                cv2.copyMakeBorder(mask, top, bottom, left, right, cv2.BORDER_CONSTANT, value=0))


def segment(sq: np.ndarray, refine: bool = True) -> np.ndarray:
    """Mask (SxS uint8 0/255) of the die in a square BGR image.

    First by colour: the Lab distance of each pixel from the tray's median colour (the tray: the
    smoother 40 % of the border ring; lightness losses at half weight, so shadows stay tray), Otsu's
    threshold but at least TRAY_COLOUR_DIST, the component nearest the centre among the large ones,
    holes filled. When that is no solid blob (area under SOLID of its convex hull) or a small part of what stands out by
    colour or texture (hull under COLOUR_SHARE of that one's: only the coloured swirls of a grey die
    on a grey tray stand out by colour), the colour-or-texture mask is taken: a pixel is also die
    when its local gradient energy exceeds TRAY_TEXTURE times the tray's and MIN_TEXTURE (the die's edges and
    numerals).
    With refine, GrabCut (3 rounds) seeded with the mask. All zeros when nothing stands out."""
    s = sq.shape[0]
    b = max(2, s // 20)
    ring = np.zeros((s, s), bool)
    ring[:b], ring[-b:], ring[:, :b], ring[:, -b:] = True, True, True, True
    grey = cv2.GaussianBlur(cv2.cvtColor(sq, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    mag = np.hypot(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    k = max(3, s // TEXTURE_WINDOW) | 1
    texture = cv2.blur(mag, (k, k))
    # the tray is the smoother part of the border ring (a large die may cover the rest of it)
    tray = ring & (texture <= np.percentile(texture[ring], 40))
    dist = _tray_distance(sq, tray)
    out = _central_component(_cleaned(_stands_out(dist).astype(np.uint8) * 255))
    score = np.maximum(dist / TRAY_COLOUR_DIST, texture / max(TRAY_TEXTURE * float(np.median(texture[tray])), MIN_TEXTURE))
    textured = _central_component(_cleaned((score > 1).astype(np.uint8) * 255))
    if _solidity(out) < SOLID or _hull_area(out) < COLOUR_SHARE * _hull_area(textured):
        out = textured
    if not out.any() or not refine:
        return out
    return _grabcut(sq, out)


def _tray_distance(sq: np.ndarray, tray: np.ndarray) -> np.ndarray:
    """Per-pixel colour distance (SxS float32, Lab units) of a square BGR image from the median colour
    of its tray pixels (tray: SxS bool), lightness losses counted at half weight: a shadow darkens
    the tray but keeps its hue, so it stays near the tray while the die does not."""
    lab = cv2.cvtColor(cv2.GaussianBlur(sq, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    d = lab - np.median(lab[tray], axis=0)
    dl = np.where(d[..., 0] < 0, 0.5, 1.0) * d[..., 0] * (100 / 255)
    return cv2.GaussianBlur(np.sqrt(dl**2 + d[..., 1] ** 2 + d[..., 2] ** 2), (5, 5), 0)


def _stands_out(dist: np.ndarray, among: np.ndarray | None = None) -> np.ndarray:
    """Which pixels (SxS bool) stand out of the tray by colour: their tray distance (dist: SxS float32,
    Lab units, _tray_distance) above Otsu's threshold over the pixels `among` (SxS bool; all when None)
    but at least TRAY_COLOUR_DIST. The distance is quantised to a quarter of a Lab unit (uint8) for
    Otsu; segment and trimmed_to_die share this one rule."""
    quarters = np.clip(dist * 4, 0, 255).astype(np.uint8)
    t, _ = cv2.threshold(quarters if among is None else quarters[among], 0, 255,
                         cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return quarters > max(t, 4 * TRAY_COLOUR_DIST)


def trimmed_to_die(view: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A detector's die mask (SxS uint8 0/255 over view, SxS BGR) less what is of the tray's colour
    by segment's rule (_tray_distance over the pixels outside the mask grown by TRIM_RING of the
    view's side, threshold Otsu's over the grown mask but at least TRAY_COLOUR_DIST): the die's
    shadow and the tray caught at its edges, which the detector, thresholding lightness at full weight
    at its analysis scale, takes for die; measured on a copy TRIM_SCALE times smaller. Then cleaned,
    the component nearest the centre, and its convex hull within the mask: a die is convex, so what
    colour leaves out within the hull (a translucent die's tray showing through, a face of nearly the
    tray's colour) is die. The mask itself is returned when the trimmed one keeps under TRIM_KEEP of
    it or nothing in it stands out of the tray (a die of the tray's colour: colour cannot find its
    outline), when too little tray is left to measure, or when the cut would reach deep into the mask
    on every side of the die (_cut_into_the_die: a shadow falls to one side, the tray's rim is thin;
    a die of two colours, one of them nearly the tray's, loses that one all round).
    Why: the shape features are measured around the silhouette's hull (its centre, radius and outline);
    a shadow grows and shifts it. lurig_dietype read through the reader (its detector's masks) typed
    71 of 97 dice found right, against 88 of 100 on the whole photos the shape step segments itself
    (faces_eval); on 10 of the 19 photos lost in between the type was right with the mask cut to the
    die by GrabCut (34 ms a die: too slow to read with). With this trim (0.4 ms a die: median over
    lurig's 97 reader masks, one thread, best of 7; _cut_into_the_die adds 0.1) the reader types
    80 of 97 right, the held-out quarter 16 -> 20 of 24 (as on the whole photos: 20 of 25); without
    the hull 75 and 18
    (translucent dice lost notches cut as tray). But cutting every mask cost fickett_poly_tiles (read
    as photos by the reader) 0.742 -> 0.713: on its copper-steel dice the steel swirls, of nearly the
    tray's colour, were cut as tray. Their tiles show as much tray round the die as lurig's photos
    (real pixels outside the grown mask: median 5.6 % of the view against 7.1 %), so the trim is
    refused where it would cut deep on every side (_cut_into_the_die): 0.730, lurig still 80 of 97.
    The 28 tiles still lost (13 d6, 12 d20, 3 d8) have their steel on one side, as a shadow would be.
    Only the top-down model reads trimmed masks (die_type_by_shape): it learned every silhouette from
    segment, which leaves shadows out by this rule; the oblique model learned from renders' true
    silhouettes as given, and trimming masks that are already the die's cuts into dice of nearly the
    tray's colour (measured with the trim before it kept the hull: faces_eval's realdice crops, masks
    by colour, typed d20 153 -> 144 of 159 with every mask trimmed; 240 oblique renders with their
    masks 0.854 -> 0.833).
    Raises ValueError for a view that is not SxSx3 uint8 (S >= 2 * TRIM_SCALE) or a mask that is not
    SxS uint8 of the same side (die_view's pair is)."""
    if not isinstance(view, np.ndarray) or view.ndim != 3 or view.shape[2] != 3 or view.dtype != np.uint8 \
            or view.shape[0] != view.shape[1] or view.shape[0] < 2 * TRIM_SCALE:
        raise ValueError(f"trimmed_to_die needs a square SxSx3 uint8 BGR view (S >= {2 * TRIM_SCALE}), got "
                         f"{getattr(view, 'shape', None)} {getattr(view, 'dtype', '')}: pass die_view's image")
    if not isinstance(mask, np.ndarray) or mask.shape != view.shape[:2] or mask.dtype != np.uint8:
        raise ValueError(f"trimmed_to_die needs an SxS uint8 mask of the view's side {view.shape[:2]}, got "
                         f"{getattr(mask, 'shape', None)} {getattr(mask, 'dtype', '')}: pass die_view's mask")
    s = mask.shape[0]
    n = s // TRIM_SCALE
    small = cv2.resize(view, (n, n), interpolation=cv2.INTER_AREA)
    small_mask = cv2.resize(mask, (n, n), interpolation=cv2.INTER_NEAREST)
    r = max(2, int(round(TRIM_RING * n)))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    grown = cv2.dilate(small_mask, disc)
    tray = grown == 0
    if tray.sum() < TRIM_TRAY_MIN * tray.size or not small_mask.any():
        return mask
    die = _stands_out(_tray_distance(small, tray), grown > 0) & (small_mask > 0)
    pts = cv2.findNonZero(_central_component(_cleaned(die.astype(np.uint8) * 255)))
    if pts is None:
        return mask
    hull = np.zeros((n, n), np.uint8)  # a die is convex: what colour left out within its hull is die
    cv2.fillConvexPoly(hull, cv2.convexHull(pts), 255)
    if _cut_into_the_die(small_mask, hull, disc):
        return mask
    out = np.where((cv2.resize(hull, (s, s), interpolation=cv2.INTER_LINEAR) > 127) & (mask > 0), 255, 0)
    return out.astype(np.uint8) if np.count_nonzero(out) >= TRIM_KEEP * np.count_nonzero(mask) else mask


def _cut_into_the_die(mask: np.ndarray, hull: np.ndarray, rim: np.ndarray) -> bool:
    """Whether cutting a detector's mask (nxn uint8 0/255) back to a colour hull (nxn uint8 0/255)
    would cut into the die itself rather than off its shadow or the tray's rim: at least as many
    pixels as `rim` holds (trimmed_to_die's disc, by which it grows the mask to find the tray beyond
    it) are cut off deeper in the mask than that disc reaches, and they lie all round the hull (not
    within a half-plane through its centroid).
    Why: the tray the detector catches at the die's edges is a rim no wider than the disc, with spurs
    of tray (wood grain, a ragged shadow edge) past it here and there; a lamp casts a die's shadow to
    one side of it. Cut deep on every side, the mask was the die's own, and what colour cut off is die
    of nearly the tray's colour: the steel-grey swirls of a two-colour die (fickett_poly_tiles'
    Chessex Gemini copper-steel set)."""
    ys, xs = np.nonzero((cv2.erode(mask, rim) > 0) & (hull == 0))
    if len(xs) < np.count_nonzero(rim):
        return False
    m = cv2.moments(hull, True)
    angles = np.sort(np.arctan2(ys - m["m01"] / m["m00"], xs - m["m10"] / m["m00"]))
    gaps = np.diff(np.append(angles, angles[0] + 2 * np.pi))
    return bool(gaps.max() < np.pi)  # no empty half-turn: the cut surrounds the die


def _cleaned(mask: np.ndarray) -> np.ndarray:
    """A binary mask closed then opened with a 5 px disc."""
    se = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    return cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, se), cv2.MORPH_OPEN, se)


def _hull_area(mask: np.ndarray) -> float:
    """Area (px) of the convex hull of a mask's pixels (0 when empty)."""
    pts = cv2.findNonZero(mask)
    return float(cv2.contourArea(cv2.convexHull(pts))) if pts is not None and len(pts) >= 3 else 0.0


def _solidity(mask: np.ndarray) -> float:
    """Area of a filled mask over its convex hull's area (0 for an empty mask)."""
    pts = cv2.findNonZero(mask)
    if pts is None or len(pts) < 3:
        return 0.0
    hull_area = cv2.contourArea(cv2.convexHull(pts))
    return float(len(pts) / hull_area) if hull_area > 0 else 0.0


def _central_component(mask: np.ndarray) -> np.ndarray:
    """The filled external contour, among those at least a fifth the area of the largest, nearest
    the image centre (all zeros when there is none)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = np.zeros_like(mask)
    contours = [c for c in contours if cv2.contourArea(c) >= 0.003 * mask.size]
    if not contours:
        return out
    big = max(cv2.contourArea(c) for c in contours)
    c0 = (mask.shape[1] - 1) / 2, (mask.shape[0] - 1) / 2

    def off_centre(c: np.ndarray) -> float:
        return -cv2.pointPolygonTest(c, c0, True)  # negative inside, distance outside

    best = min((c for c in contours if cv2.contourArea(c) >= 0.2 * big), key=off_centre)
    cv2.drawContours(out, [best], -1, 255, -1)
    return out


def _grabcut(sq: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """GrabCut refinement of a rough die mask: its eroded core is sure die, a dilated ring around it
    maybe tray, the rest sure tray. Returns the filled central component of the result. (GrabCut
    costs about 47 ms CPU on the SIDE px view; the reader passes the detector's mask, which needs
    none. On a 40 px copy it took 3.4 ms but lurig read worse: cross-validated 0.80 against 0.83.)"""
    r = max(2, int(np.sqrt(mask.sum() / 255 / np.pi) * 0.25))
    se = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    core = cv2.erode(mask, se)
    grown = cv2.dilate(mask, se)
    gc = np.full(mask.shape, cv2.GC_BGD, np.uint8)
    gc[grown > 0] = cv2.GC_PR_BGD
    gc[mask > 0] = cv2.GC_PR_FGD
    gc[core > 0] = cv2.GC_FGD
    if not (core > 0).any():
        return mask
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.setRNGSeed(0)
    try:
        cv2.grabCut(sq, gc, (0, 0, 0, 0), bgd, fgd, 3, cv2.GC_INIT_WITH_MASK)
    except cv2.error:
        return mask
    found = np.where((gc == cv2.GC_FGD) | (gc == cv2.GC_PR_FGD), 255, 0).astype(np.uint8)
    refined = cv2.morphologyEx(found, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    out = _central_component(_without_frame_growth(refined, mask))
    return out if out.sum() > 0.5 * mask.sum() else mask


def _without_frame_growth(refined: np.ndarray, rough: np.ndarray) -> np.ndarray:
    """A refined mask less what it added to the rough one in pieces that reach the image's frame
    (both SxS uint8 0/255). GrabCut takes a tray of the die's colour along the frame for die when
    the die nearly fills the crop (a grey die on a pale tray, fickett's tiles): its silhouette then
    grows rectangular blocks to the frame that hide the die's outline and shift its centre."""
    added = ((refined > 0) & (rough == 0)).astype(np.uint8)
    n, labels = cv2.connectedComponents(added)
    if n < 2:
        return refined
    frame = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
    out = refined.copy()
    out[np.isin(labels, frame[frame > 0])] = 0
    return out


def die_view(crop: np.ndarray, mask: np.ndarray | None = None, trim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The die at a standard scale: (image SIDE x SIDE x 3 uint8 BGR, mask SIDE x SIDE uint8 0/255),
    the die's bounding square filling about 80 % of the image. Without a mask, a die that already
    fills most of the crop is segmented in the whole crop (a margin would be a guess); with one (the
    detector's, whose box is tight round the die) the die is always framed with that margin, the
    crop's border replicated, as the renders the model learned from frame it. crop: HxWx3 uint8 BGR;
    mask: HxW (nonzero = die) or None to segment; trim: cut the mask back to the die by colour
    (trimmed_to_die), as segment draws a silhouette, for the top-down model (die_type_by_shape);
    without a mask it changes nothing (segment's silhouette is the die's already).
    Raises ValueError for a crop that is not HxWx3 uint8 or a mask of another size."""
    view, vm, _ = _framed_view(crop, mask)
    return (view, trimmed_to_die(view, vm)) if trim and mask is not None else (view, vm)


def die_box(crop: np.ndarray, mask: np.ndarray) -> tuple[int, int, int, int]:
    """The box (x, y, w, h px in the crop) of the die itself within a detector's mask: the bounding box of
    the mask cut back to the die by colour (trimmed_to_die, on die_view's framing), so that a shadow
    the detector took for die is not boxed (lurig_dietype's d8_wood651: a 282 px box round a 150 px
    die). The mask's own bounding box when the trim keeps the mask, or when what it would cut off is not
    of the tray's hue (_cut_like_the_tray: a die's pale face or rim, not a shadow). Measured on lurig's 71
    photos of a die of a hue (against the bounding box of the die's colour, bench.vision.reference_box):
    IoU >= 0.5 on 62 (57 with the detector's box), mean IoU 0.80 (0.74); a shadow under TRIM_KEEP of the
    mask is left in (d8_wood739). crop: HxWx3 uint8 BGR; mask: HxW uint8 (non-zero = die) with at least
    one pixel set. Raises ValueError for a crop that is not HxWx3 uint8, a mask of another size or an empty
    mask."""
    if not isinstance(mask, np.ndarray) or mask.shape != getattr(crop, "shape", (None, None))[:2] \
            or not np.any(mask):
        raise ValueError(f"die_box needs a non-empty HxW mask of the crop's size {getattr(crop, 'shape', None)}, "
                         f"got {getattr(mask, 'shape', None)}: pass the detector's body mask")
    view, vm, (x0, y0, k) = _framed_view(crop, mask)
    trimmed = trimmed_to_die(view, vm)
    if np.array_equal(trimmed, vm) or not _cut_like_the_tray(view, vm, trimmed):  # the mask's own box
        return cv2.boundingRect(cv2.findNonZero((mask > 0).astype(np.uint8)))  # type: ignore[return-value]
    u, v, w, h = cv2.boundingRect(cv2.findNonZero(trimmed))
    h0, w0 = crop.shape[:2]
    left, right = int(np.floor(x0 + u * k)), int(np.ceil(x0 + (u + w) * k))
    top, bottom = int(np.floor(y0 + v * k)), int(np.ceil(y0 + (v + h) * k))
    left, top = max(0, left), max(0, top)
    right, bottom = min(w0, max(right, left + 1)), min(h0, max(bottom, top + 1))
    return left, top, right - left, bottom - top


def _cut_like_the_tray(view: np.ndarray, mask: np.ndarray, trimmed: np.ndarray) -> bool:
    """Whether what trimmed_to_die cut off a mask (SxS uint8 0/255 over view, SxSx3 BGR; trimmed: its result)
    has the tray's hue, as a shadow and the tray caught at the die's edges have: the median over the cut
    pixels of their Lab chroma distance (a, b) from the tray's median (outside the mask grown by TRIM_RING of
    the side) at most SHADOW_CHROMA + SHADOW_CHROMA_SHARE x the tray's own chroma (a shadow on a saturated
    tray loses some of it). A die's translucent face, its highlight or a dark part of its swirl that colour
    cut as tray keeps its own hue: lurig_dietype's d4_wood0579 (its pale blue face cut off), d20_top_768 and
    d20_off-angle_0745 (their rims) measured 18-27 over the allowance of 11-14 on near-grey trays, their
    shadows 2-10; a shadow on the saturated green paper of d4_color028 25 under 26."""
    r = max(2, int(round(TRIM_RING * mask.shape[0])))
    tray = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))) == 0
    cut = (mask > 0) & (trimmed == 0)
    if not tray.any() or not cut.any():
        return True
    ab = cv2.cvtColor(view, cv2.COLOR_BGR2LAB)[..., 1:].astype(np.float32) - 128
    tray_ab = np.median(ab[tray], axis=0)
    distance = float(np.median(np.hypot(*(ab[cut] - tray_ab).T)))
    return distance <= SHADOW_CHROMA + SHADOW_CHROMA_SHARE * float(np.hypot(*tray_ab))


def _framed_view(crop: np.ndarray, mask: np.ndarray | None
                 ) -> tuple[np.ndarray, np.ndarray, tuple[float, float, float]]:
    """die_view's (view, mask), the mask untrimmed, and where the view lies in the crop: (x0, y0, k), a view
    pixel (u, v) covering crop px (x0 + u k, y0 + v k)."""
    if not isinstance(crop, np.ndarray) or crop.ndim != 3 or crop.shape[2] != 3 or crop.dtype != np.uint8 \
            or min(crop.shape[:2]) < 1:
        raise ValueError(f"a die crop must be a non-empty HxWx3 uint8 BGR image, got "
                         f"{getattr(crop, 'shape', None)} {getattr(crop, 'dtype', '')}")
    if mask is not None and (not isinstance(mask, np.ndarray) or mask.shape != crop.shape[:2]):
        raise ValueError(f"mask must be an HxW array of the crop's size {crop.shape[:2]}, got "
                         f"{getattr(mask, 'shape', None)}")
    h0, w0 = crop.shape[:2]
    pad_x, pad_y = (abs(h0 - w0) // 2, 0) if h0 > w0 else (0, abs(h0 - w0) // 2)  # _square's left, top
    sq, sqm = _square(crop, None if mask is None else (mask > 0).astype(np.uint8) * 255)
    n = sq.shape[0]
    small = cv2.resize(sq, (SIDE, SIDE), interpolation=cv2.INTER_AREA)
    m = (cv2.resize(sqm, (SIDE, SIDE), interpolation=cv2.INTER_NEAREST) if sqm is not None
         else segment(small, refine=False))
    whole = (-pad_x, -pad_y, n / SIDE)
    pts = cv2.findNonZero(m)
    if pts is None:
        return small, m, whole
    x, y, w, h = cv2.boundingRect(pts)
    side = max(w, h) / 0.8
    if side >= 0.9 * SIDE and sqm is None:
        return small, _grabcut(small, m), whole  # = segment(small), refined
    # cut again around the die, at the crop's full resolution, and segment there
    k = n / SIDE
    cx, cy = (x + w / 2) * k, (y + h / 2) * k
    half = side * k / 2
    x0, y0 = int(round(cx - half)), int(round(cy - half))
    x1, y1 = int(round(cx + half)), int(round(cy + half))
    padded = cv2.copyMakeBorder(sq, max(0, -y0), max(0, y1 - n), max(0, -x0), max(0, x1 - n), cv2.BORDER_REPLICATE)
    ox, oy = max(0, -x0), max(0, -y0)
    sub = padded[y0 + oy:y1 + oy, x0 + ox:x1 + ox]
    view = cv2.resize(sub, (SIDE, SIDE), interpolation=cv2.INTER_AREA)
    where = (x0 - pad_x, y0 - pad_y, (x1 - x0) / SIDE)
    if sqm is not None:
        pm = cv2.copyMakeBorder(sqm, max(0, -y0), max(0, y1 - n), max(0, -x0), max(0, x1 - n),
                                cv2.BORDER_CONSTANT, value=0)
        vm = cv2.resize(pm[y0 + oy:y1 + oy, x0 + ox:x1 + ox], (SIDE, SIDE), interpolation=cv2.INTER_NEAREST)
    else:
        vm = segment(view)
    return view, vm, where


# ---------------------------------------------------------------------------------------------
# features


def _harmonics(values: np.ndarray, count: int) -> np.ndarray:
    """Magnitudes of the circular Fourier harmonics 1..count of a 1-D profile over its mean."""
    f = np.abs(np.fft.rfft(values))
    return (f[1:count + 1] / (f[0] + 1e-9)).astype(np.float32)


def _orientation_harmonics(angles: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Fourier magnitudes 1..ORIENT_HARMONICS of a weighted orientation histogram (angles in
    radians, modulo pi): rotation invariant, large at k = 3 for 60-degree edge patterns."""
    hist, _ = np.histogram(np.mod(angles, np.pi), bins=ORIENT_BINS, range=(0, np.pi), weights=weights)
    if hist.sum() <= 0:
        return np.zeros(ORIENT_HARMONICS, np.float32)
    return _harmonics(hist.astype(np.float64), ORIENT_HARMONICS)


def _circular_peaks(profile: np.ndarray, sigma: float) -> int:
    """Corners of an outline: local maxima of its radius profile r(theta) (circular, smoothed by a
    Gaussian of sigma samples) standing at least 2 % of the mean radius above the minimum between
    them and the next maximum."""
    k = np.arange(-int(3 * sigma), int(3 * sigma) + 1)
    g = np.exp(-k**2 / (2 * sigma**2))
    smooth = np.convolve(np.concatenate([profile[-k[-1]:], profile, profile[:k[-1]]]), g / g.sum(), "valid")
    before, after = np.concatenate([smooth[-1:], smooth[:-1]]), np.concatenate([smooth[1:], smooth[:1]])
    is_max = (smooth >= before) & (smooth > after)
    idx = np.flatnonzero(is_max)
    if len(idx) < 2:
        return int(len(idx))
    floor = 0.02 * smooth.mean()
    # the minimum between each maximum and the next (circular), the profile turned to start at the first
    between = np.minimum.reduceat(np.concatenate([smooth[idx[0]:], smooth[:idx[0]]]), idx - idx[0])
    return int(np.count_nonzero(smooth[idx] - np.maximum(between, np.concatenate([between[-1:], between[:-1]])) >= floor))


_LSD = threading.local()
_GRID_Y, _GRID_X = np.mgrid[:SIDE, :SIDE]  # pixel coordinates of a die view


def _line_detector() -> cv2.LineSegmentDetector:
    if not hasattr(_LSD, "det"):
        _LSD.det = cv2.createLineSegmentDetector()
    return _LSD.det


FACE_STRUCTURE_NAMES: tuple[str, ...] = (
    tuple(f"ring{i}_{name}" for i in range(len(RINGS))
          for name in ("edge_energy", "tangential_share", *(f"edge_h{k}" for k in RING_HARMONICS), "ink"))
    + tuple(f"ink_mid_h{k}" for k in RING_HARMONICS)
    + ("ink_central_extent", "ink_central_area", "ink_blobs")
    + tuple(f"edge_distance_{a}_{b}" for a, b in EDGE_DISTANCE_BINS)
)
#: the numeral net's view of the die's middle: its embedding (fewshot.net_embedding: 128 values, the net's
#: layer before its classes, averaged over quarter turns, unit length) of numerals.face_patch cut from the die
#: view as if seen from above. The net learned numerals on renders of every die type with their neighbouring
#: faces' edges and numerals round the up face, so its view holds the up face's outline and size, which the
#: hand-made features measure only through line and edge counts. Measured in session 19, the models built
#: without / with it (same renders, seeds and lurig photos):
#: - shape alone, tests/shape's fickett sample 140 -> 145 of 154 (d8 26 -> 27 of 28, d20 57 -> 61 of 68), lurig's
#:   held-out quarter 22 -> 23 of 25, the top-down model's held-out renders 0.840 -> 0.866, lurig cross-validated
#:   0.773 -> 0.787, the oblique model's held-out renders (with their masks) 0.783 -> 0.819;
#: - the standard set (shape x numerals, faces_eval): fickett d8 0.879 -> 0.890, d12 0.904 -> 0.912, d20 0.604 ->
#:   0.621, d4 and d6 unchanged, lurig's types 0.90 -> 0.95, realdice_d20 0.780 unchanged, no sure wrong reading;
#: - cost: about 2.6 ms more per numbered die (the net run on 4 turns of one more patch); pip dice are not typed.
#: A first try, a logistic regression on the raw crop's embedding alone, read fickett's types 0.72 and lurig's
#: 0.44: the net's view helps beside the hand-made features, not in their place.
NET_NAMES: tuple[str, ...] = tuple(f"net_{k}" for k in range(128))
OUTLINE_NAMES: tuple[str, ...] = (
    tuple(f"outline_h{k}" for k in range(1, HARMONICS + 1))
    + tuple(f"dp_vertices_{e}" for e in DP_EPS)
    + ("solidity", "circularity", "rect_aspect", "ellipse_aspect", "mean_angle", "angle_std", "fill_of_circle")
    + ("radius_peaks_fine", "radius_peaks_coarse")
)
FEATURE_NAMES: tuple[str, ...] = (
    OUTLINE_NAMES
    + ("border_touch",)
    + ("lines_n", "lines_len", "lines_inner_len")
    + tuple(f"lines_len_{a}_{b}" for a, b in SEGMENT_BINS)
    + tuple(f"lines_orient_h{k}" for k in range(1, ORIENT_HARMONICS + 1))
    + tuple(f"grad_orient_h{k}" for k in range(1, ORIENT_HARMONICS + 1))
    + ("edges_r0", "edges_r1", "edges_r2", "edges_r3")
    + FACE_STRUCTURE_NAMES
    + NET_NAMES
)
#: columns of FEATURE_NAMES that describe the die's inside (face edges, numerals, and whether the
#: silhouette touches the frame), not its outline: the inside-only expert's (ShapeModel)
INSIDE_FEATURES = np.array([i for i, n in enumerate(FEATURE_NAMES) if n not in OUTLINE_NAMES])


def features(view: np.ndarray, mask: np.ndarray, net_dir: Path | None = None) -> np.ndarray:
    """Shape features (len(FEATURE_NAMES),) float32 of a die view (die_view's image and mask), the
    numeral net's embedding of its middle (NET_NAMES) last. net_dir: the numeral net's folder
    (numerals.load_net; None: models/standard, the net the shipped model was built with).
    Raises ValueError when the mask holds no die-sized region (under 2 % of the view),
    FileNotFoundError when the numeral net is not built (`make models`)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours or max(cv2.contourArea(c) for c in contours) < 0.02 * mask.size:
        raise ValueError("no die-sized silhouette in the crop")
    contour = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(contour)
    area, hull_area = cv2.contourArea(contour), cv2.contourArea(hull)
    perim = cv2.arcLength(hull, True)
    m = cv2.moments(hull)
    cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
    radius = np.sqrt(hull_area / np.pi)
    # the hull's radius r(theta) around its centroid
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, [hull], -1, 255, -1)
    max_r = 2.0 * radius
    polar = cv2.warpPolar(filled.astype(np.float32) / 255, (64, RAY_ANGLES), (cx, cy), max_r,
                          cv2.WARP_POLAR_LINEAR + cv2.INTER_LINEAR + cv2.WARP_FILL_OUTLIERS)
    r_theta = polar.sum(axis=1) * max_r / 64
    outline = _harmonics(r_theta.astype(np.float64), HARMONICS)
    peaks = [_circular_peaks(r_theta, sigma) for sigma in (1.5, 3.0)]
    border = np.concatenate([mask[0], mask[-1], mask[:, 0], mask[:, -1]])
    outline_extra = [peaks[0] / 10, peaks[1] / 10, float(np.mean(border > 0)) * 4]
    dp = []
    for eps in DP_EPS:
        dp.append(len(cv2.approxPolyDP(hull, eps * perim, True)))
    poly = cv2.approxPolyDP(hull, 0.035 * perim, True).reshape(-1, 2).astype(np.float64)
    angles = []
    for i in range(len(poly)):
        a, b, c = poly[i - 1], poly[i], poly[(i + 1) % len(poly)]
        u, v = a - b, c - b
        angles.append(np.degrees(np.arccos(np.clip(u @ v / (np.linalg.norm(u) * np.linalg.norm(v) + 1e-9), -1, 1))))
    (_, _), (rw, rh), _ = cv2.minAreaRect(hull)
    ell = cv2.fitEllipse(hull) if len(hull) >= 5 else ((0, 0), (1, 1), 0)
    (_, _), enc_r = cv2.minEnclosingCircle(hull)
    silhouette = [area / hull_area, 4 * np.pi * hull_area / perim**2, min(rw, rh) / max(rw, rh, 1e-9),
                  min(ell[1]) / max(max(ell[1]), 1e-9), np.mean(angles) / 180, np.std(angles) / 180,
                  hull_area / (np.pi * enc_r**2)]
    # face edges inside the die
    grey = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
    inner = cv2.erode(filled, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
    segs = _line_detector().detect(grey)[0]
    seg = np.zeros((0, 4), np.float32) if segs is None else segs.reshape(-1, 4)
    x1, y1, x2, y2 = seg.T
    mx, my = (x1 + x2) / 2, (y1 + y2) / 2
    mxi, myi = mx.astype(int), my.astype(int)
    keep = (mxi >= 0) & (mxi < SIDE) & (myi >= 0) & (myi < SIDE)
    keep[keep] = inner[myi[keep], mxi[keep]] > 0
    length = np.hypot(x2 - x1, y2 - y1)
    keep &= length >= 0.25 * radius
    seg_len_a = length[keep]
    seg_ang = np.arctan2((y2 - y1)[keep], (x2 - x1)[keep])
    seg_mid = np.hypot(mx[keep] - cx, my[keep] - cy) / radius
    lines = [len(seg_len_a) / 10, seg_len_a.sum() / radius / 10,
             seg_len_a[seg_mid < 0.6].sum() / radius / 10 if len(seg_len_a) else 0.0]
    rel = seg_len_a / radius
    lines += [float(((rel >= a) & (rel < b)).sum()) / 5 for a, b in SEGMENT_BINS]
    lines_orient = _orientation_harmonics(seg_ang, seg_len_a)
    blur = cv2.GaussianBlur(grey.astype(np.float32), (0, 0), 1.5)
    gx, gy = cv2.Sobel(blur, cv2.CV_32F, 1, 0), cv2.Sobel(blur, cv2.CV_32F, 0, 1)
    mag = np.hypot(gx, gy)
    sel = inner > 0
    grad_orient = _orientation_harmonics(np.arctan2(gy[sel], gx[sel]) + np.pi / 2, mag[sel])
    # the share of Canny edge pixels in rings of the die's inside (r over its radius)
    rr = np.hypot(_GRID_X[sel] - cx, _GRID_Y[sel] - cy) / radius
    in_ring = np.digitize(rr, EDGE_RINGS) - 1  # -1 and len(EDGE_RINGS) - 1: outside every ring
    counted = (in_ring >= 0) & (in_ring < len(EDGE_RINGS) - 1)
    ring_px = np.bincount(in_ring[counted], minlength=len(EDGE_RINGS) - 1)
    hits = np.bincount(in_ring[counted], (cv2.Canny(grey, 40, 120)[sel] > 0)[counted], len(EDGE_RINGS) - 1)
    rings = np.where(ring_px > 0, hits / np.maximum(ring_px, 1), 0.0)
    structure = face_structure(grey, gx, gy, filled, (cx, cy), radius, segs)
    out = np.concatenate([outline, np.array(dp, np.float32) / 10, np.array(silhouette, np.float32),
                          np.array(outline_extra, np.float32),
                          np.array(lines, np.float32), lines_orient, grad_orient, np.array(rings, np.float32),
                          structure, net_embedding([face_patch(view, mask)], net_dir)[0]])
    return out.astype(np.float32)


def face_structure(grey: np.ndarray, gx: np.ndarray, gy: np.ndarray, die: np.ndarray,
                   centre: tuple[float, float], radius: float, segs: np.ndarray | None) -> np.ndarray:
    """Where the face edges and the numerals lie inside the die, over its radius: what tells d8,
    d12 and d20 apart when their outlines look alike from above.

    Seen square on, a d8's up face is a triangle half the die's area whose edges lie at 0.55 of the
    die's radius from its centre, its neighbours' numerals near the rim; a d20's up face is a small
    triangle (a fifth of the die) with edges at 0.34, ringed by three faces (edges at 0.67) and
    their numerals at about half the radius; a d12's is a pentagon (a third of the die, edges at
    0.52) with five neighbours. So, for each ring of RINGS (r over radius, around centre):
    the gradient energy over the die's mean, the share of it across the radius (a face edge
    tangent to the ring), its angular harmonics RING_HARMONICS (3-fold triangles, 5-fold pentagon;
    magnitude over the ring's total, 1 for a pattern of exactly that symmetry), and the share of ink
    pixels (numerals: a top-hat of the minority tone, light or dark); the ink's angular harmonics
    over 0.45..0.85; the central numeral's extent and area (the ink blob nearest the centre, its
    strokes joined) and the count of ink blobs; and the summed length (over the radius) of straight
    segments (LSD, at least MIN_EDGE long) binned by their distance from the centre
    (EDGE_DISTANCE_BINS).

    grey: SIDE x SIDE uint8; gx, gy: its smoothed Sobel gradients (float32); die: SIDE x SIDE
    uint8 0/255 filled silhouette; centre (px), radius (px, of a disc of the die's area);
    segs: cv2 LSD output (N x 1 x 4) or None. Returns (len(FACE_STRUCTURE_NAMES),) float32."""
    cx, cy = centre
    inside = die > 0
    # ring statistics on every other pixel of each row and column (a quarter of the pixels)
    yy, xx = np.nonzero(inside[::2, ::2])
    yy, xx = 2 * yy, 2 * xx
    dx, dy = xx - cx, yy - cy
    dist = np.maximum(np.hypot(dx, dy), 1e-3)
    bounds = np.array([r for r, _ in RINGS] + [RINGS[-1][1]]) * radius
    ring = np.digitize(dist, bounds)
    ring[ring > len(RINGS)] = 0  # beyond the last ring
    nr = len(RINGS) + 1
    gxs, gys = gx[yy, xx].astype(np.float64), gy[yy, xx].astype(np.float64)
    mag2 = gxs * gxs + gys * gys
    mag = np.sqrt(mag2)
    radial2 = (gxs * dx + gys * dy) ** 2 / (dist * dist)
    turn = (dx + 1j * dy) / dist  # e^(i theta)
    turns = {k: turn**k for k in RING_HARMONICS}

    def per_ring(q: np.ndarray, sel: np.ndarray = ring) -> np.ndarray:
        return np.bincount(sel, q, minlength=nr)[1:nr]

    def harmonics(w: np.ndarray, sel: np.ndarray = ring) -> np.ndarray:
        """(len(RING_HARMONICS), rings): magnitudes of the angular harmonics of w, over its total."""
        total = np.maximum(per_ring(w, sel), 1e-6)
        return np.array([np.abs(per_ring(w * turns[k].real, sel) + 1j * per_ring(w * turns[k].imag, sel)) / total
                         for k in RING_HARMONICS])

    count = np.maximum(per_ring(np.ones_like(mag)), 1)
    energy = per_ring(mag) / count / (float(mag.mean()) + 1e-6 if len(mag) else 1.0)
    tangential = per_ring(radial2) / np.maximum(per_ring(mag2), 1e-6)
    edge_h = harmonics(mag)
    # ink: the minority tone's top-hat (numerals are thinner than a quarter of the radius)
    k = max(3, int(0.25 * radius)) | 1
    hat = cv2.morphologyEx(grey, cv2.MORPH_TOPHAT if marks_are_light(grey[inside].astype(np.float32))
                           else cv2.MORPH_BLACKHAT,
                           cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    level = max(INK_MIN, float(cv2.threshold(hat[inside].reshape(-1, 1), 0, 255,
                                             cv2.THRESH_BINARY + cv2.THRESH_OTSU)[0])) if inside.any() else 255.0
    ink_map = (hat > level) & inside
    ink = (ink_map[yy, xx] & (dist < radius)).astype(np.float64)
    ink_share = per_ring(ink) / count
    mid = ((dist >= 0.45 * radius) & (dist < 0.85 * radius)).astype(np.int64)
    ink_h = harmonics(ink, mid)[:, 0]
    disc = np.zeros_like(die)
    cv2.circle(disc, (int(round(cx)), int(round(cy))), int(round(radius)), 1, -1)
    ink_map &= disc > 0
    joined = cv2.morphologyEx(ink_map.astype(np.uint8), cv2.MORPH_CLOSE, cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (max(3, int(0.12 * radius)) | 1,) * 2))
    n, labels, stats, cents = cv2.connectedComponentsWithStats(joined)
    blobs = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 0.002 * np.pi * radius**2]
    central = [0.0, 0.0]
    if blobs:
        near = labels == min(blobs, key=lambda i: np.hypot(cents[i][0] - cx, cents[i][1] - cy))
        ny, nx = np.nonzero(near)
        central = [float(np.hypot(nx - cx, ny - cy).max()) / radius, float(len(nx)) / (np.pi * radius**2)]
    dist_len: np.ndarray = np.zeros(len(EDGE_DISTANCE_BINS))
    if segs is not None:
        x1, y1, x2, y2 = segs.reshape(-1, 4).T
        length = np.hypot(x2 - x1, y2 - y1)
        mx, my = ((x1 + x2) / 2).astype(int), ((y1 + y2) / 2).astype(int)
        keep = (length >= MIN_EDGE * radius) & (my >= 0) & (my < die.shape[0]) & (mx >= 0) & (mx < die.shape[1])
        keep[keep] = die[my[keep], mx[keep]] > 0
        x1, y1, x2, y2, length = x1[keep], y1[keep], x2[keep], y2[keep], length[keep]
        d = np.abs((x2 - x1) * (cy - y1) - (y2 - y1) * (cx - x1)) / length / radius
        bins = np.array([a for a, _ in EDGE_DISTANCE_BINS] + [EDGE_DISTANCE_BINS[-1][1]])
        which = np.digitize(d, bins) - 1  # a segment farther than the last bin's end is counted nowhere
        inside_bins = (which >= 0) & (which < len(EDGE_DISTANCE_BINS))
        dist_len = np.bincount(which[inside_bins], (length / radius)[inside_bins], len(EDGE_DISTANCE_BINS))
    rings = np.vstack([energy, tangential, edge_h, ink_share]).T.ravel()  # ring-major, as FACE_STRUCTURE_NAMES
    return np.concatenate([rings, ink_h, central, [len(blobs) / 10], dist_len / 3]).astype(np.float32)


def describe(crop: np.ndarray, mask: np.ndarray | None = None, trim: bool = False,
             net_dir: Path | None = None) -> np.ndarray:
    """Shape features (len(FEATURE_NAMES),) float32 of one die crop: die_view then features.
    crop: HxWx3 uint8 BGR; mask: HxW (nonzero = die) or None to segment; trim: the mask cut back to
    the die (trimmed_to_die), as the top-down model reads it; net_dir: as features. Raises ValueError
    on a bad crop or mask, or when no die stands out in it."""
    view, m = die_view(crop, mask, trim)
    return features(view, m, net_dir)


# ---------------------------------------------------------------------------------------------
# the model


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax of an N x C array."""
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def temper_lookalikes(proba: np.ndarray) -> np.ndarray:
    """Probabilities (N x C over DIE_TYPES, rows summing to 1) with the share of each of LOOKALIKES
    within their summed probability pulled toward equal, so that no look-alike gets more than
    LOOKALIKE_RATIO times another's: P'(t) = a P(t) + (1 - a) P(group) / 3, a = (R - 1) / (R + 2).

    Why: seen from above, d8, d12 and d20 all show a near-round outline of triangles or pentagons.
    The renders tell them apart by cues that real dice (rounded, marbled, translucent, cut by the
    crop's frame) do not all show alike, and no real d12 photo may be trained on (lurig_dietype has
    none), so the shape step cannot vouch for one of them against the others: on fickett_poly_tiles
    (evaluation only) a model without this was sure of d20 on 8 to 79 of 136 d12 tiles, depending on
    the training run; the shipped one reads 7 of fickett's 408 d12 tiles as d20. With R = 3 a
    look-alike's probability stays at or below 0.6 (unsure) and the numeral decides between them
    (faces.joint_reading: a 13..20 is only on a d20). The sum over the group is unchanged."""
    proba = np.array(proba, np.float64, ndmin=2)
    idx = [DIE_TYPES.index(t) for t in LOOKALIKES]
    a = (LOOKALIKE_RATIO - 1) / (LOOKALIKE_RATIO + 2)
    group = proba[:, idx].sum(axis=1, keepdims=True)
    proba[:, idx] = a * proba[:, idx] + (1 - a) * group / len(idx)
    return proba


@dataclass
class ShapeModel:
    """Two multinomial logistic regressions on standardised shape features, their logits averaged:
    one on every feature, one on the die's inside only (INSIDE_FEATURES; see the module's docs).

    mean, scale: (F,) feature standardisation; weights: F x C, bias: (C,) of the all-feature expert;
    inside_weights: len(INSIDE_FEATURES) x C, inside_bias: (C,) of the inside-only expert;
    temperature: logits are divided by it before the softmax (fitted on held-out data); meta:
    provenance and figures."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: np.ndarray
    inside_weights: np.ndarray
    inside_bias: np.ndarray
    temperature: float = 1.0
    meta: dict = field(default_factory=dict)

    def logits(self, x: np.ndarray) -> np.ndarray:
        """N x C class scores of N feature rows (before the temperature): the mean of the two
        experts' logits."""
        z = (np.atleast_2d(x) - self.mean) / self.scale
        return 0.5 * (z @ self.weights + self.bias + z[:, INSIDE_FEATURES] @ self.inside_weights + self.inside_bias)

    def proba(self, x: np.ndarray) -> np.ndarray:
        """N x C calibrated class probabilities of N feature rows, look-alikes tempered
        (temper_lookalikes)."""
        return temper_lookalikes(softmax(self.logits(x) / self.temperature))

    def arrays(self, prefix: str) -> dict[str, Any]:
        """The model's arrays, temperature and meta (as JSON) keyed prefix + name, for ShapeModels.save."""
        import json

        return {prefix + "mean": self.mean, prefix + "scale": self.scale, prefix + "weights": self.weights,
                prefix + "bias": self.bias, prefix + "inside_weights": self.inside_weights,
                prefix + "inside_bias": self.inside_bias, prefix + "temperature": self.temperature,
                prefix + "meta": json.dumps(self.meta)}

    @classmethod
    def from_arrays(cls, z: Any, prefix: str) -> "ShapeModel":
        """The model stored under prefix in an opened .npz (z: np.load's NpzFile). Raises KeyError when it
        holds none."""
        import json

        return cls(z[prefix + "mean"], z[prefix + "scale"], z[prefix + "weights"], z[prefix + "bias"],
                   z[prefix + "inside_weights"], z[prefix + "inside_bias"], float(z[prefix + "temperature"]),
                   json.loads(str(z[prefix + "meta"])))


@dataclass
class ShapeModels:
    """The shipped shape models, one ShapeModel per view: top_down (a camera looking down on the tray,
    the tower's own) and oblique (a camera looking from the side, elevation under
    view.TOP_DOWN_FROM: dice domes, a phone held over the table), see the module's docs."""

    top_down: ShapeModel
    oblique: ShapeModel

    def for_elevation(self, elevation: float) -> ShapeModel:
        """The model for a view from elevation degrees (0 < e <= 90, 90 = top-down: view.view_of_scene):
        oblique below view.TOP_DOWN_FROM, top-down from it up. Raises ValueError outside (0, 90]."""
        check_elevation(elevation)
        return self.oblique if elevation < TOP_DOWN_FROM else self.top_down

    def save(self, path: Path) -> None:
        """Write both models into one compressed .npz (keys prefixed top_down/, oblique/) with the
        feature version."""
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, version=FEATURE_VERSION, **self.top_down.arrays("top_down/"),
                            **self.oblique.arrays("oblique/"))

    @classmethod
    def load(cls, path: Path) -> "ShapeModels":
        """The models saved at path. Raises ShapeModelError when path is missing, unreadable, of another
        feature version or without both views' models (a file from before the oblique model)."""
        hint = "run `make models` (python -m dicetower.vision.shape) to build it"
        try:
            with np.load(path) as z:
                if int(z["version"]) != FEATURE_VERSION:
                    raise ShapeModelError(f"shape model {path} has feature version {int(z['version'])}, "
                                          f"this code reads {FEATURE_VERSION}: {hint}")
                return cls(ShapeModel.from_arrays(z, "top_down/"), ShapeModel.from_arrays(z, "oblique/"))
        except (OSError, KeyError, ValueError) as exc:
            raise ShapeModelError(f"shape model {path} is missing or unreadable ({exc}): {hint}") from exc


_MODEL: dict[Path, ShapeModels] = {}
_MODEL_LOCK = threading.Lock()


def model_path() -> Path:
    """Where the shipped shape model lives: models/standard/shape.npz."""
    return models_dir().joinpath(*MODEL_PATH_PARTS)


def load_model(path: Path | None = None) -> ShapeModels:
    """The shape models at path (default model_path()), loaded once and cached.
    Raises ShapeModelError when they are missing or unreadable."""
    path = path or model_path()
    with _MODEL_LOCK:
        if path not in _MODEL:
            _MODEL[path] = ShapeModels.load(path)
        return _MODEL[path]


def result_from_proba(proba: np.ndarray) -> ShapeResult:
    """ShapeResult of a (C,) probability vector over DIE_TYPES."""
    best = int(np.argmax(proba))
    return ShapeResult(DIE_TYPES[best], float(proba[best]), {t: float(p) for t, p in zip(DIE_TYPES, proba)})


def die_type_by_shape(crop_bgr: np.ndarray, mask: np.ndarray | None = None,
                      model: ShapeModels | None = None, elevation: float = TOP_DOWN) -> ShapeResult:
    """The die type (d4, d6, d8, d10, d12, d20) one die crop shows, told by its shape.

    crop_bgr: HxWx3 uint8 BGR holding one die, any rotation, the die anywhere from a fifth of the
    crop to all of it, a margin of tray around it preferred. mask: HxW array (nonzero = die, e.g.
    detect.DieBody.mask) or None to segment the die here; the top-down model reads the mask cut back
    to the die (trimmed_to_die), as segment draws the silhouettes it learned from. model: None for
    the shipped models (models/standard/shape.npz). elevation: degrees, how steeply the camera looks
    down on the tray (view.view_of_scene(frame, boxes).elevation; TOP_DOWN, the default, for the
    tower's camera): under view.TOP_DOWN_FROM the oblique model reads the die
    (ShapeModels.for_elevation).
    Returns ShapeResult; result.unsure (confidence < UNSURE_BELOW) means the caller flags the die.
    A crop under MIN_SIDE px gets confidence 0; one where no die stands out of the tray gets
    confidence 0 and a uniform proba (die_type then means nothing: the die is unsure).
    Raises ValueError for a crop that is not HxWx3 uint8, a mask of another size or an elevation
    outside (0, 90], ShapeModelError when the models have not been built (`make models`),
    FileNotFoundError when the numeral net, whose view of the die is among the features, is not."""
    models = model or load_model()
    chosen = models.for_elevation(elevation)
    view, m = die_view(crop_bgr, mask, trim=chosen is models.top_down)
    try:
        x = features(view, m)
    except ValueError:
        x = None
    if x is None:
        proba = np.full(len(DIE_TYPES), 1 / len(DIE_TYPES))
        return ShapeResult(DIE_TYPES[0], 0.0, {t: float(p) for t, p in zip(DIE_TYPES, proba)})
    result = result_from_proba(chosen.proba(x)[0])
    if min(crop_bgr.shape[:2]) < MIN_SIDE:
        result.confidence = 0.0
    return result


# ---------------------------------------------------------------------------------------------
# building the shipped model (`make models`: python -m dicetower.vision.shape)

SEED = 20261121
LURIG = "lurig_dietype"  # CC0 photos in ../shared/datasets: may be trained on
LURIG_WEIGHT = 3.0  # a real photo counts as this many renders in the fit
SURE_TARGET = 0.99  # a sure die type is right this often on held-out data (sure_temperature)
L2 = 10.0  # ridge penalty of the logistic regression (on standardised features)
CLOSE_UP = (0.92, 1.12)  # a close-up's side over the die's larger side (close_up)
CLOSE_UP_EVERY = 3  # every 3rd round of training renders is cut as close-ups
#: share of the numbered dice of the top-down renders drawn as dice makers make them (training_spec)
REAL_LOOK_SHARE = 0.5
#: share of the top-down model's training renders speckled (speckled); their speckles are drawn from
#: a generator of their own (the set's seed + SPECKLE_SEED_OFFSET), so the renders themselves are the same
SPECKLE_SHARE = 0.5
SPECKLE_SEED_OFFSET = 30
SPECKLE_DENSITY = (0.005, 0.04)  # speckles per die pixel
#: degrees: the oblique model's renders are seen from an elevation drawn from this range (the range
#: train_numerals' oblique renders use; view.view_of_scene reads 75 and up as top-down)
OBLIQUE_ELEVATION = (35.0, 75.0)
OBLIQUE_PER_TYPE = 150  # oblique renders per die type (each described with and without its mask)
#: top-down renders per die type in the oblique model's training set, all of standard_spec's dice (no
#: real_look_share): with the top-down model's own renders (twice as many, half of them swirled and
#: ridged) the oblique model typed 124 of realdice's 159 die bodies d20, against 146
OBLIQUE_PLAIN_PER_TYPE = 300
OBLIQUE_SIZE = (48, 160)  # px: side of an oblique render's crop (a side camera's dice are often small)
#: corner radius over the die's side of the oblique renders whose corners are rounded (half of them):
#: real dice have rounded edges and corners, which make a small die's outline rounder than a sharp
#: render's
ROUNDING = (0.03, 0.08)
#: share of the oblique renders seen far (seen_far): blurred by the die's motion, outlined as the
#: detector outlines a die in a dice dome; drawn from a generator of their own (the set's seed +
#: FAR_SEED_OFFSET), so the renders themselves are the same
FAR_SHARE = 0.5
FAR_SEED_OFFSET = 40
FAR_BLUR = (0.0, 0.15)  # length of the motion blur over the die's side (drawn uniformly)
FAR_MASK_SCALE = (1.5, 3.0)  # the detector's mask is drawn on a copy this many times smaller (drawn uniformly)


def fit_logistic(x: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None, l2: float = L2
                 ) -> ShapeModel:
    """The two experts of a ShapeModel, each a multinomial logistic regression (L-BFGS, ridge
    penalty l2 on standardised features), fitted on N x len(FEATURE_NAMES) features x with labels y
    (indices into DIE_TYPES), rows weighted by weights (default 1). Temperature 1; fit it with
    fit_temperature on held-out logits. Raises ValueError on empty or non-finite input or on rows of
    another length than FEATURE_NAMES."""
    x = np.asarray(x, np.float64)
    if len(x) == 0 or not np.isfinite(x).all():
        raise ValueError("need a non-empty, finite feature matrix")
    if x.ndim != 2 or x.shape[1] != len(FEATURE_NAMES):
        raise ValueError(f"need N x {len(FEATURE_NAMES)} features (FEATURE_NAMES), got shape {x.shape}")
    w = np.ones(len(x)) if weights is None else np.asarray(weights, np.float64)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    z = (x - mean) / scale
    weights_all, bias_all = _fit_softmax_regression(z, y, w, l2)
    weights_in, bias_in = _fit_softmax_regression(z[:, INSIDE_FEATURES], y, w, l2)
    return ShapeModel(mean.astype(np.float32), scale.astype(np.float32), weights_all, bias_all, weights_in, bias_in)


def _fit_softmax_regression(z: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float
                            ) -> tuple[np.ndarray, np.ndarray]:
    """Weights (F x C float32) and bias (C,) of a multinomial logistic regression of standardised
    features z (N x F) on labels y, rows weighted by w, ridge penalty l2 (L-BFGS)."""
    from scipy.optimize import minimize

    n, f = z.shape
    c = len(DIE_TYPES)
    onehot = np.eye(c)[y]

    def loss(p: np.ndarray) -> tuple[float, np.ndarray]:
        wm, b = p[:f * c].reshape(f, c), p[f * c:]
        prob = softmax(z @ wm + b)
        nll = -(w * np.log((prob * onehot).sum(axis=1) + 1e-12)).sum() / w.sum()
        g = (prob - onehot) * w[:, None] / w.sum()
        grad_w = z.T @ g + l2 * wm / n
        return nll + l2 * (wm**2).sum() / (2 * n), np.concatenate([grad_w.ravel(), g.sum(axis=0)])

    res = minimize(loss, np.zeros(f * c + c), jac=True, method="L-BFGS-B", options={"maxiter": 1000})
    return res.x[:f * c].reshape(f, c).astype(np.float32), res.x[f * c:].astype(np.float32)


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """Temperature T minimising the negative log-likelihood of softmax(logits / T) on held-out
    logits (N x C) with true labels y (Guo et al. 2017)."""
    from scipy.optimize import minimize_scalar

    def nll(log_t: float) -> float:
        p = softmax(logits / np.exp(log_t))
        return float(-np.mean(np.log(p[np.arange(len(y)), y] + 1e-12)))

    return float(np.exp(minimize_scalar(nll, bounds=(-4, 4), method="bounded").x))


def sure_temperature(logits: np.ndarray, y: np.ndarray, groups: list[np.ndarray], start: float,
                     target: float = SURE_TARGET) -> float:
    """The smallest temperature >= start (the likelihood-fitted one) at which the held-out readings
    that come out sure (confidence >= UNSURE_BELOW) are right at least `target` of the time in every
    group (boolean row masks: real photos, renders), so that a sure die type can be trusted; the
    largest tried (start x 30) when none reaches it. logits: N x C held-out logits, y: (N,) labels."""
    for t in np.geomspace(start, 30 * start, 80):
        p = softmax(logits / t)
        pred, sure = p.argmax(axis=1), p.max(axis=1) >= UNSURE_BELOW
        if all((pred[g & sure] == y[g & sure]).mean() >= target for g in groups if (g & sure).any()):
            return float(t)
    return float(30 * start)


def close_up(crop: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The die of a render cut out as a close-up: a square of side CLOSE_UP x the die's larger
    side (drawn uniformly), centred on its box, the crop's border replicated where it runs out.
    Real die crops are often framed so (fickett's roller tiles, a detector's tight box, a die
    filling a small frame): the die touches the frame or is cut by it, which renders framed with
    a margin never show. crop: HxWx3 uint8 BGR; mask: HxW uint8 (nonzero = die). Returns the
    close-up (uint8 BGR)."""
    x, y, w, h = cv2.boundingRect(cv2.findNonZero(mask))
    side = int(round(max(w, h) * rng.uniform(*CLOSE_UP)))
    x0, y0 = int(round(x + w / 2 - side / 2)), int(round(y + h / 2 - side / 2))
    padded = cv2.copyMakeBorder(crop, side, side, side, side, cv2.BORDER_REPLICATE)
    return padded[y0 + side:y0 + 2 * side, x0 + side:x0 + 2 * side]


def training_spec(die_type: str, rng: np.random.Generator, real_look_share: float = REAL_LOOK_SHARE
                  ) -> DieSpec:
    """A die of die_type (d4..d20) to render for the shape models: synth.standard_spec's (plain or
    marbled body, Hershey numerals, pips on half the d6s), but a real_look_share (0..1) of the
    numbered ones drawn as dice makers make them (train_numerals.random_spec: two-colour swirled
    bodies, darker ridges between faces, TrueType numerals of any weight); with 0, standard_spec's
    die and nothing more drawn from rng. Real dice look so, and the plain renders alone taught the
    top-down model cues such dice do not show: on fickett_poly_tiles (Chessex Gemini swirls,
    evaluation only) it typed 52 of 408 d12 tiles d20 or d10, 8 with REAL_LOOK_SHARE.
    Raises ValueError for a die_type not in DIE_TYPES, before anything is drawn from rng."""
    if die_type not in DIE_TYPES:
        raise ValueError(f"the shape models tell {', '.join(DIE_TYPES)} apart; no training die of type {die_type!r}")
    from dicetower.vision import synth
    from dicetower.vision.train_numerals import random_spec

    spec = synth.standard_spec(die_type, rng)
    if real_look_share and not spec.pips and rng.random() < real_look_share:
        return random_spec(die_type, rng)
    return spec


def speckled(crop: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A render's die speckled as dice makers speckle dice (Chessex's Speckled dice, the stone and
    granite looks): dots 1 or 3 px across on SPECKLE_DENSITY speckles per die pixel (drawn uniformly),
    softened by a 0.7 px blur, dark (grey level 20; 45 % of dice), light (235; 35 %) or of any colour
    (20 %), blended at 0.6 to 1 opacity. crop: HxWx3 uint8 BGR; mask: HxW uint8 (nonzero = die).
    Returns the speckled crop (uint8 BGR; the crop itself when the mask is empty).

    Why: a real die shows more edges inside its outline than a render of its type (the edges_r
    features of the reader's crops: a median 1.0 to 1.5 standard deviations above the renders', on
    lurig's photos and fickett's tiles alike): speckles, flecks and glitter, which the renders lacked
    (synth draws a marble texture, swirls and ridges only). With half the training renders speckled
    (session 10, build_model against the same build unspeckled): lurig's held-out quarter (whole
    photos) 20 -> 22 of 25, cross-validated 0.73 -> 0.77; through the reader lurig 79 -> 80 of 100
    (its held-out quarter 20 -> 20), fickett's 2219 tiles (never trained on) 0.908 -> 0.936 (d8
    0.744 -> 0.884, d12 0.857 -> 0.958, d20 0.961 -> 0.927, d6 0.902 -> 0.889), realdice 148 of 160
    both (its dome is read by the oblique model), 0 sure-wrong types in each. It costs renders and
    whole tiles segmented without a detector mask: unspeckled held-out renders 0.860 -> 0.848, d20
    tiles of fickett's test sample (tests/shape) 64 -> 57 of 68."""
    die = mask > 0
    ys, xs = np.nonzero(die)
    if len(xs) == 0:
        return crop
    dots = np.zeros(mask.shape, np.float32)
    for i in rng.choice(len(xs), int(len(xs) * rng.uniform(*SPECKLE_DENSITY))):
        cv2.circle(dots, (int(xs[i]), int(ys[i])), int(rng.integers(0, 2)), 1.0, -1)
    layer: np.ndarray = cv2.GaussianBlur(dots, (0, 0), 0.7) * die
    tone = rng.choice(["dark", "light", "any"], p=[0.45, 0.35, 0.2])
    colour = (np.full(3, 20.0) if tone == "dark" else np.full(3, 235.0) if tone == "light"
              else rng.integers(0, 256, 3).astype(np.float32))
    a = (layer * rng.uniform(0.6, 1.0))[..., None]
    return np.clip(crop * (1 - a) + colour * a, 0, 255).astype(np.uint8)


def render_training_set(per_type: int, seed: int, real_look_share: float = REAL_LOOK_SHARE,
                        speckle_share: float = SPECKLE_SHARE, net_dir: Path | None = None
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Features (N x F) and labels (N,) of per_type synthetic renders of every die type
    (synth.render_shape_crop: random die, face, colours, tray; the die drawn by
    training_spec(real_look_share); camera tilted up to 10 or 45 degrees; crops of 80-160 px),
    speckle_share of them speckled (speckled, from a generator seeded seed + SPECKLE_SEED_OFFSET),
    every CLOSE_UP_EVERY-th round of them cut as close-ups (close_up). Renders whose die cannot be
    separated from the tray are skipped. net_dir: the numeral net's folder (features)."""
    from dicetower.vision import synth

    rng = np.random.default_rng(seed)
    speckle_rng = np.random.default_rng(seed + SPECKLE_SEED_OFFSET)
    xs, ys = [], []
    for i in range(per_type):
        for k, t in enumerate(DIE_TYPES):
            size, tilt = int(rng.integers(80, 161)), float(rng.choice([10.0, 45.0]))
            spec = training_spec(t, rng, real_look_share)
            crop, mask, _ = synth.render_shape_crop(spec, rng, size, tilt_deg=tilt)
            if speckle_rng.random() < speckle_share:
                crop = speckled(crop, mask, speckle_rng)
            if i % CLOSE_UP_EVERY == 0:
                crop = close_up(crop, mask, rng)
            try:
                xs.append(describe(crop, net_dir=net_dir))
            except ValueError:
                continue
            ys.append(k)
    return np.array(xs, np.float32), np.array(ys, np.int64)


def render_oblique_crop(spec: DieSpec, rng: np.random.Generator, size: int = 112,
                        elevation: float = 55.0, rounding: float = 0.0) -> tuple[np.ndarray, np.ndarray, dict]:
    """One die resting on a random face seen from a camera at `elevation` degrees above the tray
    (synth._render_die_patch's elevation: the up face squashed near the die's top), for the oblique
    model. rounding: the die's corners rounded off by a disc of rounding x the die's side (0: sharp
    polyhedron). Returns (crop: size x size x 3 uint8 BGR, mask: size x size uint8 0/255 the die's
    silhouette, truth dict as synth.truth_of). The die spans 50-100 % of the crop, off centre by up to
    10 %, as in synth.render_shape_crop. Raises ValueError for an elevation outside (0, 90]."""
    from dicetower.vision import synth

    value = int(rng.integers(1, synth.FACES[spec.die_type] + 1))
    die = int(size * rng.uniform(0.5, 1.0))
    patch, alpha = synth._render_die_patch(spec, value, rng, die, tilt_deg=4.0, elevation=elevation)
    if rounding > 0:
        r = max(1, int(round(rounding * die)))
        alpha = cv2.morphologyEx(alpha, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1,) * 2))
    bg = synth.tray_background(rng, (size, size)).astype(np.float32)
    off = size - die
    x = int(np.clip(off / 2 + rng.uniform(-0.1, 0.1) * size, 0, off))
    y = int(np.clip(off / 2 + rng.uniform(-0.1, 0.1) * size, 0, off))
    synth._composite(bg, patch, alpha, x, y, rng)
    mask = np.zeros((size, size), np.uint8)
    mask[y:y + die, x:x + die] = (alpha > 0.5).astype(np.uint8) * 255
    return synth._finish(bg, rng), mask, synth.truth_of(spec, value)


def seen_far(crop: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """An oblique render as a camera far from a rolling die sees it and the detector outlines it: the
    die (and the tray with it) blurred along a random direction by FAR_BLUR x the die's side (the
    die's motion during the exposure), and its mask redrawn as the detector draws a die in a dice
    dome (detect._colour_regions): the convex hull of the blurred die's pixels found on a copy
    FAR_MASK_SCALE times smaller, scaled back up (coarse steps round the outline). crop: HxWx3 uint8
    BGR, mask: HxW uint8 (nonzero = die), as render_oblique_crop gives them. Returns (crop, mask: HxW
    uint8 0/255), the inputs themselves when the mask is empty."""
    die = mask > 0
    pts = cv2.findNonZero(die.astype(np.uint8))
    if pts is None:
        return crop, mask
    side = max(cv2.boundingRect(pts)[2:])
    length = side * rng.uniform(*FAR_BLUR)
    angle = rng.uniform(0.0, 180.0)
    if length >= 1.5:
        k = int(np.ceil(length)) | 1
        line = np.zeros((k, k), np.float32)
        cv2.line(line, (0, k // 2), (k - 1, k // 2), 1.0, 1)
        kernel: np.ndarray = cv2.warpAffine(line, cv2.getRotationMatrix2D(((k - 1) / 2, (k - 1) / 2), angle, 1.0), (k, k))
        kernel /= kernel.sum()
        crop = cv2.filter2D(crop, -1, kernel, borderType=cv2.BORDER_REPLICATE)
        die = cv2.filter2D(die.astype(np.float32), -1, kernel, borderType=cv2.BORDER_CONSTANT) > 0.5
    h, w = die.shape
    q = rng.uniform(*FAR_MASK_SCALE)
    small = cv2.resize(die.astype(np.uint8) * 255, (max(1, round(w / q)), max(1, round(h / q))),
                       interpolation=cv2.INTER_AREA)
    pts = cv2.findNonZero((small > 127).astype(np.uint8))
    if pts is None:
        return crop, die.astype(np.uint8) * 255
    hull = np.zeros(small.shape, np.uint8)
    cv2.fillConvexPoly(hull, cv2.convexHull(pts), 255)
    return crop, cv2.resize(hull, (w, h), interpolation=cv2.INTER_NEAREST)


def _boxed(crop: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """crop and mask cut to the mask's bounding box, as the reader cuts a die body (reader._classified)."""
    x, y, w, h = cv2.boundingRect(cv2.findNonZero((mask > 0).astype(np.uint8)))
    return crop[y:y + h, x:x + w], mask[y:y + h, x:x + w]


def render_oblique_set(per_type: int, seed: int, far_share: float = FAR_SHARE, net_dir: Path | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Features of per_type oblique renders of every die type (render_oblique_crop: crop side drawn from
    OBLIQUE_SIZE, elevation from OBLIQUE_ELEVATION, corners rounded by ROUNDING on half of them), a
    far_share (0..1) of them seen far (seen_far, from a generator seeded seed + FAR_SEED_OFFSET), each
    described without its mask (segmented here) and with it (the detector's mask, the crop cut to its
    box, as the reader passes them). Returns (features without mask N x F, with mask N x F, labels (N,),
    elevations (N,) degrees); renders whose die cannot be separated from the tray are skipped. net_dir:
    the numeral net's folder (features).

    Why seen_far (session 11): the reader typed 7 of realdice_d20's 160 d20s (a dice dome, evaluation
    only) d12: the oblique model gave them d12 0.39-0.43 against d20 0.31-0.37 and the joint reading
    took a numeral a d12 prints too (9, 1, 12, 5, 11, 3). Against oblique d20 renders with their masks,
    the 160 bodies' features farthest off were the outline's (median standard deviations): fine
    polygon vertices dp_vertices_0.02 +3.7, elongation outline_h2 +3.3 (+6.3 on the 7), outline_h6
    -2.5, corner peaks radius_peaks_fine -2.0 (-3.4 on the 7): the detector's hull drawn at half the
    reading size (steps of 2 px on a 60 px die) round a die blurred by its roll, not a sharp render's
    exact silhouette. With half the renders seen far and the masked ones cut to their box, against the
    same build without (session 11): through the reader realdice 110 -> 111 of 160 right, typed d12
    7 -> 3, typed d20 147 -> 151 (the other 4 typed wrong are the pip reader's: a d6 showing 2 with
    confidence 0), 0 sure-wrong readings; shape and joint reading on the reader's 160 bodies (one of them the dome's rim), d20 by
    shape 146 -> 151, joint 152 -> 156, right 112 -> 113 (the oblique renders drawn from two other
    seeds: 143 -> 152, 148 -> 156, 108 -> 113 and 139 -> 148, 148 -> 155, 108 -> 113: above the
    run-to-run spread); 30 far d20 renders of an unseen seed (tests/shape) 14 -> 23 typed d20. Lurig's
    100 photos and matteop65's 177 read identically, fickett's 2219 tiles (top-down model, unchanged)
    0.936. Tried and worse or no better: the box cut alone (146, 152: no change), every render seen far
    (149, 153), a blur up to 0.25 of the die (150, 153), and half the oblique renders speckled as well
    (speckled, as the top-down ones): much worse, 108 and 125 (another seed 103, 124), this dome's
    die being plain; half the numbered oblique dice drawn as dice makers make them (training_spec's
    real look): worse, 141 and 147 (another seed 140, 147); 300 oblique renders per type instead of
    150: 153 and 156, within the seeds' spread, not worth the build time."""
    from dicetower.vision import synth

    rng = np.random.default_rng(seed)
    far_rng = np.random.default_rng(seed + FAR_SEED_OFFSET)
    plain, masked, ys, elevations = [], [], [], []
    for _ in range(per_type):
        for k, t in enumerate(DIE_TYPES):
            size, elevation = int(rng.integers(OBLIQUE_SIZE[0], OBLIQUE_SIZE[1] + 1)), float(rng.uniform(*OBLIQUE_ELEVATION))
            rounding = float(rng.choice([0.0, rng.uniform(*ROUNDING)]))
            crop, mask, _ = render_oblique_crop(synth.standard_spec(t, rng), rng, size, elevation, rounding)
            if far_rng.random() < far_share:
                crop, mask = seen_far(crop, mask, far_rng)
            try:
                xs = describe(crop, net_dir=net_dir), describe(*_boxed(crop, mask), net_dir=net_dir)
            except ValueError:
                continue
            plain.append(xs[0])
            masked.append(xs[1])
            ys.append(k)
            elevations.append(elevation)
    return (np.array(plain, np.float32), np.array(masked, np.float32), np.array(ys, np.int64),
            np.array(elevations))


def lurig_photos(root: Path) -> list[tuple[str, np.ndarray, int]]:
    """(image name, photo HxWx3 uint8 BGR, label index) of every readable photo in the lurig_dietype
    folder (labels.csv: die type only), in file order."""
    import csv

    out = []
    with open(root / "labels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            img = cv2.imread(str(root / row["image"]))
            if img is not None and row["die_type"] in DIE_TYPES:
                out.append((row["image"], img, DIE_TYPES.index(row["die_type"])))
    return out


def lurig_split(names: list[str], labels: np.ndarray) -> np.ndarray:
    """Held-out flags (N,) bool for the lurig photos: every 4th photo of each die type in name order
    (a quarter), never trained on."""
    held = np.zeros(len(names), bool)
    for k in set(labels.tolist()):
        idx = sorted(np.flatnonzero(labels == k), key=lambda i: names[i])
        held[idx[::4]] = True
    return held


def accuracy_figures(proba: np.ndarray, y: np.ndarray) -> dict:
    """n, accuracy, unsure rate (confidence < UNSURE_BELOW), accuracy of the sure readings, per-type
    accuracy and confusion (rows truth, columns read, in DIE_TYPES order) of N x C probabilities."""
    pred, conf = proba.argmax(axis=1), proba.max(axis=1)
    sure = conf >= UNSURE_BELOW
    conf_m = np.zeros((len(DIE_TYPES), len(DIE_TYPES)), int)
    np.add.at(conf_m, (y, pred), 1)
    return {"n": int(len(y)), "accuracy": round(float((pred == y).mean()), 4),
            "unsure_rate": round(float(1 - sure.mean()), 4),
            "accuracy_when_sure": round(float((pred[sure] == y[sure]).mean()), 4) if sure.any() else None,
            "per_type": {t: round(float((pred[y == k] == k).mean()), 4)
                         for k, t in enumerate(DIE_TYPES) if (y == k).any()},
            "confusion": conf_m.tolist()}


def fit_calibrated(x: np.ndarray, y: np.ndarray, weights: np.ndarray, fold: np.ndarray,
                   groups: list[np.ndarray]) -> tuple[ShapeModel, np.ndarray]:
    """A ShapeModel fitted on features x (N x F), labels y, row weights, with its temperature fitted on
    out-of-fold logits (fold: (N,) fold index of each row; rows describing one render share a fold):
    by likelihood, then raised until sure readings are right SURE_TARGET of the time in every group
    (boolean row masks; sure_temperature). Returns (model, out-of-fold logits N x C)."""
    oof = np.zeros((len(y), len(DIE_TYPES)))
    for k in np.unique(fold):
        m = fit_logistic(x[fold != k], y[fold != k], weights[fold != k])
        oof[fold == k] = m.logits(x[fold == k])
    model = fit_logistic(x, y, weights)
    t_nll = fit_temperature(oof, y)
    model.temperature = sure_temperature(oof, y, groups, t_nll)
    model.meta = {"temperature": round(model.temperature, 4), "likelihood_temperature": round(t_nll, 4)}
    return model, oof


def build_model(per_type: int = 600, out: Path | None = None, seed: int = SEED,
                data: Path | None = None, folds: int = 5, oblique_per_type: int = OBLIQUE_PER_TYPE,
                net_dir: Path | None = None) -> ShapeModels:
    """Build the shipped shape models and save them to out (default model_path()), their features
    holding the embedding of the numeral net in net_dir (default models/standard: build that net
    first, train_models does).

    Top-down model: per_type synthetic renders of each die type (render_training_set, seed; SPECKLE_SHARE
    of them speckled) and, when
    data/lurig_dietype exists (data default ../shared/datasets), its CC0 photos except a held-out
    quarter (lurig_split), each photo weighted LURIG_WEIGHT. Oblique model: oblique_per_type oblique
    renders of each type (render_oblique_set, seed + 10; FAR_SHARE of them seen_far), each with and
    without its mask, and
    OBLIQUE_PLAIN_PER_TYPE top-down renders of standard_spec's dice (seed, none speckled; a camera from
    the side also sees dice that lie tilted toward it).
    Temperatures are fitted on out-of-fold logits of a `folds`-fold cross-validation (fit_calibrated).
    meta records the cross-validated and held-out figures: lurig's held-out quarter, synthetic
    held-out renders (seed + 1) and oblique held-out renders (seed + 11, with and without mask).
    Same inputs, same models. Returns the models."""
    from dicetower.paths import shared_dir

    x_syn, y_syn = render_training_set(per_type, seed, net_dir=net_dir)
    x_plain, y_plain = render_training_set(OBLIQUE_PLAIN_PER_TYPE, seed, real_look_share=0.0, speckle_share=0.0,
                                           net_dir=net_dir)
    data = data or shared_dir() / "datasets"
    photos = lurig_photos(data / LURIG) if (data / LURIG / "labels.csv").is_file() else []
    x_ph = np.array([describe(img, net_dir=net_dir) for _, img, _ in photos], np.float32).reshape(-1, x_syn.shape[1])
    y_ph = np.array([k for _, _, k in photos], np.int64)
    held = lurig_split([n for n, _, _ in photos], y_ph) if photos else np.zeros(0, bool)
    x_tr = np.vstack([x_syn, x_ph[~held]])
    y_tr = np.concatenate([y_syn, y_ph[~held]])
    w_tr = np.concatenate([np.ones(len(y_syn)), np.full(int((~held).sum()), LURIG_WEIGHT)])
    is_photo = np.concatenate([np.zeros(len(y_syn), bool), np.ones(int((~held).sum()), bool)])
    top_down, oof = fit_calibrated(x_tr, y_tr, w_tr, np.arange(len(y_tr)) % folds, [is_photo, ~is_photo])
    x_syn_held, y_syn_held = render_training_set(max(20, per_type // 3), seed + 1, net_dir=net_dir)
    x_obl_plain, x_obl_masked, y_obl, _ = render_oblique_set(oblique_per_type, seed + 10, net_dir=net_dir)
    rows = np.arange(len(y_obl)) % folds  # a render's two descriptions fall in one fold
    oblique, _ = fit_calibrated(np.vstack([x_obl_plain, x_obl_masked, x_plain]),
                                np.concatenate([y_obl, y_obl, y_plain]),
                                np.ones(2 * len(y_obl) + len(y_plain)),
                                np.concatenate([rows, rows, np.arange(len(y_plain)) % folds]),
                                [np.ones(2 * len(y_obl) + len(y_plain), bool)])
    h_plain, h_masked, y_h, _ = render_oblique_set(max(20, oblique_per_type // 3), seed + 11, net_dir=net_dir)
    top_down.meta.update({
        "trained_on": f"{len(y_syn)} synthetic renders (synth.render_shape_crop, seed {seed}; "
                      f"{SPECKLE_SHARE:.0%} speckled)"
                      + (f" + {int((~held).sum())} CC0 photos of {LURIG}" if photos else ""),
        "features": list(FEATURE_NAMES),
        "synthetic_heldout": accuracy_figures(top_down.proba(x_syn_held), y_syn_held)})
    if photos:
        top_down.meta["lurig_cross_validated"] = accuracy_figures(softmax(oof[is_photo] / top_down.temperature),
                                                                  y_tr[is_photo])
        top_down.meta["lurig_heldout"] = accuracy_figures(top_down.proba(x_ph[held]), y_ph[held])
    oblique.meta.update({
        "trained_on": f"{len(y_obl)} oblique renders (render_oblique_set, seed {seed + 10}; each with and "
                      f"without its mask) + {len(y_plain)} top-down renders of standard_spec's dice "
                      f"(render_training_set, seed {seed}, real_look_share 0)",
        "features": list(FEATURE_NAMES),
        "oblique_heldout_without_mask": accuracy_figures(oblique.proba(h_plain), y_h),
        "oblique_heldout_with_mask": accuracy_figures(oblique.proba(h_masked), y_h),
        "synthetic_heldout": accuracy_figures(oblique.proba(x_syn_held), y_syn_held)})
    top_down.meta.update({"oblique_heldout_without_mask": accuracy_figures(top_down.proba(h_plain), y_h),
                          "oblique_heldout_with_mask": accuracy_figures(top_down.proba(h_masked), y_h)})
    models = ShapeModels(top_down, oblique)
    path = out or model_path()
    models.save(path)
    with _MODEL_LOCK:
        _MODEL.pop(path, None)
    return models


def main() -> None:
    """`python -m dicetower.vision.shape [--per-type N] [--out FILE] [--net-dir DIR]`: build and save the
    models (top-down and oblique), print their figures."""
    import argparse
    import json

    ap = argparse.ArgumentParser(description="Build the die-type-by-shape models (models/standard/shape.npz).")
    ap.add_argument("--per-type", type=int, default=600, help="synthetic renders per die type (default 600)")
    ap.add_argument("--out", type=Path, default=None, help="output file (default models/standard/shape.npz)")
    ap.add_argument("--net-dir", type=Path, default=None,
                    help="the numeral net whose embedding the features hold (default models/standard)")
    args = ap.parse_args()
    models = build_model(args.per_type, args.out, net_dir=args.net_dir)
    path = args.out or model_path()
    print(f"shape models: {path} ({path.stat().st_size / 1e3:.0f} kB)")
    for view, model in (("top-down", models.top_down), ("oblique", models.oblique)):
        print(f" {view} model: {model.meta['trained_on']}, temperature {model.temperature:.3f}")
        for name, fig in model.meta.items():
            if isinstance(fig, dict):
                print(f"  {name}: " + json.dumps({k: v for k, v in fig.items() if k != "confusion"}))
                print(f"    confusion (rows truth, columns read, {' '.join(DIE_TYPES)}): {fig['confusion']}")
    print(ms_per_crop(models))


def ms_per_crop(model: ShapeModels, n: int = 60, seed: int = SEED + 2) -> str:
    """CPU ms per crop of die_type_by_shape (median and p95 over n renders of 80-160 px, each read
    with and without its silhouette mask, as the reader's detector gives it or not), as text."""
    import time

    from dicetower.vision import synth

    rng = np.random.default_rng(seed)
    times: dict[str, list[float]] = {"without mask": [], "with mask": []}
    for i in range(n):
        crop, mask, _ = synth.render_shape_crop(synth.standard_spec(DIE_TYPES[i % len(DIE_TYPES)], rng), rng,
                                                int(rng.integers(80, 161)), tilt_deg=10.0)
        for key, m in (("without mask", None), ("with mask", mask)):
            t0 = time.process_time()
            die_type_by_shape(crop, m, model)
            times[key].append(1000 * (time.process_time() - t0))
    return "ms per crop (CPU): " + ", ".join(f"{k} median {np.median(v):.1f} p95 {np.percentile(v, 95):.1f}"
                                            for k, v in times.items())


if __name__ == "__main__":
    main()
