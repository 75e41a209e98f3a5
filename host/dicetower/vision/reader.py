"""The dice reader: one frame in, one DieReading per die out. Joins detection (detect.py), pip
reading (pips.py), body colour (colour.py) and, for dice without pips or a calibrated dice set, the
face classifier of faces.py (`classify_crop`)."""

from __future__ import annotations

import importlib
import math
from collections.abc import Iterable
from dataclasses import replace
from typing import Any, Callable

import cv2
import numpy as np

from dicetower.readings import UNSURE_BELOW, DieReading

from . import glints
from .boxes import grown, holds, meets, overlap
from .pips import AMBIGUOUS_CAP, Pip, crosswise_pips, doubted, layout_in_frame, lone_pip_in_frame, top_face_past_edge
from .colour import channel_medians, colour_name
from .second_core import SECOND_PROCESS, WorkAhead
from .view import ViewEstimate, floor_outlines
from .noise import smoothed
from .detect import (BODY_ANALYSIS_SIDE, KERNEL_PX, DieBody, PipFace, analysis_scale, close_up_regions,
                     die_taken_whole, far_pip_faces, find_close_up, body_faces, find_die_bodies, find_pip_faces,
                     large_pip_faces, pip_box, rough_lone_pip)

Classifier = Callable[..., Any]
#: Frames are read on a copy whose long side is at most this many px (a 12 MP photo is downscaled once;
#: pips are found at 640 px or less, bodies at 320, and a die a tenth of the frame still gives the face
#: classifier a 128 px crop); readings' boxes are given back in the frame's own px.
READ_LONG_SIDE = 1280
#: px: a body with a shorter side is not handed to a calibrated set or read against a reference frame (which
#: skip is_die_like): the face classifier gives such a crop confidence 0 (faces.MIN_SIDE, which this module
#: may not import), and in a photo of one die filling the frame such specks (a numeral's hole, a glint) were
#: all that was read, while the die, found by find_close_up when no body is left, was not
MIN_BODY_SIDE = 12


def _face_classifier(die_set: str | None) -> Classifier | None:
    """faces.classify_crop(crop_bgr, die_set, mask[, view]) -> FaceResult when the face classifier is installed and
    the die set (None = the shipped "standard" set) loads; None otherwise (pip d6 only).
    Raises faces.DieSetError when a named die set does not exist."""
    try:
        faces = importlib.import_module("dicetower.vision.faces")
    except ModuleNotFoundError as exc:
        if exc.name != "dicetower.vision.faces":
            raise
        if die_set is not None:
            raise ValueError(f"die set {die_set!r}: this install has no face classifier "
                             "(dicetower.vision.faces); only pip d6 can be read") from exc
        return None
    try:
        faces.load_die_set(die_set)
    except faces.DieSetError:
        if die_set is not None:
            raise
        return None  # shipped models not built (`make models`): pip d6 only
    return faces.classify_crop


#: the shortest side (px) of a frame the reader reads: a smaller one is a cut-out, too small to hold a die
MIN_FRAME_SIDE = 32


def check_image(image: Any) -> np.ndarray:
    """Return image if it is a HxWx3 uint8 BGR frame at least MIN_FRAME_SIDE px a side; raise ValueError saying
    what is wrong."""
    if not isinstance(image, np.ndarray):
        raise ValueError(f"frame must be a numpy HxWx3 uint8 BGR array, got {type(image).__name__}")
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"frame must be HxWx3 uint8 BGR, got shape {image.shape} dtype {image.dtype}")
    if min(image.shape[:2]) < MIN_FRAME_SIDE:
        raise ValueError(f"frame {image.shape[1]}x{image.shape[0]} px is too small to hold a die (at least "
                         f"{MIN_FRAME_SIDE} px a side): give the whole photo or camera frame, not a cut-out")
    return image


def body_pixels(image: np.ndarray, face: PipFace) -> np.ndarray:
    """The die-body pixels of a pip face (the face box minus its pips): Nx3 uint8 BGR."""
    x, y, w, h = face.box
    H, W = image.shape[:2]
    x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
    crop = image[y0:y1, x0:x1]
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    med = channel_medians(gray[..., None])[0]
    body = gray >= med if face.polarity == "dark" else gray <= med
    return crop[body]


