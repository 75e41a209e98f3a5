"""The face classifier's contract: die sets, errors, model sizes, rotation invariance,
confidence and the shipped standard set (synthetic held-out renders)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dicetower.paths import models_dir
from dicetower.readings import UNSURE_BELOW
from dicetower.vision import synth
from dicetower.vision.faces import DieSetError, FaceResult, available_die_sets, classify_crop, load_die_set
from dicetower.vision.fewshot import describe, fit_described


def test_unknown_die_set_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with pytest.raises(DieSetError, match=r"unknown die set 'no_such_set'.*dicetower calibrate"):
        classify_crop(np.zeros((64, 64, 3), np.uint8), "no_such_set")
    with pytest.raises(DieSetError, match="plain name"):
        load_die_set("../standard")


def test_bad_crop_is_a_clear_error():
    with pytest.raises(ValueError, match="HxWx3 BGR"):
        classify_crop(np.zeros((64, 64), np.uint8))
    with pytest.raises(ValueError, match="non-empty"):
        classify_crop(np.zeros((0, 40, 3), np.uint8))


def test_too_small_crop_is_unsure_not_an_error():
    r = classify_crop(np.full((5, 7, 3), 128, np.uint8))
    assert r.confidence == 0.0 and r.unsure


def test_every_shipped_model_is_under_5_mb():
    files = list(models_dir().rglob("*.npz")) + list(models_dir().rglob("*.onnx"))
    assert files, "no shipped model: run `make models`"
    for f in files:
        assert f.stat().st_size < 5_000_000, f


def test_standard_set_is_shipped_and_loads():
    assert "standard" in available_die_sets()
    ds = load_die_set(None)
    assert {c.die_type for c in ds.classes} == {"d4", "d6", "d8", "d10", "d12", "d20"}
    assert len(ds.classes) == 4 + 6 + 8 + 10 + 12 + 20
    assert ds.meta["trained_on"].startswith("synthetic")


def test_calibrated_model_reads_a_face_at_any_rotation():
    """A few-shot model learned from one upright crop per face reads the same die turned by any
    angle as that face (the bank holds every turn), ahead of the other face."""
    rng = np.random.default_rng(2)
    spec = synth.standard_spec("d6", rng, pips=False)
    grey_bg = np.full((110, 110, 3), 90, np.uint8)
    a, _ = synth.render_crop(spec, 3, rng, 110, background=grey_bg)
    b, _ = synth.render_crop(spec, 5, rng, 110, background=grey_bg)
    rng = np.random.default_rng(0)
    model = fit_described(describe([a, b], rng), np.array([0, 1]), 2, rng)
    for angle in (30, 90, 143, 200):
        m = cv2.getRotationMatrix2D((55, 55), angle, 1.0)
        turned = cv2.warpAffine(a, m, (110, 110), borderMode=cv2.BORDER_REPLICATE)
        logits = model.logits(turned)
        assert logits[0] > logits[1], (angle, logits)


def test_standard_set_tells_die_types_on_fresh_renders():
    """Held-out synthetic dice (a seed the models never saw): die type well above chance (1/6),
    every result carries a confidence in 0..1 and low confidence is flagged unsure."""
    rng = np.random.default_rng(12345)
    right = n = 0
    for die_type in ("d4", "d6", "d8", "d10", "d12", "d20"):
        for k in range(6):
            value = int(rng.integers(1, synth.FACES[die_type] + 1))
            crop, truth = synth.render_crop(synth.standard_spec(die_type, rng), value, rng, 96)
            r = classify_crop(crop)
            assert isinstance(r, FaceResult) and 0.0 <= r.confidence <= 1.0
            assert r.unsure == (r.confidence < UNSURE_BELOW)
            right += r.die_type == die_type
            n += 1
    assert right / n >= 0.45  # measured 0.69 on 480 held-out renders (models/standard/set.json)
