"""Dice at the frame's edge. Frames of any size are read: a die body's box scaled back from the analysis
size must stay inside the frame (detect._in_frame; a 376 px wide frame is 251 px at the 320 analysis
scale, and a body ending at its right edge scaled back ended at 377: reading it raised IndexError
before). A pip face the edge cuts is not read sure (pips.layout_in_frame, pips.runs_off), nor a side face
whose top face the edge cut off (pips.top_face_past_edge), and a whole face by the edge, its die's face ending
inside the frame or cut only past its pips, stays sure, as does a 1 whose die the edge cuts where a 3's or 5's
corner pip would show whatever the turn (pips.lone_pip_in_frame)."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from dicetower.paths import shared_dir
from dicetower.vision.detect import find_die_bodies
from dicetower.vision.pips import Pip, PipFace, lone_pip_in_frame
from dicetower.vision.reader import DiceReader
from dicetower.vision.scoring import load_labels, match

PHOTO = "matteop65_table_d6/images/Train/five_19.jpg"


@pytest.fixture(scope="module")
def photo():
    path = shared_dir() / "datasets" / PHOTO
    if not path.is_file():
        pytest.skip(f"needs ../shared/datasets ({path} not found)")
    return cv2.imread(str(path))


@pytest.mark.parametrize("width", [376, 377, 333])
def test_bodies_lie_in_frames_of_odd_widths(photo, width):
    """Every body's box lies in the frame and its mask has the box's size."""
    frame = photo[:, :width]
    for body in find_die_bodies(frame):
        x, y, w, h = body.box
        assert 0 <= x and 0 <= y and x + w <= frame.shape[1] and y + h <= frame.shape[0]
        assert body.mask.shape == (h, w)


def test_a_frame_cut_through_a_die_is_read(photo):
    """The photo cut through a die (a 5 at x 345..375) is read, not an error: its dice are d6."""
    readings = DiceReader().read(photo[:, :376])
    assert readings and all(r.die_type == "d6" for r in readings)


@pytest.mark.parametrize("image, box, cut_at", [
    ("images/Train/four_1.jpg", (284, 189, 58, 54), 318),
    ("images/Train/four_21.jpg", (309, 265, 41, 43), 333),
    ("images/Valid/valid_60.jpg", (246, 303, 45, 45), 273),
])
def test_a_face_the_frame_cuts_is_not_read_sure(image, box, cut_at):
    """A 4 whose right column of pips the frame's edge cuts off shows a 2's pair of pips; the places of
    its layout past the edge may hold pips (pips.layout_in_frame), so the die is not read as a sure 2.
    Before: each read as a 2 at 0.99, sure."""
    path = shared_dir() / "datasets" / "matteop65_table_d6" / image
    if not path.is_file():
        pytest.skip(f"needs ../shared/datasets ({path} not found)")
    frame = cv2.imread(str(path))[:, :cut_at]
    x, y, w, h = box
    on_die = [r for r in DiceReader().read(frame)
              if r.box[0] + r.box[2] >= cut_at - 25 and r.box[1] <= y + h / 2 <= r.box[1] + r.box[3]]
    assert on_die, "the cut die is read (unsure), not lost"
    assert all(r.unsure or r.value == 4 for r in on_die)


def _matteo() -> tuple:
    folder = shared_dir() / "datasets" / "matteop65_table_d6"
    if not (folder / "labels.csv").is_file():
        pytest.skip(f"needs ../shared/datasets ({folder} not found)")
    return folder, load_labels(folder)


@pytest.mark.parametrize("image, at, side, kept", [
    ("images/Train/four_1.jpg", (284, 189), "left", 0.75),  # a 4 cut to one column: read as a 2 at 0.998
    ("images/Train/four_1.jpg", (284, 189), "top", 0.75),  # the same 4 cut at the top: a 2 at 0.993
    ("images/Train/six_1.jpg", (264, 219), "bottom", 0.75),  # a 6 cut to two rows: a 4 at 0.909
    ("images/Train/six_27.jpg", (355, 303), "left", 0.6),  # a 6 cut to two pips: a 2 at 0.977
    ("images/Train/six_57.jpg", (255, 201), "left", 0.75),  # a 3 cut to a corner and the centre: a 2 at 0.926
    ("images/Train/two_16.jpg", (222, 203), "top", 0.75),  # a 2 cut to one pip, the other on the diagonal: a 1 at 1.0
    ("images/Train/dice_8.jpg", (371, 254), "top", 0.4),  # a 1's top face cut off, its side face: a 4 at 0.976
])
def test_a_face_cut_on_any_side_is_not_read_sure_and_wrong(image, at, side, kept):
    """The frame cut through a labelled die's pip box, keeping `kept` of it, on the given side: the die
    read there (its box reaching within 25 px of the cut edge and spanning the label's centre along
    it) is read unsure or right. Before pips.runs_off each was read sure and wrong (in the comments), dice_8's
    before pips.top_face_past_edge: the frame shows only a side face of that die, as foreshortened as a side
    face is and by the edge past which its top face lies."""
    folder, labels = _matteo()
    label = next(r for r in labels[image] if (int(r["x"]), int(r["y"])) == at)
    x, y, w, h = (int(label[k]) for k in "xywh")
    cx, cy = x + w / 2, y + h / 2
    photo = cv2.imread(str(folder / image))
    if side == "left":
        cut = int(x + (1 - kept) * w)
        frame, cx = photo[:, cut:], cx - cut
    elif side == "top":
        cut = int(y + (1 - kept) * h)
        frame, cy = photo[cut:], cy - cut
    else:
        cut = int(y + kept * h)
        frame = photo[:cut]
    height, width = frame.shape[:2]

    def at_cut(box):
        bx, by, bw, bh = box
        if side == "left":
            return bx <= 25 and by <= cy <= by + bh
        if side == "top":
            return by <= 25 and bx <= cx <= bx + bw
        return by + bh >= height - 25 and bx <= cx <= bx + bw

    on_die = [r for r in DiceReader().read(frame) if at_cut(r.box)]
    assert on_die, "the cut die is read (unsure), not lost"
    assert all(r.unsure or str(r.value) == label["value"] for r in on_die), [(r.value, r.confidence) for r in on_die]


@pytest.mark.parametrize("image, at", [
    ("images/Valid/valid_8.jpg", (326, 21)),  # a 2, 4 px of table between its die and the top edge
    ("images/Valid/valid_24.jpg", (410, 5)),  # a square 4 whose face's corner the top edge cuts
    ("images/Valid/valid_62.jpg", (178, 17)),  # a 1 whose face runs on to the top edge, as far as below it
    ("images/Valid/valid_16.jpg", (443, 28)),  # a 3 near the top edge, its pips 0.69 round (a side face's are less)
])
def test_a_whole_face_by_the_edge_stays_sure(image, at):
    """A whole face next to the frame's edge is read sure and right: its die's face ends inside the
    frame, or the edge cuts it no further from its pips' centre than the face reaches on the other
    side (pips.runs_off), and its pips are rounder than a side face's (pips.top_face_past_edge). Taking every
    face whose die reaches the edge as cut made these unsure."""
    folder, labels = _matteo()
    dice = [r.to_json() for r in DiceReader().read(cv2.imread(str(folder / image)))]
    label, die = next((lab, die) for lab, die in match(labels[image], dice) if (int(lab["x"]), int(lab["y"])) == at)
    assert die is not None, "the die is found"
    assert not die["unsure"] and str(die["value"]) == label["value"], die


def test_a_1_whose_face_one_edge_cuts_is_read_sure():
    """dice_37's 1 lies at the bottom edge, its pip (12.5 px across) 1.34 diameters from it: its die runs off the
    frame. However its face is turned, a 3 or 5 would show a corner pip on the side the frame keeps
    (pips.lone_pip_in_frame), where the face is plain: it is read a sure 1. Before, unsure (0.5: a circle of corner
    places round the pip had to lie in the frame), and so in the bench's shrunk, grainy and small-dice frames."""
    folder, labels = _matteo()
    image = "images/Train/dice_37.jpg"
    dice = [r.to_json() for r in DiceReader().read(cv2.imread(str(folder / image)))]
    die = next(die for lab, die in match(labels[image], dice) if (int(lab["x"]), int(lab["y"])) == (311, 448))
    assert die is not None, "the die is found"
    assert die["value"] == 1 and not die["unsure"], die


