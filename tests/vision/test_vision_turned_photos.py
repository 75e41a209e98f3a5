"""Pip dice read the same when the photo is turned (issue 4 items 1, 3, 9): matteop65's webcam looks at
the table obliquely, so each die's side faces show beside its top face, foreshortened like it; in the
photo as shot they lie below the top faces, in a photo turned a quarter or half turn (a tower camera
mounted on its side, a phone photo whose EXIF turn was stripped) left, right or above. The reader must
take its direction toward the camera from the frame itself (pips._toward_camera), not assume "below".
Real photos from ../shared/datasets/matteop65_table_d6 (labels.csv: one row per die, its value)."""

import math
from dataclasses import replace

import cv2
import pytest

from dicetower import paths
from dicetower.vision.camera import load_image
from dicetower.vision.pips import BELOW, Pip, _is_side_face, _top_unknown, _toward_camera
from dicetower.vision.reader import DiceReader
from dicetower.vision.scoring import load_labels

MATTEOP65 = paths.shared_dir() / "datasets" / "matteop65_table_d6"
TURNS = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}


@pytest.mark.skipif(not MATTEOP65.is_dir(), reason=f"shared datasets not found at {MATTEOP65}")
@pytest.mark.parametrize("image", ["images/Train/dice_42.jpg", "images/Train/two_24.jpg", "images/Train/dice_46.jpg"])
def test_turned_photo_reads_the_dice_of_the_upright_photo(image):
    # dice_42: five 1s; two_24: 2s. Before the frame's own direction, each turn read 1 to 3 extra sure dice
    # (side faces taken for top faces: a 5 or a 2 beside a 1), or lost a die. dice_46: five 1s, whose frame
    # turned a quarter turn counterclockwise read a sure 2 and 5 for two of them while a lone side pip that lies
    # beside two dice counted twice toward "below" (_toward_camera: one face, one vote)
    truth = sorted(int(row["value"]) for row in load_labels(MATTEOP65)[image])
    photo = load_image(MATTEOP65 / image)
    reader = DiceReader()
    upright = sorted(d.value for d in reader.read(photo))
    assert upright == truth
    for degrees, code in TURNS.items():
        turned = sorted(d.value for d in reader.read(cv2.rotate(photo, code)))
        assert turned == upright, f"turned {degrees} degrees: read {turned}, upright {upright}"


@pytest.mark.skipif(not MATTEOP65.is_dir(), reason=f"shared datasets not found at {MATTEOP65}")
def test_a_photo_read_with_its_camera_turn_reads_the_dice_of_the_upright_photo(tmp_path):
    """dice_12 (two 1s, a steep view: a 5 and a 3 on their side faces) turned a quarter turn counterclockwise
    reads a sure 5 no one threw, and loses a 1, as the photo comes; `read --camera-turn 90`
    (read_image_file's turn) reads the two 1s of the upright photo, sure. A wrong turn is the caller's error."""
    from dicetower.vision.cli import read_image_file

    image = "images/Train/dice_12.jpg"
    truth = sorted(int(row["value"]) for row in load_labels(MATTEOP65)[image])
    side = tmp_path / "dice_12_side.png"
    cv2.imwrite(str(side), cv2.rotate(load_image(MATTEOP65 / image), cv2.ROTATE_90_COUNTERCLOCKWISE))
    reader = DiceReader()
    as_shot = read_image_file(reader, str(side))
    assert sorted(d["value"] for d in as_shot["dice"] if not d["unsure"]) != truth
    turned = read_image_file(reader, str(side), turn=90)
    assert all(not d["unsure"] for d in turned["dice"]) and sorted(d["value"] for d in turned["dice"]) == truth
    assert turned["dice"] == read_image_file(reader, str(MATTEOP65 / image))["dice"]
    with pytest.raises(ValueError, match="0, 90, 180 or 270"):
        read_image_file(reader, str(side), turn=45)


