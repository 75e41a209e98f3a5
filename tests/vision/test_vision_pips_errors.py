"""Where the pip reader misses dice on the labelled matteop65 photos (../shared, skipped when absent),
and that those misses never become wrong sure readings.

Measured over all 353 photos (1080 labelled dice) when this file was written: 22 dice missed,
17 read unsure, 1 read wrong and sure (since then the pip reader misses 13 and reads 1.2 % unsure,
see tests/pips). Nearly all misses and unsure dice lie in a handful of
strongly motion-blurred/defocused Train photos, where a face's pips smear into bars that merge two
pips into one blob (four_50, six_42..49, two_23, two_47, three_29); the one wrong sure reading
(Valid/valid_56) is a label error: its label says 4 but boxes the lone pip of a die showing 1."""

import pytest

from dicetower import paths
from dicetower.vision.cli import read_image_file
from dicetower.vision.reader import DiceReader
from dicetower.vision.scoring import load_labels, match

MATTEO = paths.shared_dir() / "datasets" / "matteop65_table_d6"
#: Photos where pips smear together (motion blur, defocus): dice there may be missed or unsure,
#: but a die given as sure must be read right.
BLURRED = ["images/Train/four_50.jpg", "images/Train/six_45.jpg", "images/Train/two_47.jpg",
           "images/Train/two_23.jpg", "images/Train/three_29.jpg", "images/Train/six_42.jpg"]

needs_shared = pytest.mark.skipif(not MATTEO.is_dir(), reason=f"labelled photos not found at {MATTEO}")


@pytest.fixture(scope="module")
def reader():
    return DiceReader()


@needs_shared
@pytest.mark.parametrize("image", BLURRED)
def test_blurred_photo_sure_readings_are_right(reader, image):
    labels = load_labels(MATTEO)[image]
    result = read_image_file(reader, str(MATTEO / image))
    pairs = match(labels, result["dice"])
    wrong_sure = [(lab["value"], die["value"]) for lab, die in pairs
                  if die is not None and not die["unsure"] and str(die["value"]) != lab["value"]]
    assert wrong_sure == [], f"{image}: sure readings disagree with labels (label, read): {wrong_sure}"


@needs_shared
def test_label_error_valid_56_die_showing_one(reader):
    """Valid/valid_56's label '4' boxes a single pip: the die's top face shows 1 (seen in the photo).
    The reader reads that die as a sure 1."""
    image = "images/Valid/valid_56.jpg"
    lab = next(r for r in load_labels(MATTEO)[image] if r["value"] == "4" and float(r["w"]) < 20)
    die = match([lab], read_image_file(reader, str(MATTEO / image))["dice"])[0][1]
    assert die is not None and die["value"] == 1 and not die["unsure"]


@needs_shared
def test_touching_dice_side_face_does_not_hide_next_top_face(reader):
    """Train/six_20: two 6s touch, one below the other; the upper die's side face (4 pips) lies next to
    the lower die's top face. A side face must not hide a top face: both dice are read as 6."""
    image = "images/Train/six_20.jpg"
    labels = load_labels(MATTEO)[image]
    pairs = match(labels, read_image_file(reader, str(MATTEO / image))["dice"])
    assert len(pairs) == 2
    assert [(lab["value"], None if die is None else str(die["value"])) for lab, die in pairs] == [("6", "6")] * 2
