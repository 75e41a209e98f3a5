"""The dice reader on real photos: the shipped demo feed (MIT, in the repo) and the labelled
matteop65 photos in ../shared (skipped when absent)."""

import csv
from collections import defaultdict

import cv2
import numpy as np
import pytest

from dicetower import paths
from dicetower.readings import UNSURE_BELOW
from dicetower.vision.camera import FrameError, load_image
from dicetower.vision.detect import find_pip_faces
from dicetower.vision.cli import read_image_file
from dicetower.vision.reader import DiceReader
from dicetower.vision.scoring import load_labels, match

DEMO = paths.repo_root() / "demo" / "matteop65"
MATTEO = paths.shared_dir() / "datasets" / "matteop65_table_d6"
#: Per-die accuracy measured on the 43 matteop65 Valid photos (129 dice) was 0.992 (128/129) when this test was
#: written; the floor sits a little below so that a regression fails and noise does not.
VALID_FLOOR = 0.97


@pytest.fixture(scope="module")
def reader():
    return DiceReader()


def demo_values() -> dict[str, list[int]]:
    values: dict[str, list[int]] = defaultdict(list)
    with open(DEMO / "labels.csv", newline="") as fh:
        for row in csv.DictReader(fh):
            values[row["image"]].append(int(row["value"]))
    return values


@pytest.mark.parametrize("name", ["valid_24.jpg", "valid_28.jpg", "dice_30.jpg", "five_23.jpg", "six_56.jpg"])
def test_demo_photo_reads_to_its_labels(reader, name):
    readings = reader.read(load_image(DEMO / name))
    assert sorted(r.value for r in readings) == sorted(demo_values()[name])
    for r in readings:
        assert r.die_type == "d6" and not r.unsure and r.colour == "white"
        x, y, w, h = r.box
        assert w > 0 and h > 0 and x >= 0 and y >= 0


def test_boxes_hold_the_labelled_pip_patterns(reader):
    labels = load_labels(DEMO)
    res = read_image_file(reader, str(DEMO / "valid_28.jpg"))
    pairs = match(labels["valid_28.jpg"], res["dice"])
    assert all(die is not None for _, die in pairs)


def test_light_pips_on_a_dark_die_read_like_dark_on_light(reader):
    """The negative of a real photo is a black die with white pips on a dark table."""
    image = load_image(DEMO / "valid_28.jpg")
    values = sorted(r.value for r in reader.read(255 - image))
    assert values == sorted(demo_values()["valid_28.jpg"])