def _lone_pip_frame(x: float, y: float, face_at: tuple[float, float],
                    light: bool = False) -> tuple[PipFace, np.ndarray]:
    """A 640x480 grey frame: a floor (150), a die face 60 px square centred at face_at (210) and on it a pip 10 px
    across at (x, y) (40); light: the face dark (60) and the pip light (230). Returns the pip's face and the frame."""
    floor, face, pip = (150, 60, 230) if light else (150, 210, 40)
    gray = np.full((480, 640), floor, np.uint8)
    fx, fy = face_at
    cv2.rectangle(gray, (int(fx) - 30, int(fy) - 30), (int(fx) + 30, int(fy) + 30), face, -1)
    cv2.circle(gray, (round(x), round(y)), 5, pip, -1, cv2.LINE_AA)
    lone = Pip(x, y, math.pi * 25.0, 1.0, 0.0, 120.0)
    return PipFace([lone], 1, 0.99, (int(x) - 20, int(y) - 20, 40, 40), False, "light" if light else "dark",
                   (x, y), runs_off_asked=True), gray


@pytest.mark.parametrize("x, y, face_at, whole", [
    (320.0, 240.0, (320.0, 240.0), True),  # a 1 in the middle of the frame
    (320.0, 467.0, (320.0, 467.0), True),  # 1.3 diameters from the bottom edge: its corner places above it are seen
    (13.0, 240.0, (13.0, 240.0), True),  # so from the left edge
    (627.0, 467.0, (627.0, 467.0), False),  # 1.3 diameters from two edges: a 3 turned along the corner's diagonal
    #                                         shows neither corner pip
    (320.0, 472.0, (320.0, 472.0), False),  # 0.8 diameters from it: too little face toward the edge to tell a 2's pip
    (300.0, 467.0, (318.0, 467.0), False),  # a corner pip of a face the bottom edge cut to it: the floor 13 px off
])
def test_a_lone_pip_by_the_edge_is_a_whole_1_where_a_3_or_5_would_show_a_corner_pip(x, y, face_at, whole):
    """A dark lone pip's layout lies in the frame when one of each two opposite corner places (a 3's; a 5's two
    pairs) does, however the face is turned, and the face is plain there (a corner pip of a larger face, the rest
    cut off, has its die's edge that close); a light lone pip's is not asked so (a glyph or highlight's die, if
    any, the edge may cut off)."""
    face, gray = _lone_pip_frame(x, y, face_at)
    assert lone_pip_in_frame(face, gray) is whole
    # not where the edge was not looked along for pips cut off (a lone pip at a close-up scale: pips.runs_off)
    assert not lone_pip_in_frame(replace(face, runs_off_asked=False), gray)
    face, gray = _lone_pip_frame(x, y, face_at, light=True)
    assert not lone_pip_in_frame(face, gray)


