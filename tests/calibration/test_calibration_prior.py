"""Calibration with the standard readers as a prior, colour as evidence, and honest confidence
(issue 4 items 3-6): a d6 whose 6 is a logo learned from 3 photos per face reads its numeral faces
through the numeral net and its logo through the few-shot model; Alkemy's white, yellow and red d6
are told apart by colour from 4 photos per face; a face the cross-validation confused is never
given as sure at or below the confusion's probability; a reading the standard reader does not back
is flagged unsure. Synthetic renders (synth.py): the test photos come from another seed than the
labelled ones."""

from __future__ import annotations

import numpy as np
import pytest

from dicetower.readings import UNSURE_BELOW
from dicetower.vision import synth
from dicetower.vision.calibrate import (LabelledCrop, calibrate, fit_temperature, readable_values,
                                        reader_recall, face_floors)
from dicetower.vision.faces import FaceClass, softmax
from dicetower.vision.fewshot import PRIOR_FLOOR, FewShotModel, prior_loglik


def _renders(specs, per_face, seed):
    rng = np.random.default_rng(seed)
    out = []
    for spec in specs:
        for v in range(1, 7):
            for k in range(per_face):
                crop, t = synth.render_crop(spec, v, rng, size=int(rng.integers(80, 121)))
                face = FaceClass(t["die_type"], t["value"], tuple(t["symbols"]), t["face_colour"])
                out.append(LabelledCrop(crop, face, f"{seed}/{spec.name}/{v}/{k}"))
    return out


def _held_out(ds, test):
    right, sure = [], []
    for t in test:
        r = ds.classify(t.crop)
        right.append(FaceClass(r.die_type, r.value, tuple(r.symbols), r.face_colour) == t.face)
        sure.append(not r.unsure)
    return np.array(right), np.array(sure)


def test_logo_d6_from_three_photos_per_face_reads_numerals_by_the_net_and_the_logo_by_few_shot(tmp_path):
    spec = synth.alkemy_spec("yellow", logo_six=True)
    ds, report = calibrate(_renders([spec], 3, 21), "logo", out_dir=tmp_path / "logo")
    assert ds.meta["prior_reader"] == "numerals"
    read_by_net = set(ds.meta["faces_read_by_prior"])
    assert {f"d6:{v}@yellow" for v in range(1, 6)} <= read_by_net and "d6:6|axe@yellow" not in read_by_net
    right, sure = _held_out(ds, _renders([spec], 4, 22))
    # measured: 24/24 right, 6 of 24 unsure (before the prior: 0.733, 62 % unsure from 4 photos). The
    # 15 % floor here was set with the numeral net before 37c9676; with that cautious net
    # calibration_eval's logo set at k=3 was 100 % unsure, until a face both readers read sure was
    # made sure (FewShotModel.corroborated) and the threshold's floor 1 - 1/N replaced (choose_threshold)
    assert right.mean() >= 0.94, right.mean()
    # measured 2 of 24 unsure (session 5), 6 of 24 since the crop read is matched at 8 turns
    # (fewshot.QUERY_TURNS; calibration_eval's logo set: k=3 41.7 % unsure before and after, k=5
    # 18 -> 20 %, fickett d20 k=5 67 -> 57 %)
    assert 1 - sure.mean() <= 0.3, sure.mean()
    assert not np.any(~right & sure)


def test_alkemy_bodies_told_apart_by_colour_from_four_photos_per_face(tmp_path):
    specs = [synth.alkemy_spec(c) for c in ("white", "yellow", "red")]
    ds, report = calibrate(_renders(specs, 4, 31), "alkemy", out_dir=tmp_path / "alkemy")
    test = _renders(specs, 1, 32)
    colours = [ds.classify(t.crop).face_colour for t in test]
    assert np.mean([c == t.face.face_colour for c, t in zip(colours, test)]) >= 0.97  # measured 1.000
    right, sure = _held_out(ds, test)
    assert right.mean() >= 0.88, right.mean()  # measured 0.989 over 180 (before: 0.739, all unsure)
    # the numeral net's sure value and a sure few-shot colour pick one of the 3's colours (FewShotModel.
    # reader_picks): measured 11 of 18 unsure (session 5); every reading was unsure before it
    assert 1 - sure.mean() <= 0.75, sure.mean()
    assert not np.any(~right & sure)


def test_prior_gives_a_logo_face_the_probability_of_no_readable_value():
    prior_value = np.array([1, 2, 3, -1])  # a d4-like set whose 4th face is a logo
    reading = {1: 0.02, 2: 0.9, 3: 0.03}
    ll = prior_loglik(reading, prior_value)
    assert np.argmax(ll) == 1 and ll[3] == pytest.approx(np.log(0.05), rel=1e-4)
    nothing = prior_loglik({}, prior_value)  # the reader saw no numeral: the logo is the likely face
    assert np.argmax(nothing) == 3 and nothing[0] == pytest.approx(np.log(PRIOR_FLOOR))


