"""The standard set's numeral net (dicetower.vision.numerals, models/standard/numerals.onnx): it ships,
loads in cv2.dnn, reads rendered numerals at any rotation, reaches a floor on real fickett tiles,
leaves garbage unsure; the training data generator is deterministic."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dicetower.paths import models_dir
from dicetower.readings import UNSURE_BELOW
from dicetower.vision import synth
from dicetower.vision.fewshot import EMBED_NODE
from dicetower.vision.numerals import (META_FILE, NEW_ENGINE, ONNX_FILE, PATCH, face_patch, load_net, net_outputs,
                                       numeral_classes, numeral_proba, onnx_layers, read_onnx, value_proba)


def test_model_ships_loads_in_cv2_dnn_and_is_under_5_mb():
    path = models_dir() / "standard" / ONNX_FILE
    assert path.is_file(), "run `make models`"
    assert path.stat().st_size < 5_000_000
    net = load_net()
    assert net.meta["trained_on"].startswith("synthetic")
    assert list(net.net.getUnconnectedOutLayersNames()) == ["logits"]  # no unused outputs
    classes = numeral_classes()
    assert {str(v) for v in range(21)} <= set(classes) and "blank" in classes
    p = numeral_proba([np.zeros((PATCH, PATCH), np.uint8), np.full((PATCH, PATCH), 200, np.uint8)])
    assert p.shape == (2, len(classes)) and p.dtype == np.float32
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-4)


def test_standard_set_describes_the_net_it_ships():
    """set.json's record of how the numeral net was made is the shipped net's own (numerals.json's
    meta, both written by `make models`): a set.json left from an older build misreports its training."""
    import json

    standard = models_dir() / "standard"
    described = json.loads((standard / "set.json").read_text())["meta"]["numerals"]
    assert described == load_net().meta
    assert described == json.loads((standard / META_FILE).read_text())["meta"]


def test_loaded_net_exposes_the_embedding_calibration_reads():
    """The net as load_net reads it (numerals.read_onnx: the classic engine, or OpenCV 5.1's own) has the node
    fewshot.EMBED_NODE under the name its engine gives it, and net_outputs runs it: 128 values per
    quarter turn, non-negative (a ReLU's), and the class layer's own input (the logits are a linear
    map of them). An unknown node is a ValueError naming the nodes the net has."""
    nn = load_net()
    assert EMBED_NODE in nn.layers and "logits" in nn.layers
    rng = np.random.default_rng(5)
    patches = [np.zeros((PATCH, PATCH), np.uint8), np.full((PATCH, PATCH), 200, np.uint8)]
    patches += [rng.integers(0, 256, (PATCH, PATCH)).astype(np.uint8) for _ in range(40)]
    e, logits = net_outputs(patches, EMBED_NODE), net_outputs(patches)
    assert e.shape == (4 * len(patches), 128) and e.dtype == np.float32 and (e >= 0).all() and e.any()
    # the logits are an affine map of the embedding (the class layer): a least-squares fit is exact
    a = np.hstack([e, np.ones((len(e), 1), np.float32)]).astype(np.float64)
    fit, *_ = np.linalg.lstsq(a, logits.astype(np.float64), rcond=None)
    assert np.abs(a @ fit - logits).max() < 1e-2
    with pytest.raises(ValueError, match="no node"):
        net_outputs(patches, "/embed/embed.1/Relu_output_0")


@pytest.mark.skipif(NEW_ENGINE is None, reason=f"OpenCV {cv2.__version__} has no new dnn engine (OpenCV 5 has)")
def test_new_engine_names_the_same_outputs():
    """OpenCV 5's new dnn engine (the only one in 5.1; in 5.0 beside the classic one) read by read_onnx(classic=
    False): onnx_layers finds the embedding and the logits under its tensor names, and they hold what the net
    load_net reads gives (5.1 fuses the embedding's ReLU into its Gemm: its output tensor stays)."""
    net = read_onnx(models_dir() / "standard" / ONNX_FILE, classic=False)
    names = onnx_layers(net, classic=False)
    assert names["logits"] == "logits" and names[EMBED_NODE] == EMBED_NODE + "_output_0"
    rng = np.random.default_rng(6)
    patches = [rng.integers(0, 256, (PATCH, PATCH)).astype(np.uint8) for _ in range(6)]
    turned = np.stack([np.rot90(p, j) for p in patches for j in range(4)]).astype(np.float32)[:, None]
    blob = (turned / 255 - 0.5) / 0.25  # as net_outputs feeds the net
    for node in ("logits", EMBED_NODE):
        net.setInput(blob)
        out = np.asarray(net.forward(names[node]), np.float32).reshape(len(blob), -1)
        assert np.abs(out - net_outputs(patches, node)).max() < 1e-3, node


def test_rendered_numerals_read_right_at_any_rotation():
    """Held-out renders (a seed the training never used; Hershey fonts of synth.standard_spec), each
    turned by four angles: the most probable value is the face shown."""
    rng = np.random.default_rng(777)
    right = n = 0
    for die_type, value in (("d20", 17), ("d20", 8), ("d12", 11), ("d8", 6), ("d6", 4), ("d10", 7)):
        spec = synth.standard_spec(die_type, rng, pips=False)
        crop, _ = synth.render_crop(spec, value, rng, 96, spin_deg=0)
        for angle in (0, 75, 180, 290):
            m = cv2.getRotationMatrix2D((47.5, 47.5), angle, 1.0)
            turned = cv2.warpAffine(crop, m, (96, 96), borderMode=cv2.BORDER_REPLICATE)
            p = value_proba(face_patch(turned), die_type)
            right += max(p, key=p.__getitem__) == value
            n += 1
    assert right / n >= 0.8, f"{right}/{n}"


def test_garbage_is_unsure():
    """Crops with no die (noise, flat grey, an empty tray) never give a sure numeral."""
    rng = np.random.default_rng(3)
    crops = [rng.integers(0, 256, (80, 80, 3)).astype(np.uint8), np.full((80, 80, 3), 128, np.uint8)]
    crops += [synth.tray_background(rng, (90, 90)) for _ in range(4)]
    for crop in crops:
        for die_type in ("d6", "d20"):
            assert max(value_proba(face_patch(crop), die_type).values()) < UNSURE_BELOW


def test_bad_input_is_a_clear_error():
    with pytest.raises(ValueError, match="HxWx3"):
        face_patch(np.zeros((40, 40), np.uint8))
    with pytest.raises(ValueError, match="mask"):
        face_patch(np.zeros((40, 40, 3), np.uint8), np.zeros((30, 30), np.uint8))
    with pytest.raises(ValueError, match=f"{PATCH}x{PATCH}"):
        numeral_proba([np.zeros((10, 10), np.uint8)])
    with pytest.raises(ValueError, match="d4, d6"):
        value_proba(np.zeros((PATCH, PATCH), np.uint8), "d7")