class DiceReader:
    """Reads every die in a frame.

    die_set:   name of a calibrated dice set (`dicetower calibrate`), read with faces.classify_crop;
               None reads pip d6 (and numbered dice when faces.py provides classify_crop)
    reference: the empty tray (HxWx3 uint8 BGR, same camera) for background subtraction, or None

    Without die_set, dice that are not pip d6 are read only when the shipped models exist
    (`make models`). Whether a blob is a die at all (tables hold cables, cups, keyboards and hands) is
    decided apart from which face it shows (is_die_like); a die-like blob is reported even when the
    classifier is unsure of its face (flagged unsure), any other is dropped. A frame in which
    nothing is found may be a close-up of one die (detect.find_close_up): without die_set its pips are looked
    for in it at the smaller scales, and a sure pip face is read, else the die by the face classifier. With
    die_set, every
    die-sized blob is read and unsure ones are flagged; a body cut by the frame's border is read unsure
    (CUT_CONFIDENCE_MAX), or not at all when it is of the ground's colour (_cut_ground). A pip face
    whose layout's places reach past the border is read unsure too (pips.layout_in_frame), and so is one
    that may be a side face whose top face the border cut off (pips.top_face_past_edge). Frames
    longer than READ_LONG_SIDE px are read on a downscaled copy.
    second_process: from the reader's second frame on, find the die bodies and first readings in a
               second process (second_core) while the pips are looked for in this one; False reads
               every frame in this process alone (same readings, slower)
    die_types: the die types in play, e.g. ["d20"] or ["d4", "d6", "d8"] (a table profile's
               `[roll] die_types`, `dicetower read --die-types`), or None for any type the standard set
               knows: a numbered die it is unsure of is read again as one of them, and one read sure as
               another type stays that type, a wrong die the rules refuse (faces.read_numbered, GEN-D04).
               Pip d6 are read by their pips whatever is given.
    Raises faces.DieSetError for an unknown die set, ValueError when no face classifier is installed,
    for an unknown die type (faces.check_die_types) and for die_types given with a die set (a calibrated
    set reads the dice it was calibrated on).
    """

    def __init__(self, die_set: str | None = None, reference: np.ndarray | None = None,
                 second_process: bool = True, die_types: Iterable[str] | None = None):
        self.die_set = die_set
        self.reference = reference
        self._reference_copy: tuple[np.ndarray, np.ndarray] | None = None  # (reference, its reading_copy)
        self.second_process = second_process
        self._frames = 0
        self.classify = _face_classifier(die_set)
        self.die_types: frozenset[str] | None = None
        if die_types is not None:
            if die_set is not None:
                raise ValueError(f"die set {die_set!r} reads the dice it was calibrated on: give die types in "
                                 "play only to the standard set (no --die-set)")
            if self.classify is None:
                raise ValueError("this install reads pip d6 only (no numbered-dice models: `make models`): "
                                 "die types in play cannot be given")
            self.die_types = importlib.import_module("dicetower.vision.faces").check_die_types(die_types)
        # OpenCV builds its colour-conversion tables on first use (~90 ms for Lab): once, here, so that
        # the first frame is read as fast as the others
        pixel = np.zeros((1, 1, 3), np.uint8)
        cv2.cvtColor(pixel, cv2.COLOR_BGR2LAB)
        cv2.cvtColor(pixel, cv2.COLOR_BGR2HSV)

    @property
    def reads_numbered(self) -> bool:
        """True when dice other than pip d6 are read (a face classifier and its models are present)."""
        return self.classify is not None

    def read(self, image: np.ndarray) -> list[DieReading]:
        """All dice in image (HxWx3 uint8 BGR), left to right, top to bottom. Boxes in image px.
        A reading below confidence UNSURE_BELOW, or cocked (GEN-D01), is flagged unsure, not dropped.
        Raises ValueError on a frame that is not HxWx3 uint8."""
        check_image(image)
        frame, f = reading_copy(image)
        reference = self.reference
        if reference is not None and reference.shape == image.shape:
            if self._reference_copy is None or self._reference_copy[0] is not reference:
                self._reference_copy = (reference, reading_copy(reference)[0])  # once, not per frame
            reference = self._reference_copy[1]
        readings = self._read(frame, reference)
        if f != 1.0:
            readings = [replace(r, box=clip_box(tuple(int(round(v / f)) for v in r.box),  # type: ignore[arg-type]
                                                image.shape)) for r in readings]
        return in_reading_order(readings)

    def _read(self, image: np.ndarray, reference: np.ndarray | None) -> list[DieReading]:
        """read() on a frame at most READ_LONG_SIDE px long (reference: the empty tray at that size).
        The die bodies, the floor's outlines and a first reading of the bodies that may be dice come
        from the second process while the pips are looked for here (second_core; from a reader's
        second frame on, once the worker is ready), and the analysis scale's light pips and the
        whole-frame finer read of small dice too when it is done before the pip search comes to them
        (detect.ReadsElsewhere); a first reading is kept only for a body that is
        still to be read once the pip faces are known, under the same view, so the readings are
        those of reading every body afterwards, here. Pips too large for the pip filter (a close-up)
        are read where their size tells (detect.large_pip_faces): the bodies that are their pips,
        and the faces that are parts of their die, go."""
        lone_pips: dict[int, PipFace] = {}
        washed: set[int] = set()
        if self.classify is None:
            faces = find_pip_faces(image)
            bodies: list[DieBody] = []
        else:
            ahead = self._work_ahead(image, reference)
            try:
                found_ahead: list[list[DieBody]] = []

                def found() -> list[DieBody]:
                    if not found_ahead:
                        bodies = ahead.bodies() if ahead is not None else None
                        found_ahead.append(find_die_bodies(image, reference) if bodies is None else bodies)
                    return found_ahead[0]

                # the smaller pip scales wait for the bodies, to look only where a die may need them
                set_aside: list[PipFace] = []
                faces = find_pip_faces(image, lambda: close_up_regions(image.shape, found()), ahead,
                                       set_aside=set_aside)
                if ahead is not None:
                    ahead.pips_found()
                faces, bodies, lone_pips, washed = self._bodies_to_read(image, faces, found(), reference, set_aside)
            finally:
                # waited for even when no body is to be read: nothing of this frame runs on after read()
                # returns or raises, and the worker is free for the next frame
                outlines, first = ahead.finish() if ahead is not None else (None, {})
        whole = {id(face) for face in faces if whole_in_frame(face, image)}
        readings = [DieReading("d6", face.value, clip_box(face.box, image.shape),
                               face.confidence if id(face) in whole else min(face.confidence, CUT_CONFIDENCE_MAX),
                               colour=colour_name(body_pixels(image, face)), cocked=face.cocked)
                    for face in faces]
        if not bodies:
            return readings
        view = (outlines or floor_outlines(image)).view(whole_boxes(bodies))
        read_ahead = {id(found_ahead[0][i]): guess for i, guess in first.items()}
        for body in bodies:
            guess = read_ahead.get(id(body))
            reading = guess[1] if guess is not None and guess[0] == view else self._classified(image, body, view)
            reading = read_as_one(reading, lone_pips.get(id(body)), body)
            if id(body) in washed:  # a pip die whose pips a glint washed out: the classifier's guess, unsure
                reading = replace(reading, confidence=min(reading.confidence, AMBIGUOUS_CAP))
            readings.append(reading)
        return readings

    def _work_ahead(self, image: np.ndarray, reference: np.ndarray | None) -> WorkAhead | None:
        """Hand the frame to the second process (second_core.SECOND_PROCESS), started at this reader's
        second frame (a single photo is read in this process alone); None when it is off for this
        reader (second_process=False), not ready yet, or busy with another reader's frame."""
        if not self.second_process:
            return None
        self._frames += 1
        if self._frames < 2:
            return None
        return SECOND_PROCESS.ahead(image, reference, read_all=self.die_set is not None or reference is not None,
                                    read_first=self.die_set is None, die_types=self.die_types)

    def _bodies_to_read(self, image: np.ndarray, faces: list[PipFace], found: list[DieBody],
                        reference: np.ndarray | None, set_aside: list[PipFace] | None = None
                        ) -> tuple[list[PipFace], list[DieBody], dict[int, PipFace], set[int]]:
        """The pip faces to report, the bodies to read with the face classifier, the lone pips in their middles and
        the bodies whose reading is unsure for a glint on them (_numbered_bodies), once both searches are done (faces,
        set_aside: find_pip_faces'; found: find_die_bodies'). Where neither found anything and no close-up fills the
        frame, the dice may be too small for both (a photo taken from far): the frame is read finer
        (detect.far_pip_faces)."""
        pip_px = _pip_size(faces)  # a close-up's pips, found as bodies; a small die on the floor is no 1's pip
        faces, found = large_pip_faces(image, found, faces, lambda f: _die_on_ground(image, f, found, pip_px))
        if self.die_set is not None:
            # the set reads every die: a sure pip face is a die the body search may miss (white
            # dice on a light table), read by the set; an unsure one (a glint, a speck) is no die to it
            faces = [f for f in faces if f.confidence >= UNSURE_BELOW]
        faces, bodies, lone_pips, washed = self._numbered_bodies(image, faces, found, set_aside)
        if self.die_set is not None:
            bodies += [pip_die_body(image, f) for f in faces]
            faces = []
        if not faces and not bodies and reference is None:
            close_up = find_close_up(image)  # one die filling the frame: no table around it to see
            if close_up is not None and self.die_set is None:  # (a calibrated set reads its own dice)
                box = close_up.box  # a pip die's pips may be too large for the analysis scale's filter
                faces = [f for f in find_pip_faces(image, lambda: [box], from_close_ups=True)
                         if f.confidence >= UNSURE_BELOW]
            bodies = [] if close_up is None or faces else [close_up]
            if close_up is None and self.die_set is None:
                faces = far_pip_faces(image)  # dice too small for both searches: read finer, if the frame has it
        return faces, bodies, lone_pips, washed

    def _numbered_bodies(self, image: np.ndarray, faces: list[PipFace], bodies: list[DieBody],
                         set_aside: list[PipFace] | None = None
                         ) -> tuple[list[PipFace], list[DieBody], dict[int, PipFace], set[int]]:
        """The pip faces that are pip dice, the die bodies (of detect.find_die_bodies) to read with the
        face classifier, and by id(body) the lone pip in the middle of a body to read (_lone_pip_of), which that
        body's reading weighs (read_as_one): the one face that gave way to it, or when none did, the one lone pip
        find_pip_faces set aside there (set_aside: dropped as of the pip polarity the frame's other dice do not
        have, detect._plausible_polarity, or too weak to read alone; no die by itself, and none is added for it), or
        when none was, the one face the body holds read with a threshold of its own (detect.body_faces: finer for a
        small body), if that is a lone pip (a face of more pips read there that the body vouches for,
        _face_read_in_body, is read as the die, whether or not a lone pip was set aside in its middle: a 3's or a 5's
        middle pip, its other pips unread at the analysis scale, was read by the face classifier, unsure and mostly
        wrong; renders of pip d6 in random colours read 2 more dice sure and right in crowds and 1 at 18-36 px, nothing
        else changed; such a body is read so whatever its size, and where that read holds the set-aside pip alone, the
        body may vouch for it as a 1 at the confidence read there, _lone_pip_held: 9, 1, 10 and 2 more dice sure and
        right at 60-90 px, 25-45 px, in crowds and at 18-36 px, 2 of any type, none read worse, every bench image as
        before); a set-aside pair of far pips on a mottled face (pips.PipFace.weak)
        is a 2 where a d6 body vouches for it. Bodies of dice larger than SMALL_BODY_PX were not read so before
        (detect.body_faces): renders of pip d6 in random colours at 60-90 px read 28 more dice right (1079 -> 1107 of
        1168), none more sure and wrong, and nothing else changed.
        A body whose faces are all unsure, the faces read on it (part of its face: a 5 read as two of its pips)
        or given way to it, is read so too, and a sure face it holds as its face there is the die, in their place
        (_sure_face_read_in_body): renders of pip d6 in random colours read 7, 22, 1 and 1 more dice right (25-45 px,
        crowds, 18-36 and 60-90 px; unsure 351 -> 337, 1442 -> 1375 of the dice found), 2 of any type at 25-45 px,
        none more sure and wrong. A body holding one face, sure, is read so too, and a fuller sure face it holds there,
        holding that face's pips, is the die in its place (_fuller_face_in_body): renders of pip d6 in random colours
        read 1 more die right in crowds (a sure 3 that was read as a sure 2), nothing else changed.
        So is a body that is no numbered die beside the frame's sure pip dice (those whole in the frame: a d6 of 33 px
        near the frame's top, taken whole for the pip of a sure close-up 1 whose 100 px box the top cut, sized them, and
        a d10, a d12 and a d6 beside it were lost as too small; renders of dice of any type at 25-45 px found those 3
        more, pip d6 at 18-36 px 2 more sure and right (1 read wrong before), 1 more found, wrong, unsure; every bench
        image read as before) but may be a pip die there
        (_pip_die_beside: smaller than they are, or on their ground lit otherwise): a face it holds read finer
        (_pip_die_face: a lone pip in its middle its 1, unsure) is a pip die, sure or not as read there, in place of the
        faces marked on the body. Renders of pip d6 in random colours: bodies too small for a numbered die only, their
        sure faces only, 5 more right at 25-45 px, 1 at 18-36 px, 1 in crowds, 1 of any type; their unsure faces too, 6,
        2, 12 and 1 more, each from lost to right and unsure; bodies off the pip dice's ground too, 5, 2 and 11 more
        (25-45 px, 18-36 px, crowds); their lone pips, 5 and 12 more (25-45 px, crowds); none more sure and wrong, every
        bench image as before. Such a body is read so though a lone pip was set aside in its middle (it was left unread
        then, and lost): 2 more right at 25-45 px, 3 at 60-90 px (1s, unsure), 1 in crowds (a sure 5), none read worse.
        A body's part already read as a pip face (its sides, its shadow) is not read again; but "pips"
        the pip reader is unsure of, centred in a die-like body and spanning less of it than a d6's
        pips span of their die (PIP_BOX_OF_DIE: a numeral's holes or strokes, speckles; measured
        0.34..0.83 on a d20's numerals, 0.83..0.98 for unsure 2s and 3s on drawn pip dice) or
        elongated crosswise (pips.crosswise_pips: a d20's digits, 0.73 and 0.79 of it), or lying within a
        die-like body that is no d6 by its shape (NO_D6_SHAPE), are marks on that die, not a pip die, and
        give way to it (_marks_on); a sure face gives way only to a die-like body that is no d6 by its shape
        (a d6 showing 1 has one pip far smaller than its body; a numeral's bowl read as a sure 1 on a d8 too).
        Light pips the pip reader is unsure of with no die body around them are glints (specular highlights on
        a dice dome or a tray: bright, tiny, on no die), no die, unless the frame's sure light faces have no body
        round them either (_light_dice_unseen); dark pips are never highlights and stay a die (flagged unsure).
        A body is read when it
        is die-like (is_die_like); with a calibrated set or a reference frame, which may read dice the standard
        reader would not take for dice, every body is read but one under MIN_BODY_SIDE px and, with no reference
        frame, one of a colour found all over the frame (ground_share above GROUND_SHARE_MAX). First, a face one of
        whose "pips" is a whole small die (_die_as_pip) is no face when it has two "pips" or more that all are (their
        bodies are read), else flagged unsure when sure, and 2 or 3 pips on a mottled face are read sure when their
        die's body vouches for them (_vouched_by_body). A small body nothing is read in may hold a 1 whose face its
        enlarged read measures rough (detect.rough_lone_pip): that 1 is its lone pip, an unsure 1 where the face
        classifier reads no d6 value surely (renders of pip d6 in random colours right at 25-45 px 987 -> 996 of 1168,
        crowds 4179 -> 4218, 18-36 px 723 -> 739, each from wrong to right and unsure; dice of any type at 25-45 px a
        numbered d6's 4 read as an unsure 1, right and unsure before; nothing made sure).
        A body that is no numbered die beside the pip dice, that may be a pip die there but whose face read finer shows
        none, is read by the face classifier all the same where a glint lights it (glints.lights_body): a pip die whose
        pips the glint washed out, its reading unsure (the ids of such bodies are returned last). Dropped, a white 1 in
        the bench's glint row whose pip the glint all but covered was lost once the dice beside it were read sure."""
        pip_px = _pip_size(faces)
        faces = [g for g in (_die_as_pip(image, f, bodies, pip_px) for f in faces) if g is not None]
        set_aside = [g for g in (_die_as_pip(image, f, bodies, pip_px) for f in set_aside or []) if g is not None]
        # a 2 on a mottled face (two far pips, pips._pair_far_pips' declined pair, set aside): a die where a d6 body
        # vouches for it; the 1s read in doubt from its pips give way to it
        twos = [replace(v, weak=False) for v in (_vouched_by_body(image, f, bodies) for f in set_aside
                                                 if f.weak and len(f.pips) == 2) if v.uncapped is None]
        taken = {(round(p.x, 1), round(p.y, 1)) for f in twos for p in f.pips}
        faces = [f for f in faces if not any((round(p.x, 1), round(p.y, 1)) in taken for p in f.pips)]
        faces += [f for f in twos if not any(meets(f.box, g.box) for g in faces)]  # a face read there is the die's
        faces = [_vouched_by_body(image, f, bodies) for f in faces]
        marks = {id(b): [f for f in faces if _marks_on(image, b, f)] for b in bodies}
        marked = {id(f) for fs in marks.values() for f in fs}
        unseen = _light_dice_unseen(faces, bodies)
        faces = [f for f in faces if unseen or not _glint(f, bodies)]
        pip_dice = [f for f in faces if id(f) not in marked]
        # a glint is no die to size others by, nor is a face the frame's edge cuts (its box a guess at its die's), nor
        # a 1 whole only however its face is turned (whole_in_frame, pips.lone_pip_in_frame): its "pip" may be a die
        # on a plain floor (a grey die at a render's top edge, its box 100 px, lost three numbered dice of ~25 px by it)
        sure = [f for f in pip_dice if f.confidence >= UNSURE_BELOW and layout_in_frame(f, image.shape)
                and not top_face_past_edge(f, image.shape)]
        beside = None
        if sure:
            ground = np.median([ground_colour(image, grown(f.box, 0.3)) for f in sure], axis=0)
            beside = (float(np.median([max(f.box[2:]) for f in sure])), ground)
        kept: list[DieBody] = []
        washed: set[int] = set()  # id() of the kept bodies whose pips a glint washed out
        # the faces bodies hold, read in them: sure ones in place of the unsure ones read on them, and those of pip dice
        # that are no numbered dice beside the others (_pip_die_beside), in place of the marks on them
        in_bodies: list[PipFace] = []
        replaced: set[int] = set()  # id() of the faces they replace
        for body in bodies:
            on = [f for f in pip_dice if meets(body.box, grown(f.box, 0.5))]
            if (on and self.die_set is None and self.reference is None
                    and not any(_part_of_pip_die(body, f) for f in on) and is_die_like(image, body, beside)):
                on = []  # a die beside them
            if on:  # part of a pip die (its sides, its shadow) already read by its pips, unless those are all unsure
                inside = [f for f in on if holds(body.box, f.centre)]
                if (inside and self.die_set is None and self.reference is None
                        and all(f.confidence < UNSURE_BELOW for f in on) and is_die_like(image, body, beside)):
                    face = _sure_face_read_in_body(image, body, beside is not None)
                    if face is not None:
                        in_bodies.append(face)
                        replaced |= {id(f) for f in inside}
                elif (len(on) == 1 and len(inside) == 1 and self.die_set is None and self.reference is None
                      and is_die_like(image, body, beside)):
                    face = _fuller_face_in_body(image, body, inside[0], beside is not None)
                    if face is not None:
                        in_bodies.append(face)
                        replaced.add(id(inside[0]))
                continue
            if self.die_set is None and self.reference is None:
                if not is_die_like(image, body, beside):
                    # no numbered die beside the pip dice, but maybe a pip die: its face read finer, in place of the
                    # marks on it, whether or not a lone pip was set aside in its middle (its 1, or one of its pips)
                    if _pip_die_beside(image, body, beside):
                        face = _pip_die_face(image, body)
                        if face is not None:
                            in_bodies.append(face)
                            replaced |= {id(f) for f in marks[id(body)]}
                        elif glints.lights_body(image, body.box, body.mask):
                            kept.append(body)  # its pips washed out: the classifier's reading, unsure (washed)
                            washed.add(id(body))
                    continue
            elif min(body.box[2:]) < MIN_BODY_SIDE or (self.reference is None and body.ground_share > GROUND_SHARE_MAX):
                continue  # too small to read (MIN_BODY_SIDE), or, with no reference frame, of a colour found all
                #           over the frame (the numerals and facets of a die that fills it: there the die is
                #           find_close_up's)
            if _cut_ground(body):
                continue  # read with a set or a reference, yet no die: see _cut_ground
            kept.append(body)
        given_way = {id(f) for b in kept for f in marks[id(b)]}
        lone_pips: dict[int, PipFace] = {}
        held: dict[int, PipFace] = {}  # by id(body): the face a body holds, read in it with a threshold of its own
        for b in kept:  # the one face that gave way to the body, else the set-aside pips in its middle
            aside = [f for f in set_aside or [] if _lone_pip_of(f, b)]
            near = marks[id(b)] or aside
            own = False
            if not marks[id(b)] and self.die_set is None:  # a body no face was read on: looked into (finer, if small),
                # a lone pip set aside in its middle or not (a 3's or a 5's middle pip, its others unread); with one
                # set aside, a body of any size
                inside = _faces_in_body(image, b, beside is not None or bool(aside))
                face = _face_read_in_body(image, b, inside)
                if face is not None:
                    held[id(b)] = face
                    continue
                near = _lone_pip_held(aside, inside, b) or aside or inside
                own = bool(near) and near is inside  # a lone pip only the body's own read found
                if not near:  # nothing read in it: a small die's 1 on a face its enlarged read measures rough?
                    rough = rough_lone_pip(image, b.box)
                    near = [rough] if rough is not None else []
            elif marks[id(b)] and self.die_set is None:  # unsure "pips" gave way: its own face read in it, if sure
                face = _sure_face_read_in_body(image, b, beside is not None)
                if face is not None:
                    held[id(b)] = face
                    continue
            if len(near) == 1 and _lone_pip_of(near[0], b):
                lone_pips[id(b)] = _glint_doubted(image, near[0]) if own else near[0]
        return ([f for f in faces if id(f) not in given_way and id(f) not in replaced] + list(held.values())
                + in_bodies, [b for b in kept if id(b) not in held], lone_pips, washed)

    def _classified(self, image: np.ndarray, body: DieBody, view: ViewEstimate) -> DieReading:
        """Read one die body with faces.classify_crop, given the body's tight box, its mask (which
        pixels of the crop are the die), the scene's view elevation and the die types in play, unsure when
        the classifier is or when the body is cut by the frame's border (CUT_CONFIDENCE_MAX)."""
        assert self.classify is not None
        x, y, w, h = body.box
        crop = image[y:y + h, x:x + w]
        mask = body.mask[:crop.shape[0], :crop.shape[1]]
        oblique = {"view": view} if view.oblique else {}  # top-down: the classifier's default
        in_play = {"die_types": self.die_types} if self.die_types is not None else {}  # None: the default
        result = self.classify(crop, die_set=self.die_set, mask=mask, **oblique, **in_play)
        body_px = crop[mask > 0] if (mask > 0).any() else crop.reshape(-1, 3)
        confidence = min(float(result.confidence), CUT_CONFIDENCE_MAX) if body.cut else float(result.confidence)
        box = body.box if view.oblique else body_die_box(image, body)
        return DieReading(result.die_type, result.value, box, confidence,
                          colour=colour_name(body_px), face_colour=result.face_colour,
                          symbols=list(result.symbols), alternatives=list(result.alternatives))