def test_a_reader_that_misses_a_face_is_weak_evidence_against_it():
    # fickett d4: the net reads the 1 but not the 2, 3, 4; it read 4 of the 1's 5 labelled photos
    prior_value = np.array([1, -1, -1, -1])
    y = np.repeat(np.arange(4), 5)
    readings = [{1: 0.9}] * 4 + [{1: 0.05, 2: 0.07}] + [{1: 0.01}] * 15
    recall = reader_recall(prior_value, y, readings)
    assert recall[0] == pytest.approx(5 / 7)  # Laplace: (4 + 1) / (5 + 2)
    assert np.all(recall[1:] == 1.0)
    # the rate is the reader's on the set, pooled over the faces it reads: 9 of 10 photos read
    two = reader_recall(np.array([1, 2, -1]), np.repeat(np.arange(3), 5),
                        [{1: 0.9}] * 4 + [{}] + [{2: 0.8}] * 5 + [{}] * 5)
    assert two.tolist() == pytest.approx([10 / 12, 10 / 12, 1.0])
    nothing = {1: 0.05, 2: 0.07, 3: 0.05, 4: 0.07}  # the reader saw no 1 on a 1 it missed
    full, mixed = prior_loglik(nothing, prior_value), prior_loglik(nothing, prior_value, recall)
    assert full[3] - full[0] > 2.5  # counted as sure, "no 1" made a 4 17 times likelier than a 1
    # as often as the reader misses a 1, seeing none is evidence against it by at most 1 / (1 - recall)
    assert 0 < mixed[3] - mixed[0] < np.log(1 / (1 - recall[0]))
    read = prior_loglik({1: 0.95}, prior_value, recall)  # a 1 the reader does read still counts
    assert read[0] - read[3] > np.log(10)
    # a face the reader reads as another of the set's values is evidence against this one in full
    other = prior_loglik({2: 0.9}, np.array([1, 2, -1]), np.array([0.7, 0.7, 1.0]))
    assert other[0] == pytest.approx(np.log(PRIOR_FLOOR)) and np.argmax(other) == 1


def _model(prior_value, threshold):
    n = len(prior_value)
    return FewShotModel(np.zeros((0, 1)), np.zeros(0, np.int32), n, np.zeros(1), np.zeros((1, 1)),
                        np.arange(n), np.zeros((n, 4)), np.ones(4), prior_reader="numerals",
                        die_type="d6", prior_value=np.asarray(prior_value), threshold=threshold)


def test_a_few_shot_reading_the_standard_reader_does_not_back_is_unsure():
    m = _model([1, 2, 3, -1], threshold=0.8)
    p = np.array([0.95, 0.02, 0.02, 0.01])
    assert np.array_equal(m.corroborated(p, {1: 0.9}), p)  # the net reads 1 too: sure stays sure
    capped = m.corroborated(p, {2: 0.7})  # the net reads 2: the readers disagree
    assert capped[0] < 0.8 and m.confidence(float(capped[0]), 0) < UNSURE_BELOW
    assert m.corroborated(np.array([0.01, 0.01, 0.03, 0.95]), {})[3] == 0.95  # logo, no numeral seen
    assert m.corroborated(np.array([0.01, 0.01, 0.03, 0.95]), {3: 0.8})[3] < 0.8  # logo, but a 3 is seen


def test_a_face_confused_in_cross_validation_is_sure_only_above_the_confusion():
    y, predicted = np.array([0, 0, 1, 1, 2, 2, 1]), np.array([0, 0, 1, 2, 2, 2, 2])
    floors = face_floors(y, predicted, np.array([0.9, 0.9, 0.9, 0.7, 0.9, 0.9, 0.95]), 4)
    # a 1 taken for a 2 at 0.7 and at 0.95: both faces need more than 0.95; face 3 had no reading
    assert floors.tolist() == [0.0, 0.95, 0.95, 0.0]
    m = _model([-1, -1, -1, -1], threshold=0.6)
    m.prior_reader, m.face_floor = "", floors
    assert m.confidence(0.9, 0) >= UNSURE_BELOW and m.confidence(0.99, 1) >= UNSURE_BELOW
    assert m.confidence(0.95, 1) < UNSURE_BELOW and m.confidence(0.9, 2) < UNSURE_BELOW


def test_temperature_from_few_perfect_readings_stays_below_certainty():
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(4), 3)
    logits = rng.normal(0, 0.01, (12, 4))
    logits[np.arange(12), y] += 0.3  # every reading right, by a wide margin
    p = softmax(logits / fit_temperature(logits, y))[np.arange(12), y]
    # Laplace: 12 right readings vouch for an error rate of about 1/14, not 0
    assert 0.85 < p.mean() < 0.97, p.mean()


def test_a_value_the_reader_also_gives_another_face_is_not_read_by_it():
    classes = [FaceClass("d6", v) for v in (1, 2, 3)] + [FaceClass("d6", 6, ("logo",))]
    y = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3])
    readings = [{1: 0.9}] * 3 + [{2: 0.8}] * 3 + [{3: 0.9}, {5: 0.6}, {3: 0.7}] + [{2: 0.6}, {}, {}]
    assert readable_values(classes, y, readings).tolist() == [1, -1, 3, -1]  # a logo photo read as 2


def test_a_sure_reading_claims_more_than_a_perfect_cross_validation_vouches_for():
    from scipy.stats import beta

    from dicetower.vision.calibrate import choose_threshold

    # 18 cross-validated readings all right: the rule of succession (the mean of Beta(1, 19)) gives 0.95
    floor = 1 - beta.mean(1, 19)
    assert floor == pytest.approx(0.95)
    assert choose_threshold(np.full(18, 0.94), np.ones(18, bool)) == 1.0  # they claim less: none sure
    p = np.linspace(0.999, 0.90, 18)
    t = choose_threshold(p, np.ones(18, bool))
    assert t == p[p >= floor].min()  # the lowest reading that claims enough
    assert choose_threshold(p, np.r_[False, np.ones(17, bool)]) == 1.0  # the most confident is wrong
    wrong = np.ones(18, bool)
    wrong[2] = False
    assert choose_threshold(p, wrong) == p[1]  # never down to a wrong reading
