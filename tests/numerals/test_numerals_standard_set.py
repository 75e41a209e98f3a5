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
from dicetower.vision.numerals import face_patch, value_proba


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
#: (measured over every 3rd: d6 0.85, d8 0.79, d12 0.73, d20 0.38)
FICKETT_FLOORS = {"d6": 0.7, "d8": 0.65, "d12": 0.6, "d20": 0.2}


@pytest.mark.parametrize("die_type", sorted(FICKETT_FLOORS))
def test_fickett_tiles_reach_the_floor(die_type):
    data = shared_dir() / "datasets" / "fickett_poly_tiles"
    if not (data / "labels.csv").is_file():
        pytest.skip(f"{data} not found (../shared/datasets is needed for real-photo floors)")
    from dicetower.vision.faces_eval import fickett_tiles

    tiles = fickett_tiles(data, die_type, step=4)
    right = 0
    for t in tiles:
        p = value_proba(face_patch(t.crop), die_type)
        right += max(p, key=p.__getitem__) == t.face.value
    assert right / len(tiles) >= FICKETT_FLOORS[die_type], f"{right}/{len(tiles)}"
