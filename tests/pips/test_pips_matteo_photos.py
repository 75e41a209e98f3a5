"""The pip reader (dicetower.vision.pips.read_faces, dark pips) on the labelled matteop65 webcam photos
in ../shared (skipped when absent): white d6 with black pips on a wooden table, 640x480, the analysis
scale itself. Floors sit a little under the figures measured when this file was written, so that a
regression fails and a one-die wobble does not."""

import cv2
import pytest

from dicetower import paths
from dicetower.readings import UNSURE_BELOW
from dicetower.vision.detect import KERNEL_PX
from dicetower.vision.pips import read_faces
from dicetower.vision.scoring import load_labels, match

MATTEO = paths.shared_dir() / "datasets" / "matteop65_table_d6"
needs_shared = pytest.mark.skipif(not MATTEO.is_dir(), reason=f"labelled photos not found at {MATTEO}")

#: Train photos where dice move: pips smeared along the motion, merged into bars or crowded by their
#: neighbours. Measured: 50 of 55 dice read right (31 before pips were split and weak pips read, 44
#: before faint pips were read on a face their layout vouches for, 47 before streaked pips were measured
#: beside their streak and a 3 in motion on a rough face kept unsure), none wrong and sure.
BLURRED = ["four_50", "six_42", "six_43", "six_44", "six_45", "six_46", "six_47", "six_49", "two_23",
           "two_47", "three_29", "three_36"]
#: Valid/valid_56's label "4" boxes a die whose top face shows 1 (label error, seen in the photo).
LABEL_ERRORS = {("images/Valid/valid_56.jpg", "4")}


def _score(images: list[str]) -> dict[str, int]:
    """Counts over the images: labelled dice, read right, read wrong but sure, faces read, unsure."""
    labels = load_labels(MATTEO)
    out = {"dice": 0, "right": 0, "wrong_sure": 0, "read": 0, "unsure": 0}
    for image in images:
        gray = cv2.cvtColor(cv2.imread(str(MATTEO / image)), cv2.COLOR_BGR2GRAY)
        faces = read_faces(gray, "dark", KERNEL_PX)
        dice = [{"box": list(f.box), "confidence": f.confidence, "value": f.value,
                 "sure": f.confidence >= UNSURE_BELOW and not f.cocked} for f in faces]
        out["read"] += len(dice)
        out["unsure"] += sum(not d["sure"] for d in dice)
        for lab, die in match(labels[image], dice):
            out["dice"] += 1
            if die is None:
                continue
            right = str(die["value"]) == lab["value"]
            out["right"] += right
            out["wrong_sure"] += die["sure"] and not right and (image, lab["value"]) not in LABEL_ERRORS
    return out


@needs_shared
def test_valid_split_every_die_read_and_sure():
    """Measured: 128 of 129 dice right (the 129th is the label error), all sure."""
    images = sorted(i for i in load_labels(MATTEO) if "/Valid/" in i)
    s = _score(images)
    assert s["dice"] == 129
    assert s["right"] >= 127
    assert s["wrong_sure"] == 0
    assert s["unsure"] <= 1


@needs_shared
def test_motion_blurred_dice_read_and_never_wrong_when_sure():
    s = _score([f"images/Train/{name}.jpg" for name in BLURRED])
    assert s["dice"] == 55
    assert s["right"] >= 49, s
    assert s["wrong_sure"] == 0, s


@needs_shared
@pytest.mark.parametrize("image, centre", [
    ("images/Train/six_49.jpg", (370, 153)),  # sharp, pips of each column touching: split apart
    ("images/Train/six_46.jpg", (430, 230)),  # columns smeared into bars by motion
    ("images/Train/six_47.jpg", (372, 180)),  # a row's pips crowded by their neighbours (weak pips)
    ("images/Train/six_42.jpg", (530, 338)),  # rows smeared into bars, one piece with a ragged cut
    ("images/Train/six_44.jpg", (522, 342)),  # rows smeared into bars cut into pieces of unequal size
    ("images/Train/six_45.jpg", (417, 145)),  # every pip's surround filled by blur (faint pips)
    ("images/Train/six_46.jpg", (250, 194)),  # sharp, beside the blurred text of a USB stick
])
def test_six_with_merged_or_crowded_pips_reads_six(image, centre):
    gray = cv2.cvtColor(cv2.imread(str(MATTEO / image)), cv2.COLOR_BGR2GRAY)
    faces = read_faces(gray, "dark", KERNEL_PX)
    near = [f for f in faces if abs(f.centre[0] - centre[0]) < 20 and abs(f.centre[1] - centre[1]) < 20]
    assert [f.value for f in near] == [6]


def _read(image: str) -> list[dict]:
    gray = cv2.cvtColor(cv2.imread(str(MATTEO / image)), cv2.COLOR_BGR2GRAY)
    return [{"box": list(f.box), "confidence": f.confidence, "value": f.value,
             "sure": f.confidence >= UNSURE_BELOW and not f.cocked} for f in read_faces(gray, "dark", KERNEL_PX)]


@needs_shared
def test_touching_fours_beside_a_side_face_are_both_sure():
    """Train/four_43: of its five 4s, two touch, the upper die's side face (four flat pips) between them."""
    image = "images/Train/four_43.jpg"
    pairs = match(load_labels(MATTEO)[image], _read(image))
    assert [(lab["value"], die and die["value"], die and die["sure"]) for lab, die in pairs] == [("4", 4, True)] * 5


@needs_shared
def test_a_one_beside_its_blurred_side_face_reads_one():
    """Train/dice_26: a close-up die's 1 lies next to three smeared pips of its side face."""
    image = "images/Train/dice_26.jpg"
    die = match([r for r in load_labels(MATTEO)[image] if float(r["x"]) > 500], _read(image))[0][1]
    assert die is not None and die["value"] == 1


@needs_shared
def test_an_oblique_side_face_is_no_extra_die():
    """Train/dice_17: one die shows its top 1 and, seen obliquely, its side 4; two dice are labelled."""
    image = "images/Train/dice_17.jpg"
    dice = _read(image)
    matched = [die for _, die in match(load_labels(MATTEO)[image], dice) if die is not None]
    assert [d for d in dice if d["sure"] and d not in matched] == []


@needs_shared
def test_the_hole_of_a_glyph_on_a_black_key_is_no_die():
    """Train/four_9: a laptop key's light glyph rings a dark hole, a pip on no light face."""
    assert [d for d in _read("images/Train/four_9.jpg") if d["box"][0] < 60 and d["box"][1] < 60] == []


@needs_shared
def test_motion_blurred_twos_whose_pips_are_clear_are_sure():
    """Train/two_23 and two_47: dice in motion, both pips of each 2 strong and smeared alike. The blur
    spreads the die's edges and the pips' halos over the face (face_roughness 0.05..0.18, a still
    face 0.01), which once took these right readings to unsure. Measured: 7 of 8 labelled 2s read
    sure and right (3 before); the 8th has one weak pip and stays unsure."""
    images = ["images/Train/two_23.jpg", "images/Train/two_47.jpg"]
    labels = load_labels(MATTEO)
    sure_right = 0
    for image in images:
        for lab, die in match(labels[image], _read(image)):
            assert die is None or die["value"] == 2 or not die["sure"], (image, die)
            sure_right += die is not None and die["value"] == 2 and die["sure"]
    assert sure_right >= 7