def test_a_lone_pip_by_a_pip_the_edge_cuts_is_no_whole_1():
    """A line of 3 cut to its end pip by the edge, a sliver of its middle pip left at the edge: the face round the
    end pip is plain, but a pip the edge cuts lies within a 3's reach of it."""
    face, gray = _lone_pip_frame(320.0, 467.0, (320.0, 467.0))
    assert lone_pip_in_frame(face, gray)
    cv2.circle(gray, (335, 482), 5, 40, -1, cv2.LINE_AA)  # the middle pip, its centre 2 px past the bottom edge
    assert not lone_pip_in_frame(face, gray)


@pytest.mark.parametrize("image, box, side, kept", [
    ("images/Valid/valid_20.jpg", (340, 131, 51, 52), "left", 0.75),  # a 4 cut to one column: a sure 2
    ("images/Valid/valid_42.jpg", (360, 126, 57, 59), "left", 0.6),  # a 6 cut to one column: a sure 2
    ("images/Valid/valid_80.jpg", (78, 76, 57, 59), "bottom", 0.6),  # a 6 cut to two rows: a sure 2
])
def test_a_close_up_cut_through_its_die_is_not_read_sure_and_wrong(image, box, side, kept):
    """A close-up (scoring.close_up: the die spanning half the frame's height, as a phone held near the dice
    shows it) whose frame's edge cuts through the die's pips, keeping `kept` of its pip box. Its pips are
    read at a close-up scale, where whether the face runs on to the edge (pips.runs_off) was not asked: a
    die filling the frame has white side faces as light as its top face. Each of these was read as a sure,
    smaller face (in the comments); bench's close-ups, cut so through each of their dice on each side (40, 60
    and 75 % of the pip box kept: 2189 frames), read 189 such dice sure, every one wrong; now 18, 16 of them a 2
    cut to one pip and read as a 1 (a lone pip is not asked at a close-up scale: pips.runs_off)."""
    from dicetower.vision.scoring import close_up

    folder, labels = _matteo()
    label = next(r for r in labels[image] if tuple(int(r[k]) for k in "xywh") == box)
    frame, (x0, y0, k) = close_up(cv2.imread(str(folder / image)), box, 0.5)
    x, y, w, h = (box[0] - x0) * k, (box[1] - y0) * k, box[2] * k, box[3] * k
    if side == "left":
        cut = int(x + (1 - kept) * w)
        frame, kept_box = frame[:, cut:], (0, y, x + w - cut, h)
    else:
        cut = int(y + kept * h)
        frame, kept_box = frame[:cut], (x, y, w, cut - y)

    def on_die(r) -> bool:  # the reading's box meets the part of the die's pip box the frame keeps
        bx, by, bw, bh = r.box
        kx, ky, kw, kh = kept_box
        return bx < kx + kw and bx + bw > kx and by < ky + kh and by + bh > ky

    at_cut = [r for r in DiceReader().read(frame) if on_die(r)]
    assert at_cut, "the cut die is read (unsure), not lost"
    assert all(r.unsure or str(r.value) == label["value"] for r in at_cut), [(r.value, r.confidence) for r in at_cut]