def body_die_box(image: np.ndarray, body: DieBody) -> tuple[int, int, int, int]:
    """The box (x, y, w, h frame px) a die body read top-down is given: the die's own within the body's box,
    its shadow left out (shape.die_box on the body's crop and mask); the body's box when its mask is empty.
    The reading itself is made on the body's crop and mask as found (the shape and numeral models frame
    the die from them). image: HxWx3 uint8 BGR, the frame the body was found in. 1.3 ms a body (median
    over lurig_dietype's 233 bodies, best of 5, 2026-12-03)."""
    from dicetower.vision.shape import die_box

    x, y, w, h = body.box
    crop = image[y:y + h, x:x + w]
    mask = body.mask[:crop.shape[0], :crop.shape[1]]
    if not (mask > 0).any():
        return body.box
    bx, by, bw, bh = die_box(crop, mask)
    return x + bx, y + by, bw, bh


#: A die body cut by the frame's border (DieBody.cut) shows part of its face at most: its reading (with a
#: calibrated set or a reference frame, which read such bodies) is at most this confident, below
#: UNSURE_BELOW, so it is flagged unsure, never a sure value read from part of a face (GEN-D01: the
#: player confirms it or rolls again). matteop65 Valid/valid_8's dark corner read a sure 1 before.
CUT_CONFIDENCE_MAX = 0.5
#: A pip face's box side is about this fraction of its die's side (matteop65: 0.6..0.75).
PIP_BOX_OF_DIE = 0.7
#: A die-like body the shape model (shape.die_type_by_shape, top-down) gives less than this probability of
#: being a d6 holds no pip face: the unsure "pips" read within it are its marks, however much of it they span
#: (_marks_on). Measured: realdice's d20 with its two digits read as an unsure 2 spanning 0.78 and 0.83 of it
#: (over PIP_BOX_OF_DIE, not crosswise) 0.001 and 0.004; the die-like bodies of matteop65's pip d6 (every 3rd
#: photo) 0.046 at the least of 107, 0.079 at their 1st percentile, 0.82 at the median.
NO_D6_SHAPE = 0.01
#: A pip face the pip reader is sure of is marks on a die body (_marks_on) only when it spans less than this share
#: of the body and the body is no d6 by its shape (NO_D6_SHAPE): a numeral's bowl or a "6."'s dot read as a sure
#: 1 or 2 spans 0.16-0.19 of its d8 or d20 (renders, whose shape model gives d6 0.0007-0.0065); on matteop65's
#: 353 photos 31 sure faces span under half a die-like body round them (30 1s at 0.34-0.49, a 3 at 0.48), whose
#: shape model gives d6 0.195 at the least
LONE_MARK_SPAN = 0.5
#: A pip face of two pips or more, read sure, centred in a die-like body (within FACE_CENTRED of its longer side) and
#: spanning less than this share of it, is marks on that die whatever its shape (_marks_on): a d6's pips span about
#: PIP_BOX_OF_DIE of their die, so a die twice that long round them is not theirs. Renders of dice in random colours
#: (pip d6 at 25-45 and 60-90 px, crowds, any type at 25-45 and 60-90 px; 2081 such faces in die-like bodies holding
#: their centre): right ones spanned 0.40 at the least (a 5 in a body twice its die's length), 0.65 at the next;
#: a d10's 8 read as a sure 2 from its holes 0.155 (its body d6 by shape 0.012, over NO_D6_SHAPE)
MARKS_SPAN = PIP_BOX_OF_DIE / 2


