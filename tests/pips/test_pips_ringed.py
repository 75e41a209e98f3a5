"""A pip inside a ring of pip response (pips.find_pips): a die's outline or a floor's grain darker than both the die's
face and the floor rings the face at the pip threshold, and the face's pips lie in that ring's hole. Only the outer
contours of blobs were looked at, so those pips went unread (renders of pip d6 at 60-90 px lost dice whose pips were
plain to see)."""

import cv2
import numpy as np
import pytest

from dicetower.vision.detect import KERNEL_PX
from dicetower.vision.pips import find_pips, pip_response, read_faces


def _ringed_face(ring_grey: int) -> np.ndarray:
    """A light floor (190) holding a die face (215) 44 px square outlined 2 px wide in grey ring_grey, showing a 2 of
    dark pips (40) 7 px across on its diagonal."""
    frame = np.full((120, 120), 190, np.uint8)
    cv2.rectangle(frame, (38, 38), (81, 81), 215, -1)
    cv2.rectangle(frame, (38, 38), (81, 81), ring_grey, 2)
    for c in (50, 70):
        cv2.circle(frame, (c, c), 3, 40, -1)
    return cv2.GaussianBlur(frame, (0, 0), 0.7)


@pytest.mark.parametrize("ring_grey", [100, 120])
def test_pips_in_a_ring_of_pip_response_are_found(ring_grey):
    frame = _ringed_face(ring_grey)
    response = pip_response(frame, "dark", KERNEL_PX)
    pips, thr = find_pips(response, frame, KERNEL_PX)
    assert response[38, 60] > thr  # the outline is above the threshold: it rings the face
    assert sorted((round(p.x), round(p.y)) for p in pips if 44 < p.x < 76 and 44 < p.y < 76) == [(50, 50), (70, 70)]
    assert [(f.value, f.confidence >= 0.8) for f in read_faces(frame, "dark", KERNEL_PX)] == [(2, True)]
