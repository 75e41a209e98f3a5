"""The pip reader (dicetower.vision.pips.read_faces) on d6 faces drawn with OpenCV: a die square on a
table, its pips at the standard layout, then spun, motion-blurred and softened like a webcam frame.
Each drawing has a known value, so every reading can be checked; sizes run from 40 to 90 px a die,
as dice are in 640x480 frames."""

import math

import cv2
import numpy as np
import pytest

from dicetower.vision.detect import KERNEL_PX
from dicetower.vision.pips import Pip, face_confidence, find_pips, pip_response, read_faces

SURE = 0.8  # dicetower.readings.UNSURE_BELOW

#: Pip centres of each face in units of the pip pitch (the d6 layout).
LAYOUT = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
          4: [(-1, -1), (-1, 1), (1, -1), (1, 1)], 5: [(-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)],
          6: [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}


def draw_face(value: int, side: int = 60, pip: float = 0.18, pitch: float = 0.27, spin: float = 20.0,
              blur: float = 0.0, blur_deg: float = 70.0, table: int = 110, body: int = 235, ink: int = 30,
              inks: dict[int, int] | None = None) -> np.ndarray:
    """A 200x200 uint8 frame holding one die seen from above. side: die side px; pip: pip diameter and
    pitch: pip pitch, both as fractions of the side; spin: degrees; blur: length px of a straight motion
    blur at blur_deg degrees; table/body/ink: grey levels; inks: grey level of single pips by index."""
    img = np.full((200, 200), table, np.float32)
    a = math.radians(spin)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    square = (rot @ (np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * side / 2).T).T + 100
    cv2.fillConvexPoly(img, np.round(square * 16).astype(np.int32), body, cv2.LINE_AA, 4)
    for i, (u, v) in enumerate(LAYOUT[value]):
        x, y = rot @ np.array([u, v]) * pitch * side + 100
        cv2.circle(img, (round(x * 16), round(y * 16)), round(pip * side / 2 * 16), (inks or {}).get(i, ink),
                   -1, cv2.LINE_AA, 4)
    if blur > 0:
        k = int(math.ceil(blur)) | 1
        kernel = np.zeros((k + 2, k + 2), np.float32)
        kernel[(k + 2) // 2, 1:k + 1] = 1
        turn = cv2.getRotationMatrix2D(((k + 1) / 2, (k + 1) / 2), blur_deg, 1.0)
        kernel = cv2.warpAffine(kernel, turn, kernel.shape[::-1])
        img = cv2.filter2D(img, -1, kernel / kernel.sum())
    return np.clip(cv2.GaussianBlur(img, (0, 0), 0.7), 0, 255).astype(np.uint8)


def readings(gray: np.ndarray, polarity: str = "dark") -> list[tuple[int | None, bool]]:
    """(value, sure) of every top face read."""
    return [(f.value, f.confidence >= SURE and not f.cocked) for f in read_faces(gray, polarity, KERNEL_PX)]


@pytest.mark.parametrize("side", [40, 60, 90])
@pytest.mark.parametrize("value", range(1, 7))
def test_sharp_face_is_read_sure_and_right_at_any_spin(value, side):
    for spin in (0, 20, 35):
        assert readings(draw_face(value, side=side, spin=spin)) == [(value, True)], f"spin {spin}"


@pytest.mark.parametrize("value", range(1, 7))
def test_light_pips_on_a_dark_die_read_like_dark_on_light(value):
    gray = draw_face(value, table=150, body=45, ink=225)
    assert readings(gray, "light") == [(value, True)]


@pytest.mark.parametrize("value", range(1, 7))
def test_motion_blur_over_a_third_of_the_pitch_still_reads_sure(value):
    # side 60: pitch 16 px; a 6 px streak (0.37 pitch) elongates the pips to roundness ~0.6
    for blur_deg in (0, 70, 135):
        assert readings(draw_face(value, blur=6, blur_deg=blur_deg)) == [(value, True)], f"{blur_deg} deg"


@pytest.mark.parametrize("value", range(1, 7))
def test_heavy_motion_blur_never_gives_a_wrong_sure_value(value):
    for blur in (10, 14, 18, 24):
        for side in (40, 60, 90):
            wrong = [(v, sure) for v, sure in readings(draw_face(value, side=side, blur=blur * side / 60))
                     if sure and v != value]
            assert wrong == [], f"blur {blur}, side {side}: read {wrong}"


def test_pips_merged_by_close_spacing_are_split_apart():
    """Large pips a pixel apart merge into one blob at the frame's pip threshold; the blob is split at a
    higher threshold, so the six pips (and the reading 6) come back."""
    gray = cv2.GaussianBlur(draw_face(6, side=60, pip=0.21, pitch=0.225), (0, 0), 0.6)
    response = pip_response(gray, "dark", KERNEL_PX)
    pips, thr = find_pips(response, gray, KERNEL_PX)
    merged = cv2.findContours((response > thr).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)[0]
    assert len(merged) < 6, "the drawing no longer merges its pips: the test checks nothing"
    assert len(pips) == 6
    assert readings(gray) == [(6, True)]


def test_small_pips_far_apart_still_make_a_two():
    """Pips 6 diameters apart on the diagonal (small pips on a large face) are one die's 2, not two 1s."""
    assert readings(draw_face(2, side=90, pip=0.13, pitch=0.28)) == [(2, True)]


def test_a_five_whose_centre_pip_is_faint_is_not_a_sure_four():
    gray = draw_face(5, inks={4: 175})
    assert (4, True) not in readings(gray)


def _pip(x: float, y: float, roundness: float, angle: float, area: float = 50.0) -> Pip:
    return Pip(x, y, area, roundness, angle, contrast=100.0)


def test_pips_smeared_across_their_face_are_no_foreshortened_four():
    """Two rows of a six (a 2:1 rectangle) would fit a four seen at a slant, but a slant foreshortens
    pips along the face's short side; pips smeared along it are a moving die's, so no sure 4."""
    rows = [_pip(x, y, 0.55, 90.0) for x in (0, 20) for y in (0, 10)]
    assert face_confidence(rows, 40.0) < SURE


def test_pips_smeared_on_a_square_face_are_a_motion_blurred_four():
    square = [_pip(x, y, 0.55, 30.0) for x in (0, 20) for y in (0, 20)]
    assert face_confidence(square, 40.0) >= SURE


def test_weak_pips_alone_are_no_face():
    """A lone pip on a noisy patch (surround SNR under 8) is weak evidence: no die is reported."""
    rng = np.random.default_rng(0)
    gray = np.clip(rng.normal(150, 18, (200, 200)), 0, 255).astype(np.uint8)
    cv2.circle(gray, (100, 100), 5, 90, -1)
    assert readings(gray) == []