@pytest.mark.skipif(not MATTEOP65.is_dir(), reason=f"shared datasets not found at {MATTEOP65}")
@pytest.mark.parametrize("image", ["images/Train/dice_25.jpg", "images/Train/dice_27.jpg"])
@pytest.mark.parametrize("degrees", [90, 180, 270])
def test_a_turned_photo_whose_side_faces_lie_off_its_axis_reads_its_dice(image, degrees):
    # dice_25 and dice_27: three 1s each, each with a side face the camera sees in front and one to the right. dice_25
    # turned 180 degrees: its pairs told by shape lie above their top faces and a little left (3 votes), left (1) and
    # below (1); while the frame's direction was the axis nearest their mean ("left", tied with BELOW), it was read as
    # upright, and a 1's side 3 was read as a sure 3 in its place. Turned 90 degrees, two side faces paired with
    # another side face, a 5, as their top face gave "below" a vote: a side face has none of its own, and such a pair
    # is no evidence. dice_27: a 1's side 2 lies toward the camera; another die's side 5, squashed across the way it
    # lies from that 1, paired with it the other way and tied the frame's direction: turned 180 degrees, read upright,
    # its three 1s were taken for side faces (lost) and the 2 read as a sure die
    photo = load_image(MATTEOP65 / image)
    reader = DiceReader()
    upright = reader.read(photo)
    assert sorted(d.value for d in upright) == [1, 1, 1] and not any(d.unsure for d in upright)
    turned = reader.read(cv2.rotate(photo, TURNS[degrees]))
    assert sorted(d.value for d in turned) == [1, 1, 1] and not any(d.unsure for d in turned)


def _pip(x: float, y: float, diameter: float, roundness: float) -> Pip:
    return Pip(x, y, math.pi * diameter * diameter / 4.0, roundness, 0.0, 100.0)


def test_faces_alike_side_face_lies_along_the_frames_direction():
    # two faces foreshortened alike (an oblique camera): only where one lies from the other tells the side face
    # a 4 whose pips and layout are foreshortened to 0.6 along y, and a lone pip like its pips beside it
    top = [_pip(100, 100, 4.0, 0.6), _pip(112, 100, 4.0, 0.6), _pip(100, 107.2, 4.0, 0.6), _pip(112, 107.2, 4.0, 0.6)]
    left = [_pip(88, 103.6, 3.8, 0.6)]
    below = [_pip(106, 118, 3.8, 0.6)]
    assert _is_side_face(below, top, BELOW)
    assert not _is_side_face(left, top, BELOW)  # upright camera: a face to the left is another die
    assert _is_side_face(left, top, (-1.0, 0.0))  # photo turned a quarter turn clockwise: side faces lie left
    assert not _is_side_face(below, top, (-1.0, 0.0))


def _pip_at(x: float, y: float, angle: float) -> Pip:
    """A pip 6 px across foreshortened to 0.6, its major axis at angle degrees (0: along x)."""
    return Pip(x, y, math.pi * 9.0, 0.6, angle, 100.0)


def test_the_top_of_two_faces_alike_along_their_foreshortening_is_unknown_across_the_frames_direction():
    # a lone pip and a 2 beside it, both compressed along x (major axes along y): a tilt toward x
    top, side = [_pip_at(100, 100, 90.0)], [_pip_at(118, 96, 90.0), _pip_at(118, 104, 90.0)]
    assert _top_unknown(side, top, BELOW) and _top_unknown(top, side, BELOW)  # BELOW cannot tell which is the top
    assert not _top_unknown(side, top, (1.0, 0.0))  # a frame whose direction is along x tells it
    # the same faces one above the other: across their foreshortening, two dice side by side
    assert not _top_unknown([_pip_at(100, 118, 90.0), _pip_at(108, 118, 90.0)], top, BELOW)
    # compressed along y (an upright oblique camera): BELOW tells the top, as before
    assert not _top_unknown([_pip_at(96, 118, 0.0), _pip_at(104, 118, 0.0)], [_pip_at(100, 100, 0.0)], BELOW)


@pytest.mark.skipif(not MATTEOP65.is_dir(), reason=f"shared datasets not found at {MATTEOP65}")
@pytest.mark.parametrize("degrees", [90, 270])
def test_a_lone_die_turned_a_quarter_turn_is_not_read_as_two_sure_dice(degrees):
    # dice_8: one die, a 1 on top, its 4 on the side face the oblique webcam sees, both foreshortened alike. Upright,
    # the 4 lies below the 1 and is its side face; turned a quarter turn it lies beside it, and with no pair of
    # faces whose shapes tell the frame's direction, the 4 was read as a sure die of its own (0.97) beside the 1
    photo = cv2.rotate(load_image(MATTEOP65 / "images/Train/dice_8.jpg"), TURNS[degrees])
    dice = DiceReader().read(photo)
    assert 1 in [d.value for d in dice]
    assert [d.value for d in dice if not d.unsure] in ([], [1])


