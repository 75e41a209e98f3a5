"""Glints, the lamp's reflection on glossy dice (vision.glints): one that washes a pip out leaves the face of the
pips left unsure, never read sure as a smaller face; a glint along a white die's rounded edge, or a white floor round
a dark die, hides no pip and the face stays sure."""

import itertools

import cv2
import numpy as np
import pytest

from dicetower import paths
from dicetower.readings import UNSURE_BELOW, DieReading
from dicetower.vision import glints
from dicetower.vision.camera import load_image
from dicetower.vision.detect import KERNEL_PX, find_die_bodies
from dicetower.vision.pips import Pip, _layout_map, _pip_direction, _roundness, _smeared_alike, read_faces
from dicetower.vision.reader import DiceReader, _pip_die_face
from bench.probes import pip_scene
from bench.vision import glinted_photos


@pytest.fixture(scope="module")
def reader() -> DiceReader:
    return DiceReader()


def read_in(reader: DiceReader, frame: np.ndarray, box: list[int]) -> list[DieReading]:
    """The readings of frame whose box's centre lies in box (x, y, w, h px)."""
    x, y, w, h = box
    return [r for r in reader.read(frame)
            if x <= r.box[0] + r.box[2] / 2 <= x + w and y <= r.box[1] + r.box[3] / 2 <= y + h]