def _marks_on(image: np.ndarray, body: DieBody, face: PipFace) -> bool:
    """Whether a pip face is marks on a die body, not a pip die (DiceReader._numbered_bodies): read unsure,
    centred in the body, and spanning less of it than a d6's pips span of their die (PIP_BOX_OF_DIE) or
    elongated crosswise (pips.crosswise_pips), or lying within it (spanning less than all of it) when the
    body is die-like (is_die_like) and no d6 by its shape (NO_D6_SHAPE; the shape model is asked only then);
    read sure, only the latter, and only for a face spanning under LONE_MARK_SPAN of the body, or a face of two pips
    or more centred in a die-like body and spanning under MARKS_SPAN of it (a d10's 8 read as a sure 2 from its
    holes, its body's shape model giving d6 0.012: renders of dice of any type at 60-90 px, sure and wrong 1 -> 0 of
    1168, 2 more dice found beside it; every other render probe and bench image read as before).
    image: HxWx3 uint8 BGR, the frame body and face were found in (px)."""
    if not holds(body.box, face.centre):
        return False
    span = max(face.box[2:]) / max(body.box[2:])
    if face.confidence >= UNSURE_BELOW:
        if (len(face.pips) >= 2 and span < MARKS_SPAN and _off_middle(face, body) <= FACE_CENTRED
                and is_die_like(image, body)):
            return True  # pips far too close for a die that long round them: its numeral's holes
        if span >= LONE_MARK_SPAN:
            return False  # a sure face spanning half its body or more: a pip die's pips, its body round them
    elif span < PIP_BOX_OF_DIE or crosswise_pips(face.pips):
        return True
    if span >= 1.0 or not is_die_like(image, body):
        return False
    return _d6_by_shape(image, body) < NO_D6_SHAPE


def _d6_by_shape(image: np.ndarray, body: DieBody) -> float:
    """The probability (0..1) the shape model (shape.die_type_by_shape, top-down) gives a die body (in image:
    HxWx3 uint8 BGR) of being a d6, read on the body's crop and mask."""
    from dicetower.vision.shape import die_type_by_shape

    x, y, w, h = body.box
    crop = image[y:y + h, x:x + w]
    return die_type_by_shape(crop, body.mask[:crop.shape[0], :crop.shape[1]]).proba.get("d6", 0.0)


def _off_middle(face: PipFace, body: DieBody) -> float:
    """How far a face's centre lies from its body's box centre, as a share of the box's longer side."""
    x, y, w, h = body.box
    return float(np.hypot(face.centre[0] - (x + w / 2), face.centre[1] - (y + h / 2))) / max(w, h)


#: A "pip" of a face read sure may be a whole die (_die_as_pip): a small die's own pips may be too small for the
#: pip filter (~2 px on a 640x480 frame), and the die is then one blob of a pip's size, read as a 1 whose "face" is
#: the floor round it, or with a die beside it as a 2. Such a blob fills a die body: the body is no longer than this
#: many times the blob's major axis (0.9..1.8, its shadow in it: renders of pip d6 at die_px 18-36 and 25-45, 300
#: scenes each). A pip is at most ~0.45 of its face (a large red 1), so its die's body is 2.2 times it and more
#: (matteop65's small-dice frames: 3 and more); but a dark pip of a white die on a light floor may be a body by
#: itself (the face too like the floor for the body's threshold: matteop65 valid_78's 4, close-ups' 5s)
PIP_FILLS_BODY = 1.8
#: ... and what lies round such a blob is the floor: the ring round it (1.3..2.3 radii, where pips.surround_snr
#: looks for the face) is within this Lab distance (sum of |dL|, |da|, |db|, OpenCV 8-bit Lab) of the ground round
#: the die the face would be (ground_colour of its box). Measured: renders' blobs filling bodies 0..13 but one
#: at 22 (a 3 read as a 1, left sure); the pips of white dice on a light table that are bodies by themselves
#: 28..53 (matteop65 valid_78, close-ups)
PIP_ON_GROUND_LAB = 20.0


def _die_as_pip(image: np.ndarray, face: PipFace, bodies: list[DieBody], pip_px: float | None = None
                ) -> PipFace | None:
    """face, unless one of its pips is a whole die (_body_filled_by_pip). A face of two "pips" or more each of which is
    a whole die is no face (None), read sure or not: those are dice, and their bodies are read (dark dice ~23 px showing
    1 on a white floor, read as a 2 of dark pips boxed over both, hid both dice and the bodies beside them). One read
    sure (or that was, before a doubt a die body may answer: PipFace.uncapped) with a whole die for a pip is flagged
    unsure (at most pips.AMBIGUOUS_CAP, no uncapped confidence left for read_as_one to restore), for the player to
    confirm or roll again; a 1 is boxed by that body, the die it is. So is a sure 1 whose pip is a die too small for
    a body, or a body by itself, the floor round it (_die_on_ground; bodies: find_die_bodies', pip_px: _pip_size of
    the frame's faces), its box as read; and a sure 1 read at a close-up scale whose "pip" is a small die taken whole,
    marked inside, though no body is left round it (_close_up_pip_is_die), boxed by its pip: renders
    of dice of any type at 25-45 px read 4 fewer sure and wrong (d10s and a d20 read as sure 1s; 5 -> 1 of 1168), pip
    d6 at 25-45 px 2 -> 1 (a 2 holding its pips); every bench image as before. An unsure 1 whose pip fills a body is
    boxed by that body too: its own box, the face a 1's pip would have round it, took the dice beside it for that die's
    sides (a red die on a white floor read as a dark pip, boxed 83 px, lost a blue 2 beside it); renders of pip d6 in
    random colours found 1 more die at 25-45 px, 1 at 18-36 px, 4 in crowds, 5 of any type at 25-45 px, none read
    worse; every bench image read as before, but one close-up's pip of a die cut by the frame's edge, itself a body (a
    white die on a white floor), read as an unsure 1 boxed by that pip. (A white die's pip on a white
    floor may be a body by itself, PIP_FILLS_BODY: a close-up's die cut by the frame's edge showing three pips, two of
    them such bodies, stays read, unsure.) Dropping the faces whose "pips" are all dice (they were flagged unsure when
    sure, kept when not): renders of pip d6 in random colours found 19 more dice in crowds (right 4030 -> 4041 of 4878)
    and 4 more at 18-36 px, dice of any type at 25-45 px 10 more (right 542 -> 546); readings on no die 18 -> 9, 6 -> 3
    and 7 -> 3; none more sure and wrong, every bench image as before. image: HxWx3 uint8 BGR, the frame face and
    bodies were found in (px)."""
    lone = len(face.pips) == 1
    sure = max(face.confidence, face.uncapped or 0.0) >= UNSURE_BELOW
    filled = [_body_filled_by_pip(image, pip, face.box, bodies) for pip in face.pips]
    if lone and not sure:
        return face if filled[0] is None else replace(face, box=filled[0].box)
    if not lone and all(body is not None for body in filled):
        return None
    body = next((b for b in filled if b is not None), None)
    if not sure:
        return face
    if body is None and lone and _close_up_pip_is_die(image, face.pips[0]):
        return replace(face, confidence=min(face.confidence, AMBIGUOUS_CAP), box=pip_box(face.pips[0], 1.0),
                       uncapped=None)
    if body is None and lone and _die_on_ground(image, face, bodies, pip_px):
        return replace(face, confidence=min(face.confidence, AMBIGUOUS_CAP), uncapped=None)
    if body is None:
        return face
    return replace(face, confidence=min(face.confidence, AMBIGUOUS_CAP), box=body.box if lone else face.box,
                   uncapped=None)


