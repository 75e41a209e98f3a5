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