def drawn_face(pips: list[tuple[int, int]], spot: tuple[int, int] | None, face: int = 200, pip: int = 40,
               floor: int = 120, glint_px: int = 11) -> np.ndarray:
    """A 120x120 grey frame (floor: its grey level): a 60 px die face (grey `face`, from 30 to 89 px) in its middle,
    pips 8 px across (grey `pip`) at pips (px), and a glint (grey 255, glint_px across) at spot."""
    gray = np.full((120, 120), floor, np.uint8)
    cv2.rectangle(gray, (30, 30), (89, 89), face, -1)
    for x, y in pips:
        cv2.circle(gray, (x, y), 4, pip, -1, cv2.LINE_AA)
    if spot is not None:
        cv2.circle(gray, spot, glint_px // 2, 255, -1, cv2.LINE_AA)
    return gray


def hides(gray: np.ndarray, pips: list[tuple[int, int]]) -> bool:
    """glints.hides_pip of the face of pips (2 or more, 8 px across) in gray, as pips.read_faces asks it."""
    centres = np.array(pips, np.float64)
    return glints.hides_pip(centres, np.full(len(pips), 8.0), _layout_map(centres)[1], gray)


def test_a_glint_where_a_3s_corner_pip_would_be_puts_the_2_left_in_doubt():
    two = [(60, 60), (75, 75)]  # a 3's centre and corner pip: its other corner at (45, 45)
    assert hides(drawn_face(two, spot=(45, 45)), two)
    assert not hides(drawn_face(two, spot=None), two)


def test_a_glint_over_a_3s_corner_that_runs_into_a_white_floor_puts_the_2_left_in_doubt():
    """The glint is no blob of its own there (it runs on into the floor, as the floor round any die does), but where
    the 3's other corner pip would be it is a glint's grey, and the die goes on round that place."""
    two = [(60, 60), (75, 75)]  # a 3's centre and corner pip: its other corner at (45, 45), its face's corner (30, 30)
    assert hides(drawn_face(two, spot=(38, 38), floor=252, glint_px=23), two)
    assert not hides(drawn_face(two, spot=None, floor=252), two)
    two = [(45, 45), (75, 75)]  # a 2 on a white floor: past its corner pips lies the floor, round that too
    assert not hides(drawn_face(two, spot=None, floor=252), two)


def test_a_glint_that_joins_a_3s_light_corner_pip_puts_the_2_left_in_doubt():
    """A glint smaller than a pip beside a light pip: the two make one blob, neither pip nor glint, so neither is
    found; that corner is as light as the face's pips, a glint beside it."""
    two = [(60, 60), (75, 75)]  # light pips on a dark die, a 3's centre and corner pip
    gray = drawn_face(two, spot=None, face=50, pip=200)
    cv2.circle(gray, (45, 45), 4, 200, -1, cv2.LINE_AA)  # its other corner pip, found as no pip:
    cv2.circle(gray, (40, 45), 3, 255, -1, cv2.LINE_AA)  # a glint joins it
    assert hides(gray, two)
    gray = drawn_face(two, spot=None, face=50, pip=200)
    cv2.circle(gray, (40, 45), 3, 255, -1, cv2.LINE_AA)  # the glint alone: too small to hide a pip
    assert not hides(gray, two)


def drawn_side_face(pitch_down: int, glint: bool) -> bool:
    """glints.hides_pip of a 4 whose pips are 24 px apart across and 2 x pitch_down px down (a side face seen from
    low when pitch_down is small), below its die's top face, a glint (16 px across) on that top face 42 px above the
    4's middle."""
    gray = np.full((140, 120), 120, np.uint8)
    cv2.rectangle(gray, (30, 20), (89, 57), 215, -1)  # the top face
    cv2.rectangle(gray, (30, 58), (89, 70 + 2 * pitch_down), 200, -1)  # the face below it
    pips = [(60 + across, 72 + down) for across in (-12, 12) for down in (-pitch_down, pitch_down)]
    for x, y in pips:
        cv2.ellipse(gray, (x, y), (4, max(2, pitch_down // 3)), 0, 0, 360, 40, -1, cv2.LINE_AA)
    if glint:
        cv2.circle(gray, (60, 30), 8, 255, -1, cv2.LINE_AA)
    centres = np.array(pips, np.float64)
    return glints.hides_pip(centres, np.full(len(pips), 8.0), _layout_map(centres)[1], gray)


def test_a_glint_on_the_top_face_above_a_side_face_puts_the_side_face_in_doubt():
    """A side face (seen from low: foreshortened) whose die's top face a glint lit: the top face's pip may be under
    it (a 1: then no top face is read, and the side face was read as a sure die no one threw). A face seen square on
    with a glint as far off is not put in doubt: the glint is on something else."""
    assert drawn_side_face(7, glint=True)
    assert not drawn_side_face(7, glint=False)
    assert not drawn_side_face(12, glint=True)


def drawn_below_a_glint(pips: list[tuple[int, int]], roundness: float, angles: list[int], glint: bool) -> bool:
    """glints.hides_pip, as pips.read_faces asks it, of a face of pips (Pips 8 px long, roundness minor/major, their
    major axes at angles, degrees) below its die's top face, a glint (16 px across, 50-55 px above the pips) on that top
    face when glint."""
    gray = np.full((140, 120), 120, np.uint8)
    cv2.rectangle(gray, (30, 5), (89, 57), 215, -1)  # the top face
    cv2.rectangle(gray, (30, 58), (89, 95), 200, -1)  # the face below it
    for (x, y), turn in zip(pips, angles):
        cv2.ellipse(gray, (x, y), (4, max(1, int(round(4 * roundness)))), turn, 0, 360, 40, -1, cv2.LINE_AA)
    if glint:
        cv2.circle(gray, (60, 20), 8, 255, -1, cv2.LINE_AA)
    dia = 8.0 * np.sqrt(roundness)
    group = [Pip(x, y, np.pi / 4 * dia * dia, roundness, turn, 150.0) for (x, y), turn in zip(pips, angles)]
    centres = np.array(pips, np.float64)
    squash = (_roundness(group), _pip_direction(group)) if _smeared_alike(group) else None
    return glints.hides_pip(centres, np.full(len(pips), dia), _layout_map(centres)[1] if len(pips) > 1 else None,
                            gray, squash)


@pytest.mark.parametrize("pips", [[(45, 70), (60, 70), (75, 70)], [(60, 75)]], ids=["3", "1"])
def test_a_glint_on_the_top_face_above_a_side_3_or_1_puts_it_in_doubt(pips: list[tuple[int, int]]):
    """A side 3's pips lie on one line, so its layout shows no foreshortening (nor has a lone pip a layout); the pips
    do, squashed alike. Its die's top face, beyond it along their minor axis, holds a glint that may wash out a 1's
    pip. Pips seen nearly square on, or squashed each its own way (no face seen obliquely), are not put in doubt by a
    glint so far off."""
    assert drawn_below_a_glint(pips, 0.5, [0] * len(pips), glint=True)
    assert not drawn_below_a_glint(pips, 0.5, [0] * len(pips), glint=False)
    assert not drawn_below_a_glint(pips, 0.9, [0] * len(pips), glint=True)
    if len(pips) == 3:
        assert not drawn_below_a_glint(pips, 0.5, [0, 60, 120], glint=True)


@pytest.mark.parametrize("photo", [1, 3, 8, 16, 19])
def test_a_side_face_below_a_1_a_glint_washed_out_is_no_sure_die(reader: DiceReader, photo: int, tmp_path):
    """The bench's glint row (matteop65's photos with a glint drawn on each labelled die): photos 1, 3, 8 and 16 hold
    a 1 seen from low whose pip a glint washed out or crowded, the 1 unread, and its side face, a 4 (1, 16) or a 3 (3,
    8), was read as a sure die no one threw; photo 19 a 5 whose glint washed out three pips, its side 1 read so. Every
    sure reading lies on a labelled die's top face."""
    folder = paths.shared_dir() / "datasets" / "matteop65_table_d6"
    path, labels = next(itertools.islice(glinted_photos(folder, tmp_path), photo, None))
    boxes = [tuple(int(lab[c]) for c in "xywh") for lab in labels]
    sure = [r for r in reader.read(load_image(path)) if not r.unsure]
    off = [(r.value, r.box) for r in sure
           if not any(x <= r.box[0] + r.box[2] / 2 <= x + w and y <= r.box[1] + r.box[3] / 2 <= y + h
                      for x, y, w, h in boxes)]
    assert not off


def test_a_white_floor_round_a_dark_face_is_no_glint():
    two = [(50, 50), (70, 70)]  # light pips on a dark die
    assert not hides(drawn_face(two, spot=None, face=55, pip=215, floor=255), two)
    assert hides(drawn_face(two, spot=(70, 50), face=55, pip=215, floor=255), two)


@pytest.mark.parametrize("seed, die, die_px, why", [
    (1, 0, (60, 90), "a blue 3 whose corner pip a glint washed out: read as a sure 2"),
    (20, 1, (60, 90), "an orange 5 whose centre pip a glint washed out: read as a sure 4"),
    (53, 3, (60, 90), "a 2 whose pip a glint washed out: read as a sure 1"),
    (142, 0, (60, 90), "a grey 3 whose corner pip a glint washed out, the 2 left on a face not quite plain and its "
                       "die body vouching for it: read as a sure 2"),
    (211, 3, (60, 90), "a 3 on a white floor whose corner pip a glint running on into the floor washed out: read as "
                       "a sure 2"),
    (289, 2, (60, 90), "a yellow 3 on a white floor, the same"),
    (270, 0, (25, 45), "a red 3 on a white floor, the same"),
    (140, 0, (60, 90), "a black 3 whose light corner pip a small glint joined: read as a sure 2"),
    (153, 0, (60, 90), "a dark red 3 on a dark floor whose light corner pip a small glint joined, no die body found "
                       "round it: read as a sure 2, and lost as a glint once the 2 was unsure"),
    (286, 1, (25, 45), "a blue 3 whose light corner pip a small glint joined, seen so only finer, the 2 read at the "
                       "analysis scale on a face not quite plain and its die body vouching for it: read as a sure 2"),
])
def test_a_glint_that_washes_a_pip_out_leaves_the_face_unsure(reader: DiceReader, seed: int, die: int,
                                                              die_px: tuple[int, int], why: str):
    frame, truths = pip_scene(seed, die_px, glint=1.0)
    truth = truths[die]
    got = read_in(reader, frame, truth["box"])
    assert got, why  # the die is read, unsure, not lost
    wrong_sure = [(r.value, round(r.confidence, 3)) for r in got if r.value != truth["value"] and not r.unsure]
    assert not wrong_sure, (why, truth["value"], wrong_sure)


@pytest.mark.parametrize("x, y", [(567, 234), (470, 195)])
def test_a_glint_along_a_white_dies_rounded_edge_hides_no_pip(reader: DiceReader, x: int, y: int):
    """matteop65's dice_25: two white 1s seen from low, their rounded edges lit white in thin arcs."""
    frame = load_image(paths.shared_dir() / "datasets" / "matteop65_table_d6" / "images" / "Train" / "dice_25.jpg")
    got = read_in(reader, frame, [x - 2, y - 2, 4, 4])
    assert [(r.value, r.unsure) for r in got] == [(1, False)]


@pytest.mark.parametrize("die", [0, 1])
def test_a_white_floor_round_dark_dice_hides_no_pip(reader: DiceReader, die: int):
    """The pip render probe's seed 116 at 60-90 px: two dark 4s with light pips on a white floor, no glint."""
    frame, truths = pip_scene(116, (60, 90))
    got = read_in(reader, frame, truths[die]["box"])
    assert [(r.value, r.unsure) for r in got] == [(4, False)]


def ones_read(gray: np.ndarray) -> list[tuple[int | None, bool]]:
    """The dark-pip faces pips.read_faces reads in gray (HxW uint8), as (value, unsure)."""
    return [(f.value, f.confidence < UNSURE_BELOW) for f in read_faces(gray, "dark", KERNEL_PX)]


def test_a_glint_beside_a_1_is_no_mark_on_its_face():
    """A glint on the face round a 1's pip left the face too rough for a die's (a speck on a pattern, a glyph's dot),
    and the die was lost; it is read, unsure: the glint could hide a 2's other pip (glints.hides_pip)."""
    assert ones_read(drawn_face([(60, 60)], spot=(72, 60))) == [(1, True)]
    assert ones_read(drawn_face([(60, 60)], spot=(60, 75), glint_px=13)) == [(1, True)]
    assert ones_read(drawn_face([(60, 60)], spot=None)) == [(1, False)]


def test_a_white_floor_round_a_face_is_no_glint_on_it():
    """A pip by its die's edge, a white floor within its face's reach: the floor runs on past a glint's reach, so it is
    no glint on the face, and the face round the pip is no plain face of a 1."""
    assert ones_read(drawn_face([(36, 60)], spot=None, floor=252)) == []
    assert ones_read(drawn_face([(36, 60)], spot=None, floor=120)) == []


def glint_row_photo(photo: int, tmp_path) -> tuple[np.ndarray, dict[tuple[int, ...], int]]:
    """The bench's glint row's photo number photo (matteop65's photos with a glint drawn on each labelled die) and its
    labels' values by box (x, y, w, h px)."""
    folder = paths.shared_dir() / "datasets" / "matteop65_table_d6"
    path, labels = next(itertools.islice(glinted_photos(folder, tmp_path), photo, None))
    return load_image(path), {tuple(int(lab[c]) for c in "xywh"): int(lab["value"]) for lab in labels}


@pytest.mark.parametrize("photo, boxes", [
    (14, [(144, 179, 15, 15), (281, 374, 14, 12)]),  # dice_48: two 1s, each pip lit by its glint
    (105, [(328, 146, 24, 22)]),  # a 1
    (76, [(268, 336, 15, 45)]),  # a 3 whose corner pip the glint washed out
    (116, [(326, 21, 48, 32)]),  # a 2
])
def test_dice_whose_faces_a_glint_lit_are_found(reader: DiceReader, photo: int, boxes: list[tuple[int, int, int, int]],
                                               tmp_path):
    """These dice of the bench's glint row were lost: the glint left the face round their pips too rough for a die's.
    Each is found now; a reading the glint may have changed is unsure, and none is sure and wrong."""
    frame, truth = glint_row_photo(photo, tmp_path)
    for box in boxes:
        got = read_in(reader, frame, list(box))
        assert got, box
        assert all(r.unsure or r.value == truth[box] for r in got), (box, [(r.value, r.unsure) for r in got])


@pytest.mark.parametrize("photo", [27, 29])
def test_a_face_a_glint_split_is_one_die(reader: DiceReader, photo: int, tmp_path):
    """A glint that washes out a pip in the middle of a face may leave one of its pips apart from the others: read
    with the glint left out of its face, that pip was a 1 beside its die's other pips (a 5 read as a 2 and a 1), a
    die no one threw. Every reading lies on a labelled die, at most one to a die (photo 27 still loses a 5 whose
    centre pip the glint washed out)."""
    frame, truth = glint_row_photo(photo, tmp_path)
    read = reader.read(frame)
    on = [[r for r in read if x <= r.box[0] + r.box[2] / 2 <= x + w and y <= r.box[1] + r.box[3] / 2 <= y + h]
          for x, y, w, h in truth]
    assert all(len(rs) <= 1 for rs in on), [[(r.value, r.box) for r in rs] for rs in on]
    assert sum(len(rs) for rs in on) == len(read)


def test_a_glint_in_a_pip_dies_middle_is_no_sure_1():
    """The glint render probe's scene 198 at 60-90 px: a green 2 with orange pips, a glint in its middle. Read finer in
    its body (a pip die beside the frame's sure ones, reader._pip_die_face), the glint was a sure 1 of a light pip;
    a light pip at the camera's ceiling is as likely a glint, so the 1 is unsure."""
    frame, truths = pip_scene(198, (60, 90), glint=1.0)
    x, y, w, h = truths[2]["box"]
    body = next(b for b in find_die_bodies(frame, None)
                if b.box[0] <= x + w / 2 <= b.box[0] + b.box[2] and b.box[1] <= y + h / 2 <= b.box[1] + b.box[3])
    face = _pip_die_face(frame, body)
    assert face is not None and (face.value, face.polarity) == (1, "light")
    assert face.confidence < UNSURE_BELOW
    # read whole, beside the 3 at the bottom left read sure, the body is a numbered die's to the face classifier and
    # that light 1 its lone pip, which no body vouches for either
    got = read_in(DiceReader(), frame, truths[2]["box"])
    assert got and all(r.unsure or r.value == 2 for r in got), [(r.value, r.unsure) for r in got]


def test_a_die_whose_pips_a_glint_washed_out_is_read_unsure_not_lost(reader: DiceReader, tmp_path):
    """The bench's glint row, photo 13: a 1 whose pip the glint all but covers, beside dice read sure. Its body is no
    numbered die beside them and read finer it shows no pip; a glint lights it, so it is a pip die whose pips the glint
    washed out, read by the face classifier, unsure, not lost."""
    frame, _ = glint_row_photo(13, tmp_path)
    got = read_in(reader, frame, [400, 362, 21, 17])
    assert got and all(r.unsure for r in got)


def test_a_glint_lights_a_body_a_white_die_does_not():
    """glints.lights_body: a grey die body with a glint on it is lit; the same body without one is not, nor is a white
    body at the glint's grey all over."""
    frame = np.full((60, 60, 3), 120, np.uint8)
    cv2.rectangle(frame, (10, 10), (49, 49), (200, 200, 200), -1)
    mask = np.full((40, 40), 255, np.uint8)
    assert not glints.lights_body(frame, (10, 10, 40, 40), mask)
    cv2.circle(frame, (25, 25), 5, (255, 255, 255), -1)
    assert glints.lights_body(frame, (10, 10, 40, 40), mask)
    cv2.rectangle(frame, (10, 10), (49, 49), (253, 253, 253), -1)
    assert not glints.lights_body(frame, (10, 10, 40, 40), mask)


@pytest.mark.parametrize("photo", [46, 100])
def test_a_frame_whose_every_face_a_glint_left_unsure_loses_no_die(reader: DiceReader, photo: int, tmp_path):
    """Glint-row photos 46 (five 4s) and 100 (five 2s): every face reads unsure for its glint, so no sure face told the
    frame's scale, and the dice's bodies were taken for the pips of a close-up face boxed over several of them
    (detect.large_pip_faces): every die was lost. The pips of faces of two pips or more tell the scale now: each die is
    read, and none sure and wrong."""
    frame, truth = glint_row_photo(photo, tmp_path)
    for box, value in truth.items():
        got = read_in(reader, frame, list(box))
        assert got, box
        assert all(r.unsure or r.value == value for r in got), (box, [(r.value, r.unsure) for r in got])