#: A lone pip read as a 1 filling no die body is a small die taken whole when it is more than this many times the
#: median diameter of the pips of the frame's sure faces of two pips or more (_die_on_ground). Renders of pip d6 in
#: random colours (18-36, 25-45 and 60-90 px, crowds; 93 sure 1s in frames with such faces): 1s measured 0.64..1.58;
#: dice taken whole 2.8..8.6 (3.4 at their 5th percentile of 70, most in frames with no such face). A d6's 1 may be
#: larger than its other pips (a big red 1), but about twice at most
DIE_OF_PIPS = 2.5


def _die_on_ground(image: np.ndarray, face: PipFace, bodies: list[DieBody], pip_px: float | None) -> bool:
    """Whether face, one pip read as a 1 that fills no die body (_body_filled_by_pip), is a small die taken whole for
    the pip of a 1 whose face is the floor: more than DIE_OF_PIPS times the frame's other pips across (pip_px: the
    median diameter of the pips of its sure faces of two pips or more, px; None when it has none), in no die body of a
    colour rare on the ground (GROUND_SHARE_MAX: a die round it; a patch of floor is no die), with the ground's colour
    round it (_on_ground) as round its face's box grown by its side on every side (a 1's die is 2.5-7 of its pip's
    diameters across, its face's box 4, so the ring measured there, 6-10 diameters from the pip, lies past its die's
    face). A blob found at the analysis scale (no larger than its pip filter, detect.KERNEL_PX): a die of 11-14 px, no
    die body (MIN_DIE_PX), its own pips under the pip filter's limit and unread when looked into
    (detect.die_taken_whole), was read as a sure 1 boxed 3.5 times its side: renders of pip d6 in random colours at
    18-36 px read 6 such sure and wrong (5 now unsure, 1 lost: a light "pip" with no body, a glint), 25-45 px 1 (lost);
    2 dice showing 1 read right so (taken whole) went unsure or lost; crowds and 60-90 px, where the frame's other
    pips are as large, read as before, as did every bench image. A blob larger (read at a close-up scale: a body by
    itself, so the body round it is one more than PIP_FILLS_BODY times it across), where the ring lies at least in part
    in the frame (a close-up's die that fills the frame shows no ground round it): a blue d10 of 27 px, plain inside
    at the analysis scale's look (its light numeral under MARKED_PIP, so no detect.die_taken_whole), was read as a
    sure 1 boxed 96 px. Renders of dice of any type: at 25-45 px sure and wrong 1 -> 0 of 1168, 1 more die found; at
    60-90 px 3 more found, 1 read wrong and unsure lost; pip d6 at 25-45 px, a die showing 1 so taken whole, read
    right, unsure now, and 1 more found (wrong, unsure); the close-ups' 1s, their white die's face no floor round them
    (Lab 30..55 off it), read as before, as did every bench image. Such a 1 read in a pattern of one body is no face
    at all (detect.large_pip_faces' on_floor), so its reach takes no die beside it: see there.
    image: HxWx3 uint8 BGR; face in its px."""
    pip = face.pips[0]
    close_up = pip.diameter > KERNEL_PX / analysis_scale(image.shape)  # its blob a body by itself
    if pip_px is not None and pip.diameter <= DIE_OF_PIPS * pip_px:
        return False
    if any(holds(b.box, (pip.x, pip.y)) and b.ground_share <= GROUND_SHARE_MAX
           and (not close_up or max(b.box[2:]) > PIP_FILLS_BODY * pip.major) for b in bodies):
        return False  # a die body round it, of a colour rare on the ground: its die
    reach = grown(face.box, 1.0)
    if close_up and clip_box(grown(reach, GROUND_RING), image.shape) == clip_box(reach, image.shape):
        return False  # no ground in the frame round it (ground_colour): a close-up's die filling the frame
    return _on_ground(image, pip, reach)


def _pip_size(faces: list[PipFace]) -> float | None:
    """The median diameter (px) of the pips of the sure faces of two pips or more among faces; None without any."""
    sizes = [p.diameter for f in faces if len(f.pips) >= 2 and f.confidence >= UNSURE_BELOW for p in f.pips]
    return float(np.median(sizes)) if sizes else None


def _close_up_pip_is_die(image: np.ndarray, pip: Pip) -> bool:
    """Whether a 1's pip larger than the analysis scale's pip filter (read at a close-up scale; frame px) is a small
    die taken whole for it (detect.die_taken_whole: marked inside, or holding two pips alike), though no die body is
    left round it (a close-up face's reach takes the bodies in it for its die's parts). image: HxWx3 uint8 BGR."""
    return pip.diameter > KERNEL_PX / analysis_scale(image.shape) and die_taken_whole(
        cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), pip)


def _body_filled_by_pip(image: np.ndarray, pip: Pip, box: tuple[int, int, int, int], bodies: list[DieBody]
                        ) -> DieBody | None:
    """The die body a pip (of a face boxed by box, x, y, w, h px) is the whole die of: a pip found at the analysis
    scale (no larger than its pip filter, detect.KERNEL_PX: a close-up scale's pip may fill a body that is a close-up's
    pip found as a body, so those are weighed by _close_up_pip_is_die), filling a body that holds its centre
    (PIP_FILLS_BODY) with the ground's colour round it (PIP_ON_GROUND_LAB); None when it is none. image: HxWx3 uint8
    BGR, the frame pip and bodies were found in (px)."""
    if pip.diameter > KERNEL_PX / analysis_scale(image.shape):
        return None
    for body in bodies:
        if holds(body.box, (pip.x, pip.y)) and max(body.box[2:]) <= PIP_FILLS_BODY * pip.major and _on_ground(
                image, pip, box):
            return body
    return None


def _on_ground(image: np.ndarray, pip: Pip, box: tuple[int, int, int, int]) -> bool:
    """Whether the face round a pip (its median Lab colour in the ring at 1.3..2.3 radii, where pips.surround_snr
    measures the pip's contrast) is the ground round its die's box (ground_colour; within PIP_ON_GROUND_LAB).
    image: HxWx3 uint8 BGR; pip and box (x, y, w, h) in its px. False when the frame cuts the ring off."""
    r = pip.diameter / 2.0
    h, w = image.shape[:2]
    x0, x1 = max(int(pip.x - 2.3 * r) - 1, 0), min(int(pip.x + 2.3 * r) + 2, w)
    y0, y1 = max(int(pip.y - 2.3 * r) - 1, 0), min(int(pip.y + 2.3 * r) + 2, h)
    d = np.hypot(*np.meshgrid(np.arange(x0, x1) - pip.x, np.arange(y0, y1) - pip.y))
    px = image[y0:y1, x0:x1][(d >= 1.3 * r) & (d <= 2.3 * r)]
    if len(px) == 0:
        return False
    face = channel_medians(cv2.cvtColor(px.reshape(1, -1, 3), cv2.COLOR_BGR2LAB))
    return float(np.abs(face - ground_colour(image, box)).sum()) <= PIP_ON_GROUND_LAB


#: A face of 2 or 3 pips that the face round them, not plain, cost confidence (pips.face_roughness: a mottled or swirled
#: die, a light gradient that is no plane), or a 3 capped for its one weak pip (or a 2 or 3 for all its pips but one,
#: showing no fuller face's other pips: PipFace.uncapped), is a d6's face when a die body vouches for it
#: (_vouched_by_body): a die-like body whose middle holds the face's centre (within FACE_CENTRED of the body's longer
#: side), the face's box spanning FACE_SPAN_OF_BODY of that side, and a d6 by its shape (probability at least
#: D6_BY_SHAPE). Measured on renders of pip d6 in random colours at 60-90 px (seeds 0-60): the 2s and 3s so read lay
#: 0.01..0.09 of their bodies' side off its middle, spanned 0.78..0.97 of it, d6 by shape 0.88..1.0; a 2 read from two
#: of a 4's pips lay 0.24 off, a 3 read as a 2 0.21 off, spanning 0.58
FACE_CENTRED = 0.12
FACE_SPAN_OF_BODY = (0.75, 1.0)
D6_BY_SHAPE = 0.5
#: ... or, whatever the shape model makes of the body, the face read sure is this many pips or more (a d6 layout no
#: numbered die shows, pips alike: pips.face_confidence at least UNSURE_BELOW). The shape model tells a small body's
#: type poorly: two pip d6 of 21 and 24 px showing a sure 5 gave d6 0.04 and 0.07.
D6_LAYOUT_PIPS = 4


