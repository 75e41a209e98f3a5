"""The standard set's joint reading (faces.joint_reading): die type by shape and numeral together,
unsure whenever the two disagree, and no sure wrong reading on renders (issue 4, items 3 and 6)."""

from __future__ import annotations

import numpy as np
import pytest

from dicetower.readings import UNSURE_BELOW
from dicetower.vision import numerals, synth
from dicetower.vision.faces import ALTERNATIVES, DieSet, FaceClass, classify_crop, joint_reading
from dicetower.vision.shape import DIE_TYPES, model_path

pytestmark = pytest.mark.skipif(not (model_path().is_file() and (model_path().parent / numerals.ONNX_FILE).is_file()),
                                reason="standard models not built (`make models`)")


def numeral(peaks: dict[str, float]) -> np.ndarray:
    """A numeral net output (K,) with the given class probabilities and the rest spread evenly."""
    classes = numerals.numeral_classes()
    p = np.full(len(classes), (1 - sum(peaks.values())) / (len(classes) - len(peaks)))
    for c, v in peaks.items():
        p[classes.index(c)] = v
    return p


def shape_proba(**p: float) -> dict[str, float]:
    """{die type: probability} over the six types, the rest spread evenly."""
    rest = (1 - sum(p.values())) / (len(DIE_TYPES) - len(p))
    return {t: p.get(t, rest) for t in DIE_TYPES}


def test_a_numeral_only_a_d20_prints_decides_between_look_alikes():
    r = joint_reading(shape_proba(d8=0.3, d12=0.35, d20=0.3), numeral({"15": 0.97}))
    assert (r.die_type, r.value) == ("d20", 15)
    assert not r.unsure and r.type_confidence > 0.9


def test_a_numeral_that_several_look_alikes_print_leaves_the_type_unsure():
    r = joint_reading(shape_proba(d8=0.32, d12=0.32, d20=0.32), numeral({"7": 0.97}))
    assert r.value == 7 and r.die_type in ("d8", "d12", "d20")
    assert r.unsure


def test_shape_sure_of_one_type_and_numeral_sure_of_another_is_unsure():
    # the shape is sure of a d12, the net of a 17 (not on a d12): they disagree
    r = joint_reading(shape_proba(d12=0.9), numeral({"17": 0.95}))
    assert r.unsure and r.confidence < UNSURE_BELOW
    # the net sure of a d4 numeral on a die the shape is sure is a d6
    r = joint_reading(shape_proba(d6=0.95), numeral({"d4:3": 0.9}))
    assert r.unsure


def test_a_sure_reading_needs_the_shapes_most_probable_type():
    # the net sure of a 7, the shape leaning (unsure) to a d6 over a d8: read as a d8's 7, but unsure
    r = joint_reading(shape_proba(d6=0.5, d8=0.48), numeral({"7": 0.95}))
    assert (r.die_type, r.value) == ("d8", 7)
    assert r.unsure


def test_a_sure_reading_needs_the_nets_most_probable_numeral():
    # the shape sure of a d8, the net leaning (unsure) to a 17 over a 7: the reading d8's 7 is unsure
    r = joint_reading(shape_proba(d8=0.95), numeral({"17": 0.5, "7": 0.45}))
    assert (r.die_type, r.value) == ("d8", 7)
    assert r.unsure


def test_shape_and_numeral_agreeing_read_sure():
    r = joint_reading(shape_proba(d4=0.95), numeral({"d4:3": 0.95}))
    assert (r.die_type, r.value) == ("d4", 3) and not r.unsure
    r = joint_reading(shape_proba(d6=0.95), numeral({"5": 0.95}))
    assert (r.die_type, r.value) == ("d6", 5) and not r.unsure
    # a d10's 10 printed as 0 (GEN-D02)
    r = joint_reading(shape_proba(d10=0.95), numeral({"0": 0.95}))
    assert (r.die_type, r.value) == ("d10", 10) and not r.unsure


def test_a_face_with_no_numeral_is_unsure():
    r = joint_reading(shape_proba(d6=0.95), numeral({"blank": 0.9}))
    assert r.unsure


def test_confidences_are_probabilities_of_the_reading():
    rng = np.random.default_rng(5)
    for _ in range(20):
        t = rng.dirichlet(np.ones(len(DIE_TYPES)))
        n = rng.dirichlet(np.full(len(numerals.numeral_classes()), 0.1))
        r = joint_reading(dict(zip(DIE_TYPES, t)), n)
        assert 0.0 <= r.confidence <= r.type_confidence <= 1.0 + 1e-9
        assert r.value in numerals.DIE_FACES[r.die_type]


