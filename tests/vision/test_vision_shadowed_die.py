"""A die whose shadow on wood differs from the lit wood in chromaticity too (detect._die_of_shadowed): the
chromaticity pass merged die and shadow into one blob that ran to the frame's border, skipped as no die."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dicetower import paths
from dicetower.vision.camera import load_image
from dicetower.vision.detect import _die_of_shadowed, find_die_bodies
from dicetower.vision.reader import DiceReader

LURIG = paths.shared_dir() / "datasets" / "lurig_dietype"


def test_the_die_is_cut_from_its_shadow_by_how_far_each_is_from_the_table():
    # a 40 px die far from the table's chromaticity (200), its shadow nearer (90) running to the frame's bottom
    dist = np.zeros((120, 160), np.uint8)
    dist[20:60, 60:100] = 200
    dist[60:120, 65:105] = 90
    blob = (dist > 0).astype(np.uint8) * 255
    se = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    pieces = _die_of_shadowed(dist, blob, (0, 0), 10, 96, 160, 120, se)
    assert [(x, y, p.shape) for x, y, p in pieces] == [(60, 20, (40, 40))]
    # a shadow alone (no part much farther from the table) yields no whole piece of a die's length
    alone = np.zeros((120, 160), np.uint8)
    alone[60:120, 65:105] = 90
    assert _die_of_shadowed(alone, (alone > 0).astype(np.uint8) * 255, (0, 0), 10, 96, 160, 120, se) == []


@pytest.mark.skipif(not (LURIG / "images/d6/d6_wood0442.jpg").is_file(), reason="shared datasets absent")
def test_a_dark_die_on_wood_with_its_shadow_is_found():
    # CC0 (Mario Lurig): a dark green d6 on wood, its shadow below it to the frame's border; no die was found
    image = load_image(LURIG / "images/d6/d6_wood0442.jpg")
    bodies = [b for b in find_die_bodies(image) if max(b.box[2:]) > 100]
    assert len(bodies) == 1 and not bodies[0].cut, [b.box for b in bodies]
    dice = DiceReader(second_process=False).read(image)
    assert [d.die_type for d in dice] == ["d6"], dice