def _face_read_in_body(image: np.ndarray, body: DieBody, near: list[PipFace], pip_die: bool = False
                       ) -> PipFace | None:
    """The face a die body no face was read on holds, read in it with a threshold of its own (near: _faces_in_body,
    read finer in a small body), when it is the one face there, of 2 pips or more, and the body holds it as its face
    (_holds_as_its_face: centred, spanning most of it, the body a d6 by its shape or the face by its layout), its pips
    no marks on the die (_marks_on: a numeral's strokes): that face, at the confidence read there; else None. Capped
    unsure at first, as a face of fewer pips than its die's (some lost at the finer scale too) reads alike: renders of
    pip d6 in random colours read 145 such faces sure at their own confidence (25-45 px 89, 18-36 px 40, crowded scenes
    7, dice of any type 9), every one right, and a 6 read as a 4 (crowded) stays unsure at its own.
    A face of 2 or 3 pips read unsure there only for a doubt a die body answers (_vouchable_confidence: the face round
    them not plain, as a small die's face measures when enlarged, 0.12-0.20 of its pips' contrast on renders) is
    vouched for by this body when it is die-like (is_die_like), as _vouched_by_body vouches for a face the pip search
    read: it is read at the confidence read before that doubt. Renders of pip d6 in random colours: 56 dice more read
    sure at 25-45 px (of 1168; unsure 365 -> 309), 150 in crowds (of 4878; 1397 -> 1247), 47 at 18-36 px, 15 at
    60-90 px, 7 of any type at 25-45 px, each right (25 of them wrong and unsure before), none more sure and wrong,
    every bench image as before. image: HxWx3 uint8 BGR, the frame (px); pip_die: as _holds_as_its_face."""
    if len(near) != 1 or len(near[0].pips) < 2 or near[0].value is None:
        return None
    face = near[0]
    if not _holds_as_its_face(image, body, face, pip_die) or _marks_on(image, body, face):
        return None
    before = _vouchable_confidence(face)
    if before is not None and is_die_like(image, body):
        return replace(face, confidence=before, uncapped=None)
    return face


#: A die body meeting a pip face's box grown by half (where its die's sides and shadow lie) is part of that die when it
#: holds the face's centre or this share of it (of the smaller box) or more lies in that grown box.
PART_OF_PIP_DIE = 0.5


def _part_of_pip_die(body: DieBody, face: PipFace) -> bool:
    """Whether a die body (frame px) that meets a pip face's box grown by half is part of that face's die (its sides,
    its shadow; PART_OF_PIP_DIE), not a die beside it. Every body meeting such a box was taken for part of its die: a
    die's body of 22x20 px, 11 px below a 3's box (0.13 of it in the grown box, the 3's centre outside it), was lost.
    The reader takes it for a die beside them when it holds no centre and lies mostly outside, is die-like there
    (is_die_like beside the frame's sure pip dice) and no calibrated set or reference frame reads the frame: renders of
    pip d6 in random colours found 8 more dice in crowds (5 read sure and right, 3 unsure), 1 at 60-90 px and 1 at
    18-36 px (unsure); matteop65's three_36 found its fourth die, a sure 3 (lost before); two shrunk photos read an
    unsure reading more or otherwise, and one photo turned a quarter turn an unsure 1 as an unsure d10 (its body read
    by the face classifier); none more sure and wrong, no more readings on no die."""
    return holds(body.box, face.centre) or overlap(body.box, grown(face.box, 0.5)) >= PART_OF_PIP_DIE


def _pip_die_beside(image: np.ndarray, body: DieBody, beside: tuple[float, np.ndarray] | None) -> bool:
    """Whether a body that is no numbered die beside the frame's pip dice (beside: their faces' median box side px and
    the Lab colour round them; see is_die_like) may still be a pip die there: one is_die_like takes for a die alone
    (whole in the frame, its colour rare on the ground) and no larger than SIZE_BESIDE_PIP_DICE's most. A smaller pip
    d6 than theirs may lie there (renders of dice 20 and 31 px across side by side: the 20 px die's body 0.79 of the
    larger die's face box), or one on a floor lit otherwise (a 24 px black 6 whose ground was more than SAME_GROUND_LAB
    from theirs). The reader then takes it only for a pip face it holds (_pip_die_face): the face classifier reads no
    such body, as session 47 found it reading things no one threw on matteop65's small-dice frames. image: HxWx3 uint8
    BGR, the frame (px)."""
    return beside is not None and is_die_like(image, body) and max(body.box[2:]) <= SIZE_BESIDE_PIP_DICE[1] * beside[0]


def _pip_die_face(image: np.ndarray, body: DieBody) -> PipFace | None:
    """The face of a body that may be a pip die beside the frame's others (_pip_die_beside), read finer in it
    (_faces_in_body): _face_read_in_body's (2 pips or more), else its one face when that is a lone pip in its middle
    (_lone_pip_of) and the body a d6 by its shape (D6_BY_SHAPE): its 1, at the confidence read before the face round
    the pip, not quite plain, cost it some (PipFace.uncapped): the body's own read holds no other pip, the condition
    on which _lone_pip_held lets a body vouch for a set-aside 1. Renders of pip d6 in random colours found 5 more 1s
    at 25-45 px and 12 in crowds (of 1168 and 4878 dice), each right and unsure, none read worse, every bench image as
    before; read doubted then (pips.doubted: a speck in a body is one pip as well), they were unsure. Vouched for
    (session 52): 7 more dice sure and right at 60-90 px, 6 at 25-45 px, 18 in crowds, none read worse, the bench and
    the other checks as before. None when it holds neither. A light lone pip at a glint's grey is unsure
    (_glint_doubted). image: HxWx3 uint8 BGR, the frame (px)."""
    near = _faces_in_body(image, body, True)
    face = _face_read_in_body(image, body, near, pip_die=True)
    if face is None and len(near) == 1 and _lone_pip_of(near[0], body) and _d6_by_shape(image, body) >= D6_BY_SHAPE:
        one = _glint_doubted(image, near[0])
        return replace(one, confidence=one.confidence if one.uncapped is None else one.uncapped, uncapped=None)
    return face


def _glint_doubted(image: np.ndarray, pip: PipFace) -> PipFace:
    """A lone pip in a die body's middle that only the body's own read found (the body's 1, _pip_die_face,
    read_as_one), doubted (pips.doubted: no body vouches for it) where it is a light pip whose middle is at a glint's
    grey (glints.at_ceiling): a glint in the middle of a die is as likely. The glint render probe's scene 198 at 60-90
    px read a green 2 with a glint between its orange pips as a sure 1 so. Not a pip the frame's pip search found too
    and set aside (for its colour, the frame's other dice's pips being dark): white 1s on dark dice at the camera's
    ceiling, five in the render probes, were read sure and right so, and stay so. image: HxWx3 uint8 BGR, the
    frame."""
    p = pip.pips[0]
    return doubted(pip) if pip.polarity == "light" and glints.at_ceiling(image, p.x, p.y, p.diameter) else pip


def _sure_face_read_in_body(image: np.ndarray, body: DieBody, larger: bool) -> PipFace | None:
    """_face_read_in_body's face of a die body (of its _faces_in_body, larger as there) when it is read sure
    (UNSURE_BELOW or more), else None: the body's own face, where unsure faces read on it (pips of the frame's whole
    finer read that split its face, a numeral-like mark that gave way to it, _marks_on) left it unread or unsure.
    image: HxWx3 uint8 BGR, the frame (px)."""
    face = _face_read_in_body(image, body, _faces_in_body(image, body, larger))
    return face if face is not None and face.confidence >= UNSURE_BELOW else None


def _fuller_face_in_body(image: np.ndarray, body: DieBody, face: PipFace, larger: bool) -> PipFace | None:
    """The sure face a die body holding face (its one face, read sure or not) holds as its own, read in it with a
    threshold of its own (_sure_face_read_in_body, larger as there), when face spans less of the body than a d6's face
    spans its die (FACE_SPAN_OF_BODY's least) and that face has more pips than face and holds every pip of face (within
    half its diameter): face's die, some of whose pips the frame's threshold passed over; else None. A red 3 with light
    pips on teal felt was read as a sure 2 of two of its pips, its third by the die's edge unread; its body read it as a
    3 (0.92). image: HxWx3 uint8 BGR, the frame (px)."""
    if len(face.pips) >= 6 or max(face.box[2:]) >= FACE_SPAN_OF_BODY[0] * max(body.box[2:]):
        return None  # a face spanning its die has all its pips (and reading the body costs a body_faces read)
    fuller = _sure_face_read_in_body(image, body, larger)
    if fuller is None or len(fuller.pips) <= len(face.pips):
        return None
    held = all(any(math.hypot(p.x - q.x, p.y - q.y) <= 0.5 * p.diameter for q in fuller.pips) for p in face.pips)
    return fuller if held else None


def _faces_in_body(image: np.ndarray, body: DieBody, larger: bool) -> list[PipFace]:
    """The faces detect.body_faces reads in a die body's box (with a threshold of their own; finer in a small body)
    whose centre lies in the body (frame px; image: HxWx3 uint8 BGR, the frame). A body larger than
    detect.SMALL_BODY_PX is read only when larger is True: the reader asks it beside sure pip dice, whose pips set the
    frame's threshold that may have passed over this die's; a frame of numbered dice alone would pay for reading each
    of them (17-19 ms a lurig photo, 8 a realdice one) and find no pip face there."""
    return [f for f in body_faces(image, body.box, larger) if holds(body.box, f.centre)]


