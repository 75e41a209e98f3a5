"""The standard set's joint reading (shape x numeral, faces.read_numbered) on real fickett_poly_tiles
(no licence: read from ../shared at run time, evaluation only, never trained on): no sure wrong
reading on any die type. Skipped when ../shared is absent."""

from __future__ import annotations

import pytest

from dicetower.paths import shared_dir
from dicetower.vision.faces import read_numbered
from dicetower.vision.faces_eval import fickett_tiles

FICKETT = shared_dir() / "datasets" / "fickett_poly_tiles"
pytestmark = pytest.mark.skipif(not (FICKETT / "labels.csv").is_file(),
                                reason=f"shared dataset {FICKETT} not found (set DICETOWER_SHARED)")


@pytest.mark.parametrize("die_type", ["d4", "d6", "d8", "d12", "d20"])
def test_no_sure_wrong_reading_on_fickett_tiles(die_type):
    tiles = fickett_tiles(FICKETT, die_type, step=25)  # overlay text painted out
    results = [(read_numbered(t.crop), t.face.value) for t in tiles]
    wrong_sure = [(r.die_type, r.value, round(r.confidence, 3), v) for r, v in results
                  if not r.unsure and (r.die_type, r.value) != (die_type, v)]
    assert not wrong_sure, f"sure but wrong on {die_type} (type, value, confidence, truth): {wrong_sure}"


def test_a_d20_is_read_at_its_read_zooms(monkeypatch):
    """read_numbered reads the up face at the print sizes numerals.READ_ZOOMS gives the type the shape finds
    most likely: a fickett d20 tile (typed d20 by shape) gives the joint reading of read_up_face(..., "d20"),
    which differs from the one-size reading on some tiles (the closer cut changes the average)."""
    from dicetower.vision import numerals, shape
    from dicetower.vision.faces import joint_reading

    asked = []
    real = numerals.read_up_face

    def spy(crop, mask=None, elevation=numerals.TOP_DOWN, die_type=None):
        asked.append(die_type)
        return real(crop, mask, elevation, die_type)

    monkeypatch.setattr(numerals, "read_up_face", spy)
    tiles = fickett_tiles(FICKETT, "d20", step=40)
    differ = 0
    for t in tiles:
        types = shape.die_type_by_shape(t.crop).proba
        r = read_numbered(t.crop)
        assert asked[-1] == max(types, key=types.__getitem__)
        if asked[-1] == "d20":
            one_size = joint_reading(types, *real(t.crop))
            differ += (one_size.value, round(one_size.confidence, 4)) != (r.value, round(r.confidence, 4))
    assert "d20" in asked and differ > 0
