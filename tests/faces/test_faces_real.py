"""Real photos from ../shared/datasets that we may not train on (no licence): calibration on a few
fickett_poly_tiles per face, cross-validated (read from ../shared at run time, nothing copied).
Skipped when ../shared is absent."""

from __future__ import annotations

import pytest

from dicetower.paths import shared_dir
from dicetower.vision.calibrate import LabelledCrop, calibrate
from dicetower.vision.faces_eval import fickett_tiles

FICKETT = shared_dir() / "datasets" / "fickett_poly_tiles"
pytestmark = pytest.mark.skipif(not (FICKETT / "labels.csv").is_file(),
                                reason=f"shared dataset {FICKETT} not found (set DICETOWER_SHARED)")


@pytest.mark.parametrize("die_type,floor", [("d6", 0.8), ("d20", 0.4)])
def test_calibration_on_five_fickett_tiles_per_face(tmp_path, die_type, floor):
    """5 tiles per face (cross-validated: 4 learn, 1 is tested, 5 folds)."""
    tiles = fickett_tiles(FICKETT, die_type)  # overlay text inpainted (faces_eval.remove_overlay)
    per_face: dict[int, list[LabelledCrop]] = {}
    for t in tiles:
        per_face.setdefault(t.face.value, []).append(t)
    few = [t for ts in per_face.values() for t in ts[:5]]
    ds, report = calibrate(few, f"fickett_{die_type}", out_dir=tmp_path / "set")
    assert report.n == len(few) == 5 * len(per_face)
    # measured: d6 1.00, d20 0.54 cross-validated (n = 30, 100)
    assert report.accuracy >= floor, report.text()