def _holds_as_its_face(image: np.ndarray, body: DieBody, face: PipFace, pip_die: bool = False) -> bool:
    """Whether a d6 body holds face as its top face: the face centred in it (FACE_CENTRED) spanning most of it
    (FACE_SPAN_OF_BODY of its side, give or take the px its box may be off: detect.BODY_ANALYSIS_SIDE), the body a d6
    by its shape (D6_BY_SHAPE) or the face a d6's by its own layout (D6_LAYOUT_PIPS pips or more, read sure), or, with
    pip_die, the body taken for a pip die by the dice round it (_pip_die_beside: no numbered die beside the frame's sure
    pip dice, and read by no face classifier), whose face may span more than it: a body found smaller than its die (a
    pale die on a pale floor, 18 px of a 22 px die, its 2's face box 24 px) lost the die. Its span not bounded above:
    renders of pip d6 in random colours found 2 more dice at 25-45 px, 3 in crowds and 2 at 18-36 px, each sure and
    right; the other probes, the bench and the other checks as before. image: HxWx3 uint8 BGR, the frame (px).
    The shape model tells a small body's type poorly: bodies of 16-22 px beside sure pip dice holding a 2 or a 3 gave
    d6 0.28-0.49, and the die was lost. Their shape not asked: renders of pip d6 in random colours found 4 more dice at
    25-45 px (3 of them sure) and 11 in crowds (8 sure), all right; dice of any type, the bench and the other checks
    as before.
    Taking a sure face of 4 pips or more for a d6's whatever the body's shape: renders of pip d6 in random colours right
    931 -> 958 of 1168 at 25-45 px (unsure 310 -> 281), crowds 3962 -> 4029 of 4878 (1247 -> 1163), 18-36 px 652 ->
    691 (451 -> 414), dice of any type at 25-45 px 540 -> 542; each change to right and sure (most from wrong and
    unsure, read by the face classifier), none more sure and wrong, no more readings on no die, every bench image as
    before.
    A small body's box is as far off as a large one's in px, so a share of it is not: a 5 whose box was 21 px in an
    18 px body (1.17 of it) was no face of it, and the numeral net read the die. Allowing the box's px: renders of pip
    d6 in random colours right 905 -> 926 of 1168 at 25-45 px (unsure 382 -> 365), crowds 3891 -> 3940 of 4878 (1445
    -> 1397), 18-36 px 625 -> 645 (521 -> 502), 60-90 px 1122 -> 1123; none more sure and wrong, no more readings on no
    die, every bench image as before."""
    lo, hi = FACE_SPAN_OF_BODY
    if pip_die:
        hi = math.inf  # the body may be found smaller than its die (a pale die's edges on a pale floor)
    side, slack = max(body.box[2:]), 2.0 / analysis_scale(image.shape, BODY_ANALYSIS_SIDE)
    d6_layout = len(face.pips) >= D6_LAYOUT_PIPS and face.confidence >= UNSURE_BELOW
    return (_off_middle(face, body) <= FACE_CENTRED and lo * (side - slack) <= max(face.box[2:]) <= hi * (side + slack)
            and (d6_layout or pip_die or _d6_by_shape(image, body) >= D6_BY_SHAPE))


def _vouched_by_body(image: np.ndarray, face: PipFace, bodies: list[DieBody]) -> PipFace:
    """face, or when it is 2 or 3 pips read unsure only for a doubt a die body answers (PipFace.uncapped: the face
    round them not plain, weak pips) and a die body vouches for it (FACE_CENTRED, FACE_SPAN_OF_BODY, D6_BY_SHAPE,
    is_die_like), the same face at the confidence read before that doubt. image: HxWx3 uint8 BGR, the frame face and
    bodies were found in (px)."""
    before = _vouchable_confidence(face)
    if before is None:
        return face
    for body in bodies:
        if _holds_as_its_face(image, body, face) and is_die_like(image, body):
            return replace(face, confidence=before, uncapped=None)
    return face


def _vouchable_confidence(face: PipFace) -> float | None:
    """The confidence face was read with before a doubt a die body round it may answer (PipFace.uncapped: the face
    round its pips not plain, weak pips), when it is 2 or 3 pips read unsure only for that doubt: a body that holds it
    as its face (_holds_as_its_face) and is die-like (is_die_like) vouches for it. None otherwise."""
    return face.uncapped if len(face.pips) in (2, 3) and face.confidence < UNSURE_BELOW else None


#: A lone pip in a die body (one that gave way to it, _marks_on, or one find_pip_faces set aside) is the 1 of the
#: pip d6 that body may be only when it lies in the body's middle: its centre within this share of the body's
#: longer side from the body's centre (a 1's pip is its face's centre; a "6."'s dot or a numeral's bowl lies off
#: it). Measured on renders of 40 top-down scenes of pip d6 (seeds 33 and 7, the die patches 70-100 px): the lone
#: pips in bodies lay 0.00-0.19 of the side off, then 0.26 and more
LONE_PIP_CENTRED = 0.2


#: A lone "pip" wider than this share of a body's longer side is no pip in it: it is the die itself, taken for a
#: pip at a coarser scale (a 24 px die seen as the pip of a 1 whose face was the floor; a d6's 1 is about
#: detect.PIP_OF_DIE, 0.25, of its side).
LONE_PIP_OF_BODY = 0.5


def _lone_pip_of(face: PipFace, body: DieBody) -> bool:
    """Whether face is one pip read as a 1 lying in the middle of body (within LONE_PIP_CENTRED of its longer
    side from its centre, frame px) and smaller than it (at most LONE_PIP_OF_BODY of that side across): the 1 a pip d6
    shows, should the body be a pip d6. A die taken whole for a pip was its own 1 before, weighed by read_as_one as an
    unsure 1 whatever it showed, and a body beside the frame's pip dice was not read for the face it holds: renders of
    pip d6 in random colours right 891 -> 895 of 1168 at 25-45 px, crowds 3853 -> 3868 of 4878, 18-36 px 619 -> 623,
    none more sure and wrong (a die that does show 1 may now be read by the face classifier, unsure: 10 such in
    crowds)."""
    return (len(face.pips) == 1 and face.value == 1 and _off_middle(face, body) <= LONE_PIP_CENTRED
            and face.pips[0].diameter <= LONE_PIP_OF_BODY * max(body.box[2:]))


def _lone_pip_held(aside: list[PipFace], inside: list[PipFace], body: DieBody) -> list[PipFace]:
    """[the lone pip set aside in a body's middle (aside: find_pip_faces' set-aside faces that are the body's lone pip,
    _lone_pip_of), with the confidence the body's own read gave it before the face round it cost it some
    (PipFace.uncapped)] when that read (inside: _faces_in_body, the body's own threshold) holds it alone: one face, a
    lone pip in the body's middle within a pip diameter of it, no other pip, however weak. A pip set aside for its
    polarity after the face round it, not quite plain, cost it confidence carried both doubts, more than its body
    answers (detect._plausible_polarity); the body's own read answers the second: a 3's or a 5's other pips, unread at
    the frame's threshold, are read at the body's. [] otherwise."""
    if len(aside) != 1 or len(inside) != 1 or not _lone_pip_of(inside[0], body):
        return []
    pip, read = aside[0], inside[0]
    if pip.uncapped is None or read.uncapped is None or math.hypot(
            read.centre[0] - pip.centre[0], read.centre[1] - pip.centre[1]) > pip.pips[0].diameter:
        return []
    return [replace(pip, uncapped=read.uncapped)]


def read_as_one(reading: DieReading, pip: PipFace | None, body: DieBody) -> DieReading:
    """A die body's reading by the face classifier (reading), weighed against the lone pip in its middle (pip: one
    that gave way to it or one find_pip_faces set aside, DiceReader._numbered_bodies, _lone_pip_of; None: none).
    The pip reader read that pip as a 1 it is unsure of, or dropped it (a lone pip of the other pip colour than
    the frame's other dice may be a glint: detect._plausible_polarity), so the body went to the classifier,
    whose numeral net has no class for one pip: a black d6 showing its white 1 among white dice read as an
    unsure 4 (0.008, the 1 its first alternative). When the classifier reads the body as a d6 and less
    confidently than the pip reader read its 1 (for a dropped pip, the cap it was set aside at), the die is
    read as a 1: d6 1 at the pip's confidence, at most pips.AMBIGUOUS_CAP and, for a body cut by the frame's
    edge, CUT_CONFIDENCE_MAX; the classifier's value becomes the first alternative (the 1 leaves the
    alternatives). A pip capped only for its polarity (PipFace.uncapped), whose d6 body the classifier reads
    no value of surely, is the 1 of a die of the other kind, at the confidence the pip reader read it with:
    renders of pip d6 in random colours at 60-90 px (300 scenes) read 27 more 1s sure so (a white pip in the
    middle of a purple die among dice with dark pips), none wrong. So is a pip whose face, not quite plain (camera
    noise, a die's shading: roughness 0.08..0.11), cost it its confidence: renders at 60-90 px, 25-45 px, 18-36 px
    and crowded scenes read 22, 51, 17 and 35 more dice sure, none wrong. Otherwise the reading stands (a numeral the
    net reads as surely, a die of another type)."""
    if pip is None or reading.die_type != "d6":
        return reading
    vouched = pip.uncapped is not None and reading.confidence < UNSURE_BELOW
    weight = pip.uncapped if vouched and pip.uncapped is not None else pip.confidence
    if reading.confidence >= weight or (reading.value == 1 and not vouched):
        return reading
    confidence = min(weight, 1.0 if vouched else AMBIGUOUS_CAP, CUT_CONFIDENCE_MAX if body.cut else 1.0)
    if reading.value == 1:  # the classifier's own unsure 1
        return replace(reading, confidence=confidence)
    alternatives = ([("d6", reading.value)] if reading.value is not None else []) + \
        [a for a in reading.alternatives if a != ("d6", 1)]
    return replace(reading, value=1, confidence=confidence,
                   alternatives=alternatives[:max(1, len(reading.alternatives))])  # as many as the classifier gave


