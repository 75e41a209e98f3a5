"""Find the dice in a frame, at any resolution from 640x480 webcam frames to 12-megapixel photos.

Pip dice are found by their pips (pips.read_faces, dark and light pips). Dice without pips (numbered,
symbol dice) are found as die bodies: colour distance from the table, where the table is the empty-tray
reference frame when the tower has one (background subtraction) and otherwise a smooth model of the
frame itself (a heavy median filter and the border's colour), thresholded by Otsu. Touching dice are
split at their blob's waist (distance-transform cores). A large blob cut by the frame's border (a dice
dome's floor, a tray seen in part) or whole in it (a tray seen whole, its rim and floor) is a container:
the dice in it are the hulls of bodies of one colour (k-means colour segmentation) that are compact, busy
inside (marks) and of a colour rare in the frame.
Without a reference, a second pass by chromaticity (the colour without its lightness) finds the dice
that colour distance merged with their shadow or the wood grain around them (_with_chroma_bodies).
Each body carries the evidence the reader weighs to decide whether it is a die at all
(DieBody.ground_share, DieBody.cut); nothing here is tuned to one dice set, colour or scene.
Close-ups of pip dice (a die a third of the frame or more) have pips as wide as the pip filter or wider
at the analysis scale: found in part, or as die bodies of their own. large_pip_faces reads them again at
the scale their size tells (a die's pips are a fixed share of it, PIP_OF_DIE), and the bodies and faces
in a die read so are its parts, not dice."""

from __future__ import annotations

import functools
import math
import statistics
from dataclasses import dataclass, replace
from typing import Callable, Protocol

import cv2
import numpy as np

from dicetower.readings import UNSURE_BELOW

from .boxes import centre, grown, holds, iou, meets, overlap
from .colour import channel_medians
from .pips import (AMBIGUOUS_CAP, FACE_SIDE_DIAMETERS, FRAME_EDGES, LINK_DIAMETERS, MARKED_PIP, SAME_DIE_PIPS,
                   SIDE_FACE_SIDES, SIDE_REACH_DIAMETERS, WEAK_SNR, PipFace, Pip, PipTable, doubted, face_side,
                   find_pips, pip_marks, pip_response, read_faces, stray_marks, twins)

