"""The pip finder on a realdice_d20 photo from ../shared (skipped when absent): a d20 in a clear dome,
whose numerals and dome reflections make blobs that split into pieces along more than one path."""

import itertools

import cv2
import pytest

from dicetower import paths
from dicetower.vision.detect import KERNEL_PX
from dicetower.vision.pips import find_pips, pip_response, read_faces

PHOTO = paths.shared_dir() / "datasets" / "realdice_d20" / "images" / "18" / "1771099928640_final.jpg"


@pytest.mark.skipif(not PHOTO.is_file(), reason=f"photo not found at {PHOTO}")
def test_a_blob_split_along_two_paths_gives_each_pip_once():
    gray = cv2.cvtColor(cv2.imread(str(PHOTO)), cv2.COLOR_BGR2GRAY)
    for polarity in ("dark", "light"):
        pips, _ = find_pips(pip_response(gray, polarity, KERNEL_PX), gray, KERNEL_PX)
        assert all(abs(a.x - b.x) + abs(a.y - b.y) > 0.5 for a, b in itertools.combinations(pips, 2))
        read_faces(gray, polarity, KERNEL_PX)  # raised IndexError on three copies of one pip
