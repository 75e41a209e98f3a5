"""die_type_by_shape on real photos of ../shared/datasets: the lurig_dietype quarter the shipped model
never saw (CC0, types d4 d6 d8 d10 d20) and fickett_poly_tiles (no licence: evaluation only, never
trained on; d4 d6 d8 d12 d20). Floors sit a little under the measured figures."""

from __future__ import annotations

import numpy as np
import pytest

from dicetower import paths
from dicetower.vision.shape import (DIE_TYPES, LOOKALIKES, LURIG, die_type_by_shape, lurig_photos, lurig_split,
                                    model_path)

DATA = paths.shared_dir() / "datasets"
pytestmark = [
    pytest.mark.skipif(not DATA.is_dir(), reason=f"shared datasets absent ({DATA})"),
    pytest.mark.skipif(not model_path().is_file(), reason="shape model not built (`make models`)"),
]


def test_lurig_heldout_photos():
    photos = lurig_photos(DATA / LURIG)
    held = lurig_split([n for n, _, _ in photos], np.array([k for _, _, k in photos]))
    results = [(die_type_by_shape(img), DIE_TYPES[k]) for (_, img, k), h in zip(photos, held) if h]
    assert len(results) == 25
    right = [r.die_type == t for r, t in results]
    sure_right = [r.die_type == t for r, t in results if not r.unsure]
    # measured 23 (0.92) with the numeral net's view among the features (shape.NET_NAMES); 22 (0.88) before,
    # with half the training renders speckled (shape.speckled); 20 before that (21 with the all-feature
    # expert alone)
    assert sum(right) >= 22, f"{sum(right)}/25 right"
    assert all(sure_right), f"{sum(sure_right)}/{len(sure_right)} sure right"


def fickett_sample(die_type: str, step: int) -> list:
    """Every step-th main-cluster tile (HxWx3 uint8 BGR, overlay text inpainted) of one fickett die;
    each montage read once."""
    import csv

    import cv2

    from dicetower.vision.faces_eval import remove_overlay

    root = DATA / "fickett_poly_tiles"
    meta = {(r["image"], r["x"], r["y"]): r for r in csv.DictReader((root / "tiles_meta.csv").open())}
    rows = [r for r in csv.DictReader((root / "labels.csv").open())
            if r["die_type"] == die_type and meta[(r["image"], r["x"], r["y"])]["main_cluster"] == "1"
            and meta[(r["image"], r["x"], r["y"])]["representative_tile"] == "0"][::step]
    montages = {name: cv2.imread(str(root / name)) for name in {r["image"] for r in rows}}
    out = []
    for r in rows:
        x, y, w, h = (int(r[k]) for k in "xywh")
        out.append(remove_overlay(montages[r["image"]][y:y + h, x:x + w]))
    return out


def test_fickett_tiles_types():
    # measured on this sample (d4, d6 every 40th tile; the look-alikes d8, d12, d20 every 10th), the tile
    # segmented here (no detector mask): d4 11/11, d6 6/6, d8 27/28, d12 40/41, d20 61/68, 13 sure, all
    # right, with the numeral net's view among the features (shape.NET_NAMES); before it d8 26/28, d20 57/68. With the speckled renders (shape.speckled) d20 fell from 64/68 on this path, while through the
    # reader (the detector's mask, trimmed) all 2219 tiles' types rose 0.908 -> 0.936 (d20 0.961 -> 0.927):
    # the floors follow this path's figures. Before them: d20 64/68 (before half the renders were swirled and
    # ridged, shape.training_spec: d12 36/41, d20 63/68; before the inside-only expert of
    # shape.ShapeModel and the frame rule of the GrabCut silhouette: d8 23/28, d12 30/41, d20 53/68);
    # 14 sure, all right; no d8, d12 or d20 is sure by shape alone (shape.temper_lookalikes)
    right, n, sure, sure_right = {}, {}, 0, 0
    for t in ("d4", "d6", "d8", "d12", "d20"):
        tiles = fickett_sample(t, 10 if t in LOOKALIKES else 40)
        results = [die_type_by_shape(tile) for tile in tiles]
        n[t] = len(tiles)
        right[t] = sum(r.die_type == t for r in results)
        sure += sum(not r.unsure for r in results)
        sure_right += sum(not r.unsure and r.die_type == t for r in results)
        assert not any(r.die_type in LOOKALIKES and not r.unsure for r in results), t
    assert right["d4"] >= 0.9 * n["d4"] and right["d6"] >= n["d6"] - 1, (right, n)
    assert right["d8"] >= n["d8"] - 2 and right["d12"] >= n["d12"] - 2 and right["d20"] >= n["d20"] - 10, (right, n)
    assert sum(right.values()) >= 0.92 * sum(n.values()), (right, n)  # measured 145/154 (0.942; 140 before)
    assert sure_right == sure, (sure_right, sure)  # no sure wrong type