#: Frames are analysed with their long side at most this many px (12 MP photos are downscaled).
ANALYSIS_LONG_SIDE = 640
#: The pip filter's structuring size at every analysis scale, px: larger than any pip when dice are
#: up to about a sixth of the frame at 640 px. Close-ups are read at 320 and 160 px, where the same
#: filter spans a larger part of the frame.
KERNEL_PX = 21
ANALYSIS_SCALES = (ANALYSIS_LONG_SIDE, ANALYSIS_LONG_SIDE // 2, ANALYSIS_LONG_SIDE // 4)


def analysis_scale(shape: tuple[int, ...], long_side: int = ANALYSIS_LONG_SIDE) -> float:
    """Factor (<= 1) from frame px to analysis px for a frame of shape (H, W[, C])."""
    return min(1.0, long_side / float(max(shape[0], shape[1])))


def _moved_face(face: PipFace, factor: float, origin: tuple[float, float]) -> PipFace:
    """The face read in a region (its px) in the px of the frame the region was cut from: scaled by
    factor (frame px per region px), then moved by the region's corner origin (x, y frame px)."""
    ox, oy = origin
    x, y, w, h = face.box
    pips = [replace(p, x=p.x * factor + ox, y=p.y * factor + oy, area=p.area * factor * factor) for p in face.pips]
    return replace(face, pips=pips, box=(int(round(x * factor + ox)), int(round(y * factor + oy)),
                                         int(round(w * factor)), int(round(h * factor))),
                   centre=(face.centre[0] * factor + ox, face.centre[1] * factor + oy))


def _plausible_polarity(dark: list[PipFace], light: list[PipFace],
                        set_aside: list[PipFace] | None = None) -> list[PipFace]:
    """Lone pips (faces showing 1) are weak evidence: a key on a keyboard or a glint looks like one.
    The frame's pip polarity is the one with more sure multi-pip faces (then more sure faces, then
    more faces; a face a glint put in doubt counts as sure as its pips are, PipFace.as_face: its count is in
    doubt, not its pips' polarity); the other polarity's multi-pip faces are kept, and its lone pips dropped,
    unless that polarity has sure multi-pip faces too: then the frame holds dice of both kinds (dark dice with light
    pips among light dice with dark pips), and its lone pips are kept unsure (confidence at most
    pips.AMBIGUOUS_CAP): a 1 of those dice, or the one pip found of a face whose other pips were lost.
    set_aside: when given, the dropped lone pips are appended to it, at that cap: no die by themselves,
    but a die body round one may be a die of the other kind showing 1 (find_pip_faces' set_aside). A capped
    pip keeps the confidence it was read with (PipFace.uncapped) for that body to vouch for (reader.read_as_one):
    a pip already capped for the face round it, not quite plain, keeps that capped confidence, for two doubts are
    more than its body answers. Tried in session 47, the confidence before both caps kept: renders of pip d6 at 60-90
    px read 19 more 1s sure, all right, but crowds of 25-45 px dice read a 3 and a 5 whose other pips went unfound as
    sure 1s: not kept."""

    def evidence(faces: list[PipFace]) -> tuple[int, int, int]:
        sure = [f for f in faces if f.as_face >= UNSURE_BELOW]
        return sum(len(f.pips) > 1 for f in sure), len(sure), len(faces)

    main = "dark" if evidence(dark) >= evidence(light) else "light"
    both_kinds = evidence(dark)[0] > 0 and evidence(light)[0] > 0
    capped = [f if len(f.pips) > 1 or f.polarity == main
              else replace(f, confidence=min(f.confidence, AMBIGUOUS_CAP), uncapped=f.confidence)
              for f in dark + light]
    if set_aside is not None:
        set_aside += [f for f in capped if len(f.pips) == 1 and f.polarity != main and not both_kinds]
    return [f for f in capped if len(f.pips) > 1 or f.polarity == main or both_kinds]


#: A pip's diameter is at most this fraction of its die's side (standard d6 about 0.19, big-pip dice
#: 0.25): only a die whose side at the analysis scale exceeds KERNEL_PX / PIP_OF_DIE may have pips larger
#: than the pip filter.
PIP_OF_DIE = 0.25


class ReadsElsewhere(Protocol):
    """Reads of find_pip_faces that another process may make meanwhile (the reader's second process,
    second_core.WorkAhead): each gives None when they are to be made here."""

    def light(self) -> list[PipFace] | None:
        """analysis_light_faces(image), asked once the analysis scale's dark read is done."""

    def whole_fine(self, polarities: list[str]) -> Callable[[], list[PipFace] | None] | None:
        """Begin whole_fine_faces(image, polarities) elsewhere, returning how to take its faces once the
        finer region reads are done; None: read it here."""


def find_pip_faces(image: np.ndarray,
                   close_ups: bool | Callable[[], list[tuple[int, int, int, int]]] = True,
                   elsewhere: ReadsElsewhere | None = None, from_close_ups: bool = False,
                   set_aside: list[PipFace] | None = None) -> list[PipFace]:
    """Top faces of the pip dice in a frame. image: HxWx3 uint8 BGR, any size. Boxes and pips in frame
    px. Dark and light pips are both looked for; where both readings claim one die, the more confident
    stays. Faces whose pips are near the pip filter's limit at the analysis scale (small dice) are read
    again at twice that scale (_finer_faces). When nothing is found at the analysis scale, smaller
    scales are tried (close-up photos, where pips are larger than the pip filter): over the whole
    frame when close_ups is True, not at all when it is False, and when it is a callable, only for
    pips in the boxes (x, y, w, h frame px) it returns, called at most once, after the analysis scale: the boxes
    of the dice that may be that large (close_up_regions; the reader finds the bodies meanwhile, on the other
    core); elsewhere the analysis scale's filter already spans any pip, and no box means no smaller scale. Where
    the analysis scale found faces, its boxes that hold no sure face are read at the smaller scales too
    (_close_ups_unread).
    The pip search is most of a numbered scene's time. A frame no longer than a smaller scale is read
    once: scales it is not larger than read the same pixels and would find the same nothing (a 90 px
    tile: one scale, not three). elsewhere, when given, may make the analysis scale's light read and
    _finer_faces' whole-frame read (ReadsElsewhere: the reader's second process) while this process
    makes the others; the faces are the same. from_close_ups: the analysis scale was read already and held
    no face, so only the smaller scales are read (in close_ups' boxes: the reader's second look, in the die
    of a close-up that fills the frame, find_close_up). set_aside: when given, the lone pips dropped at the scale
    the faces come from (_plausible_polarity: of the pip polarity the frame's other dice do not have, so no die by
    themselves) are appended to it, in frame px, unsure, and so are the analysis scale's weak faces (PipFace.weak: a
    lone weak pip, a speck as often as a blurred 1 pip; two far pips on a face not plain): the reader weighs a lone
    pip in the middle of a die body it reads (reader.read_as_one), and a die body may vouch for the pair."""
    gray_full = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    factors = {analysis_scale(gray_full.shape, long_side) for long_side in (ANALYSIS_SCALES if close_ups else ANALYSIS_SCALES[:1])}
    regions: list[tuple[int, int, int, int]] | None = None  # close_ups() once called
    previous: float | None = None  # the finer scale read before a close-up scale (nothing found there)
    for s in sorted(factors, reverse=True):
        if from_close_ups and s == max(factors):
            previous = s
            continue
        gray = _scaled(gray_full, s)
        within = None
        if callable(close_ups) and s < max(factors):
            if regions is None:
                regions = close_ups()
            if not regions:
                return []
            within = [(int(x * s), int(y * s), int(np.ceil((x + w) * s)) - int(x * s), int(np.ceil((y + h) * s)) - int(y * s))
                      for x, y, w, h in regions]
        k = KERNEL_PX
        finer = None if previous is None else previous / s
        analysis = previous is None  # the analysis scale (read first, over the whole frame)
        dark = read_faces(gray, "dark", k, within, finer, weak_ones=analysis)
        light = elsewhere.light() if elsewhere is not None and analysis else None
        if light is None:
            light = read_faces(gray, "light", k, within, finer, weak_ones=analysis)
        if set_aside is not None:  # weak faces (a lone weak pip, two far pips on a mottled face): no die by themselves
            set_aside += [_moved_face(f, 1.0 / s, (0.0, 0.0)) for f in dark + light if f.weak]
        dark, light = [f for f in dark if not f.weak], [f for f in light if not f.weak]
        dropped: list[PipFace] = []
        faces = _plausible_polarity(dark, light, dropped)
        if analysis:
            faces = [_dice_held_as_pips(gray_full, s, f) for f in faces]
        if within is not None:  # a close-up scale in the bodies' boxes (the whole frame, no body, when none was found)
            bodies = [b for b in within if b[2] < gray.shape[1] or b[3] < gray.shape[0]]
            faces = [_spanning(f, bodies) for f in faces]
        kept = _one_per_die(faces)
        if kept:
            if analysis:  # its small pips are read again finer
                kept = _finer_faces(gray_full, s, kept, elsewhere)
            if set_aside is not None:
                set_aside += [_moved_face(f, 1.0 / s, (0.0, 0.0)) for f in dropped]
            found = [_moved_face(f, 1.0 / s, (0.0, 0.0)) for f in kept]
            return _close_ups_unread(image, found, close_ups) if analysis and callable(close_ups) else found
        previous = s
    return []


def _close_ups_unread(image: np.ndarray, faces: list[PipFace],
                      close_ups: Callable[[], list[tuple[int, int, int, int]]]) -> list[PipFace]:
    """faces (read at the analysis scale, frame px) with the sure faces read at the smaller scales (find_pip_faces'
    from_close_ups) in the boxes close_ups returns (x, y, w, h frame px: die bodies that may hold pips wider than the
    pip filter, close_up_regions) that hold no sure face's centre, each in place of the unsure faces it overlaps (0.3 or
    more) or holds in its reach (_part_of: its side faces' pips, all the analysis scale saw of its die). The
    smaller scales were read only where the analysis scale found nothing, so a die whose pips are wider than the filter
    beside any face read was the numeral net's to read: a 1 close up (its pip 25 px at 640 px) beside its side face's
    narrower pips, read at the analysis scale as an unsure 4, was read as an unsure d10 10 (the bench's close-up
    0002_0.3). matteop65 photos close up round every 9th labelled die at 0.2-0.5 (steps of 0.05), 0.6 and 0.7 of the
    frame (1077 dice): 10 more right and sure, 9 of them from wrong and unsure (1s read as d10 10 or d8 8, 4s and 5s as
    1s, 6s as 2s), none read worse; the bench's close-ups read that 1 sure and right, every other bench image and every
    render as before. Only faces whose pips are at the analysis scale's filter's edge or wider (PIP_OF_KERNEL of it, as
    large_pip_faces' at_edge) are taken: pips the filter spans are the analysis scale's, and a body's box may cut their
    face (renders of pip d6 of 100-160 px: a grey 3 with pips of 13 px, its body found in two parts, read in the upper
    part's box as a sure 2). image: HxWx3 uint8 BGR."""
    unread = [r for r in close_ups() if not any(f.confidence >= UNSURE_BELOW and holds(r, f.centre) for f in faces)]
    if not unread:
        return faces
    edge = PIP_OF_KERNEL * KERNEL_PX / analysis_scale(image.shape)  # pips the analysis scale's filter spans were its
    closer = [g for g in find_pip_faces(image, lambda: unread, from_close_ups=True)
              if g.confidence >= UNSURE_BELOW and statistics.median(p.major for p in g.pips) >= edge]
    faces = [f for f in faces if f.confidence >= UNSURE_BELOW
             or not any(overlap(f.box, g.box) >= 0.3 or _part_of(f, g) for g in closer)]
    return faces + [g for g in closer if not any(overlap(f.box, g.box) >= 0.3 for f in faces)]


def analysis_light_faces(image: np.ndarray) -> list[PipFace]:
    """The light pip faces find_pip_faces reads at the analysis scale (the first it reads, and the same
    whatever its close_ups), in analysis px: for a second process to read while find_pip_faces reads
    the dark ones (ReadsElsewhere.light); weak faces among them (PipFace.weak, for its set_aside). image: HxWx3
    uint8 BGR."""
    gray_full = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return read_faces(_scaled(gray_full, analysis_scale(gray_full.shape, ANALYSIS_SCALES[0])), "light", KERNEL_PX,
                      weak_ones=True)


def _scaled(gray_full: np.ndarray, s: float) -> np.ndarray:
    """gray_full (HxW uint8) at scale s (<= 1; INTER_AREA), itself at 1.0."""
    return gray_full if s == 1.0 else cv2.resize(gray_full, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)


#: A face whose pips' median area at the analysis scale is under this (px^2: about 4.5 px across) has pips
#: near the pip filter's limit (pips.MIN_PIP_AREA_PX): its other pips may be lost under that limit or
#: merged with their neighbours, and what is left reads as a sure smaller face (matteop65 photos at half
#: size: a 5 read as a 1 and a 4 as a 2, at 1.0). matteop65's 640x480 sure faces have pips of 30..60 px^2,
#: their half-size copies 6..12.
SMALL_PIP_AREA = 16.0
#: A small-pip face's region is read again at this many times the analysis scale (_finer_faces).
FINE_FACTOR = 2.0
#: The pip polarity of marks on a die whose body is read as a pip of the other (_finer_faces: small dice taken for pips)
OTHER_POLARITY = {"dark": "light", "light": "dark"}


def whole_fine_faces(image: np.ndarray, polarities: list[str]) -> list[PipFace]:
    """The faces _finer_faces reads over the whole frame at FINE_FACTOR x the analysis scale, for the
    pip polarities given, in analysis px: for a second process to read while _finer_faces reads the
    small faces' regions (ReadsElsewhere.whole_fine). image: HxWx3 uint8 BGR."""
    gray_full = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return _whole_fine(gray_full, analysis_scale(gray_full.shape, ANALYSIS_SCALES[0]), polarities)


def _whole_fine(gray_full: np.ndarray, s: float, polarities: list[str]) -> list[PipFace]:
    """gray_full (HxW uint8) read at FINE_FACTOR x s for each polarity; faces in s's px."""
    return [_moved_face(f, 1.0 / FINE_FACTOR, (0.0, 0.0))
            for f in _scaled_faces(gray_full, FINE_FACTOR * s, FRAME_EDGES, polarities)]


def _scaled_faces(gray: np.ndarray, fs: float, edges: tuple[bool, bool, bool, bool],
                  polarities: list[str], weak_ones: bool = False, rough_ones: bool = False) -> list[PipFace]:
    """The faces read in gray (a frame or a region of it, HxW uint8) scaled by fs (cubic interpolation above 1: an
    enlarged read, read_faces' enlarged), for each of polarities, in the scaled px. edges: gray's sides that are
    the frame's (left, right, top, bottom), where a face may be cut (PipFace.runs_off). weak_ones, rough_ones: weak
    faces too, lone pips on rough faces too (read_faces')."""
    scaled = cv2.resize(gray, None, fx=fs, fy=fs, interpolation=cv2.INTER_CUBIC if fs > 1 else cv2.INTER_AREA)
    return [f for polarity in polarities
            for f in read_faces(scaled, polarity, KERNEL_PX, edges=edges, enlarged=fs > 1, weak_ones=weak_ones,
                                rough_ones=rough_ones)]


def _finer_faces(gray_full: np.ndarray, s: float, faces: list[PipFace],
                 elsewhere: ReadsElsewhere | None = None) -> list[PipFace]:
    """faces (read at analysis scale s, in its px) with each small-pip face (median pip area under
    SMALL_PIP_AREA) read again at FINE_FACTOR x s.
    Its box grown by its side on every side (the whole die, with the pips lost at scale s; regions that
    meet are read as one) is cut from gray_full (the frame, HxW uint8), scaled by FINE_FACTOR x s (the
    frame's own pixels when it has them, a 12 MP photo read at 640 px; cubic interpolation otherwise: the
    pip filter then spans pips too small for it at s) and read for the polarities of the small faces in
    it (a face is cut, PipFace.runs_off, only at the region's sides that are the frame's edges).
    Of the faces read there of the small face's polarity whose box overlaps its box by half or more, the
    one with the most pips (then the most confident) takes its place: with its own confidence when it
    has more pips (pips lost at s: a 5 read as a 1; when its box reaches past the small face's region, it is
    first read again in its own, where the rest of its die lies: renders of small-pip d6, a 6 read as two of
    its pips at s, then as a sure 4 in a region that cut its die), else at most the small face's (the same pips seen
    again, interpolated: no second reading of them; a laptop key's glyphs read as an unsure 2 stay
    unsure). A small face read there as no face stays, unsure (confidence at most pips.AMBIGUOUS_CAP); the confidence
    a die body round it may vouch for (PipFace.uncapped: a 1 on a face not quite plain) is kept, at most that cap too,
    so the body's reading weighs it (reader.read_as_one: an unsure 1, not the face classifier's unsure guess): renders
    of pip d6 in random colours, 1 more die right at 18-36 px, 2 at 25-45 px, 1 in crowds, each from wrong to right
    and unsure (a grey die of 22 px showing 1, read as an unsure 4), none sure that was not.
    When a small face is sure (the frame holds small pip dice), the whole frame is read at FINE_FACTOR x
    s as well, and the faces found there on no face of scale s are added: dice the analysis scale missed
    (matteop65 photos four to a 640x480 frame: 0.955 -> 0.989 of the dice found). Each is read again in its
    own region, as the small faces are (_region_faces: its own threshold), and keeps its confidence only where
    that read finds the same face (value, pip count, box overlapping by half); else it is unsure (at most
    AMBIGUOUS_CAP): taken with their own confidence alone, one 6 was read as a sure 4 (the whole frame's one
    threshold; the region reads are kept for the small faces for that reason too). Capping every added face
    left 6.3 % of the dice unsure, all right; confirmed by their regions, 3.5 %, none wrong.
    A small face read sure only in its region (none sure at s: white dice ~20-27 px on a near-white floor, a 4 read
    there as an unsure 2 and 1) has the whole frame read finer for its polarity too, once the regions are read (here,
    not elsewhere): four of that frame's six dice were lost. So is a frame whose every face is small, sure or not
    (white dice ~20-28 px with red pips on wood: one 1 read, unsure, four dice lost).
    A face whose "pips" are small dice (PipFace.dice_as_pips: each marked inside by the die's own pips, read unsure)
    makes the frame read whole at FINE_FACTOR x s too, for the other polarity, and is no face where that read adds
    dice: matteop65 photos of 1s tiled 4 x 4 into a 2560x1920 photo (dice ~17 px at 640 px) read four dice in a
    square as a sure 4 of light pips, their 1s unread; every 1 of dice_32's tiles is read now.
    A lone pip that is not small but holds two pips alike (_small_die_held) is a small die showing its own pips, its
    face the floor: it is read again as a small face of those pips' polarity (read sure or not: white dice ~20-26 px
    on a black floor, each read as an unsure 1 of a light pip, its box three times the die).
    A small face read sure in its region that the whole-frame read takes for the side face of a sure face beside it
    is unsure (_taken_for_side_face). A small face its region does not read again, which the finer reads (its
    region's and the whole frame's) take for the side face of a sure face beside it, is that die's side face and no
    die: with a camera low over the table, the analysis scale read such a face and took its die's top face, a 1, for
    the side face (a tiny pip's roundness is noise), where the finer reads see the 1 and hide the face below it.
    Unsure before, each: bench's small-dice frames 0016 (dice_42's three side faces below their 1s) and 0144, and
    one shrunk photo, and one in the glint row; small-dice frames 4.2 -> 3.5 % unsure, every labelled die of every
    bench row and every render probe read as before. So is such a face read unsure, where its pips are flatter than
    that sure face's as a side face's are (_taken_for_side_face, SIDE_FLATTER): a side 2's one pip below a 1, read as
    an unsure 1 no one threw (small-dice frames 0000, 0004 and 0008, two shrunk photos).
    The whole-frame read may be made elsewhere meanwhile (ReadsElsewhere.whole_fine).
    Tried in session 48 and not kept: a small lone pip _plausible_polarity dropped (a cream 5 among dice with light
    pips, read as one dark pip, its others under the filter's limit) read finer in its region, a sure face of 2 pips
    or more there, not cut by the frame's edge, taken for a small die of the other kind. Renders of pip d6 in random
    colours read 38 more crowd dice right (25-45 px), none more sure and wrong, and every bench image as before, but
    matteop65's six_50 turned upside down read a laptop key's light glyphs as a sure 2 and another key as a sure 1.
    Returns faces in s's px, one per die (_one_per_die)."""
    as_dice = [f for f in faces if f.dice_as_pips]
    small = [f for f in faces if not f.dice_as_pips and statistics.median(p.area for p in f.pips) < SMALL_PIP_AREA]
    # a lone pip holding two pips alike is a small die showing its own pips, its face the floor (a 2's or a 4's
    # corner pips lie outside the middle that pips.pip_marks looks into): read as a small face of their polarity
    dice_held = {id(f): _small_die_held(gray_full, s, f) for f in faces if len(f.pips) == 1
                 and not f.dice_as_pips and all(f is not g for g in small)}
    held = [g for g in dice_held.values() if g is not None]
    faces = [f for f in faces if dice_held.get(id(f)) is None]
    small += held
    if not small and not as_dice:
        return faces
    # the pip polarities the whole frame is read finer for. Sure small faces: the frame holds small dice, some of
    # whose faces the analysis scale may have missed whole (five_44 at half size: 3 of 5 dice, their pips' response
    # under the frame's pip threshold there); so do small dice taken for pips, whose own pips, of the other polarity
    # (marks on a die lighter than its floor are darker than the die), are under the filter's limit here; and so may
    # a frame whose every face is small
    only_small = all(any(f is g for g in small) for f in faces)  # (a small die held is a small face too)
    whole_polarities = sorted({f.polarity for f in small if f.as_face >= UNSURE_BELOW or only_small}
                              | {OTHER_POLARITY[f.polarity] for f in as_dice})
    whole = elsewhere.whole_fine(whole_polarities) if whole_polarities and elsewhere is not None else None
    finer = _region_faces(gray_full, s, small)
    # a small face read sure only finer (its pips under the analysis scale's threshold: a 4 read there as an unsure 2
    # and 1) tells as much: the whole frame is read finer for its polarity too, here, once the regions are read
    later = sorted({g.polarity for g in finer if g.confidence >= UNSURE_BELOW} - set(whole_polarities))
    out = [f for f in faces if all(f is not g for g in small + as_dice)]
    whole_read: list[PipFace] | None = None
    if whole_polarities or later:
        found = whole() if whole is not None else None
        if found is None:
            found = _whole_fine(gray_full, s, whole_polarities) if whole_polarities else []
        found = found + (_whole_fine(gray_full, s, later) if later else [])
        whole_read = found
        added = [g for g in found if all(overlap(g.box, f.box) < 0.3 for f in faces if not f.dice_as_pips)]
        out += _confirmed(gray_full, s, added)
        # small dice taken for pips where no die is read finer stay, unsure (read_faces capped them): not lost
        out += [f for f in as_dice if all(overlap(f.box, g.box) < 0.3 for g in added)]
    for f in small:
        same = [g for g in finer if g.polarity == f.polarity and overlap(f.box, g.box) >= 0.5]
        if not same and _taken_for_side_face(f, finer + (whole_read or [])):
            continue  # a side face whose die's top face the finer reads see beside it
        if not same:  # unsure, but still its die body's to vouch for, up to the cap (read_as_one: an unsure 1)
            out.append(replace(doubted(f), uncapped=None if f.uncapped is None else min(f.uncapped, AMBIGUOUS_CAP)))
            continue
        g = max(same, key=lambda g: (len(g.pips), g.confidence))
        region, (x, y, w, h) = grown(f.box, 1.0), g.box
        if len(g.pips) > len(f.pips) and not (holds(region, (x, y)) and holds(region, (x + w, y + h))):
            # a fuller face than f's reaching past f's region: its die may go on past the region's side, its other
            # pips unread there (a 6 read as a 4); read again in its own region
            wider = [k for k in _region_faces(gray_full, s, [g])
                     if k.polarity == g.polarity and overlap(g.box, k.box) >= 0.5]
            g = max(wider, key=lambda g: (len(g.pips), g.confidence)) if wider else g
        # no more pips than read at s: the same pips seen again (interpolated), no second reading of them; a glint
        # the finer read sees near them puts their count in doubt, and no die body answers that (PipFace.before_glint).
        # But a 1 in doubt for a side face beside it alone (PipFace.before_side), read with no such doubt finer, is read
        # as sure as it was before that doubt: its region sees that side face whole (a side 2 of which the analysis
        # scale found one pip, taken for the 1's twin: bench's small-dice frames 0000 and 0004), or, where the region
        # is too small to hold it, the whole frame read finer does (_side_seen_whole: a side 5, frame 0020)
        if (f.before_side is not None and f.uncapped is None and len(g.pips) == len(f.pips) == 1
                and (g.before_side is None or _side_seen_whole(f, whole_read))):
            g = replace(g, confidence=min(g.confidence if g.before_side is None else g.before_side, f.before_side),
                        before_side=None)
        elif len(g.pips) <= len(f.pips) and g.confidence > f.confidence:
            g = replace(g, confidence=f.confidence, uncapped=None if g.before_glint is not None else f.uncapped)
        if whole_read is not None and _taken_for_side_face(g, whole_read):
            g = doubted(g)
        out.append(g)
    return _one_per_die(out)


def _side_seen_whole(face: PipFace, read: list[PipFace] | None) -> bool:
    """Whether the whole frame read finer (read: its faces, in s's px; None: not read) reads face, a 1 in doubt for a
    side face beside it (PipFace.before_side), sure and with no such doubt (a face of one pip overlapping it by half or
    more): that read holds the side face whole, where the 1's region, its box grown by its own size, may cut it."""
    return read is not None and any(k.polarity == face.polarity and len(k.pips) == 1 and k.before_side is None
                                    and k.confidence >= UNSURE_BELOW and overlap(face.box, k.box) >= 0.5 for k in read)


def _taken_for_side_face(face: PipFace, read: list[PipFace]) -> bool:
    """Whether a small face (at the analysis scale, or in its own region: _region_faces; in s's px) is one a
    read at the finer scale (read: its faces, in s's px) takes for a side face: that read found no face of its polarity
    on it (none overlapping it by 0.3 either way) but a sure one beside it, with pips like its own (face sides,
    pips.face_side, within SAME_DIE_PIPS times: one die's faces have pips of one size), within the reach a die's side
    face lies from its top face (SIDE_FACE_SIDES face sides, as pips._lies_toward). A region holds few of the frame's
    faces, the whole frame all of them, and with them the frame's direction toward the camera (pips._toward_camera); a
    side face may lie outside its top face's region, which is the small face's box grown by its own size. A face its
    region does not read again is no die where the finer reads take it so, and one its region reads sure but the whole
    frame takes so is unsure (_finer_faces): bench's small-dice frame 0012 read a 2 on the side face below a 1 as a sure
    die no one threw (its region: no pair to tell the direction, and the 1 outside it; the whole frame: 20 pairs, below,
    the 2 hidden as the 1's side face). Tried instead: every small face's region grown by its box's longer side on each
    axis (so a side face's region holds its top face): that 2 was unsure too, but on the shrunk row 3 right dice went
    from sure to unsure and a side face no one threw from unsure to a sure 4 (a die seen from low, its side face as
    round as its top face): not kept. Without the pips' likeness a 15 px die of six pips, read at s as a 1 whose pip is
    the whole die (a face side of 4.6 dice), was a side face of a 4 three of its sizes off (a crowd render).
    An unsure small face is taken so too where its pips are also flatter than the sure face's (their mean roundness
    under SIDE_FLATTER of its): seen from above 45 degrees a side face is more foreshortened than its top face, a die
    beside it as round. One pip of a side 2 below a 1 was read as an unsure 1 no one threw so (bench's small-dice
    frames 0000 and 0008, roundness 0.72 and 0.50 of the 1's), a side 4 (frame 0004, 0.66) and shrunk photos' side
    faces (0.68, 0.76); a tiny 1 beside another die's 1 (dice_20 at 0.65 of its size, 0.83) stays."""
    same = [h for h in read if h.polarity == face.polarity]
    if any(overlap(face.box, h.box) >= 0.3 or overlap(h.box, face.box) >= 0.3 for h in same):
        return False
    (fx, fy), side = face.centre, face_side(face.pips)
    sides = [(h, face_side(h.pips)) for h in same if h.confidence >= UNSURE_BELOW]
    sure, roundness = face.confidence >= UNSURE_BELOW, statistics.mean(p.roundness for p in face.pips)
    return any(max(side, hs) <= SAME_DIE_PIPS * min(side, hs)
               and math.hypot(fx - h.centre[0], fy - h.centre[1]) < SIDE_FACE_SIDES * max(side, hs)
               and (sure or roundness < SIDE_FLATTER * statistics.mean(p.roundness for p in h.pips))
               for h, hs in sides)


#: An unsure small face is a side face of a sure face beside it (_taken_for_side_face) only where its pips' mean
#: roundness is under this fraction of that face's: a side face seen from above 45 degrees is more foreshortened
#: than its top face (the cosine of the elevation against its sine; 0.58 at 60 degrees, 0.84 at 50), another die's
#: face as round as its neighbour's.
SIDE_FLATTER = 0.8


def _small_die_held(gray_full: np.ndarray, s: float, face: PipFace) -> PipFace | None:
    """A lone pip face (read at analysis scale s, in its px) as the small die it is when its pip holds two pips
    alike (_twin_pips_polarity, read in the frame gray_full, HxW uint8): the face with those pips' polarity, to be
    read again finer as a small face is (_finer_faces); None when it holds none. Renders of 2-6 pip d6 of 18-36 px
    in random colours (300 scenes): 52 dice read as sure 1s, 45 of them such dice (2s and 4s: their corner pips lie
    outside the middle pips.pip_marks looks into); no rendered 1 nor any of matteop65's 175 sure 1s holds a pair.
    Unsure lone pips are looked into as well: at 18-36 px the renders read 343 dice right, not 224."""
    polarity = _twin_pips_polarity(gray_full, pip_box(face.pips[0], s))
    return None if polarity is None else replace(face, polarity=polarity)


#: The "pips" of a face read at the analysis scale may be small dice when they are at least this wide there (px): a
#: die of 14 px shows pips of ~2.5 px, ~5 px at FINE_FACTOR x that scale, where they are found. matteop65's sure faces
#: of two pips or more (every 4th photo) have pips of 5.7-12.8 px (median 8.8): none is looked into (each look, 1-2 ms
#: a pip, cost 7.6 ms a photo with the bound at 8 px).
DIE_AS_PIP_PX = 14.0


def _dice_held_as_pips(gray_full: np.ndarray, s: float, face: PipFace) -> PipFace:
    """face (read at analysis scale s, in its px), or, when it is a face of two pips or more one of which holds
    two pips alike (_twin_pips_polarity, in the frame gray_full: HxW uint8), the same face as small dice taken for
    pips (PipFace.dice_as_pips, unsure: pips.doubted). A pip is one paint-filled dent and holds no pips; two white
    dice ~25 px across on a black floor are two light blobs of a pip's size there whose floor is plain, so
    pips.read_faces read them as a sure 2 (their own dark pips, 3-4 px, leave pips.pip_marks under MARKED_PIP),
    which hid the dice's faces read in their bodies (_one_per_die) and made their bodies the pips of a close-up
    (large_pip_faces). Looked into only where the pips are DIE_AS_PIP_PX or more across, whether the face was read
    sure or not (two white dice on black read as an unsure 2, then as a close-up's 1, and lost)."""
    if len(face.pips) < 2 or face.dice_as_pips \
            or statistics.median(p.diameter for p in face.pips) < DIE_AS_PIP_PX:
        return face
    for p in face.pips:
        if _twin_pips_polarity(gray_full, pip_box(p, s)) is not None:
            return replace(doubted(face), dice_as_pips=True)
    return face


def pip_box(pip: Pip, s: float) -> tuple[int, int, int, int]:
    """The box (x, y, w, h frame px) round a pip read at analysis scale s (its px): its major axis square."""
    r = pip.major / 2.0
    return (int((pip.x - r) / s), int((pip.y - r) / s), int(np.ceil(2 * r / s)) + 1, int(np.ceil(2 * r / s)) + 1)


#: A die body at most this many px across at the analysis scale may hold pips under the pip filter's limit there
#: (body_faces reads it finer): pips under SMALL_PIP_AREA (~4.5 px across) lie on dice of up to ~30 px.
SMALL_BODY_PX = 40


def body_faces(image: np.ndarray, box: tuple[int, int, int, int], larger: bool = True) -> list[PipFace]:
    """The pip faces read with a threshold of their own in a die body's box (x, y, w, h frame px) grown by half its
    side each way, for both pip polarities; faces in frame px ([] for a larger body unless larger). image: HxWx3
    uint8 BGR.
    A small body (SMALL_BODY_PX across or less at the analysis scale) is read at FINE_FACTOR x that scale: a small
    die whose pips the analysis scale missed (a 1's pip ~3 px on a 25 px die, under the frame's pip threshold) is a
    body no face was read on, and its 1 is found here (the reader weighs it, reader.read_as_one).
    A larger body is read at the analysis scale: its pips are within the filter's reach there, but the frame's one
    threshold, set by its other dice's pips, may pass over fainter ones (a dark red 1 on an orange die beside dice of
    black pips: at a threshold of 53 its blob was the pip's core, the ring round it its own halo, so a weak pip, left
    unread; a pale purple 6 whose yellow pips stand 35-37 over a threshold of 32: three of them found). The reader
    asks it beside sure pip dice only (reader._faces_in_body). Renders of pip d6 in random colours at 60-90 px (300
    scenes): right 1079 -> 1107 of 1168, unsure 170 -> 146; none more sure and wrong.
    Weak faces are read too (PipFace.weak, read_faces' weak_ones: a lone weak pip on a plain face, two far pips on a
    face not plain), unsure: no die by themselves, but the body round them is one, and the reader weighs them as its
    face (a lone pip in its middle as its 1, reader.read_as_one). A 1 on a 26 px die on a dark floor, read finer,
    showed its pip weak (surround_snr 6.5: its face's noise, enlarged), and the numeral net read the body by chance.
    Renders of pip d6 in random colours (300 scenes each) right at 25-45 px 852 -> 859 of 1168, crowds 3761 -> 3789
    of 4878, 18-36 px 523 -> 527, 60-90 px 1116 -> 1121, each from wrong to right and unsure (a 2 of two far pips at
    confidence 0.0, a 1 at its pip's); none read worse, every bench image as before.
    Where the grey read finds no face but weak ones centred in the body, its colour channels are read too
    (_channel_faces): a die's pips may stand out from its face in hue more than in grey.
    Where a small body's grey holds no face but weak ones and none of its colour channels holds a face centred in it,
    its grey is read again at FINE_FACTOR x that finer scale: a die of 16-25 px whose pips of ~2 px the finer read does
    not find (a 4 of 20 px on a lilac floor, its body read by the numeral net as an unsure 5) is read there (a sure 4,
    0.96). A face of 2 or 3 pips read only there is unsure (pips.doubted): one pip lost to the interpolation makes a 3 a
    2. Renders of pip d6 in random colours right at 25-45 px 978 -> 987 of 1168 (unsure 240 -> 233), crowds 4138 -> 4179
    of 4878 (1001 -> 991), 18-36 px 710 -> 723 (384 -> 375), most from wrong and unsure to right and sure, none more
    sure and wrong (with 2s and 3s taken at their own confidence there, a 3 of 18 px was read as a sure 2); the bench
    and empty trays as before."""
    s = analysis_scale(image.shape)
    small = max(box[2], box[3]) * s <= SMALL_BODY_PX
    if not small and not larger:
        return []
    fs = FINE_FACTOR * s if small else s
    x0, y0, x1, y1 = _body_region(image.shape, box)
    crop = image[y0:y1, x0:x1]

    def read(channel: np.ndarray, scale: float) -> list[PipFace]:
        return _region_read(channel, scale, image.shape, (x0, y0, x1, y1))

    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    faces = read(gray, fs)
    if any(holds(box, f.centre) and not f.weak for f in faces):
        return faces
    in_channels = _channel_faces(crop, box, lambda channel: read(channel, fs))
    if in_channels or not small:
        return in_channels or faces
    finer = read(gray, FINE_FACTOR * fs)
    if not any(holds(box, f.centre) and not f.weak for f in finer):
        return faces
    return [doubted(f) if len(f.pips) in (2, 3) else f for f in finer]


def _body_region(shape: tuple[int, ...], box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The region a die body's box (x, y, w, h px) is read in, grown by half its side each way, as (x0, y0, x1, y1)
    px within a frame of shape (H, W, ...)."""
    x, y, bw, bh = grown(box, 0.5)
    return max(0, x), max(0, y), min(shape[1], x + bw), min(shape[0], y + bh)


def _region_read(channel: np.ndarray, scale: float, shape: tuple[int, ...], region: tuple[int, int, int, int],
                 rough_ones: bool = False) -> list[PipFace]:
    """The faces of both pip polarities read, weak ones too (read_faces' weak_ones, rough_ones), in channel (HxW uint8,
    the part of a frame of shape (H, W, ...) at region: x0, y0, x1, y1 px, _body_region) scaled by scale; frame px."""
    x0, y0, x1, y1 = region
    edges = (x0 == 0, x1 == shape[1], y0 == 0, y1 == shape[0])
    return [_moved_face(f, 1.0 / scale, (float(x0), float(y0)))
            for f in _scaled_faces(channel, scale, edges, ["dark", "light"], True, rough_ones)]


def rough_lone_pip(image: np.ndarray, box: tuple[int, int, int, int]) -> PipFace | None:
    """The lone pip in the middle of a small die body (SMALL_BODY_PX or less at the analysis scale; box: x, y, w, h
    frame px) read at FINE_FACTOR x the analysis scale on a face rougher than a 1's may be (read_faces' rough_ones): the
    one face centred in the box when it is a lone pip (a weak 1 a die body may vouch for up to pips.AMBIGUOUS_CAP),
    else None; frame px. For a body nothing else was read in (reader._numbered_bodies): a small die's face read finer
    measures rough (0.10-0.25 of its pips' contrast: its edges and shading enlarged) and its 1 was dropped, so the
    numeral net read the body by chance; the body weighs that 1 now (reader.read_as_one: an unsure 1). image: HxWx3
    uint8 BGR."""
    s = analysis_scale(image.shape)
    if max(box[2], box[3]) * s > SMALL_BODY_PX:
        return None
    x0, y0, x1, y1 = region = _body_region(image.shape, box)
    gray = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    centred = [f for f in _region_read(gray, FINE_FACTOR * s, image.shape, region, rough_ones=True)
               if holds(box, f.centre)]
    return centred[0] if len(centred) == 1 and len(centred[0].pips) == 1 else None


def _channel_faces(crop: np.ndarray, box: tuple[int, int, int, int],
                   read: Callable[[np.ndarray], list[PipFace]]) -> list[PipFace]:
    """The faces read (by read, from one HxW uint8 channel of crop: the HxWx3 uint8 BGR region round a die body's box,
    x, y, w, h frame px) in the colour channel whose surest face centred in the box is the surest (then of the most
    pips), a lone pip among them doubted (pips.doubted: unsure, nothing uncapped for a die body to vouch for); [] when
    no channel holds such a face. Yellow pips on a purple, green or grey die, white ones on cyan, are far from the
    face in blue or red, near it in grey, and the numeral net read such dice by chance. A numbered d6's yellow 4 on
    red (~4 px on a 21 px die) is a blob of a pip's size in one channel, read as a sure 1 before lone pips were
    doubted. Renders of pip d6 in random colours (300 scenes each) right at 25-45 px 837 -> 852 of 1168 (unsure 337
    -> 335), crowds of 12-21 dice 3699 -> 3761 of 4878 (1369 -> 1357), 18-36 px 518 -> 523, 60-90 px 1110 -> 1116,
    dice of any type at 25-45 px 470 -> 473 and at 60-90 px 936 -> 937; none read worse, none more sure and wrong,
    every bench image as before."""
    best: list[PipFace] = []
    surest: tuple[float, int] | None = None
    for c in range(3):
        got = [doubted(f) if len(f.pips) == 1 else f for f in read(np.ascontiguousarray(crop[:, :, c]))]
        centred = [(f.confidence, len(f.pips)) for f in got if holds(box, f.centre)]
        if centred and (surest is None or max(centred) > surest):
            best, surest = got, max(centred)
    return best


def _confirmed(gray_full: np.ndarray, s: float, faces: list[PipFace]) -> list[PipFace]:
    """faces read over the whole frame at FINE_FACTOR x s (one threshold for the whole frame; in s's px), each
    with its confidence where its own region read again (_region_faces: its own threshold) gives the same face
    (polarity, value, pip count, box overlapping by half or more), else unsure (at most AMBIGUOUS_CAP): taken
    with the whole frame's threshold alone, a small die's 6 was read as a sure 4 (_finer_faces)."""
    again = _region_faces(gray_full, s, faces)
    return [g if any(h.polarity == g.polarity and h.value == g.value and len(h.pips) == len(g.pips)
                     and overlap(g.box, h.box) >= 0.5 for h in again)
            else doubted(g) for g in faces]


def far_pip_faces(image: np.ndarray) -> list[PipFace]:
    """The pip faces of a frame in which neither the pip search nor the die body search found anything (the
    reader's last look, DiceReader._bodies_to_read): dice under about 2 % of the frame's long side, too small for
    the analysis scale's pip filter and for find_die_bodies (a photo taken from far). A frame with more pixels
    than the analysis scale is read whole at FINE_FACTOR x it, for both pip polarities, as _finer_faces reads
    small dice, each face confirmed in its own region (_confirmed) and unsure where its pips are still under
    SMALL_PIP_AREA there (no finer read is left to tell a face that lost pips); [] for a frame no larger than the
    analysis scale (no finer pixels to read). matteop65 photos tiled 4 x 4 into one 2560x1920 photo (dice ~17 px at
    640 px) whose analysis scale found nothing: every die unread before. image: HxWx3 uint8 BGR; faces in
    its px, one per die."""
    gray_full = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    s = analysis_scale(gray_full.shape)
    if s >= 1.0:
        return []
    found = _whole_fine(gray_full, s, ["dark", "light"])
    found = _plausible_polarity([f for f in found if f.polarity == "dark"], [f for f in found if f.polarity == "light"])
    # pips still near the filter's limit at the finer scale may have lost others there, and no finer read is left
    found = [f if statistics.median(p.area for p in f.pips) * FINE_FACTOR ** 2 >= SMALL_PIP_AREA
             else doubted(f) for f in found]
    return [_moved_face(f, 1.0 / s, (0.0, 0.0)) for f in _one_per_die(_confirmed(gray_full, s, found))]


def _region_faces(gray_full: np.ndarray, s: float, faces: list[PipFace]) -> list[PipFace]:
    """The faces read at FINE_FACTOR x s in the regions of faces (in s's px, read at analysis scale s or at
    FINE_FACTOR x s over the whole frame), each its box grown by its side on every side (its whole die;
    regions that meet are read as one), cut from gray_full (the frame, HxW uint8) and scaled (cubic
    interpolation above 1) for the polarities of the faces in it, each with its own threshold. A face is cut
    (PipFace.runs_off) only at the region's sides that are the frame's edges. Returns faces in s's px."""
    h, w = gray_full.shape[:2]
    fs = FINE_FACTOR * s
    out: list[PipFace] = []
    for x, y, bw, bh in _merged_boxes([grown(f.box, 1.0) for f in faces]):
        polarities = sorted({f.polarity for f in faces if meets(f.box, (x, y, bw, bh))})
        x0, y0 = max(0, int(x / s)), max(0, int(y / s))
        x1, y1 = min(w, int(np.ceil((x + bw) / s))), min(h, int(np.ceil((y + bh) / s)))
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        edges = (x0 == 0, x1 == w, y0 == 0, y1 == h)  # the region's sides that are the frame's
        out += [_moved_face(f, 1.0 / FINE_FACTOR, (x0 * s, y0 * s))
                for f in _scaled_faces(gray_full[y0:y1, x0:x1], fs, edges, polarities)]
    return out


def _one_per_die(faces: list[PipFace]) -> list[PipFace]:
    """faces, most confident first, without those overlapping a more confident one (box overlap 0.3 or
    more: two readings of one die, by the two polarities or at two scales)."""
    kept: list[PipFace] = []
    for f in sorted(faces, key=lambda f: -f.confidence):
        if all(overlap(f.box, g.box) < 0.3 for g in kept):
            kept.append(f)
    return kept


def _merged_boxes(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """boxes (x, y, w, h px) with every group of boxes that meet (in a chain) replaced by their bounding box."""
    out: list[tuple[int, int, int, int]] = []
    for b in boxes:
        while True:
            met = [o for o in out if meets(o, b)]
            if not met:
                break
            out = [o for o in out if not meets(o, b)]
            x0, y0 = min(o[0] for o in met + [b]), min(o[1] for o in met + [b])
            x1, y1 = max(o[0] + o[2] for o in met + [b]), max(o[1] + o[3] for o in met + [b])
            b = (x0, y0, x1 - x0, y1 - y0)
        out.append(b)
    return out


#: A body's box in which a close-up scale looks for large pips is a die's (find_die_bodies): a pip face
#: centred in it spans most of it (a pip face's box is 0.6..0.75 of its die's side on matteop65, a 1 with
#: a large pip all of it), so at least this fraction of the box's side.
CLOSE_UP_FACE = 0.5


def _spanning(face: PipFace, bodies: list[tuple[int, int, int, int]]) -> PipFace:
    """face, read at a close-up scale in the boxes of die bodies (x, y, w, h in the face's px), made
    unsure (confidence at most pips.AMBIGUOUS_CAP) when boxes hold its centre and its box spans less
    than CLOSE_UP_FACE of the side of each: no face of that die, but a small die or a mark on a larger
    body (a d20 on a tray's floor found as one body, taken whole for the pip of a 1, the floor for its
    face). A face no box holds the centre of spans them (a die whose large pips were found as bodies). A face's
    span is its box or its face side by its pips (pips.face_side), the larger: a 1's box is its pip grown by
    under a face side (matteop65 close-ups: 1s whose box was 0.48 of the die's body, shadow and side faces
    with it, made unsure and the body read as a numbered die)."""
    holding = [b for b in bodies if holds(b, face.centre)]
    span = max(max(face.box[2:]), face_side(face.pips))  # a 1's box is its pip's, not its face's
    if not holding or any(span >= CLOSE_UP_FACE * max(b[2:]) for b in holding):
        return face
    return doubted(face)


def close_up_regions(image_shape: tuple[int, ...], bodies: list["DieBody"]) -> list[tuple[int, int, int, int]]:
    """Where a frame of shape (H, W[, C]), in which find_die_bodies found bodies, may hold a die whose
    pips exceed the pip filter at the analysis scale (find_pip_faces' close_ups), as boxes (x, y, w, h
    frame px): the whole frame when no body was found (a close-up fills the frame and has no table
    around it), else the boxes of the bodies whole in the frame (not cut by its border: a dice dome's
    floor or a tray seen in part is no die, and a die cut off is not read) longer than
    KERNEL_PX / PIP_OF_DIE analysis px (their pips, or the pips found as bodies, may be that large);
    [] when there is none."""
    if not bodies:
        return [(0, 0, image_shape[1], image_shape[0])]
    limit = KERNEL_PX / PIP_OF_DIE / analysis_scale(image_shape)
    return [b.box for b in bodies if max(b.box[2:]) > limit and not b.cut]


#: Pips alike: the bodies that are one face's pips have sides within this factor of each other.
PIPS_ALIKE = 1.5
#: ... and roundness (minor over major axis) within this of each other, as one face's pips found as pips do
#: (pips._linked: one plane foreshortens them alike). A close-up 1's round pip (0.84) beside its side face's
#: foreshortened pips (0.38-0.49), their long sides alike, made one pattern read as no face: the 1's pip was
#: read as a numbered die and its side faces' pips as five more.
PIP_BODIES_ROUNDNESS = 0.25
#: A body is the pip of a face read at the analysis scale (not a die holding smaller pips) when that
#: pip's diameter is at least this fraction of the body's side (a pip found as a body: 0.7..1.0 on
#: matteop65 close-ups; a d6 holding its pips: 0.15..0.25, PIP_OF_DIE).
PIP_IS_BODY = 0.5


def large_pip_faces(image: np.ndarray, bodies: list["DieBody"], faces: list[PipFace],
                    on_floor: Callable[[PipFace], bool] | None = None) -> tuple[list[PipFace], list["DieBody"]]:
    """Pip faces read again at the scale their pips' size tells, and what is left of faces and bodies
    once they are read. image: HxWx3 uint8 BGR; bodies: find_die_bodies(image); faces:
    find_pip_faces(image) (frame px); on_floor: whether a 1 read in a lone body's pattern is a small die taken
    whole on the floor (reader._die_on_ground), None: none is. Returns (faces, bodies), both unchanged when nothing
    is read again and no face is a die taken for a pip.

    A face of one "pip" at the filter's edge marked inside or holding two pips alike (_die_taken_for_pip) is no
    face: a small die taken whole for the pip of a 1 whose face was the floor, its own pips or numeral inside. It
    goes, so the reader reads its body (its pip, filling that body, still keeps the body out of the patterns below);
    read again at a close-up scale, it made a 2 of two such dice whose reach took the bodies round them for its
    die's parts, and all were lost (a render of 6 pip d6 at 25-45 px: 4 dice). Renders in random colours, any die
    type at 25-45 px: right 489 -> 540 of 1168 (numbered dice read as lone pips), pip d6 at 25-45 px 927 -> 931,
    crowds 3959 -> 3962, 18-36 px 649 -> 652, with the marks alone asked (die_taken_whole's figures for the pips
    alike); none more sure and wrong, no more readings on no die.

    A die's pips are a fixed share of it (PIP_OF_DIE), and the pip filter sees pips up to PIP_OF_KERNEL
    of its size (KERNEL_PX analysis px): a close-up's die, a third of the frame or more, has pips the
    filter misses, in whole or in part. Two cases, each read at a close-up scale (_close_read):
    - Its pips found as bodies (its body may be the table's colour, a white die on a light table):
      "pip bodies" are whole in the frame, wider than the pip filter and no wider than KERNEL_PX /
      PIP_OF_DIE analysis px (larger bodies are whole dice: close_up_regions), and hold no smaller pip of
      a face read at the analysis scale (a die holding its pips), only, at most, a pip that fills them
      (PIP_IS_BODY); and where faces are read sure at the analysis scale, their pips tell the frame's
      scale: a body as long as their die (their median pip diameter / PIP_OF_DIE) or longer is a die, no
      pip (small dice on a light table, their own pips unread, make a pattern as a face's pips do); where
      none is sure, the pips of faces of two pips or more tell it (a lone "pip" may be a speck, or a die):
      a glint-row frame of five 4s, each face unsure for its glint, read two of the dice as the pips of a
      close-up 2 boxed over four of them, and all five were lost (four such frames in the row, 18 dice,
      all found now, unsure; every other bench image and render as before). Pip
      bodies alike in size (PIPS_ALIKE) within LINK_DIAMETERS of their sides of each other are one
      pattern, read in the pattern's box grown by a pip pitch (a lone body holding no pip at all: by half a
      face, FACE_SIDE_DIAMETERS / 2 of its side), without the bodies that are no pips: those marked inside
      (pips.pip_marks over MARKED_PIP: a numbered die's numeral) and, where no face read sure tells the frame's
      scale, those holding two pips alike when looked into more finely (_twin_pips_polarity: a small die whose own
      pips went unread). A face read there stands when two of
      its pips or more lie in the pattern's bodies (its pips are those bodies: so no d20's numerals and
      no row of small dice make one); it is in doubt (confidence at most AMBIGUOUS_CAP) when a body of
      the pattern lies on it (pips.stray_marks) holding none of its pips. A 1 stands only read sure, its pip
      filling the pattern's one body: bodies alike that no face read explains are no pips of a 1 (small dice on
      a floor whose own pips went unread, one die among them taken for the pip of a 1 whose face was the
      floor, the others parts of that die: renders of 2s, 2 of 150 scenes; no real 1 is read from such a
      pattern on the bench's photos); and only where no fuller face is read in the pattern, nor, in a pattern of
      one body, where on_floor tells a small die taken whole on the floor (no body larger round it, the floor's
      colour round it): that 1's reach took the dice round it for its die's parts, and its body is read as the die
      it is (renders of dice of any type in random colours: right 563 -> 567 of 1168 at 25-45 px, 941 -> 944 at
      60-90 px, and found 2 more each; pip d6 at 25-45 px a die showing 1 read sure and right by its own pip; a
      d10 read wrong and unsure lost, beside a d6 taken whole for a sure 1 that sized the frame's pip dice at 100
      px; every bench image as before). A face read in the
      reach of another whose pips are at most SIDE_FACE_PIPS of its pips across is a side face of that die.
      A face read in a pattern with fewer pips than a face read sure at the analysis scale, each of them one of that
      face's pips, is part of it: the pattern's region (its bodies' box grown by a pitch) cut off the face's other
      pips, and the fuller face stands. A 6 close up, its pips 18-19 px (the filter's edge), two or three of them
      wide enough to be found as bodies too, was read there as a 4 or a 3 in place of the sure 6: matteop65 photos close
      up round every 9th labelled die at 0.2-0.5 (steps of 0.05), 0.6 and 0.7 of the frame (1077 dice), 5 more right
      (4 from wrong and unsure, 1 from sure and wrong), one die lost that was read wrong and unsure (two 6s side by
      side, a pattern's face across both); every bench image and render read as before.
    - A lone plain body wider than the pip bodies' bound, up to LONE_PIP_OF_FRAME of the frame's short side,
      whole in the frame, alone in its pattern among all the bodies (_patterns) and with no smaller pip in it (the
      pip of a 1 so near that its die runs off the frame, its white body the table's colour): a pattern of its
      own, read as above at the scale its size tells (_close_read).
    - A face read at the analysis scale with pips at the filter's edge (median major axis at least
      PIP_OF_KERNEL of it: two pips of a 4 read as a sure 2, a side face's pip as a sure 1, the top face's
      larger pips lost): read again in its box grown by half; a face read there whose reach holds its
      centre replaces it unless it is the same reading (same value, holding its pips); one that does not
      hold its pips is in doubt (AMBIGUOUS_CAP): the two scales disagree. A face read there one of whose "pips" is a
      small die taken whole (die_taken_whole: marked inside, or holding two pips alike) is no face: small dice on a
      plain floor, one of them read as a 1 of one pip at the filter's edge (the die itself), were read again as a 2
      or a 1 of dice for pips, whose reach took the dice round it for its die's parts (a render of 2-6 pip d6 at 25-45
      px: a sure 2 boxed over two dice 96 px apart, three dice lost). Renders of pip d6 in random colours: crowds of
      25-45 px dice found 4508 -> 4541 of 4878 (right 4056 -> 4091, 2 wrong and unsure lost), readings on no die 7 ->
      0; 25-45 px found 1074 -> 1076 (right 963 -> 965), readings on no die 1 -> 0; none more sure and wrong, every
      other probe and bench image as before.
    The reach of a face read again (its box grown by its side on every side: the die and its side faces)
    holds no other die: the faces read at the analysis scale there (a side face's pip taken for a 1) and
    the bodies there (its pips) are parts of it. A face read again that the analysis scale read on the same
    pips, of the same value, and found cut by the frame's edge (PipFace.runs_off) stays cut."""
    s0 = analysis_scale(image.shape)
    small_pips = [p for f in faces for p in f.pips]
    # the pips read sure tell the frame's scale, else those of faces of two pips or more: a body as large as their
    # die is a die, no pip
    scale = ([p.diameter for f in faces if f.confidence >= UNSURE_BELOW for p in f.pips]
             or [p.diameter for f in faces if len(f.pips) > 1 for p in f.pips])
    largest = statistics.median(scale) / PIP_OF_DIE if scale else math.inf

    def pip_body(b: DieBody) -> bool:
        side = max(b.box[2:])
        if b.cut or not KERNEL_PX < side * s0 <= KERNEL_PX / PIP_OF_DIE or side >= largest:
            return False
        return all(p.diameter >= PIP_IS_BODY * side for p in small_pips if holds(b.box, (p.x, p.y)))

    short = min(image.shape[:2])

    def lone_pip(b: DieBody) -> bool:  # a 1's pip wider than the filter at every close-up scale
        side = max(b.box[2:])
        if b.cut or side * s0 <= KERNEL_PX / PIP_OF_DIE or side > LONE_PIP_OF_FRAME * short or side >= largest:
            return False
        return not any(holds(b.box, (p.x, p.y)) for p in small_pips)

    patterns = [g for g in _patterns([b for b in bodies if pip_body(b)])
                if len(g) > 1 or not any(holds(g[0].box, (p.x, p.y)) for p in small_pips)]
    lone = {id(b) for b in bodies if lone_pip(b)}
    if lone:  # alone in its pattern: no body alike near it
        patterns += [g for g in _patterns(bodies) if len(g) == 1 and id(g[0]) in lone]
    edge = PIP_OF_KERNEL * KERNEL_PX / s0
    at_edge = {id(f) for f in faces if statistics.median(p.major for p in f.pips) >= edge}
    if not patterns and not at_edge:
        return faces, bodies
    gray_full = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    # a die taken whole for a pip is no face (its pip, filling its body, kept that body out of the patterns above)
    faces = [f for f in faces if not _die_taken_for_pip(gray_full, f, edge)]

    def held_die(b: DieBody) -> bool:
        # a pip is one paint-filled dent, plain inside: a body marked inside is a die (a numbered die's numeral), and
        # so is one holding two pips alike (a small die whose pips went unread)
        return pip_marks(gray_full, _as_pip(b)) > MARKED_PIP or _twin_pips_polarity(gray_full, b.box) is not None

    def no_pip(b: DieBody) -> bool:  # the second only where no face tells the frame's scale
        return held_die(b) if not scale else pip_marks(gray_full, _as_pip(b)) > MARKED_PIP

    found: list[PipFace] = []
    for group in patterns:
        pattern = [b for b in group if not no_pip(b)]
        if not pattern:
            continue
        read = _close_read(gray_full, _pattern_region(pattern), float(statistics.median(max(b.box[2:]) for b in pattern)),
                           functools.partial(_of_pattern, pattern, group, held_die))
        read = [f for f in read if len(f.pips) > 1] or read  # a 1 stands where no fuller face of those pips is read
        if len(group) == 1 and on_floor is not None:  # a die taken whole on the floor is no 1, and its body stays
            read = [f for f in read if len(f.pips) > 1 or not on_floor(f)]
        found += read
    found = [f for f in found  # side faces of a die read in its reach
             if not any(holds(grown(g.box, 1.0), f.centre) and _pip_side(f) < SIDE_FACE_PIPS * _pip_side(g) for g in found)]
    # a face read in a pattern that is part of a fuller face read sure at the analysis scale (fewer pips, each one of
    # that face's) is that face's part, its other pips outside the pattern's region: the face stands
    found = [g for g in found if not any(f.confidence >= UNSURE_BELOW and len(f.pips) > len(g.pips)
                                         and _holds_pips(f, g) and _part_of(f, g) for f in faces)]
    kept: list[PipFace] = []
    for f in faces:
        if any(_part_of(f, g) for g in found):
            continue
        again = [] if id(f) not in at_edge else _close_read(
            gray_full, grown(f.box, 0.5), statistics.median(p.major for p in f.pips),
            functools.partial(_reaching, f))
        # small dice taken whole for the "pips" of a face read there are dice, no face's pips
        again = [g for g in again if not any(die_taken_whole(gray_full, p) for p in g.pips)]
        if not again or any(g.value == f.value and _holds_pips(g, f) for g in again):
            kept.append(f)
            continue
        again = [g if _holds_pips(g, f) else doubted(g) for g in again]
        found += [g for g in again if all(overlap(g.box, h.box) < 0.3 for h in found)]
    if not found:
        return faces, bodies
    # a close-up scale does not ask whether the frame's edge cuts a face (read_faces' finer), but the pips and the
    # edge are the analysis scale's
    found = [replace(g, runs_off=True) if any(f.runs_off and f.value == g.value and _holds_pips(g, f) for f in faces)
             else g for g in found]
    kept = [f for f in kept if not any(_part_of(f, g) for g in found)]
    reach = [grown(g.box, 1.0) for g in found]
    bodies = [b for b in bodies if not any(holds(r, centre(b.box)) for r in reach)]
    return kept + found, bodies


def _die_taken_for_pip(gray_full: np.ndarray, face: PipFace, edge: float) -> bool:
    """Whether a face read at the analysis scale (frame px) is one "pip" at the pip filter's edge (major axis at
    least edge px) that is a small die taken whole for the pip of a 1 whose face is the floor (die_taken_whole;
    gray_full: HxW uint8, the frame)."""
    return len(face.pips) == 1 and face.pips[0].major >= edge and die_taken_whole(gray_full, face.pips[0])


def die_taken_whole(gray_full: np.ndarray, pip: Pip) -> bool:
    """Whether a "pip" (frame px; gray_full: HxW uint8, the frame) is a small die taken whole for one: marked inside
    (pips.pip_marks over MARKED_PIP: its numeral or facets, as no_pip in large_pip_faces takes a body marked inside
    for a die) or holding two pips alike (_twin_pips_polarity in pip_box: its own pips, where pip_marks, looking into
    its middle, misses a 2's or a 4's corner pips). A pip is one paint-filled dent, plain inside. Asked of a lone pip
    at the filter's edge (_die_taken_for_pip, where only the marks were asked first) and of a sure 1 read at a
    close-up scale (reader._die_as_pip): renders of dice of any type at 25-45 px right 546 -> 556 of 1168 (found 1033
    -> 1044, sure and wrong 5 -> 1), pip d6 at 25-45 px 960 -> 962 (2 -> 1), crowds 4041 -> 4046 of 4878, 18-36 px
    692 -> 697; readings on no die 3 -> 1, 1 = 1, 9 -> 7, 3 -> 1; every bench image as before."""
    return pip_marks(gray_full, pip) > MARKED_PIP or _twin_pips_polarity(gray_full, pip_box(pip, 1.0)) is not None


def _part_of(face: PipFace, other: PipFace) -> bool:
    """Whether face (read at the analysis scale, frame px) is part of the die of other (a face read again at a
    close-up scale): in other's reach (its box grown by its side on every side: its die and side faces), unless
    it is another die's top face beside it: read sure, with pips as large as other's (a side face's are
    foreshortened: over SIDE_FACE_PIPS of other's across) and its centre farther from other's centre than half
    other's face side (pips.face_side) and SIDE_REACH_DIAMETERS of its pips beyond, where other's side faces lie.
    matteop65 close-ups: a sure 1 beside a 4, 8.6 of the 4's pip diameters from its centre (7.4 the reach), their
    pips alike, was taken for the 4's side face and lost; a 2's front face, read as a sure 1, lies 4.8 pip
    diameters from it (7.6 the reach), its pip 0.76 of the 2's across."""
    if not holds(grown(other.box, 1.0), face.centre):
        return False
    side_faces = face_side(other.pips) / 2 + SIDE_REACH_DIAMETERS * _pip_side(other)  # from other's centre
    beside = (face.confidence >= UNSURE_BELOW and _pip_side(face) > SIDE_FACE_PIPS * _pip_side(other)
              and math.dist(face.centre, other.centre) > side_faces)
    return not beside


#: A face read in the reach of another whose pips are at most this fraction of the other's across is a
#: side face of its die (foreshortened pips), no die of its own.
SIDE_FACE_PIPS = 0.8


def _pip_side(face: PipFace) -> float:
    """The median diameter of a face's pips, px."""
    return statistics.median(p.diameter for p in face.pips)


#: A body taken for a pip is looked into (_twin_pips_polarity) in its box grown by this fraction of its side on every
#: side: a pip near the body's edge needs the face round it, out to 2.3 of its radii, to be measured (surround_snr)
INNER_MARGIN = 0.3


def _twin_pips_polarity(gray_full: np.ndarray, box: tuple[int, int, int, int]) -> str | None:
    """The polarity ("dark" or "light") of two pips alike (pips.twins) that a body or a pip taken for a pip holds
    (box: x, y, w, h frame px), each at least a weak pip (surround_snr WEAK_SNR or more), read in the box grown by
    INNER_MARGIN, at FINE_FACTOR x the analysis scale when the box is under twice the pip filter there (a die's
    pips are under a fifth of it, so near the filter's limit), else at the analysis scale; None when it holds no
    such pair. A small die whose pips the analysis scale left unread (too small, or too far apart to link) holds
    them; one paint-filled dent holds no such pair: none of the lone bodies read as 1s in the bench's close-ups
    does, nor any of matteop65's 175 sure 1s. gray_full: HxW uint8, the frame. Renders of 2-6 small pip d6 (dice
    ~25-35 px, pips ~4 px, 300 scenes) read four such dice as sure 1s whose faces were the floor, and two pairs as
    sure 2s; pips.pip_marks, which looks into the middle 0.6 of the body, misses a 2's or a 4's corner pips.
    About 1-2 ms a box."""
    bx, by, bw, bh = box
    m = int(INNER_MARGIN * max(bw, bh))
    h, w = gray_full.shape[:2]
    x0, y0, x1, y1 = max(0, bx - m), max(0, by - m), min(w, bx + bw + m), min(h, by + bh + m)
    s = analysis_scale(gray_full.shape)
    fs = FINE_FACTOR * s if max(bw, bh) * s < 2 * KERNEL_PX else s
    crop = gray_full[y0:y1, x0:x1]
    if fs != 1:
        crop = cv2.resize(crop, None, fx=fs, fy=fs, interpolation=cv2.INTER_CUBIC if fs > 1 else cv2.INTER_AREA)
    for polarity in ("dark", "light"):
        response = pip_response(crop, polarity, KERNEL_PX)
        found, _ = find_pips(response, crop, KERNEL_PX)
        inside = [p for p in found if p.snr >= WEAK_SNR and holds(box, (x0 + p.x / fs, y0 + p.y / fs))]
        if any(twins(a, b) for i, a in enumerate(inside) for b in inside[i + 1:]):
            return polarity
    return None


def _as_pip(body: "DieBody") -> Pip:
    """A body taken for a round pip: at its box's centre, of its mask's area (frame px)."""
    x, y, w, h = body.box
    return Pip(x + w / 2, y + h / 2, float(cv2.countNonZero(body.mask)), 1.0, 0.0, 0.0)


def _reaching(face: PipFace, other: PipFace) -> PipFace | None:
    """other (a face read again near face, frame px) when its reach (its box grown by its side on every
    side: its die and side faces) holds face's centre; None otherwise."""
    return other if holds(grown(other.box, 1.0), face.centre) else None


def _holds_pips(face: PipFace, other: PipFace) -> bool:
    """Whether each pip of other lies within half a pip diameter of a pip of face (frame px)."""
    return all(any(np.hypot(p.x - q.x, p.y - q.y) <= 0.5 * q.diameter for q in face.pips) for p in other.pips)


def _patterns(cands: list["DieBody"]) -> list[list["DieBody"]]:
    """Groups (two bodies or more) of pip bodies that may be one face's pips: sides within PIPS_ALIKE of
    each other, foreshortened alike (roundness within PIP_BODIES_ROUNDNESS) and centres within LINK_DIAMETERS
    of their larger side (linked in a chain)."""
    n = len(cands)
    group = list(range(n))
    roundness = [_roundness(c.mask) for c in cands]

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for i in range(n):
        for j in range(i + 1, n):
            a, b = cands[i].box, cands[j].box
            sa, sb = max(a[2:]), max(b[2:])
            d = float(np.hypot(a[0] + a[2] / 2 - b[0] - b[2] / 2, a[1] + a[3] / 2 - b[1] - b[3] / 2))
            if (max(sa, sb) <= PIPS_ALIKE * min(sa, sb) and d <= LINK_DIAMETERS * max(sa, sb)
                    and abs(roundness[i] - roundness[j]) <= PIP_BODIES_ROUNDNESS):
                group[root(i)] = root(j)
    out: dict[int, list[DieBody]] = {}
    for i in range(n):
        out.setdefault(root(i), []).append(cands[i])
    return list(out.values())


def _roundness(mask: np.ndarray) -> float:
    """Minor over major axis (0..1] of a blob (mask: hxw uint8, non-zero = blob) from its second moments; 1.0
    for an empty mask."""
    m = cv2.moments(mask, binaryImage=True)
    if m["m00"] <= 0:
        return 1.0
    a, b, c = m["mu20"], m["mu11"], m["mu02"]
    root = math.hypot(a - c, 2 * b)
    major = a + c + root
    return math.sqrt(max(a + c - root, 0.0) / major) if major > 0 else 1.0


def _pattern_region(pattern: list["DieBody"]) -> tuple[int, int, int, int]:
    """The box (x, y, w, h frame px) of a pattern of pip bodies grown by its largest side (a pip pitch):
    where the rest of their face's pips lie."""
    x0 = min(b.box[0] for b in pattern)
    y0 = min(b.box[1] for b in pattern)
    x1 = max(b.box[0] + b.box[2] for b in pattern)
    y1 = max(b.box[1] + b.box[3] for b in pattern)
    pitch = max(max(b.box[2:]) for b in pattern)
    if len(pattern) == 1:
        pitch = int(FACE_SIDE_DIAMETERS / 2 * pitch)  # a lone pip: its face's other pips, if any, lie around it
    return x0 - pitch, y0 - pitch, x1 - x0 + 2 * pitch, y1 - y0 + 2 * pitch


#: The pips of a 1's side faces, seen beside its top face's round pip, are foreshortened: the bodies they are found as
#: are less round than the 1's pip's body by this much or more (minor over major axis, _roundness). matteop65 close-ups
#: of 1s at 0.25-0.6 of the frame, white dice on a light table: the 1's pip body 0.60-0.81, its side faces' pip bodies
#: 0.18-0.23 less round (0.41-0.62).
SIDE_PIPS_FLATTER = 0.15


def _of_pattern(pattern: list["DieBody"], group: list["DieBody"], is_die: Callable[["DieBody"], bool],
                face: PipFace) -> PipFace | None:
    """face (read in a pattern of pip bodies, frame px) when two of its pips or more lie in the pattern's
    bodies, at most AMBIGUOUS_CAP confident when another body of the pattern lies on it (pips.stray_marks);
    a 1 only when sure and its pip fills the pattern's one body (PIP_IS_BODY), alone in its group (no body alike near
    it before the bodies that are no pips left the pattern: group) or with only its side faces' pips there: every
    other body of the group in the 1's reach (its box grown by its side), foreshortened more than its pip
    (SIDE_PIPS_FLATTER less round) and no die (is_die: marked inside, or holding two pips alike). A close-up 1 of a
    white die on a light table shows its pip and its side faces' pips as bodies alike enough to make one group
    (PIP_BODIES_ROUNDNESS), and its sure 1 was refused: the pip was read as a numbered die (d10 10, unsure) and the
    side pips as more. matteop65 photos close up round every 9th labelled die at 0.2-0.5 (steps of 0.05), 0.6 and 0.7
    of the frame (1077 dice): 10 more 1s right and sure (8 from wrong and unsure, 2 from right and unsure), 1 more
    right and unsure (from wrong), none read worse; every bench image and render as before. Without is_die, renders
    of dice of any type at 25-45 px lost a d6 of 22 px beside a d8 taken for the pip of a 1 (a "side pip" of it).
    None when it is no face of those pips."""
    own = [b for b in pattern if any(holds(b.box, (p.x, p.y)) for p in face.pips)]
    if len(face.pips) == 1:
        if (face.confidence < UNSURE_BELOW or len(own) != 1
                or face.pips[0].diameter < PIP_IS_BODY * max(own[0].box[2:])):
            return None
        flatter = _roundness(own[0].mask) - SIDE_PIPS_FLATTER  # the group's other bodies: its side faces' pips?
        return face if len(group) == 1 or all(
            _roundness(b.mask) <= flatter and holds(grown(face.box, 1.0), centre(b.box)) and not is_die(b)
            for b in group if b is not own[0]) else None
    if len(own) < 2:
        return None
    others = [_as_pip(b) for b in pattern if b not in own]
    on_it = stray_marks(face.pips, PipTable(others))
    return doubted(face) if on_it else face


#: A lone plain body up to this fraction of the frame's short side may be the pip of a 1 so near the camera that
#: its die runs off the frame, the pip wider than the filter at every close-up scale (large_pip_faces'
#: lone_pip): matteop65 close-ups of 1s at 0.5-0.7 of the frame, pips of 0.19-0.25 of it. The pip reader needs
#: the face round a pip, out to 2.3 of its radii (surround_snr), in the frame: a pip 0.43 of it at most, centred.
LONE_PIP_OF_FRAME = 0.3

#: A pip is read where it is at most this fraction of the pip filter (KERNEL_PX) across: a pip as wide as
#: the filter is only partly seen by it (matteop65 close-ups with pips 0.95 of the filter read a 4 as a
#: sure 2, two of its pips lost).
PIP_OF_KERNEL = 0.75


def _close_read(gray_full: np.ndarray, region: tuple[int, int, int, int], pip_side: float,
                accept: Callable[[PipFace], PipFace | None]) -> list[PipFace]:
    """The pip faces read in region (x, y, w, h frame px) of a frame (gray_full: HxW uint8) at a
    close-up scale, as accept (given each face in frame px) returns them; [] when none. The pip size
    (pip_side, frame px) tells the scale: the first read is the finest of ANALYSIS_SCALES after the
    first at which it is at most PIP_OF_KERNEL of the pip filter (the coarsest when none is); coarser
    ones follow while nothing is accepted. A pip wider than the filter at the coarsest (a 1's pip too near,
    LONE_PIP_OF_FRAME) is read once, at the scale at which it is PIP_OF_KERNEL of the filter."""
    previous = analysis_scale(gray_full.shape)
    scales = [analysis_scale(gray_full.shape, long_side) for long_side in ANALYSIS_SCALES[1:]]
    if pip_side * scales[-1] > KERNEL_PX:  # wider than the filter at the coarsest: a 1's pip too near (lone_pip)
        scales = [PIP_OF_KERNEL * KERNEL_PX / pip_side]
    for s in scales:
        if s >= previous or pip_side * s > PIP_OF_KERNEL * KERNEL_PX and s != scales[-1]:
            continue
        gray = cv2.resize(gray_full, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        within = [(int(region[0] * s), int(region[1] * s), int(np.ceil(region[2] * s)), int(np.ceil(region[3] * s)))]
        finer = previous / s
        read = _plausible_polarity(read_faces(gray, "dark", KERNEL_PX, within, finer),
                                   read_faces(gray, "light", KERNEL_PX, within, finer))
        kept = [g for g in (accept(_moved_face(f, 1.0 / s, (0.0, 0.0))) for f in read) if g is not None]
        if kept:
            return kept
        previous = s
    return []


@dataclass
class DieBody:
    """A die-sized blob that differs from the table. box: (x, y, w, h) frame px; mask: hxw uint8
    (255 = die) over the box.

    ground_share: pixels of the frame outside every body whose Lab colour is within GROUND_LAB of
        the body's median colour, per body pixel (0 = a colour found nowhere else; a piece of the
        floor, a laptop key among its keys or a patch of wood grain scores several times its area)
    cut: True when the box touches the frame's border (a die cut off, or no die at all)"""

    box: tuple[int, int, int, int]
    mask: np.ndarray
    ground_share: float = 0.0
    cut: bool = False


def _table_distance(small: np.ndarray, reference: np.ndarray | None) -> np.ndarray:
    """Per-pixel Lab distance (HxW float32) of a frame from the table. With a reference (the empty
    tray, same size) it is plain background subtraction. Without one the table is modelled twice:
    locally (median of an 1/8-size copy: follows light gradients, forgets dice smaller than ~40 px)
    and globally (median colour of the frame's border strip: dice seldom touch the border, and it
    does not forget large dice); a pixel is as far from the table as the larger of the two says,
    the global one counted at half weight since one colour cannot follow the light."""
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    if reference is not None:
        ref = cv2.resize(reference, (small.shape[1], small.shape[0]), interpolation=cv2.INTER_AREA)
        table = cv2.cvtColor(cv2.GaussianBlur(ref, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
        return _lab_distance(lab, table)
    h, w = lab.shape[:2]
    b = max(2, int(0.04 * min(h, w)))
    border = np.concatenate([lab[:b].reshape(-1, 3), lab[-b:].reshape(-1, 3),
                             lab[:, :b].reshape(-1, 3), lab[:, -b:].reshape(-1, 3)])
    d_global = _lab_distance(lab, np.median(border, axis=0))
    tiny = cv2.medianBlur(cv2.resize(small, None, fx=1 / 8, fy=1 / 8, interpolation=cv2.INTER_AREA), 5)
    local = cv2.cvtColor(cv2.resize(tiny, (w, h), interpolation=cv2.INTER_LINEAR), cv2.COLOR_BGR2LAB).astype(np.float32)
    return cv2.max(0.5 * d_global, _lab_distance(lab, local))


def _lab_distance(lab: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Euclidean distance (HxW float32) between HxWx3 float32 Lab pixels and table: HxWx3 or one
    colour (3,). OpenCV's subtract and multiply give numpy's float32 results bit for bit, four times
    faster on a 320 px frame (0.1 ms against 0.45)."""
    t = table.astype(np.float32)
    # one colour as OpenCV's Scalar, a 4-tuple (the stubs know only arrays)
    diff = cv2.subtract(lab, t if t.ndim == 3 else (*t.tolist(), 0.0))  # type: ignore[arg-type]
    return cv2.sqrt(cv2.transform(cv2.multiply(diff, diff), np.ones((1, 3), np.float32)))


def _lab_l1(lab: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """City-block distance (HxW float32, sum of |dL|, |da|, |db|) between HxWx3 float32 Lab pixels
    and one colour (3,)."""
    return cv2.transform(np.abs(lab - np.asarray(colour, np.float32)), np.ones((1, 3), np.float32))


#: find_die_bodies reads a frame at this long side (px): its bodies' boxes are whole px there, each side a px off
#: at most (2 / analysis_scale(shape, BODY_ANALYSIS_SIDE) frame px on the box's side: 4 px on a 640x480 frame).
BODY_ANALYSIS_SIDE = 320
#: No die body is shorter than this many frame px, whatever find_die_bodies' min_side_frac allows: a die
#: smaller still shows pips of a pixel or two, and a blob that small in a close-up photo is a speck (two
#: fickett tiles, 90 px, held only a 3x2 and an 8x6 px blob as bodies, read in place of their d8 and d4).
MIN_DIE_PX = 14


def find_die_bodies(image: np.ndarray, reference: np.ndarray | None = None,
                    min_side_frac: float = 0.022, max_side_frac: float = 0.6) -> list[DieBody]:
    """Die-sized compact blobs that differ from the table (see _table_distance), Otsu-thresholded. image:
    HxWx3 uint8 BGR; reference: the empty tray, same shape, or None; die sides between min_side_frac of the
    frame's long side (and MIN_DIE_PX) and max_side_frac of it. 0.022 is 14 px on a 640x480 frame (320 px
    analysed: 7 px): a die that small is lost to the pip search too (its ~2 px pips under the pip filter's
    limit at the analysis scale), and found as a body it is read finer in it (body_faces). At 0.03 (19 px),
    renders of pip d6 in random colours (300 scenes each) lost more: found 721 -> 917 of 1168 at 18-36 px (right
    527 -> 617, sure and wrong 15 -> 6), 1004 -> 1044 at 25-45 px (859 -> 885), 4330 -> 4421 of 4878 in crowds
    (3789 -> 3841, sure and wrong 2 -> 1), dice of any type at 25-45 px 938 -> 1009 (473 -> 487); no more
    readings on no die; every bench image as before but two fickett tiles, now read right (MIN_DIE_PX).
    Without a reference, a blob larger than a quarter of the frame's long side and cut by its border is no
    whole die but a container (a tray, a dice dome's floor): the dice it holds are found by _dice_inside,
    and a smaller blob within a container whose dice were found there is a patch of its floor (a dome's
    floor seen through a gap), not a second search. A blob whole in the frame and longer than
    max_side_frac (no die is) is a tray seen whole (its rim and floor) when dice are found in it down to
    the frame's smallest die side, all at most TRAY_DIE of its side, else nothing; one from a quarter of
    the frame's long side to max_side_frac is one large die (a close-up). Searching those too for a tray's
    dice found them only in synthetic scenes and cost lurig's close-ups 9.5 ms a frame (find_die_bodies
    15.5 -> 25.0 ms median). Touching dice (one blob with a waist) are split at the waist
    (_split_touching). Without a reference, and unless the frame is a close-up (find_close_up), the
    compact blobs of a colour unlike the table's chromaticity complete them (_with_chroma_bodies). Each
    body carries its ground_share and cut (see DieBody), the evidence the reader weighs to tell a die from
    a piece of the scene.
    Raises ValueError when reference's shape differs from image's."""
    if reference is not None and reference.shape != image.shape:
        raise ValueError(f"reference frame is {reference.shape}, frame is {image.shape}: take the empty-tray "
                         "reference with the same camera and resolution")
    s = analysis_scale(image.shape, BODY_ANALYSIS_SIDE)
    small = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else image
    dist8 = np.clip(_table_distance(small, reference) * 3, 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(dist8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    se = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    mask = cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, se), cv2.MORPH_OPEN, se)
    long_side = max(small.shape[:2])
    min_side = max(min_side_frac * long_side, MIN_DIE_PX * s)  # analysed px
    ground = _Ground(image, small, s)
    bodies: list[DieBody] = []
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    f = 1.0 / s
    searched: list[tuple[int, int, int, int]] = []  # containers' boxes in which dice were found
    blobs = []
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        side = max(w, h)
        if side < min_side:
            continue
        cut = x == 0 or y == 0 or x + w >= small.shape[1] or y + h >= small.shape[0]
        may_be_die = side <= max_side_frac * long_side
        # a container: die-sized but cut by the border (a dome's floor, a tray seen in part), or whole in
        # the frame but longer than any die (a tray seen whole)
        if side > 0.25 * long_side and reference is None and cut == may_be_die:
            # the blob's box with a margin: a die lying on the container's rim is partly outside the blob
            gx, gy = max(0, x - w // 8), max(0, y - h // 8)
            gw, gh = min(small.shape[1], x + w + w // 8) - gx, min(small.shape[0], y + h + h // 8) - gy
            inside = _dice_inside(small[gy:gy + gh, gx:gx + gw], ground, s, None if cut else min_side)
            if not cut and any(max(b[2:]) > TRAY_DIE * side * f for b, _ in inside):
                inside = []  # parts of one large die (its numerals, facets), no dice in a tray
            if inside:
                bodies += [DieBody((bx + int(gx * f), by + int(gy * f), bw, bh), m) for (bx, by, bw, bh), m in inside]
                searched.append((gx, gy, gw, gh))
                continue
        if may_be_die:
            blobs.append(i)
    for i in blobs:
        x, y, w, h, area = stats[i]
        if any(overlap((x, y, w, h), c) == 1.0 for c in searched):
            continue  # within a container whose dice were found there (a patch of its floor)
        bodies += _compact_pieces((labels[y:y + h, x:x + w] == i).astype(np.uint8) * 255, (x, y), f,
                                  min_side)
    if reference is None:
        completed = _with_chroma_bodies(bodies, small, f, min_side, max_side_frac * long_side,
                                        searched, ground)
        # a close-up's die has no table round its swirls: there the pass is undone (asked only when it
        # changed anything, since the close-up test costs about as much as the pass)
        if not _same_bodies(completed, bodies) and find_close_up(image) is None:
            bodies = completed
    return ground.measure([_in_frame(b, image.shape) for b in bodies])


def _in_frame(body: DieBody, shape: tuple[int, ...]) -> DieBody:
    """body with its box (and mask with it) cut to a frame of shape (H, W, ...): a box scaled up from the
    analysis size may end a pixel past the frame (a 376 px wide frame is 251 px at 320 and 376.5 back)."""
    x, y, w, h = body.box
    x0, y0, x1, y1 = max(0, x), max(0, y), min(shape[1], x + w), min(shape[0], y + h)
    if (x0, y0, x1, y1) == (x, y, x + w, y + h):
        return body
    return replace(body, box=(x0, y0, x1 - x0, y1 - y0), mask=body.mask[y0 - y:y1 - y, x0 - x:x1 - x])


def _same_bodies(a: list[DieBody], b: list[DieBody]) -> bool:
    """Whether two lists hold the same body objects in the same order."""
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _compact_pieces(comp: np.ndarray, corner: tuple[int, int], f: float, min_side: float) -> list[DieBody]:
    """The die bodies in one blob (comp: hxw uint8 mask, 255 = blob, its box's corner (x, y) in the
    analysed frame, whose px are f frame px): its pieces (_split_touching) that are compact (fill >= 0.45
    of their box, aspect <= 2: dice, not cables, edges or wood grain) and at least min_side analysed
    px long; box and mask in frame px."""
    out = []
    for px, py, piece in _split_touching(comp):
        ph, pw = piece.shape
        if cv2.countNonZero(piece) < 0.45 * pw * ph or max(pw, ph) > 2.0 * min(pw, ph) or max(pw, ph) < min_side:
            continue
        pbox = (int((corner[0] + px) * f), int((corner[1] + py) * f), int(round(pw * f)), int(round(ph * f)))
        out.append(DieBody(pbox, cv2.resize(piece, (pbox[2], pbox[3]), interpolation=cv2.INTER_NEAREST)))
    return out


def _chromaticity_distance(small: np.ndarray) -> np.ndarray:
    """Per-pixel distance (HxW float32, 0..~1.2) of a frame's chromaticity (B, G, R over their sum: the
    colour without its lightness) from the median chromaticity of the frame's border strip (the table).
    A shadow and wood grain are the table's colour darker, so they hardly differ; a die of any hue,
    and a white or black die on a tinted table, does. small: HxWx3 uint8 BGR."""
    bgr = cv2.GaussianBlur(small, (5, 5), 0).astype(np.float32)
    chroma = bgr / (cv2.transform(bgr, np.ones((1, 3), np.float32))[..., None] + 1.0)
    h, w = chroma.shape[:2]
    b = max(2, int(0.04 * min(h, w)))
    border = np.concatenate([chroma[:b].reshape(-1, 3), chroma[-b:].reshape(-1, 3),
                             chroma[:, :b].reshape(-1, 3), chroma[:, -b:].reshape(-1, 3)])
    return _lab_distance(chroma, np.median(border, axis=0))


def _with_chroma_bodies(bodies: list[DieBody], small: np.ndarray, f: float, min_side: float,
                        max_side: float, searched: list[tuple[int, int, int, int]], ground: "_Ground") -> list[DieBody]:
    """bodies (found by colour distance from the table) completed by the compact blobs of a colour
    unlike the table's (_chromaticity_distance, Otsu-thresholded), whole in the frame (small: the
    analysed frame, f frame px per its px; sides from min_side to max_side of its px). The Lab
    distance takes a die's shadow and the wood grain around it for part of the die (one blob cut by
    the frame's border, or no compact blob at all); chromaticity sees the die alone. A blob of this
    pass is added where no body was found, and replaces the bodies it overlaps that are cut by the
    border (a die with its shadow) or smaller than it (pieces of one die: its numerals, a speckled
    die's spots); where a larger whole body was found, that body stays. Containers whose dice were
    found are not searched again (searched: their boxes in small's px): their floor and wall are no
    table. A blob's colour must be rare in the frame (ground share <= GROUND_SHARE_RARE, as in a
    container: a knot in the wood is not, nor a bead on a cable, whose colour the cable shares). Dice of one colour
    share it, each counting the others' pixels as ground: two purple dice of 20 px on wood, missed by the Lab pass
    (its threshold set by the grain), measured 1.24 and 1.05 and both were lost. A colour common in the frame only on
    the pass's other whole blobs (counted outside their boxes, this blob's own pixels still counted) is such dice'
    colour: those blobs are added where no body was found, and replace none (a close-up's two white dice, so counted,
    replaced the bodies of their pips, from which the close-up's faces are read; a cable, cut by the border, is no
    whole blob, so its bead stays ground). Renders of pip d6 in random colours, 300 scenes each: found 4567 -> 4598
    of 4878 in crowds of 25-45 px dice (right 4114 -> 4136; 3 right and unsure lost, the frame's sure light faces no
    longer all without a body, so its unsure light pips with none are glints), 1083 -> 1087 of 1168 at 25-45 px
    (right 972 -> 975), 937 -> 940 at 18-36 px, dice of any type 1049 -> 1054 at 25-45 px (right 560 -> 562), 1095 ->
    1096 at 60-90 px; none more sure and wrong, no more readings on no die, every bench image and 200 empty trays
    read as before. A blob cut by the frame's border or longer than any die is searched for a die with its shadow
    (_die_of_shadowed, and _most_chromatic_pieces where its waist parts them). The caller drops what this pass
    changed on a close-up (find_close_up): the die fills the frame, and its swirls and faces are no dice.
    The input list is left as it was."""
    dist8 = np.clip(_chromaticity_distance(small) * 1000, 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(dist8, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    se = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    mask = cv2.morphologyEx(cv2.morphologyEx(mask, cv2.MORPH_CLOSE, se), cv2.MORPH_OPEN, se)
    H, W = small.shape[:2]
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
    blobs = []
    whole: list[tuple[int, int, int, int]] = []  # the whole compact blobs' boxes, frame px
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        if max(w, h) < min_side or any(overlap((x, y, w, h), c) > 0.5 for c in searched):
            continue
        comp = (labels[y:y + h, x:x + w] == i).astype(np.uint8) * 255
        if max(w, h) <= max_side and not _cut_in_small((x, y, w, h), W, H):
            blobs.append((x, y, comp))
            whole.append(_frame_box((x, y, w, h), f))
        else:
            blobs += _die_of_shadowed(dist8[y:y + h, x:x + w], comp, (x, y), min_side, max_side, W, H, se)
            blobs += _most_chromatic_pieces(dist8[y:y + h, x:x + w], comp, (x, y), min_side, max_side, W, H)
    for x, y, blob in blobs:
        h, w = blob.shape
        comp = _filled(blob)
        pixels = small[y:y + h, x:x + w][comp > 0]
        colour, area = _median_lab(pixels), len(pixels) * f * f
        alike = False  # a colour the frame shows elsewhere only on other whole blobs: dice of one colour
        share = ground.share(colour, area)
        if share > GROUND_SHARE_RARE:
            own = _frame_box((x, y, w, h), f)
            others = [b for b in whole if b != own]
            if ground.share_outside(colour, area, others) > GROUND_SHARE_RARE:
                continue  # a colour found all over the frame: the table's own (a knot), a cable's
            alike = True
        for new in _compact_pieces(comp, (x, y), f, min_side):
            met = [b for b in bodies if overlap(b.box, new.box) >= 0.3]
            if alike and met:
                continue  # where a body was found, it stays (a close-up's pips, found as bodies, read as its face)
            if any(not _cut_in(b.box, small.shape, f) and b.box[2] * b.box[3] >= new.box[2] * new.box[3] for b in met):
                continue
            bodies = [b for b in bodies if not any(b is m for m in met)] + [new]
    return bodies


def _frame_box(box: tuple[int, int, int, int], f: float) -> tuple[int, int, int, int]:
    """A box (x, y, w, h) of the analysed frame in frame px (f frame px per analysed px), its far sides rounded out."""
    x, y, w, h = box
    return int(x * f), int(y * f), int(np.ceil(w * f)), int(np.ceil(h * f))


def _cut_in_small(box: tuple[int, int, int, int], W: int, H: int) -> bool:
    """Whether a box (x, y, w, h, analysed px) touches the border of a W x H analysed frame."""
    x, y, w, h = box
    return x == 0 or y == 0 or x + w >= W or y + h >= H


def _die_of_shadowed(dist8: np.ndarray, comp: np.ndarray, corner: tuple[int, int], min_side: float,
                     max_side: float, W: int, H: int, se: np.ndarray) -> list[tuple[int, int, np.ndarray]]:
    """The die in a chromaticity blob that no die is (cut by the frame's border, or longer than any die):
    a die with its shadow. On wood a shadow is not the lit wood's colour darker: the light in it is the
    room's, not the lamp's, so its chromaticity differs too, less than a die's (lurig's dice on wood, a dark
    green and two pastel ones, merged with their shadows into blobs that ran to the border). The blob's
    pixels are thresholded again (Otsu on their chromaticity distances, dist8: the blob's box of the
    frame's, 0..255), opened, and the pieces whole in the frame and of a die's length are returned as
    (x, y, piece mask) in the analysed frame's px (corner: the blob box's top-left there)."""
    inside = comp > 0
    t, _ = cv2.threshold(dist8[inside].reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    core = cv2.morphologyEx(((dist8 > t) & inside).astype(np.uint8) * 255, cv2.MORPH_OPEN, se)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(core)
    out = []
    for i in range(1, n):
        x, y, w, h, _ = stats[i]
        box = (corner[0] + x, corner[1] + y, w, h)
        if min_side <= max(w, h) <= max_side and not _cut_in_small(box, W, H):
            out.append((box[0], box[1], (labels[y:y + h, x:x + w] == i).astype(np.uint8) * 255))
    return out


def _most_chromatic_pieces(dist8: np.ndarray, comp: np.ndarray, corner: tuple[int, int], min_side: float,
                           max_side: float, W: int, H: int) -> list[tuple[int, int, np.ndarray]]:
    """The die in a chromaticity blob that no die is, where the blob's waist parts the die from its shadow
    (_split_touching): of the blob's pieces whole in the frame and of a die's length, those whose median
    chromaticity distance (dist8: the blob's box of the frame's, 0..255) is the blob's pieces' highest: a die
    is of a colour further from the table's than its shadow is. _die_of_shadowed's second threshold cuts a
    marbled die (lurig's lilac d6 on wood: its swirls' distances fall on both sides) where the waist does not.
    Returns (x, y, piece mask) in the analysed frame's px (corner: the blob box's top-left there)."""
    pieces = _split_touching(comp)
    if len(pieces) < 2:
        return []
    medians = [float(np.median(dist8[py:py + p.shape[0], px:px + p.shape[1]][p > 0])) for px, py, p in pieces]
    top = max(medians)
    return [(corner[0] + px, corner[1] + py, p) for (px, py, p), m in zip(pieces, medians)
            if m == top and min_side <= max(p.shape) <= max_side
            and not _cut_in_small((corner[0] + px, corner[1] + py, p.shape[1], p.shape[0]), W, H)]


def _filled(comp: np.ndarray) -> np.ndarray:
    """A blob mask (hxw uint8, 255 = blob) with its holes filled (a die's numerals, pips and speckles)."""
    contours, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(comp)
    cv2.drawContours(out, contours, -1, 255, cv2.FILLED)
    return out


def _cut_in(box: tuple[int, int, int, int], shape: tuple[int, ...], f: float) -> bool:
    """True when box (x, y, w, h frame px) touches the border of a frame analysed at shape (H, W[, C])
    with f frame px per px."""
    x, y, w, h = box
    return x <= f or y <= f or x + w >= (shape[1] - 1) * f or y + h >= (shape[0] - 1) * f


#: Lab distance (sum of |dL|, |da|, |db|, OpenCV 8-bit Lab) within which a pixel has a body's colour.
GROUND_LAB = 20.0
#: A region inside a large blob is a die candidate when at most this many frame pixels (its own
#: included) share its colour, per pixel of it: dice in a dome measured 0.1..0.65, floor and wall 1..100.
GROUND_SHARE_RARE = 1.0


#: A close-up's die: at least this share of its hull is unlike the ground (fickett roller tiles measured
#: 0.5 and more in 99 %; a cable or a shadow crossing a bare table 0.3..0.4).
CLOSE_UP_UNLIKE = 0.35
#: A close-up's die is busier than the ground in the frame's corners: its mean gradient at least this
#: many times theirs (tiles 2.7 and more in 99 %, lurig dice on wood grain 2.1..2.4).
CLOSE_UP_BUSY = 2.0
#: A close-up's die touches the frame's border along at most this share of it (round-ish: tiles 0.31 at
#: most, lurig crops 0.25; a laptop's edge crossing the frame 0.46..0.5).
CLOSE_UP_TOUCH = 0.35
#: A close-up's die is centred: its box's centre lies within this share of the frame's side from the
#: frame's centre (tiles 0.16 at most, lurig crops 0.23).
CLOSE_UP_OFF_CENTRE = 0.25


def find_close_up(image: np.ndarray) -> DieBody | None:
    """The one die of a close-up, a die filling most of the frame and touching its border, where
    find_die_bodies (which takes the border for the table) finds none; None when the frame is no
    close-up. image: HxWx3 uint8 BGR, read at 160 px. The ground is the colour of the frame's
    corners, which a die (round-ish, centred) leaves mostly free: the largest set of corner patches
    (a tenth of the short side) that agree within GROUND_LAB, at least 2 of the 4. The die is the
    convex hull of the marks unlike the ground (Lab L1 distance over Otsu's threshold and GROUND_LAB,
    gaps closed) whose centres lie in the frame's middle (a die's faces may have the ground's colour:
    only its edges, numerals and swirls stand out, and its hull holds them all). The hull must be at
    least half the short side across, aspect <= 1.6, centred (CLOSE_UP_OFF_CENTRE), touch the border
    little (CLOSE_UP_TOUCH), be mostly unlike the ground (CLOSE_UP_UNLIKE) and busier than it
    (CLOSE_UP_BUSY): a cable, a laptop's edge or a light gradient on a bare table is no die.
    Box (x, y, w, h) and mask (the hull) in frame px."""
    s = analysis_scale(image.shape, 160)
    small = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else image
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    h, w = lab.shape[:2]
    c = max(2, min(h, w) // 10)
    patches = [(slice(0, c), slice(0, c)), (slice(0, c), slice(w - c, w)), (slice(h - c, h), slice(0, c)),
               (slice(h - c, h), slice(w - c, w))]
    corners = [np.median(lab[p].reshape(-1, 3), axis=0) for p in patches]
    agree = max(([j for j, n in enumerate(corners) if float(np.abs(n - m).sum()) < GROUND_LAB] for m in corners), key=len)
    if len(agree) < 2:
        return None
    ground = np.median([corners[j] for j in agree], axis=0)
    dist = np.clip(_lab_l1(lab, ground), 0, 255).astype(np.uint8)
    otsu, _ = cv2.threshold(dist, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    unlike = dist > max(float(otsu), GROUND_LAB)
    mask = cv2.morphologyEx(unlike.astype(np.uint8) * 255, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    n, labels, stats, centres = cv2.connectedComponentsWithStats(mask)
    middle = [k for k in range(1, n) if stats[k, 4] >= 0.01 * h * w
              and abs(centres[k][0] - w / 2) < 0.3 * w and abs(centres[k][1] - h / 2) < 0.3 * h]
    if not middle:
        return None
    hull = cv2.convexHull(cv2.findNonZero(np.isin(labels, middle).astype(np.uint8)))
    x, y, bw, bh = cv2.boundingRect(hull)
    die = np.zeros((h, w), np.uint8)
    cv2.fillConvexPoly(die, hull, 255)
    inside = die > 0
    ground_px = np.zeros((h, w), bool)
    for j in agree:
        ground_px[patches[j]] = True
    ground_px &= ~inside
    grey = lab[..., 0]
    gradient = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    touch = float((np.concatenate([die[0], die[-1], die[:, 0], die[:, -1]]) > 0).mean())
    off_centre = max(abs(x + bw / 2 - w / 2) / w, abs(y + bh / 2 - h / 2) / h)
    if (max(bw, bh) < 0.5 * min(h, w) or max(bw, bh) > 1.6 * min(bw, bh) or off_centre > CLOSE_UP_OFF_CENTRE
            or touch > CLOSE_UP_TOUCH or float(unlike[inside].mean()) < CLOSE_UP_UNLIKE or not ground_px.any()
            or float(gradient[inside].mean()) < CLOSE_UP_BUSY * float(gradient[ground_px].mean())):
        return None
    f = 1.0 / s
    box = (int(x * f), int(y * f), max(1, int(round(bw * f))), max(1, int(round(bh * f))))
    return DieBody(box, cv2.resize(die[y:y + bh, x:x + bw], (box[2], box[3]), interpolation=cv2.INTER_NEAREST))


class _Ground:
    """The frame at 160 px (long side) in Lab, to tell how common a colour is in it (DieBody.ground_share).
    image: the frame (HxWx3 uint8 BGR); small: the same frame already scaled by s_small (<= 1), from
    which the 160-px copy is made (a 12 MP frame is not read twice)."""

    def __init__(self, image: np.ndarray, small: np.ndarray, s_small: float):
        self.image = image
        self.s = analysis_scale(image.shape, 160)
        f = self.s / s_small
        tiny = cv2.resize(small, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else small
        self.lab = cv2.cvtColor(tiny, cv2.COLOR_BGR2LAB).astype(np.float32)

    def share(self, colour: np.ndarray, area_px: float, among: np.ndarray | None = None) -> float:
        """Pixels (of the frame, or among the given part of it: its 160-px Lab pixels, Nx1x3 float32)
        within GROUND_LAB of colour (Lab, 3), per px of a body of area_px frame px."""
        lab = self.lab if among is None else among
        near = cv2.countNonZero((_lab_l1(lab, colour) < GROUND_LAB).astype(np.uint8))
        return near / max(1.0, area_px * self.s * self.s)

    def share_outside(self, colour: np.ndarray, area_px: float, boxes: list[tuple[int, int, int, int]]) -> float:
        """share, the pixels in boxes (x, y, w, h frame px) left out."""
        near = np.count_nonzero((_lab_l1(self.lab, colour) < GROUND_LAB) & self.outside(boxes))
        return near / max(1.0, area_px * self.s * self.s)

    def outside(self, boxes: list[tuple[int, int, int, int]]) -> np.ndarray:
        """Which pixels of the 160-px copy (HxW bool) lie outside every box (x, y, w, h frame px)."""
        outside = np.ones(self.lab.shape[:2], bool)
        s = self.s
        for x, y, w, h in boxes:
            outside[int(y * s):int(np.ceil((y + h) * s)), int(x * s):int(np.ceil((x + w) * s))] = False
        return outside

    def measure(self, bodies: list[DieBody]) -> list[DieBody]:
        """bodies with ground_share (counted outside every body's box) and cut set (see DieBody)."""
        H, W = self.image.shape[:2]
        among = self.lab[self.outside([b.box for b in bodies])][:, None, :]
        out = []
        for b in bodies:
            x, y, w, h = b.box
            crop = self.image[y:y + h, x:x + w]
            px = crop[b.mask > 0] if (b.mask > 0).any() else crop.reshape(-1, 3)
            share = self.share(_median_lab(px), cv2.countNonZero(b.mask), among)
            cut = x <= 1 or y <= 1 or x + w >= W - 1 or y + h >= H - 1
            out.append(replace(b, ground_share=share, cut=cut))
        return out


def _median_lab(pixels_bgr: np.ndarray) -> np.ndarray:
    """Median Lab colour (3, float32, OpenCV 8-bit Lab) of Nx3 uint8 BGR pixels."""
    # as one row: OpenCV converts an image row by row, a column of N pixels 3.5 times slower
    return channel_medians(cv2.cvtColor(pixels_bgr.reshape(1, -1, 3), cv2.COLOR_BGR2LAB)).astype(np.float32)


#: Inside a container (a large blob cut by the frame's border: no whole die), a region whose side is at
#: most this fraction of a larger region holding it is a die lying in it (the larger is a floor or a
#: tray); a larger one is a part of a die (a face, a numeral's surround).
PART_OF = 0.5
#: The dice a container holds are at most this fraction of its side (a larger region in it is its floor).
DIE_IN_CONTAINER = 0.4


#: A tray seen whole (a large blob not cut by the frame's border) holds dice at most this fraction of its
#: side (synth.render_oblique_scene's round trays: mostly 0.04..0.10, a die with its shadow up to 0.12);
#: a region of a die's colour and marks larger than that is part of one large die (lurig close-ups:
#: numerals and facets 0.14..0.5 of the die's blob, its shadow included).
TRAY_DIE = 0.11
#: Colours a container's pixels are grouped into (k-means in Lab) to find the dice in it: a die's body
#: colour, the floor's and wall's few colours, shadow and glare. k-means starts from the 2 x 2 x 2 split
#: of lightness (above or below its median), a (red or green) and b (yellow or blue).
CONTAINER_COLOURS = 8


def _dice_inside(blob: np.ndarray, ground: _Ground, s: float,
                 min_side: float | None = None) -> list[tuple[tuple[int, int, int, int], np.ndarray]]:
    """The dice a container holds (a large blob cut by the frame's border: a dice dome's floor, a tray
    seen in part; or whole in the frame: a tray seen whole, find_die_bodies). blob: hxwx3 uint8 BGR,
    the blob's box (with a margin) in the frame analysed at scale s (frame px = px / s). Candidate
    regions are the compact bodies of one colour (_colour_regions: the hull of a die's body holds its
    numerals, pips and glare); a candidate must be compact (convex hull >= 0.55 of its box, aspect
    <= 1.6, side from 0.08 of the blob's, or from min_side px when given: a tray seen whole, its dice
    as small as any in the frame, to DIE_IN_CONTAINER of the blob's), of a colour rare in the frame
    (ground share, counted over the whole frame, <= GROUND_SHARE_RARE: no floor, wall or tray
    colour), and busier inside than the blob on average (mean gradient of L over the hull less
    its outer 15 %: a die's face has marks, a patch of floor is smooth within its outline).
    Overlapping candidates keep the busiest; a candidate holding a smaller one (<= PART_OF of its
    side) is a floor, not a die; a candidate inside a larger one is a part of it. Returns (box in
    frame px relative to the blob's corner, hull mask over the box) per die, [] when none."""
    long_side = max(blob.shape[:2])
    lab = cv2.cvtColor(blob, cv2.COLOR_BGR2LAB)
    grey = lab[..., 0].astype(np.float32)
    texture = cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    busy = float(texture.mean())
    lo, hi = (0.08 * long_side if min_side is None else min_side), DIE_IN_CONTAINER * long_side
    cands: list[tuple[float, tuple[int, int, int, int], np.ndarray]] = []
    for (x, y, bw, bh), m in _colour_regions(lab, lo, hi):
        area = cv2.countNonZero(m)
        if area < 0.55 * bw * bh:  # the cheaper test first: most regions fail it
            continue
        (rw, rh) = cv2.minAreaRect(cv2.findNonZero(m))[1]
        if max(rw, rh) > 1.6 * max(1.0, min(rw, rh)):
            continue
        e = max(1, int(0.15 * max(bw, bh)))
        core = cv2.erode(m, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * e + 1, 2 * e + 1)))
        marks = float(texture[y:y + bh, x:x + bw][core > 0].mean()) if core.any() else 0.0
        if marks < busy:
            continue
        share = ground.share(channel_medians(lab[y:y + bh, x:x + bw][m > 0]).astype(np.float32), area / (s * s))
        if share <= GROUND_SHARE_RARE:
            cands.append((-marks, (x, y, bw, bh), m))
    cands.sort(key=lambda c: c[0])
    kept: list[tuple[float, tuple[int, int, int, int], np.ndarray]] = []
    for c in cands:
        if all(iou(c[1], k[1]) < 0.3 for k in kept):
            kept.append(c)

    def holds(outer: tuple[int, int, int, int], inner: tuple[int, int, int, int]) -> bool:
        return max(inner[2:]) < max(outer[2:]) and overlap(inner, outer) > 0.6

    kept = [k for k in kept if not any(holds(k[1], o[1]) and max(o[1][2:]) <= PART_OF * max(k[1][2:]) for o in kept)]
    kept = [o for o in kept if not any(holds(k[1], o[1]) for k in kept)]
    f = 1.0 / s
    out = []
    for _, (x, y, bw, bh), m in kept:
        box = (int(x * f), int(y * f), max(1, int(round(bw * f))), max(1, int(round(bh * f))))
        out.append((box, cv2.resize(m, (box[2], box[3]), interpolation=cv2.INTER_NEAREST)))
    return out


def _colour_regions(lab: np.ndarray, lo: float, hi: float) -> list[tuple[tuple[int, int, int, int], np.ndarray]]:
    """Bodies of one colour in a container: its pixels (lab: hxwx3 uint8 OpenCV Lab) grouped into
    CONTAINER_COLOURS colours by k-means (L at quarter weight: a die's lit and shaded sides differ
    mostly in lightness; started from a fixed split of L, a and b, so the result is the same every run),
    each colour's connected regions with gaps up to 5 px closed (numerals, pips and glints on a die
    are holes in its body colour), those whose side is from lo to hi px. Returns (box (x, y, w, h)
    px, convex hull mask over the box: the whole die with its marks) per region."""
    h, w = lab.shape[:2]
    pixels = lab.reshape(-1, 3).astype(np.float32) * np.array([0.25, 1, 1], np.float32)
    seed = ((lab[..., 0] > np.median(lab[..., 0])) * 4 + (lab[..., 1] > 128) * 2 + (lab[..., 2] > 128))
    _, colours, _ = cv2.kmeans(pixels, CONTAINER_COLOURS, seed.reshape(-1, 1).astype(np.int32),
                               (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 1.0), 1,
                               cv2.KMEANS_USE_INITIAL_LABELS)
    colours = colours.reshape(h, w)
    close = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    out = []
    for k in range(CONTAINER_COLOURS):
        one = cv2.morphologyEx((colours == k).astype(np.uint8) * 255, cv2.MORPH_CLOSE, close)
        _, labels, stats, _ = cv2.connectedComponentsWithStats(one)
        side = stats[:, 2:4].max(axis=1)
        sized = (side >= lo) & (side <= hi)
        sized[0] = False  # the background
        for i in np.flatnonzero(sized):  # most components are specks: filtered in one numpy call
            x, y, bw, bh = (int(v) for v in stats[i, :4])
            hull = cv2.convexHull(cv2.findNonZero((labels[y:y + bh, x:x + bw] == i).astype(np.uint8)))
            m = np.zeros((bh, bw), np.uint8)
            cv2.fillConvexPoly(m, hull, 255)
            out.append(((x, y, bw, bh), m))
    return out


def _split_touching(comp: np.ndarray) -> list[tuple[int, int, np.ndarray]]:
    """Pieces of a blob mask (hxw uint8, 255 = blob) that holds touching dice: the cores of the blob
    (distance transform at least 0.7 of its peak) are the dice's centres when there are several, and
    each blob pixel goes to the nearest core. The split stands only when every piece is die-like
    (compact: fills >= 0.45 of its box, aspect <= 2; sides within 2x of each other, dice of one set);
    otherwise the blob is one body. Returns (x, y, piece mask cropped to its box) per piece, x, y in
    comp px."""
    whole = [(0, 0, comp)]
    dist = cv2.distanceTransform(comp, cv2.DIST_L2, 5)
    cores = (dist >= 0.7 * dist.max()).astype(np.uint8)
    n, _ = cv2.connectedComponents(cores)
    if n <= 2:
        return whole
    _, nearest = cv2.distanceTransformWithLabels(1 - cores, cv2.DIST_L2, 5, labelType=cv2.DIST_LABEL_CCOMP)
    pieces = []
    for k in np.unique(nearest[cores > 0]):
        piece = ((nearest == k) & (comp > 0)).astype(np.uint8) * 255
        x, y, w, h = cv2.boundingRect(piece)
        if cv2.countNonZero(piece) < 0.45 * w * h or max(w, h) > 2 * min(w, h):
            return whole
        pieces.append((x, y, piece[y:y + h, x:x + w]))
    sides = [max(p.shape) for _, _, p in pieces]
    return pieces if min(sides) * 2 >= max(sides) else whole


__all__ = ["DieBody", "Pip", "PipFace", "ReadsElsewhere", "analysis_light_faces", "analysis_scale",
           "close_up_regions", "far_pip_faces", "find_close_up", "find_die_bodies", "find_pip_faces",
           "large_pip_faces", "whole_fine_faces"]