def test_a_side_face_paired_with_two_top_faces_has_one_vote_for_the_frames_direction():
    # three side faces lie right of their top faces; two lie below theirs, one of them a lone pip the shapes pair
    # with two top faces (a pip between two dice): one face seen once, so "right" has the most votes
    def face(x: float, y: float) -> list[Pip]:
        return [_pip(x, y, 4.0, 0.6)]

    right = [(face(x + 20, 300), face(x, 300)) for x in (100, 200, 300)]
    shared = face(400, 120)
    below = [(shared, face(400, 100)), (shared, face(405, 100)), (face(500, 120), face(500, 100))]
    assert _toward_camera(right + below) == (1.0, 0.0)
    # three faces below their own top faces against three right: a tie keeps the upright camera's "below"
    apart = [(face(400, 120), face(400, 100)), (face(450, 120), face(450, 100)), (face(500, 120), face(500, 100))]
    assert _toward_camera(right + apart) == BELOW
    assert _toward_camera([]) == BELOW


def test_the_frames_direction_is_the_axis_most_pairs_lie_nearest_to_not_their_means():
    # a camera above and a little left of the dice (a photo turned 180 degrees): three side faces lie above their top
    # faces and a little left, two left (a die's other side face) and one below (a side face paired by shape with
    # the next die's top face). Their mean lies nearest "left", which the old rule took, but "above" has the most
    def pair(dx: float, dy: float, x: float) -> tuple[list[Pip], list[Pip]]:
        return [_pip(x + dx, 300 + dy, 3.0, 0.4)], [_pip(x, 300, 4.0, 0.8)]

    above = [pair(-17, -29, 100), pair(-16, -29, 200), pair(-6, -40, 300)]
    left = [pair(-34, 5, 400), pair(-37, -12, 500)]
    below = [pair(-30, 49, 600)]
    assert _toward_camera(above + left + below) == (0.0, -1.0)
    # two axes with the most votes: the one nearest the pairs' mean, when it beats BELOW; two opposite pairs cancel
    assert _toward_camera(above[:2] + left[:2] + below) == (-1.0, 0.0)
    assert _toward_camera([pair(49, -2, 100), pair(-63, -35, 300)]) == BELOW
    # the most, but not twice BELOW's (faces flattened by a glint pair above the top faces of an upright frame): BELOW
    leaning = [pair(-30, -35, x) for x in (100, 200, 300)] + [pair(-30, 40, x) for x in (400, 500)]
    assert _toward_camera(leaning + [pair(-40, 0, 600)]) == BELOW


def test_a_pair_whose_top_face_is_itself_a_side_face_is_no_evidence_of_the_frames_direction():
    # matteop65's dice_25 turned 90 degrees clockwise (side faces left of their top faces): two side faces pair by
    # shape both with their 1 (left) and with a 5 below them, which is itself the side face of another 1
    def face(x: float, y: float) -> list[Pip]:
        return [_pip(x, y, 4.0, 0.6)]

    one, five, other_one, one_beyond, three = face(245, 567), face(216, 543), face(167, 512), face(284, 470), \
        face(250, 454)
    two, lone, five_left, two_beyond = face(206, 574), face(209, 587), face(127, 518), face(255, 487)
    pairs = [(two, one), (two, five), (lone, one), (lone, five), (five, other_one), (five_left, other_one),
             (two_beyond, one_beyond), (two_beyond, three)]
    # left 2.5 votes, below 0.5 (the pairs taking the 5 for a top face lose their halves), right 1; with those halves,
    # below had 1.5, left not twice as many, and the mean of all, the 5's own pair pulling it right, lay nearest below
    assert _toward_camera(pairs) == (-1.0, 0.0)


def test_a_side_face_squashed_across_the_way_it_lies_from_its_top_face_gives_no_vote():
    # matteop65's dice_27 turned 180 degrees: a 1's side 2 lies above it, squashed along that way (its pips' major axes
    # across it); another die's side 5 lies below-left of it, squashed left-right (across that way)
    top = [_pip_at(445, 296, 169.0)]
    two = [_pip_at(438, 247, 6.0), _pip_at(446, 247, 6.0)]
    five = [_pip_at(x, y, 102.0) for x, y in ((404, 350), (416, 350), (410, 359), (404, 368), (416, 368))]
    assert _toward_camera([(two, top), (five, top)]) == (0.0, -1.0)
    # the 5 squashed along the way it lies (major axes across it, at 30 degrees): a tie of opposite votes, BELOW
    five_along = [replace(p, angle=30.0) for p in five]
    assert _toward_camera([(two, top), (five_along, top)]) == BELOW
    # a lone pip's own axis is too few px to tell: its pair votes whatever its axis
    assert _toward_camera([(two, top), ([_pip_at(410, 359, 102.0)], top)]) == BELOW