def test_a_12_megapixel_upscale_reads_the_same(reader):
    image = load_image(DEMO / "five_23.jpg")
    big = cv2.resize(image, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    small = reader.read(image)
    large = reader.read(big)
    assert sorted(r.value for r in large) == sorted(r.value for r in small)
    # boxes come back in the large frame's px
    assert max(r.box[0] + r.box[2] for r in large) > 640


def test_a_close_up_die_filling_the_frame_is_read(reader):
    """One real die cut from a demo photo and enlarged until it fills a 640x480 or a 12 MP frame."""
    crop = load_image(DEMO / "valid_24.jpg")[205:315, 240:350]
    for size in ((640, 480), (4000, 3000)):
        readings = reader.read(cv2.resize(crop, size, interpolation=cv2.INTER_CUBIC))
        assert [(r.value, r.unsure) for r in readings] == [(4, False)]
        assert readings[0].box[2] > size[0] // 2


def test_empty_table_has_no_dice(reader):
    """A patch of the real table with no die in it."""
    image = load_image(DEMO / "valid_28.jpg")
    assert reader.read(cv2.resize(image[300:480, 0:200], (640, 480))) == []


def test_bad_frames_are_refused_with_a_clear_error(reader):
    with pytest.raises(ValueError, match="HxWx3 uint8"):
        reader.read(np.zeros((480, 640), np.uint8))
    with pytest.raises(ValueError, match="numpy"):
        reader.read([[0]])


def test_corrupt_file_raises_frame_error_naming_it(tmp_path):
    bad = tmp_path / "broken.jpg"
    bad.write_bytes((DEMO / "valid_28.jpg").read_bytes()[:200])
    with pytest.raises(FrameError, match="broken.jpg"):
        load_image(bad)
    with pytest.raises(FrameError, match="no such image"):
        load_image(tmp_path / "missing.jpg")
    with pytest.raises(FrameError, match="is a folder"):
        load_image(tmp_path)


@pytest.mark.skipif(not MATTEO.is_dir(), reason=f"shared datasets not found at {MATTEO}")
def test_accuracy_on_matteop65_valid_photos_stays_above_measured_floor(reader):
    labels = {k: v for k, v in load_labels(MATTEO).items() if "/Valid/" in k}
    n = correct = 0
    for image, labs in labels.items():
        res = read_image_file(reader, str(MATTEO / image))
        for lab, die in match(labs, res["dice"]):
            n += 1
            correct += die is not None and str(die["value"]) == lab["value"]
    assert n == 129
    assert correct / n >= VALID_FLOOR


@pytest.mark.skipif(not (paths.shared_dir() / "datasets" / "lurig_dietype").is_dir(), reason="shared datasets absent")
def test_numbered_dice_are_not_read_as_sure_pip_dice():
    """Numerals, speckles and glyphs must not pass for pips: on the 100 CC0 photos of numbered dice
    (d4..d20) the pip reader gave one sure face when this test was written."""
    folder = paths.shared_dir() / "datasets" / "lurig_dietype"
    sure = 0
    for image in sorted(load_labels(folder)):
        faces = find_pip_faces(load_image(folder / image))
        sure += sum(f.confidence >= UNSURE_BELOW and not f.cocked for f in faces)
    assert sure <= 3


def test_a_die_whose_top_face_is_tilted_is_flagged_cocked(reader):
    """GEN-D01: one of three real dice squashed to half height (its top face seen at a steep angle,
    as when the die leans on the tray wall) is flagged cocked and unsure; the other two are not."""
    image = load_image(DEMO / "five_23.jpg")
    dice = reader.read(image)
    x, y, w, h = dice[0].box
    die = image[y - 5:y + h + 5, x - 5:x + w + 5]
    tilted = image.copy()
    tilted[y - 5:y + h + 5, x - 5:x + w + 5] = cv2.resize(image[400:480, 0:100], (die.shape[1], die.shape[0]))
    tilted[y - 5:y - 5 + die.shape[0] // 2, x - 5:x + w + 5] = cv2.resize(die, (die.shape[1], die.shape[0] // 2))
    readings = reader.read(tilted)
    assert [r.value for r in readings] == [5, 5, 5]
    assert sorted(r.cocked for r in readings) == [False, False, True]
    assert all(r.unsure == r.cocked for r in readings)


def test_packed_dice_each_sure_reading_is_right(reader):
    """25 real top faces (cut from the demo's Valid photos) packed 8 px apart on a real table: no
    reading given as sure is wrong, and most faces are read (17 of 25 when this test was written)."""
    cells = []
    for photo in sorted(DEMO.glob("valid_*.jpg")):
        image = load_image(photo)
        for r in reader.read(image):
            cx, cy = r.box[0] + r.box[2] // 2, r.box[1] + r.box[3] // 2
            crop = image[cy - 30:cy + 30, cx - 30:cx + 30]
            if crop.shape[:2] == (60, 60):
                cells.append((r.value, crop))
    canvas = cv2.resize(load_image(DEMO / "valid_28.jpg")[300:480, 0:240], (640, 480))
    truth = {}
    for i, (value, crop) in enumerate(cells[:25]):
        row, col = divmod(i, 5)
        y, x = 60 + row * 68, 160 + col * 68
        canvas[y:y + 60, x:x + 60] = crop
        truth[(row, col)] = value
    readings = reader.read(canvas)
    read_right = 0
    for r in readings:
        cell = ((r.box[1] + r.box[3] // 2 - 60) // 68, (r.box[0] + r.box[2] // 2 - 160) // 68)
        if not r.unsure:
            assert r.value == truth.get(cell), (cell, r)
        read_right += r.value == truth.get(cell)
    assert len(truth) == 25 and read_right >= 14
