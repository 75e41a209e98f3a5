"""faces_eval.misread_sheet: a contact sheet of the dice the numeral net given the type misreads, one
row each (the crop, every patch read, the top-3 classes), for diagnosing real-photo errors."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dicetower.vision import numerals, synth
from dicetower.vision.faces_eval import misread_sheet
from dicetower.vision.train_numerals import random_spec


def _crops(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(9090)
    return [synth.render_crop(random_spec("d20", rng), int(rng.integers(1, 21)), rng, 96)[0] for _ in range(n)]


def test_only_misread_dice_get_a_row_with_each_patch_read(tmp_path):
    """A die labelled with the value the net reads gets no row; dice labelled 0 (no d20 face) are
    misread and get a row each, up to limit, side px high, wide enough for the crop, the patches
    read_up_face reads for a d20 (read_patches: READ_ZOOMS' cuts and the thinned ones) and the text."""
    a, b, c = _crops(3)
    read_as = numerals.read_value(a, "d20")[0]
    crops = [(a, "d20", read_as, None, None), (b, "d20", 0, None, None), (c, "d20", 0, None, None)]
    path = tmp_path / "sheet.png"
    assert misread_sheet(crops, path, side=60) == 2
    sheet = cv2.imread(str(path))
    widths = [60 * (1 + len(numerals.read_patches(x, die_type="d20")) + 2) for x in (b, c)]
    assert sheet.shape[0] == 2 * 60 and sheet.shape[1] == max(widths)
    assert misread_sheet(crops, tmp_path / "one.png", limit=1, side=60) == 1
    assert cv2.imread(str(tmp_path / "one.png")).shape[0] == 60
    assert misread_sheet(crops[:1], tmp_path / "none.png") == 0 and not (tmp_path / "none.png").exists()


def test_bad_limits_are_refused(tmp_path):
    with pytest.raises(ValueError, match="limit >= 1"):
        misread_sheet([], tmp_path / "x.png", limit=0)
    with pytest.raises(ValueError, match="side >= 48"):
        misread_sheet([], tmp_path / "x.png", side=20)
