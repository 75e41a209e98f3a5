"""A face's pips are painted alike and blur alike: a few weak pips far fainter than the face's many strong pips
(pips._fainter_than_face) may be another face's, and put the face in doubt, however well the layout fits.
Real photo from ../shared/datasets/matteop65_table_d6, shrunk: four_42's 4 and two pips of its side face seen
edge-on were read as a sure 6."""

import math

import pytest

from dicetower import paths
from dicetower.vision.camera import load_image
from dicetower.vision.pips import MIN_SNR, SNR_SPREAD, Pip, _fainter_than_face
from dicetower.vision.reader import DiceReader
from dicetower.vision.scoring import load_labels, match

MATTEOP65 = paths.shared_dir() / "datasets" / "matteop65_table_d6"
needs_photos = pytest.mark.skipif(not MATTEOP65.is_dir(), reason=f"shared datasets not found at {MATTEOP65}")


def _pip(x: float, y: float, snr: float) -> Pip:
    return Pip(x, y, math.pi * 4.0 * 4.0, 0.9, 0.0, 100.0, snr=snr)


def _six(weak_snr: float, strong_snr: float) -> list[Pip]:
    """A 6's pips, 12 px apart: its bottom row weak (weak_snr), the others strong_snr."""
    return [_pip(x, y, weak_snr if y == 24 else strong_snr) for x in (0, 12) for y in (0, 12, 24)]


def test_a_weak_pip_as_faint_as_a_blurred_face_s_is_no_doubt():
    # blurred sixes on matteop65: their strong pips' median at most 2.7 x their weakest
    assert not _fainter_than_face(_six(MIN_SNR - 1, 2.7 * (MIN_SNR - 1)))
    assert not _fainter_than_face(_six(5.0, 5.0))  # all weak: no strong pip to be fainter than
    assert not _fainter_than_face(_six(30.0, 60.0))  # none weak


def test_a_blur_that_makes_most_pips_weak_is_no_doubt():
    # a 5 smeared along its columns: its corner pips split from bars (snr 2..7), its centre pip clear (26..58)
    five = [_pip(x, y, 3.0) for x in (0, 24) for y in (0, 24)] + [_pip(12, 12, 58.0)]
    assert not _fainter_than_face(five)


def test_a_weak_pip_far_fainter_than_the_face_s_strong_ones_is_doubt():
    assert _fainter_than_face(_six(4.0, 4.0 * SNR_SPREAD + 1.0))
    assert _fainter_than_face(_six(3.4, 62.0))  # four_42 at 0.7


@needs_photos
@pytest.mark.parametrize("scale", [0.6, 0.7, 0.75])
def test_a_four_and_its_faint_side_face_are_no_sure_six(scale):
    from bench.vision import shrunk

    image = "images/Train/four_42.jpg"
    photo, labels = shrunk(load_image(MATTEOP65 / image), load_labels(MATTEOP65)[image], scale)
    dice = [{"die_type": d.die_type, "value": d.value, "box": list(d.box), "unsure": d.unsure}
            for d in DiceReader(second_process=False).read(photo)]
    read = [(row["value"], die) for row, die in match(labels, dice) if die is not None]
    assert len(read) == len(labels)
    assert not [(value, die) for value, die in read if not die["unsure"] and str(die["value"]) != value]