def test_bad_probabilities_raise_a_clear_error():
    with pytest.raises(ValueError, match="one probability per numeral class"):
        joint_reading(shape_proba(d6=0.9), np.ones(3) / 3)
    with pytest.raises(ValueError, match="does not read"):
        joint_reading({"stone": 1.0}, numeral({"5": 0.9}))


def test_no_sure_wrong_reading_on_renders():
    """Renders of every numbered type (a seed no model was built from): every reading that comes out
    sure is the right type and value."""
    rng = np.random.default_rng(4242)
    sure = wrong = 0
    for _ in range(6):
        for die_type in DIE_TYPES:
            value = int(rng.integers(1, synth.FACES[die_type] + 1))
            crop, truth = synth.render_crop(synth.standard_spec(die_type, rng, pips=False), value, rng, 96)
            r = classify_crop(crop)
            if not r.unsure:
                sure += 1
                wrong += (r.die_type, r.value) != (truth["die_type"], truth["value"])
    assert wrong == 0, f"{wrong} of {sure} sure readings wrong"


def test_a_second_reading_caps_the_confidence_and_never_raises_it():
    """cap_proba (numerals.read_up_face's trained patch): the reading is numeral_proba's, its
    confidence at most what cap_proba gives the same pair; a cap that reads another value makes a
    sure reading unsure, and a cap surer than numeral_proba leaves the confidence as it was."""
    shape = shape_proba(d20=0.9)
    alone = joint_reading(shape, numeral({"15": 0.97}))
    assert not alone.unsure
    doubted = joint_reading(shape, numeral({"15": 0.97}), cap_proba=numeral({"13": 0.6, "15": 0.3}))
    assert (doubted.die_type, doubted.value) == (alone.die_type, alone.value)
    assert doubted.unsure and doubted.confidence < alone.confidence
    surer = joint_reading(shape, numeral({"15": 0.9}), cap_proba=numeral({"15": 0.999}))
    assert surer.confidence == pytest.approx(joint_reading(shape, numeral({"15": 0.9})).confidence)
    with pytest.raises(ValueError, match="cap_proba must have one probability per numeral class"):
        joint_reading(shape, numeral({"15": 0.97}), cap_proba=np.ones(3) / 3)


def test_read_value_is_never_surer_than_the_trained_patch():
    """numerals.read_value on renders of d12 and d20 faces: the value is read_up_face's mean's
    most probable, and its confidence is at most the trained patch's (face_patch) probability of it."""
    rng = np.random.default_rng(77)
    for die_type, value in (("d12", 9), ("d20", 17), ("d20", 6)):
        crop, _ = synth.render_crop(synth.standard_spec(die_type, rng, pips=False), value, rng, 96)
        mean, trained = numerals.read_up_face(crop)
        by_mean = numerals.values_from_proba(mean, die_type)
        read, confidence = numerals.read_value(crop, die_type)
        assert read == max(by_mean, key=by_mean.__getitem__)
        alone = numerals.value_proba(numerals.face_patch(crop), die_type)
        assert np.allclose(trained, numerals.numeral_proba([numerals.face_patch(crop)])[0], atol=1e-6)
        assert confidence <= min(by_mean[read], alone[read]) + 1e-9
    with pytest.raises(ValueError, match="not 'd7'"):
        numerals.read_value(crop, "d7")


def test_the_next_most_probable_faces_are_its_alternatives_best_first():
    # a d20 the net reads as 10 over 16, 19 and 18: those three, in that order, never the face read itself
    r = joint_reading(shape_proba(d20=0.94), numeral({"10": 0.4, "16": 0.3, "19": 0.15, "18": 0.1}))
    assert (r.die_type, r.value) == ("d20", 10)
    assert r.alternatives == [("d20", 16), ("d20", 19), ("d20", 18)]
    # the next face may be another type's: a "10" a d10 and a d12 print too comes before a d20's 16
    r = joint_reading(shape_proba(d20=0.5, d12=0.46), numeral({"10": 0.6, "16": 0.3}))
    assert r.alternatives[0] == ("d12", 10) and len(r.alternatives) == ALTERNATIVES


def test_a_calibrated_sets_alternatives_are_faces_a_player_can_set():
    # classes: 3 in two colours, a symbol face; the 3 read: its other colour is the same face, the symbol face no value
    classes = [FaceClass("d6", 3, face_colour="red"), FaceClass("d6", 3, face_colour="gold"),
               FaceClass("d6", 6, ("logo",)), FaceClass("d6", 5), FaceClass("d6", 2)]
    result = DieSet("mine", classes, None).result_from_proba(np.array([0.4, 0.25, 0.2, 0.1, 0.05]))
    assert (result.value, result.face_colour) == (3, "red")
    assert result.alternatives == [("d6", 5), ("d6", 2)]
