"""A pip whose response rings its middle (a dented pip catching the light there, a pip's paint thinner in its middle)
is one pip (pips._ring_halves), not two merged pips split at its middle: renders of pip d6 in random colours read
such dice as a smaller face and two twin pips, unsure."""

import math

import cv2
import pytest

from dicetower.readings import UNSURE_BELOW
from dicetower.vision.boxes import meets
from dicetower.vision.detect import KERNEL_PX, find_pip_faces
from dicetower.vision.pips import RING_PIP_ROUNDNESS, Pip, _ring_halves, find_pips, pip_response
from dicetower.vision.reader import DiceReader
from bench.probes import pip_scene


def test_a_pip_whose_response_rings_its_middle_is_one_pip():
    # seed 12's dark red 3 on an orange die: its lower pip, near the die's edge, rose to 74-77 on its rim and 52 in
    # its middle over the frame's threshold of 40, and was split at 58 into pieces of 10 and 8 px^2 2.8 px apart
    frame, truths = pip_scene(12, (60, 90))
    assert [t["value"] for t in truths if t["box"][:2] == [98, 137]] == [3]
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    response = pip_response(gray, "dark", KERNEL_PX)
    pips, _ = find_pips(response, gray, KERNEL_PX)
    near = [p for p in pips if math.hypot(p.x - 132, p.y - 167) < 4]
    assert len(near) == 1 and near[0].area > 20


def test_a_small_die_whose_pip_rings_its_middle_is_read_whole():
    # seed 10's 5 of light pips on a 31 px die: read as an unsure 2 of two of its pips (0.05), its die found only by
    # the reader's finer read of its body
    frame, truths = pip_scene(10, (25, 45))
    assert truths[1]["value"] == 5
    on = [(f.value, f.confidence >= UNSURE_BELOW) for f in find_pip_faces(frame) if meets(f.box, truths[1]["box"])]
    assert on == [(5, True)]


@pytest.mark.parametrize("seed, die_px, die, value", [
    (122, (60, 90), 0, 5),  # read as an unsure 4 (0.6)
    (238, (60, 90), 0, 6),  # an unsure 6 (0.003)
    (165, (18, 36), 2, 4),  # an unsure 4 (0.6)
])
def test_dice_whose_pips_ring_their_middles_read_sure(seed, die_px, die, value):
    frame, truths = pip_scene(seed, die_px)
    assert truths[die]["value"] == value
    x, y, w, h = truths[die]["box"]
    mine = [(r.die_type, r.value, r.unsure) for r in DiceReader(second_process=False).read(frame)
            if x <= r.box[0] + r.box[2] / 2 <= x + w and y <= r.box[1] + r.box[3] / 2 <= y + h]
    assert mine == [("d6", value, False)]


def _pip(x: float, y: float, diameter: float) -> Pip:
    return Pip(x, y, math.pi * diameter * diameter / 4.0, 1.0, 0.0, 50.0)


def test_ring_halves_tells_a_ring_from_merged_pips():
    halves = [_pip(10.0, 10.0, 3.6), _pip(12.0, 12.0, 3.2)]  # 2.8 px apart, 3.4 across
    assert _ring_halves((5.9, 6.2), halves)
    assert 5.9 / 8.0 < RING_PIP_ROUNDNESS
    assert not _ring_halves((5.9, 8.0), halves)  # a long blob: merged pips
    assert not _ring_halves((5.9, 6.2), [_pip(10.0, 10.0, 3.6), _pip(14.0, 10.0, 3.2)])  # a diameter apart
    assert not _ring_halves((5.9, 6.2), halves + [_pip(8.0, 12.0, 3.0)])  # three pieces
