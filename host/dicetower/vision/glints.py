"""Glints: the lamp's reflection on a glossy die (the tower's light ring, a phone's flash, a desk lamp).

A glint is white at the camera's ceiling, and where it falls on a pip it washes the pip out: a 3 shows its
centre and one corner pip, read as a 2 as sure as a face seen whole; a 5 shows a 4, a 2 a 1. A glint that could hide
a pip puts the count of a face near it in doubt (pips.read_faces: unsure, at most pips.AMBIGUOUS_CAP). matteop65's
photos with a glint drawn on each labelled die (bench.vision.glinted_photos, 359 dice): read sure and wrong 27 -> 2.
Renders of pip d6 with a glint on every die's up face (synth.render_scene's glint; 150 scenes of 2-6 dice): 10 of 596
read sure and wrong at 60-90 px (3 -> 2, 5 -> 4, 2 -> 1, 6 -> 2) -> 1, 4 -> 1 at 25-45 px. Over 300 scenes (`make
probes ARGS="g60 g25"`, 1168 dice each) 7 and 9, most in the scenes that work did not look at (150-299). matteop65's
own photos read as before (white dice's rounded edges lit in thin arcs hide no pip), and so do renders without glints
but for a few 4s on or beside a white die the render lit to the ceiling (9 of 10718 dice in six probes, unsure now).
Two glints make no blob of their own: one at the corner of a die on a white floor runs on into the floor, and one
smaller than a pip beside a light pip joins it, so neither is found; a 3 was read as a sure 2 of its other pips. A 2
is in doubt too where a 3's other corner pip would be is a glint's grey (or, light pips, as light as they are with a
glint beside it) and the die goes on round that corner (_third_pip_under_glint): session 60, on its machine, the
glint probes' sure and wrong readings 7 -> 3 at 60-90 px, 7 -> 5 at 25-45 px (6 now unsure, none lost; one
unsure reading of no die more), the six probes without glints identical die by die. Not yet caught: a 2 read as a 1
so (no layout to tell where its other pip would be), a glint covering the corner's sides too, and a face too light to
show a glint (a white or pale die).
A die seen from low shows a side face below its top face. Where a glint washed out (or crowded) a 1's pip, no top
face was read, and the side face was read as a sure die no one threw: a face seen obliquely (GLINT_OBLIQUE) is in
doubt for a glint as far off as its die's top face (GLINT_SIDE_REACH), faces of 5 and 6 pips too. The bench's glint
row (359 dice, session 60): readings of no die read sure 10 -> 3, sure and wrong 2 -> 1, one die right and sure now
unsure, 6 more dice found; every other bench row, the numbered sets and all eight render probes as before, die by die.
A side 3 shows no foreshortening in its layout (its pips lie on one line), but its pips do, squashed alike
(pips._smeared_alike): a face of 1 to 3 pips so is in doubt for a glint where its die's top face would be, beyond it
along the pips' minor axis. The glint row's two side 3s and one side 1 (below a 5 whose glint washed out three pips)
read sure (session 64) are unsure now, and two of their top faces are found, unsure and wrong; every other bench row,
all eight render probes and the numbered sets read as before, die by die.
A glint on the face round a few dark pips is no mark on it (pips.face_roughness's glints_out): counted as one, the face
was too rough for a die's and the die was lost (the glint row lost 59 of 359 dice, most of them 1s). A die body a glint
lights beside sure pip dice is read unsure though no pip shows in it (lights_body), and a light lone pip at the glint's
grey in a body's middle vouches for no 1 (at_ceiling). The glint row, session 63: found 300 -> 315, right 63 -> 84,
sure and wrong 1 = 1; the glint probes found 25 and 13 more dice, sure and wrong as before. A frame whose every face a
glint left unsure has its scale told by its faces of two pips or more (detect.large_pip_faces): 18 more found.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from scipy import ndimage

#: a glint is at the camera's ceiling: a blob of grey levels GLINT_GREY or more and GLINT_OVER or more above the
#: plain face round the pips, GLINT_CORE on average (it clips at 255; a white floor or face at the blob's level,
#: 240-249, speckles above it and below). On a face so light that GLINT_OVER above it passes GLINT_CORE no glint
#: can be told.
GLINT_GREY = 245.0
GLINT_OVER = 25.0
GLINT_CORE = 250.0
#: how far from a face a glint may hide its die's pips. A lone pip: GLINT_LONE_REACH of its diameters (from a 2's
#: corner pip its other pip lies ~4.5 diameters off, the die's far corner ~6). A 2: GLINT_TWO_REACH of its half
#: lengths and a pip diameter from its middle (a 3 read as its centre and one corner pip has its other corner 3 half
#: lengths off). 3 pips or more: the layout's square GLINT_FACE_REACH pitches from its centre (its face ends at
#: about 1.6, its die's rounded edge a little beyond)
GLINT_LONE_REACH = 6.0
GLINT_TWO_REACH = 4.5
GLINT_FACE_REACH = 2.2
#: a face of 3 pips or more whose layout is foreshortened (one axis's pitch under GLINT_OBLIQUE of the other's) is
#: seen obliquely, and may be a side face: the die's top face, whose pip a glint may wash out (a 1: then no top face
#: is read, and the side face was read as a sure die), lies beyond its edge along the short axis, GLINT_SIDE_REACH
#: pitches of the top face on, which the side face's foreshortening shrinks. The reach goes on so far along that axis,
#: for faces of 5 and 6 pips too (the side 4 below a 1 in the bench's glint row, photo 0001: pitches 7.5 and 12 px)
GLINT_OBLIQUE = 0.8
GLINT_SIDE_REACH = 3.2
#: a face of 2 or 3 pips shows no foreshortening in its layout (its pips lie on one line), nor a lone pip (it has no
#: layout), but in its pips: where they are squashed alike (pips._smeared_alike, as a face seen obliquely shows them),
#: the face may be a side face, its die's top face beyond it along their minor axis (GLINT_SIDE_REACH pitches on, as
#: above). The side 3 below a 1 the glint washed out, read as a sure 3 no one threw, in the bench's glint row (photos 3
#: and 8: pips ~12 x 6 px). A lone pip's face's pitch is taken as GLINT_LONE_PITCH of its major axis (a face's side is
#: ~4.6 pip diameters, pips.FACE_SIDE_DIAMETERS, and ~3.2 pitches)
GLINT_LONE_PITCH = 1.45
#: a glint ends within GLINT_RUN_ON times a face's reach of its centre (it may be larger than the die's face); a white
#: floor round a die runs on past that
GLINT_RUN_ON = 2.5
#: a glint that can hide a pip: GLINT_PIP_AREAS pips' area or more with a disc GLINT_THIN pip diameters across
#: inside (a pip washed out by a glint beside it), or a disc GLINT_WHOLE_PIP diameters across inside (a pip washed
#: out whole). matteop65's white dice show glints along their rounded edges, at 225 grey or more up to 1.2 pips' area
#: and 0.64 across
GLINT_PIP_AREAS = 1.5
GLINT_THIN = 0.5
GLINT_WHOLE_PIP = 0.9
#: a 2 may be a 3 seen as its centre and one corner pip, its other corner pip under a glint no blob of its own: one
#: that runs on into a white floor past the die's corner, or one smaller than a pip that joins a light pip beside it
#: (neither is found). Its grey is taken over a square GLINT_SPOT pip diameters across where that pip would be, and
#: where the face would go on round it (_third_pip_under_glint)
GLINT_SPOT = 0.6
#: ... and on one side at least GLINT_BESIDE of the 3's pitch from its centre too, past its edge middles (its face
#: ends at about 1.6; the glint may cover the other side): a 2 whose pips are large and close (matteop65's) has its
#: edge middles' places at its die's edge, and these past it
GLINT_BESIDE = 1.2


def hides_pip(centres: np.ndarray, diameters: np.ndarray, layout: np.ndarray | None, gray: np.ndarray,
              squash: tuple[float, float] | None = None) -> bool:
    """Whether a glint that could hide a pip lies near a face of 1..n pips on its die, where its other pips would
    be, or (a face of 3 to 6 pips seen obliquely, GLINT_OBLIQUE; of 1 to 3 pips squashed alike, squash given)
    where its die's top face would be: a blob at least GLINT_GREY and GLINT_OVER above the plain face round the pips
    (grey levels), large enough (GLINT_PIP_AREAS, GLINT_THIN, GLINT_WHOLE_PIP), its pips left out, within the face's
    reach (GLINT_LONE_REACH, GLINT_TWO_REACH, GLINT_FACE_REACH, GLINT_SIDE_REACH) and not running on to the reach's
    edge: a white floor round a dark die is as bright, and runs on. A 2 may be a 3 whose glint makes no blob of its
    own (_third_pip_under_glint).
    centres: (N, 2) float px, the face's pip centres in gray's px; diameters: (N,) float px; layout: the face's
    layout map (3x2, image point = [u v 1] @ layout, pips._layout_map) for 2 pips or more, None for a lone pip;
    gray: HxW uint8; squash: the pips' (mean roundness 0..1, mean major axis direction in degrees) where they are
    squashed alike (pips._smeared_alike), else None. False when the face is too light to show a glint or its reach
    lies off the frame."""
    if _glint_within(centres, diameters, layout, gray, None):
        return True
    if squash is None:
        return False
    return _glint_within(centres, diameters, layout, gray, _side_reach(centres, diameters, *squash))


def _side_reach(centres: np.ndarray, diameters: np.ndarray, roundness: float, axis: float) -> np.ndarray:
    """Where a face of 1 to 3 pips (centres: (N, 2) float px; diameters: (N,) px) squashed alike (their mean
    roundness, 0..1; axis: their major axes' direction, degrees) may have its die's top face, seen as a side face: a
    rectangle along the pips' axes, GLINT_FACE_REACH pitches along the major, that foreshortened and GLINT_SIDE_REACH
    on along the minor (4x2 px corners). A lone pip's pitch is GLINT_LONE_PITCH of its major axis."""
    if len(centres) == 1:
        pitch = GLINT_LONE_PITCH * float(diameters[0]) / math.sqrt(max(roundness, 0.1))
    else:
        pitch = float(np.linalg.norm(centres[:, None] - centres[None], axis=2).max()) / (2 * math.sqrt(2))
    turn = math.radians(axis)
    axes = np.array([[math.cos(turn), math.sin(turn)], [-math.sin(turn), math.cos(turn)]]) * pitch  # major, minor
    eu, ev = GLINT_FACE_REACH, GLINT_FACE_REACH * roundness + GLINT_SIDE_REACH
    return centres.mean(axis=0) + np.array([[-eu, -ev], [eu, -ev], [eu, ev], [-eu, ev]]) @ axes


def _glint_within(centres: np.ndarray, diameters: np.ndarray, layout: np.ndarray | None, gray: np.ndarray,
                  side: np.ndarray | None) -> bool:
    """hides_pip within the face's own reach (side None), or within side (4x2 px corners: _side_reach)."""
    n = len(centres)
    dia = float(np.mean(diameters))
    h, w = gray.shape
    polygon = None
    if side is not None:
        polygon = np.column_stack([side, np.ones(4)])
        (cx, cy) = side.mean(axis=0)
        reach = float(np.hypot(side[:, 0] - cx, side[:, 1] - cy).max())
    elif layout is None:
        (cx, cy), reach = centres[0], GLINT_LONE_REACH * dia
    elif n == 2:
        (cx, cy), reach = layout[2], GLINT_TWO_REACH * float(np.hypot(*(centres[1] - centres[0]))) / 2 + dia
    else:
        eu = ev = GLINT_FACE_REACH
        pu, pv = float(np.hypot(*layout[0])), float(np.hypot(*layout[1]))  # px per pitch along the layout's axes
        oblique = min(pu, pv) / max(pu, pv, 1e-6)
        if oblique < GLINT_OBLIQUE:  # a side face, maybe: its die's top face lies beside it along the short axis
            eu, ev = (eu + GLINT_SIDE_REACH / oblique, ev) if pu < pv else (eu, ev + GLINT_SIDE_REACH / oblique)
        elif n > 4:
            return False  # no face of more pips it could be
        polygon = np.array([[-eu, -ev, 1.0], [eu, -ev, 1.0], [eu, ev, 1.0], [-eu, ev, 1.0]]) @ layout
        (cx, cy), reach = layout[2], float(np.hypot(polygon[:, 0] - layout[2, 0], polygon[:, 1] - layout[2, 1]).max())
    x0, x1 = max(int(cx - reach), 0), min(int(cx + reach) + 1, w)
    y0, y1 = max(int(cy - reach), 0), min(int(cy + reach) + 1, h)
    peak = int(gray[y0:y1, x0:x1].max()) if x1 - x0 >= 3 and y1 - y0 >= 3 else 0
    if peak < GLINT_GREY:
        return False  # nothing so bright near the face (or no room for it): most faces end here
    if layout is None:
        rings = np.concatenate([np.full(24, 1.0), np.full(24, 1.4)]) * dia  # the face round a lone pip
        turns = np.tile(np.linspace(0.0, 2 * np.pi, 24, endpoint=False), 2)
        samples = centres[0] + np.column_stack([rings * np.cos(turns), rings * np.sin(turns)])
    else:
        grid = np.linspace(-1.2, 1.2, 9)  # the face between its layout's places, the pips left out
        uu, vv = np.meshgrid(grid, grid)
        samples = np.column_stack([uu.ravel(), vv.ravel(), np.ones(uu.size)]) @ layout
        apart = np.hypot(samples[:, None, 0] - centres[None, :, 0], samples[:, None, 1] - centres[None, :, 1])
        samples = samples[apart.min(axis=1) > 0.8 * dia]
    on = (samples[:, 0] >= 0) & (samples[:, 0] <= w - 1) & (samples[:, 1] >= 0) & (samples[:, 1] <= h - 1)
    if not on.any():
        return False
    plain = float(np.median(gray[np.round(samples[on, 1]).astype(int), np.round(samples[on, 0]).astype(int)]))
    level = glint_level(plain)
    if level is None or peak < level:
        return False  # a face too light to tell a glint on, or nothing brighter than it near it
    if n == 2 and side is None and _third_pip_under_glint(centres, dia, gray, level, plain):
        return True
    far = GLINT_RUN_ON * reach
    x0, x1 = max(int(cx - far), 0), min(int(cx + far) + 1, w)
    y0, y1 = max(int(cy - far), 0), min(int(cy + far) + 1, h)
    near, within = np.zeros((y1 - y0, x1 - x0), np.uint8), np.zeros((y1 - y0, x1 - x0), np.uint8)
    centre = (int(round(cx - x0)), int(round(cy - y0)))
    if polygon is None:
        cv2.circle(near, centre, int(reach), 1, -1)
        cv2.circle(within, centre, int(far), 1, -1)
    else:
        cv2.fillPoly(near, [np.round(polygon[:, :2] - [x0, y0]).astype(np.int32)], 1)
        cv2.fillPoly(within, [np.round((polygon[:, :2] - [cx, cy]) * GLINT_RUN_ON + centre).astype(np.int32)], 1)
    bright = (gray[y0:y1, x0:x1] >= level).astype(np.uint8)
    for (x, y), d in zip(centres, diameters):  # light pips are as bright: the face's own are no glint
        cv2.circle(bright, (int(round(x - x0)), int(round(y - y0))), int(math.ceil(0.75 * d)), 0, -1)
    # all that lies beyond GLINT_RUN_ON reaches makes one blob with what is bright and runs on to it (a white floor)
    blobs = cv2.copyMakeBorder((bright & within) | (1 - within), 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=1)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(blobs, connectivity=8)
    beyond = labels[0, 0]
    reached = np.unique(labels[1:-1, 1:-1][near.astype(bool)])
    kept = [int(i) for i in reached if i != 0 and i != beyond]
    if not kept:
        return False
    grey = cv2.copyMakeBorder(gray[y0:y1, x0:x1], 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    inner = cv2.distanceTransform(blobs, cv2.DIST_L2, 3)  # the radius of the largest disc inside, per pixel
    radii, means = ndimage.maximum(inner, labels, kept), ndimage.mean(grey, labels, kept)
    areas = stats[kept, cv2.CC_STAT_AREA] / (math.pi / 4 * dia * dia)  # in pips
    widths = 2 * np.asarray(radii) / dia  # the widest disc inside, in pip diameters
    return any(m >= GLINT_CORE and ((a >= GLINT_PIP_AREAS and d >= GLINT_THIN) or d >= GLINT_WHOLE_PIP)
               for a, d, m in zip(areas, widths, means))


#: a die body beside pip dice whose face shows no pip when read finer, GLINT_LIT_SHARE of its pixels or more at the
#: glint's grey (GLINT_CORE, and at most GLINT_LIT_MOST: a white die on a white floor is not lit, it is white), is a pip
#: die whose pips a glint washed out (lights_body)
GLINT_LIT_SHARE = 0.02
GLINT_LIT_MOST = 0.5


def lights_body(image: np.ndarray, box: tuple[int, int, int, int], mask: np.ndarray) -> bool:
    """Whether a glint lights a die body: GLINT_LIT_SHARE..GLINT_LIT_MOST of its pixels are at the glint's grey
    (GLINT_CORE or more). image: HxWx3 uint8 BGR, the frame; box: the body's (x, y, w, h px); mask: hxw uint8 over
    box, 255 where the die is (detect.DieBody's)."""
    x, y, w, h = box
    gray = cv2.cvtColor(image[y:y + h, x:x + w], cv2.COLOR_BGR2GRAY)
    on = mask[:gray.shape[0], :gray.shape[1]] > 0
    share = int(np.count_nonzero((gray >= GLINT_CORE) & on)) / max(int(np.count_nonzero(on)), 1)
    return GLINT_LIT_SHARE <= share <= GLINT_LIT_MOST


def at_ceiling(image: np.ndarray, x: float, y: float, diameter: float) -> bool:
    """Whether a light pip's middle (_grey_at's square, GLINT_SPOT of its diameter px across, round its centre x, y
    px) is at a glint's grey (its median GLINT_CORE or more): a glint, as likely as a pip. False where that square runs
    off the frame. image: HxWx3 uint8 BGR, the frame."""
    grey = _grey_at(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.array([x, y]), diameter)
    return grey is not None and grey >= GLINT_CORE


def _grey_at(gray: np.ndarray, point: np.ndarray, dia: float) -> float | None:
    """The median grey level (0..255) of gray (HxW uint8) over the square GLINT_SPOT pip diameters (dia px) across
    round point ((x, y) px); None where the square runs off gray."""
    x, y, r = int(round(point[0])), int(round(point[1])), max(1, int(round(GLINT_SPOT * dia / 2)))
    h, w = gray.shape
    if x - r < 0 or y - r < 0 or x + r >= w or y + r >= h:
        return None
    return float(np.median(gray[y - r:y + r + 1, x - r:x + r + 1]))


def glint_level(face: float) -> float | None:
    """The grey level (0..255) from which a blob is a glint on a face of grey level face: GLINT_GREY and GLINT_OVER
    above the face; None when that passes GLINT_CORE (a face too light to tell a glint on)."""
    level = max(face + GLINT_OVER, GLINT_GREY)
    return None if level > GLINT_CORE else level


def on_face(gray: np.ndarray, corner: tuple[int, int], region: np.ndarray, face: float,
            reach: tuple[float, float, float]) -> np.ndarray | None:
    """The pixels of a glint on a face round dark pips (hxw bool over region), which pips.face_roughness leaves out: a
    glint's core is a blob of gray (the frame, HxW uint8) at a glint's grey (glint_level of the face's grey level face)
    holding some of region and ending within GLINT_RUN_ON times the face's reach of its centre (reach: x, y, radius px;
    a white floor round a die runs on past that: no glint), and its halo is what is brighter than the face by half
    GLINT_OVER or more round it. region: hxw bool, the face's pixels in the window of gray whose top left corner is
    corner (x, y px). None when there is no such blob, the face is too light to tell a glint on, or leaving the glint
    out would leave under 8 pixels of region."""
    level = glint_level(face)
    (x0, y0), (h, w) = corner, region.shape
    if level is None or not ((gray[y0:y0 + h, x0:x0 + w] >= level) & region).any():
        return None
    cx, cy, r = reach
    far = GLINT_RUN_ON * r
    fx0, fy0 = max(int(cx - far), 0), max(int(cy - far), 0)
    fx1, fy1 = min(int(cx + far) + 1, gray.shape[1]), min(int(cy + far) + 1, gray.shape[0])
    near = gray[fy0:fy1, fx0:fx1]
    _, cores = cv2.connectedComponents((near >= level).astype(np.uint8), connectivity=8)
    edge = np.concatenate([cores[0], cores[-1], cores[:, 0], cores[:, -1]])
    over = cores[y0 - fy0:y0 - fy0 + h, x0 - fx0:x0 - fx0 + w]  # the cores over the face's window
    glint = np.isin(cores, np.setdiff1d(np.unique(over[region & (over > 0)]), edge))
    if not glint.any():
        return None
    _, halos = cv2.connectedComponents((near > face + GLINT_OVER / 2).astype(np.uint8), connectivity=8)
    edge = np.concatenate([halos[0], halos[-1], halos[:, 0], halos[:, -1]])
    ids = np.setdiff1d(np.unique(halos[glint]), edge)  # a halo running on is a white floor round a dark face
    lit = np.isin(halos, ids)[y0 - fy0:y0 - fy0 + h, x0 - fx0:x0 - fx0 + w]
    return lit if lit.any() and np.count_nonzero(region & ~lit) >= 8 else None


def _third_pip_under_glint(centres: np.ndarray, dia: float, gray: np.ndarray, level: float, plain: float) -> bool:
    """Whether a face of 2 pips may be a 3 seen as its centre and one corner pip, its other corner pip under a glint
    hides_pip's blobs do not see (GLINT_SPOT): where that corner would be (either pip taken for the centre), the grey
    is a glint's (level or more) or, light pips on a dark die, as light as the face's pips, with a glint's grey within
    a pip diameter; and the two places of the face beside that corner (the 3's edge middles there) are darker: the
    die goes on round it, as it does not round a 2's corner pip (those places lie past its die's edge).
    centres: (2, 2) float px in gray's px; dia: the pips' mean diameter, px; gray: HxW uint8; level: a glint's grey
    here (hides_pip's); plain: the face's grey round the pips."""
    greys = [_grey_at(gray, c, dia) for c in centres]
    if greys[0] is None or greys[1] is None:
        return False
    pip = min(greys[0], greys[1])
    lit = pip if pip > plain else level  # light pips: a pip a glint joined is as light as they are
    r = max(1, int(round(dia)))
    for middle, corner in ((centres[0], centres[1]), (centres[1], centres[0])):
        out, across = corner - middle, np.array([middle[1] - corner[1], corner[0] - middle[0]])
        spot = _grey_at(gray, middle - out, dia)
        if spot is None or spot < lit:
            continue
        x, y = int(round(middle[0] - out[0])), int(round(middle[1] - out[1]))
        if gray[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1].max() < level:
            continue  # as light as a pip, but no glint beside it
        beside = [_grey_at(gray, middle + k * (sign * across - out) / 2, dia)
                  for k in (1.0, GLINT_BESIDE) for sign in (1.0, -1.0)]
        if all(b is not None and b < lit for b in beside[:2]) and any(b is not None and b < lit for b in beside[2:]):
            return True
    return False
