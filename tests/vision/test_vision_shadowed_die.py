"""A die whose shadow on wood differs from the lit wood in chromaticity too (detect._die_of_shadowed and
detect._most_chromatic_pieces): the chromaticity pass merged die and shadow into one blob that ran to the
frame's border, skipped as no die."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dicetower import paths
from dicetower.vision.camera import load_image
from dicetower.vision.detect import _die_of_shadowed, _most_chromatic_pieces, find_die_bodies
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


def marbled_die_and_shadow() -> tuple[np.ndarray, np.ndarray]:
    """(dist8, blob) 120x160: a 40 px die whose swirls lie far (200) and near (100) the table's chromaticity,
    joined by a narrow waist to its shadow (90) running to the frame's bottom."""
    dist = np.zeros((120, 160), np.uint8)
    dist[60:120, 60:100] = 90
    dist[56:66, 76:84] = 90  # the waist
    dist[16:56, 60:100] = 100
    dist[16:56:4, 60:100] = 200
    dist[17:56:4, 60:100] = 200
    return dist, (dist > 0).astype(np.uint8) * 255


def test_a_marbled_die_is_parted_from_its_shadow_at_the_blobs_waist():
    dist, blob = marbled_die_and_shadow()
    se = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    # a second threshold cuts the die's swirls apart: no piece of a die's shape is left
    assert all(p.shape != (40, 40) for _, _, p in _die_of_shadowed(dist, blob, (0, 0), 10, 96, 160, 120, se))
    pieces = _most_chromatic_pieces(dist, blob, (0, 0), 10, 96, 160, 120)
    assert len(pieces) == 1, [(x, y, p.shape) for x, y, p in pieces]
    x, y, piece = pieces[0]
    assert abs(x - 60) <= 2 and abs(y - 16) <= 2 and abs(piece.shape[0] - 42) <= 4 and abs(piece.shape[1] - 40) <= 2
    # the same blob whose more distant part runs to the border: the piece left whole is the shadow, no die
    upside_down = dist[::-1]
    flipped = np.where(upside_down == 90, 250, np.where(upside_down > 0, 50, 0)).astype(np.uint8)
    assert _most_chromatic_pieces(flipped, (flipped > 0).astype(np.uint8) * 255, (0, 0), 10, 96, 160, 120) == []


@pytest.mark.skipif(not (LURIG / "images/d6/d6_wood0682.jpg").is_file(), reason="shared datasets absent")
def test_a_lilac_marbled_die_on_wood_with_its_shadow_is_found():
    # CC0 (Mario Lurig): a lilac marbled d6 on grey-brown wood, lit from above, its shadow below it to the
    # frame's border; neither the Lab pass nor _die_of_shadowed found it (its swirls cut apart), no die read
    image = load_image(LURIG / "images/d6/d6_wood0682.jpg")
    dice = DiceReader(second_process=False).read(image)
    assert len(dice) == 1 and dice[0].die_type == "d6", dice
    x, y, w, h = dice[0].box
    assert 100 <= x <= 160 and 60 <= y <= 120 and 170 <= w <= 240 and 170 <= h <= 240, dice[0].box