#: A die's colour is not the ground's: at most this many pixels of its colour lie outside every body,
#: per body pixel (DieBody.ground_share). Measured on real photos (../shared/datasets): lone dice on
#: paper, wood and in a dice dome 0.1..0.75; patches of wood grain, floor and laptop keys 0.5..500,
#: median 5.
GROUND_SHARE_MAX = 1.0
#: Beside pip dice, a numbered die's box side is within these multiples of the pip faces' median box
#: side (a pip face's box holds its pips, about 0.7 of the die; a 22 mm d20 beside a 16 mm d6 is
#: about twice its pip box).
SIZE_BESIDE_PIP_DICE = (0.8, 2.2)
#: Beside pip dice, a numbered die lies on the same ground: the median Lab colours around the two
#: differ by at most this (sum of |dL|, |da|, |db|, OpenCV 8-bit Lab); a laptop key lies on the laptop.
#: Tried in session 47, |dL| weighed half (a floor lit unevenly: a blue die showing 1 on green felt, 18 L darker
#: than round the frame's pip dice, was no die): renders of pip d6 in random colours found 38 more dice (25-45 px 10,
#: crowds 13), none sure and wrong, but matteop65's small-dice and shrunk frames read 3 things no one threw as unsure
#: d8, d10 and d20: not kept.
SAME_GROUND_LAB = 25.0
#: Beside pip dice (whose ground is known), a numbered die's colour must be rarer on the ground than
#: alone: wood-grain patches next to dice measured ground_share 0.6..1.0.
GROUND_SHARE_BESIDE_PIP_DICE = 0.5


def reading_copy(image: np.ndarray) -> tuple[np.ndarray, float]:
    """The copy of a frame (HxWx3 uint8 BGR) that DiceReader reads: at most READ_LONG_SIDE px long
    (downscaled with INTER_AREA), its sensor noise smoothed off (noise.smoothed; the frame itself when it
    is no longer and not noisy), and its scale f (copy px per frame px, 1.0 when not downscaled)."""
    f = analysis_scale(image.shape, READ_LONG_SIDE)
    return smoothed(image if f == 1.0 else cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)), f


def whole_boxes(bodies: list[DieBody]) -> list[tuple[int, int, int, int]]:
    """The boxes (x, y, w, h px) of the bodies whole in the frame, which the view's floor must hold
    (view.FloorOutlines.view): a body cut by the frame's border (DieBody.cut; read only with a die set
    or a reference frame, and then unsure) lies partly outside the frame, so no floor in it holds it,
    and taking it would make an oblique scene top-down (realdice with a calibrated set: 20 of 40
    photos had such a body at the left edge)."""
    return [b.box for b in bodies if not b.cut]


def bodies_to_read_ahead(image: np.ndarray, found: list[DieBody], read_all: bool) -> list[int]:
    """The indices into found (find_die_bodies' bodies of image, HxWx3 uint8 BGR) of the bodies the second
    process reads ahead: read_all (a die set or a reference frame: every body not of the ground's
    colour, _cut_ground) or those is_die_like without pip dice beside them (with pip dice found,
    is_die_like asks more, never less)."""
    return [i for i, b in enumerate(found) if (not _cut_ground(b) if read_all else is_die_like(image, b))]


def _cut_ground(body: DieBody) -> bool:
    """Whether a body cut by the frame's border is of the ground's colour (ground_share over
    GROUND_SHARE_MAX, the test is_die_like puts to every body): with a die set or a reference frame,
    which read cut bodies (unsure), such a blob is the edge of the table, a dome or a laptop, not a
    die. Measured at the reading size: realdice's cut blobs 0.44..4.4 (27 of 32 over 1.0); on
    matteop65's Valid photos a calibrated set read 16 cut blobs as unsure dice that are none."""
    return body.cut and body.ground_share > GROUND_SHARE_MAX


#: The ground round a box is measured in the box grown by this share of its size on every side (ground_colour)
GROUND_RING = 0.33


def ground_colour(image: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """Median Lab colour (3, float, OpenCV 8-bit Lab) of the ring around box (x, y, w, h px): the box
    grown by GROUND_RING of its size on every side, minus the box; the whole frame's when that ring lies off it."""
    H, W = image.shape[:2]
    gx, gy, gw, gh = clip_box(grown(box, GROUND_RING), image.shape)
    ring = np.ones((gh, gw), bool)
    x, y, w, h = box
    ring[max(0, y - gy):max(0, y + h - gy), max(0, x - gx):max(0, x + w - gx)] = False
    px = image[gy:gy + gh, gx:gx + gw][ring]
    if len(px) == 0:
        px = image.reshape(-1, 3)
    return channel_medians(cv2.cvtColor(px.reshape(1, -1, 3), cv2.COLOR_BGR2LAB))  # one row: see detect._median_lab


def is_die_like(image: np.ndarray, body: DieBody, beside: tuple[float, np.ndarray] | None = None) -> bool:
    """Whether a body found without a reference frame is a die, judged apart from which face it shows:
    whole in the frame (not cut by its border), compact (find_die_bodies already asks it), of a colour
    that is not the ground's (ground_share <= GROUND_SHARE_MAX). When pip dice lie in the same frame
    (read sure), beside = (their faces' median box side px, the median Lab colour around them): the
    body must also be of a size plausible next to them, lie on the same ground, and be rarer on it
    (GROUND_SHARE_BESIDE_PIP_DICE). image: HxWx3 uint8 BGR, the frame body was found in."""
    if body.cut or body.ground_share > GROUND_SHARE_MAX:
        return False
    if beside is None:
        return True
    pip_side, ground = beside
    lo, hi = SIZE_BESIDE_PIP_DICE
    return (lo * pip_side <= max(body.box[2:]) <= hi * pip_side
            and body.ground_share <= GROUND_SHARE_BESIDE_PIP_DICE
            and float(np.abs(ground_colour(image, body.box) - ground).sum()) <= SAME_GROUND_LAB)


def whole_in_frame(face: PipFace, image: np.ndarray) -> bool:
    """Whether a pip face (frame px) is whole in the frame image (HxWx3 uint8 BGR): its layout lies in it
    (pips.layout_in_frame; a 1's, however its face is turned, and its face plain where a 3's or 5's corner pips
    would lie: pips.lone_pip_in_frame) and it is no side face whose top face the frame's edge cut
    (pips.top_face_past_edge). A face that is not is read at most CUT_CONFIDENCE_MAX."""
    if top_face_past_edge(face, image.shape):
        return False
    return layout_in_frame(face, image.shape) or (
        len(face.pips) == 1 and lone_pip_in_frame(face, cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)))


def in_reading_order(readings: list[DieReading]) -> list[DieReading]:
    """Readings in rows top to bottom (a row: centres within half a typical die height), each row left
    to right."""
    if not readings:
        return readings
    row_h = max(1.0, float(np.median([r.box[3] for r in readings])))
    return sorted(readings, key=lambda r: (round((r.box[1] + r.box[3] / 2) / row_h), r.box[0]))


def clip_box(box: tuple[int, int, int, int], shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """box (x, y, w, h) px cut to a frame of shape (H, W, ...)."""
    x, y, w, h = box
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(shape[1], x + w), min(shape[0], y + h)
    return x0, y0, max(0, x1 - x0), max(0, y1 - y0)


def pip_die_body(image: np.ndarray, face: PipFace) -> DieBody:
    """The die under a pip face (image: HxWx3 uint8 BGR) as a body for a calibrated set to read: the
    face's box (which holds its pips, about PIP_BOX_OF_DIE of the die's side) grown to the die,
    clipped to the frame, with a mask over all of it."""
    grow = (1 / PIP_BOX_OF_DIE - 1) / 2
    box = clip_box(grown(face.box, grow), image.shape)
    return DieBody(box, np.full((box[3], box[2]), 255, np.uint8))


def _glint(face: PipFace, bodies: list[DieBody]) -> bool:
    """True when a pip face is light pips the pip reader is unsure of with no die body (bodies)
    around its centre: specular highlights (bright, tiny, on no die). Light pips unsure only for a glint beside them
    that may hide a pip of theirs (PipFace.as_face) are a die's face, no glint: a dark red 3 on a dark floor, its
    body unfound, read as a 2 a glint put in doubt, was lost so (the glint render probe's scene 153 at 60-90 px).
    Tried in session 47: a face of 3 or more light pips is no glint (highlights make one or two spots). Renders of
    pip d6 in random colours (dark dice on a dark floor, whose bodies go unfound) found 76 more dice, 72 of them
    right, all unsure (crowds 33, 18-36 px 25, 25-45 px 10), the numbered sets read as before, but a laptop key's
    "fn" in matteop65's dice_31, light strokes read as an unsure 3, became a die no one threw: not kept. Asking for
    3 pips at the analysis scale as well kept out the key (2 strokes there) but found 5 of the 76."""
    return (face.polarity == "light" and face.as_face < UNSURE_BELOW
            and not any(holds(b.box, face.centre) for b in bodies))


def _light_dice_unseen(faces: list[PipFace], bodies: list[DieBody]) -> bool:
    """True when a sure face of several light pips has no die body (bodies) around its centre: the frame's dark
    dice are not told from their tray (black dice on a black felt tray), so no body round light pips says nothing
    of a die there, and light pips the pip reader is unsure of are no glints but faces of such dice, kept unsure
    (_glint is not asked). A black d6 showing 1 beside a black 3 and white dice on a dark tray (synth renders) was
    lost as a glint before. faces: the frame's pip faces; bodies: its die bodies (find_die_bodies), frame px."""
    return any(f.polarity == "light" and len(f.pips) > 1 and f.as_face >= UNSURE_BELOW
               and not any(holds(b.box, f.centre) for b in bodies) for f in faces)
