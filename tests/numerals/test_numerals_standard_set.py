"""The standard set reads numbered dice with the numeral net and the shape cue (faces.read_numbered),
and reaches stated floors on real fickett tiles (evaluation only: that source has no licence, the
net never saw it)."""

from __future__ import annotations

import numpy as np
import pytest

from dicetower.paths import shared_dir
from dicetower.readings import UNSURE_BELOW
from dicetower.vision import synth
from dicetower.vision.faces import FaceResult, classify_crop, load_die_set
from dicetower.vision.numerals import read_value


def test_standard_set_is_read_by_the_numeral_net():
    ds = load_die_set(None)
    assert ds.model is None and ds.meta["trained_on"].startswith("synthetic")
    rng = np.random.default_rng(4242)
    crop, truth = synth.render_crop(synth.standard_spec("d20", rng, pips=False), 14, rng, 96)
    r = classify_crop(crop)
    assert isinstance(r, FaceResult) and 0.0 <= r.confidence <= r.type_confidence <= 1.0
    assert r.unsure == (r.confidence < UNSURE_BELOW)
    assert r.die_type in {"d4", "d6", "d8", "d10", "d12", "d20"}
    assert r.value in range(1, 21)


#: die type -> floor of the value accuracy given the true type over every 4th main-cluster tile
#: (measured with numerals.read_value, the net averaged over three up-face centres: the 24-epoch net of
#: session 7 d4 0.961, d6 0.961, d8 0.926, d12 0.882, d20 0.641; the 12-epoch net before it d4 0.874,
#: d6 0.961, d8 0.897, d12 0.912, d20 0.618. Over every main-cluster tile d12 reads 0.895 against 0.890:
#: these 102 are a harder quarter for the new net). A net trained on d20 numerals drawn larger
#: (train_numerals.TEXT_HEIGHT's note) read d4 0.806 here: under these floors. With the trained centre
#: read again thinned (numerals.read_patches) these quarters read d4 0.951 -> 0.922, d6 0.961 -> 0.941,
#: d8 0.926 -> 0.956, d12 0.882 -> 0.922, d20 0.665 -> 0.694; over every main-cluster tile d4 385 -> 384
#: of 412 and d6 190 -> 188 of 204 (the quarter's d4 losses are not the whole set's), so d4's floor is
#: 0.92, not 0.93.
FICKETT_FLOORS = {"d4": 0.92, "d6": 0.93, "d8": 0.90, "d12": 0.86, "d20": 0.62}
#: floor of the value accuracy given the type on every 2nd realdice_d20 photo, the die's box and mask
#: by colour (faces_eval.realdice_crops, as the reader hands a die body over), read at the photo's view
#: elevation (measured with read_value and the tight box framed as renders are, numerals.framed: 0.696
#: with the 24-epoch net of session 7, 0.608 with the 12-epoch one; 0.367 on one patch of a 1.25 x box
#: crop with the silhouette found in it, session 5; read as seen from above 0.06)
REALDICE_FLOOR = 0.66
#: the same photos read as seen from above do no better than this (measured 0.06; 0.24 in session 5)
TOP_DOWN_READ = 0.3


def _read_given_type(crops, elevations=None, masks=None):
    """(accuracy, sure wrong readings) of the numeral net told the true die type (numerals.read_value,
    as the standard set reads the up face); crops: (crop, die type, value, where); elevations: the
    view elevation of each (degrees) or None (top-down); masks: the die's mask of each or None."""
    right, wrong_sure = 0, []
    for i, (crop, die_type, value, where) in enumerate(crops):
        best, confidence = read_value(crop, die_type, None if masks is None else masks[i],
                                      90.0 if elevations is None else elevations[i])
        right += best == value
        if best != value and confidence >= UNSURE_BELOW:
            wrong_sure.append((where, value, best, round(confidence, 3)))
    return right / len(crops), wrong_sure


@pytest.mark.parametrize("die_type", sorted(FICKETT_FLOORS))
def test_fickett_tiles_reach_the_floor_and_none_is_read_wrong_and_sure(die_type):
    data = shared_dir() / "datasets" / "fickett_poly_tiles"
    if not (data / "labels.csv").is_file():
        pytest.skip(f"{data} not found (../shared/datasets is needed for real-photo floors)")
    from dicetower.vision.faces_eval import fickett_tiles

    tiles = fickett_tiles(data, die_type, step=4)
    accuracy, wrong_sure = _read_given_type([(t.crop, die_type, t.face.value, t.group) for t in tiles])
    assert accuracy >= FICKETT_FLOORS[die_type], accuracy
    assert not wrong_sure, f"sure but wrong (tile, truth, read, confidence): {wrong_sure}"


def test_realdice_d20_reaches_the_floor_and_none_is_read_wrong_and_sure():
    """The realdice d20 (oblique view through a dome; the die cut out by its colour, every 2nd photo),
    read on the face pointing up at each photo's view elevation (view.view_of_scene); read as if seen
    from above it is far worse (TOP_DOWN_READ)."""
    data = shared_dir() / "datasets" / "realdice_d20"
    if not (data / "labels.csv").is_file():
        pytest.skip(f"{data} not found (../shared/datasets is needed for real-photo floors)")
    from dicetower.vision.faces_eval import realdice_crops

    crops = realdice_crops(data, step=2)
    labelled = [(c, t, v, i) for i, (c, t, v, _, _) in enumerate(crops)]
    masks = [mask for *_, mask in crops]
    accuracy, wrong_sure = _read_given_type(labelled, [view.elevation for *_, view, _ in crops], masks)
    assert accuracy >= REALDICE_FLOOR, accuracy
    assert not wrong_sure, f"sure but wrong (photo, truth, read, confidence): {wrong_sure}"
    top_down, _ = _read_given_type(labelled, masks=masks)
    assert top_down <= TOP_DOWN_READ < accuracy, top_down
