"""Two independent readers agreeing (issue 4 item 6): a calibrated set's few-shot reading that the
standard reader reads sure, of a face only it shows, is sure beyond what the few cross-validated
readings alone allow; a reader caught sure and wrong on the labelled photos vouches for nothing; and
labelled boxes are framed as `dicetower read` frames the die (a set learns the crops it will read); a
reader that reads another face backs nothing; the reader's value and the few-shot's colour together
pick one of a value's colours; and two readers whose error rates multiply under 0.1 % vouch together."""

from __future__ import annotations

import numpy as np
import pytest

from dicetower.readings import UNSURE_BELOW
from dicetower.vision.calibrate import as_read, vouched_faces
from dicetower.vision.fewshot import FewShotModel


def _model(prior_value, threshold=0.9, vouched=None):
    n = len(prior_value)
    return FewShotModel(np.zeros((0, 1)), np.zeros(0, np.int32), n, np.zeros(1), np.zeros((1, 1)),
                        np.arange(n), np.zeros((n, 4)), np.ones(4), prior_reader="numerals", die_type="d6",
                        prior_value=np.asarray(prior_value), threshold=threshold,
                        vouched=np.ones(n, bool) if vouched is None else np.asarray(vouched))


def _sure(m, p):
    j = int(np.argmax(p))
    return m.confidence(float(p[j]), j) >= UNSURE_BELOW


def test_a_face_both_readers_read_is_sure_though_the_few_shot_alone_is_not():
    m = _model([1, 2, 3, -1])
    p = np.array([0.7, 0.1, 0.1, 0.1])  # the few-shot leans to 1, under the set's threshold 0.9
    assert not _sure(m, p)
    lifted = m.corroborated(p, {1: 0.97})  # the numeral net reads a sure 1
    assert _sure(m, lifted) and np.argmax(lifted) == 0 and np.isclose(lifted.sum(), 1.0)
    assert not _sure(m, m.corroborated(p, {1: 0.7}))  # the net backs it but is not sure itself
    assert not _sure(m, m.corroborated(p, {2: 0.97}))  # the net reads another face: capped


def test_a_lone_logo_is_vouched_for_by_the_reader_seeing_no_readable_value():
    m = _model([1, 2, 3, -1])
    p = np.array([0.1, 0.1, 0.1, 0.7])
    assert _sure(m, m.corroborated(p, {1: 0.01, 2: 0.02, 3: 0.01}))  # none of 1..3: the logo
    assert not _sure(m, m.corroborated(p, {1: 0.01, 2: 0.3, 3: 0.01}))  # 0.66 "none": not sure


def test_agreement_does_not_choose_between_faces_the_reader_cannot_tell_apart():
    # two logo faces (both unreadable), and one value in two colours: the reader vouches for the group only
    m = _model([1, 1, -1, -1])
    for p in (np.array([0.7, 0.1, 0.1, 0.1]), np.array([0.1, 0.1, 0.7, 0.1])):
        assert not _sure(m, m.corroborated(p, {1: 0.98} if p[0] > 0.5 else {1: 0.0}))


def test_a_reader_caught_sure_and_wrong_vouches_for_neither_face():
    prior_value = np.array([1, 2, 3, -1])
    y = np.array([0, 0, 1, 1, 2, 3])
    readings = [{1: 0.95}, {1: 0.9}, {2: 0.9}, {3: 0.85}, {3: 0.9}, {}]  # a 2 read as a sure 3
    ok = vouched_faces(prior_value, y, readings)
    assert ok.tolist() == [True, False, False, True]
    m = _model(prior_value, vouched=ok)
    assert not _sure(m, m.corroborated(np.array([0.1, 0.1, 0.7, 0.1]), {3: 0.99}))
    # a logo photo on which the reader is sure of a 1 bans the logo and the 1
    assert vouched_faces(prior_value, np.array([3]), [{1: 0.9}]).tolist() == [False, True, True, False]


def test_a_labelled_box_is_framed_as_the_reader_frames_its_die():
    read = [(100, 100, 60, 60), (300, 50, 40, 40)]
    assert as_read((112, 112, 36, 36), read) == (100, 100, 60, 60)  # a box round the pips: the die
    assert as_read((124, 122, 12, 14), read) == (100, 100, 60, 60)  # a 1 boxed round its one pip
    assert as_read((290, 40, 60, 60), read) == (290, 40, 60, 60)  # a box round the whole die: kept
    assert as_read((200, 200, 40, 40), read) == (200, 200, 40, 40)  # no die found there: as labelled
    assert as_read((150, 150, 40, 40), read) == (150, 150, 40, 40)  # overlapping a die's corner only


def test_a_reader_that_reads_another_face_of_the_die_does_not_back_the_reading():
    from dicetower.vision.fewshot import reads_another_face

    # fickett d12: the net reads 2, 3, 5 on the set's photos (prior_value), not 7 or 8; on a 7 it gave
    # 7 0.28 and 8 0.008, and the few-shot read a sure 8 (0.992): "none of 2, 3, 5" backed it at 0.92
    prior_value = [-1, 2, 3, -1, 5, -1, -1, -1, -1, -1, -1, -1]
    m = _model(prior_value, threshold=0.98)
    m.face_value = np.arange(1, 13)
    reading = {1: 0.058, 2: 0.053, 3: 0.006, 5: 0.024, 7: 0.284, 8: 0.0078, 12: 0.034}
    p = np.full(12, 0.0007)
    p[7] = 1 - p.sum() + p[7]
    assert m.reader_support(7, reading) > 0.9  # the old test: the reader reads none of 2, 3, 5
    assert not m.backed(p, reading) and not _sure(m, m.corroborated(p, reading))
    assert reads_another_face(reading, 8) and not reads_another_face(reading, 7)
    # a reader that reads no numeral spreads ~0.01 over the values: no evidence against any face
    noise = {v: 0.01 for v in range(1, 13)} | {7: 0.06}
    assert not reads_another_face(noise, 8) and m.backed(p, noise) and _sure(m, m.corroborated(p, noise))
    # a weak lean (under 10 times the reading's own value) is no disagreement either
    assert not reads_another_face({7: 0.3, 8: 0.05}, 8)
    m.face_value = None  # a set without face values (symbols only): the rule is off
    assert m.backed(p, reading)


def test_the_reader_vouches_for_a_value_and_the_few_shot_for_its_colour():
    # Alkemy: the 3 in white, yellow and red (one mark), and a 4 in white and red
    m = _model([3, 3, 3, 4, 4], threshold=0.95)
    m.marks = np.array([0, 0, 0, 1, 1])
    sure_of_red = np.array([0.01, 0.01, 0.96, 0.01, 0.01]) * 0.9 + [0.0, 0.0, 0.0, 0.05, 0.05]
    assert not _sure(m, sure_of_red)  # 0.864 alone: under the threshold
    lifted = m.corroborated(sure_of_red, {3: 0.97})
    assert _sure(m, lifted) and np.argmax(lifted) == 2
    torn = np.array([0.02, 0.25, 0.58, 0.1, 0.05])  # the colour is not sure among the 3s
    assert not _sure(m, m.corroborated(torn, {3: 0.97}))
    m.marks = np.arange(5)  # faces that differ in more than colour: the reader's value picks none
    assert not _sure(m, m.corroborated(sure_of_red, {3: 0.97}))
    m.marks, m.vouched = np.array([0, 0, 0, 1, 1]), np.array([True, False, True, True, True])
    assert not _sure(m, m.corroborated(sure_of_red, {3: 0.97}))  # caught sure and wrong on a 3 once


def test_two_readers_that_agree_make_a_face_sure_when_their_error_rates_multiply_below_a_thousandth():
    from dicetower.vision.calibrate import agreement_error

    # a d6, 5 photos per face: the few-shot alone read all 30 held out right, the net misread none
    y = np.repeat(np.arange(6), 5)
    face_value = np.arange(1, 7)
    readings = [{int(v): 0.9} if v < 6 else {} for v in face_value[y]]
    assert agreement_error(y, y, face_value, y, readings) == pytest.approx((1 / 32) ** 2)
    assert agreement_error(y, y, face_value, y, readings) <= 0.001
    # 4 photos per face vouch for no more than (1/26)^2 = 0.0015; one few-shot error doubles the rate
    y4 = np.repeat(np.arange(6), 4)
    assert agreement_error(y4, y4, face_value, y4, readings[:24]) > 0.001
    wrong = y.copy()
    wrong[0] = 1
    assert agreement_error(wrong, y, face_value, y, readings) == pytest.approx(2 / 32 / 32)
    misread = list(readings)
    misread[0] = {2: 0.7}  # a 1 read as 2
    assert agreement_error(y, y, face_value, y, misread) == pytest.approx(2 / 32 / 32)

    m = _model([1, 2, 3, -1], threshold=0.97)
    m.face_value = np.array([1, 2, 3, 6])
    p = np.array([0.9, 0.05, 0.03, 0.02])  # the net reads 1 at 0.7: backs it, but is not sure itself
    assert not _sure(m, m.corroborated(p, {1: 0.7}, fewshot_pick=0))
    m.agreement_sure = True
    assert _sure(m, m.corroborated(p, {1: 0.7}, fewshot_pick=0))
    assert not _sure(m, m.corroborated(p, {1: 0.7}, fewshot_pick=1))  # the few-shot alone read a 2
    assert not _sure(m, m.corroborated(p, {1: 0.05}, fewshot_pick=0))  # under READS_AT: the net reads no numeral
    assert not _sure(m, m.corroborated(p, {1: 0.3, 2: 0.15}, fewshot_pick=0))  # a lean, no naming, no backing


def test_the_reader_names_a_value_by_its_lead_over_every_other_value_not_by_a_calibrated_level():
    from dicetower.vision.fewshot import NAMES_RATIO, READS_AT, named_value

    # fickett d6: the net's most probable value is the face's on 30 of 30 tiles, at 0.09-0.95
    assert named_value({6: 0.159, 5: 0.026}) == 6
    assert named_value({6: 0.385, 5: 0.373}) is None  # two values neck and neck: neither named
    assert named_value({1: READS_AT * 0.9}) is None  # under READS_AT: no numeral at all
    assert named_value({2: 0.5, 5: 0.5 / NAMES_RATIO * 1.01}) is None
    assert named_value({2: 0.5, 5: 0.5 / NAMES_RATIO * 0.99}) == 2
    assert named_value({}) is None and named_value({3: 0.2}) == 3


def test_two_readers_agree_on_a_face_whose_value_the_prior_does_not_read():
    # fickett d6 k=5 as readable_values found it at >= 0.5: only 3 and 5 (prior_value); the net names 6 at 0.3
    m = _model([-1, -1, 3, -1, 5, -1], threshold=0.97)
    m.face_value = np.arange(1, 7)
    p = np.array([0.01, 0.01, 0.01, 0.01, 0.02, 0.94])
    six = {6: 0.3, 5: 0.05, 3: 0.02, 1: 0.01}
    assert m.backed(p, six) and not _sure(m, m.corroborated(p, six, fewshot_pick=5))  # no agreement yet
    m.agreement_sure = True
    assert _sure(m, m.corroborated(p, six, fewshot_pick=5))
    assert not _sure(m, m.corroborated(p, six, fewshot_pick=4))  # the few-shot alone read a 5
    lean = {6: 0.3, 5: 0.25}  # no naming: backed by "none of 3, 5" (0.75), not sure on its own
    assert m.backed(p, lean) and not _sure(m, m.corroborated(p, lean, fewshot_pick=5))
    four = {4: 0.3, 6: 0.01}  # names another face of the die: backs nothing
    assert not m.backed(p, four) and not _sure(m, m.corroborated(p, four, fewshot_pick=5))


def test_the_agreement_error_counts_every_wrong_naming_of_the_reader():
    from dicetower.vision.calibrate import agreement_error

    y = np.repeat(np.arange(6), 5)
    face_value = np.arange(1, 7)
    right = [{int(v): 0.3} for v in face_value[y]]  # named right, though under 0.5 (the old test)
    assert agreement_error(y, y, face_value, y, right) == pytest.approx((1 / 32) ** 2)
    weak = list(right)
    weak[0] = {4: 0.2, 1: 0.01}  # a 1 named 4 at 0.2: a misread, though under 0.5
    assert agreement_error(y, y, face_value, y, weak) == pytest.approx(2 / 32 / 32)


def test_a_reader_that_leans_to_no_other_value_backs_the_reading():
    from dicetower.vision.fewshot import READS_AT, leaning_value

    # fickett d6 k=5: every face readable; the net saw the 6s faintly ({6: 0.25, 5: 0.1}: no naming, no
    # support >= 0.5), and the few-shot's probability above the threshold was capped as "not backed"
    m = _model([1, 2, 3, 4, 5, 6], threshold=0.97)
    m.face_value = np.arange(1, 7)
    p = np.array([0.002, 0.002, 0.002, 0.002, 0.002, 0.99])
    faint = {6: 0.25, 5: 0.1}
    assert leaning_value(faint) == 6 and m.backed(p, faint) and _sure(m, m.corroborated(p, faint))
    silent = {v: READS_AT * 0.8 for v in range(1, 7)}  # it reads no numeral: no evidence against the 6
    assert leaning_value(silent) is None and m.backed(p, silent) and _sure(m, m.corroborated(p, silent))
    assert leaning_value({}) is None and m.backed(p, {})
    other = {5: 0.2, 6: 0.1}  # it leans to the 5, giving the 6 no support >= 0.5: the 6 is not backed
    assert leaning_value(other) == 5 and not m.backed(p, other) and not _sure(m, m.corroborated(p, other))
    assert not _sure(m, m.corroborated(np.array([0.01, 0.01, 0.01, 0.01, 0.01, 0.95]), faint))  # under 0.97


def test_the_agreement_counts_the_few_shot_errors_its_descriptions_agree_on():
    from dicetower.vision.calibrate import described_alike

    m = _model([1, 2, 3], threshold=0.97)
    m.net_share = 0.5
    z = np.array([[3.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, 3.0]])  # the few-shot picks 1, 2, 3
    hog = np.array([[0.9, 0.1, 0.1], [0.9, 0.1, 0.1], [0.1, 0.1, 0.9]])
    net = np.array([[0.1, 0.9, 0.1], [0.9, 0.1, 0.1], [0.1, 0.9, 0.1]])
    # HOG ranks the 1 first; neither ranks the 2 first (split: flagged whatever the readers say); HOG the 3
    assert described_alike(m, z, hog, net).tolist() == [True, False, True]
    m.net_share = 1.0  # one description: nothing split
    assert described_alike(m, z, hog, net).tolist() == [True, True, True]


def test_the_readers_lift_no_die_seen_under_a_light_the_set_was_not_learned_under():
    m = _model([1, 2, 3, -1])
    m.light_means, m.light_sd = np.full((4, 2), 1.6, np.float32), np.full(2, 0.03, np.float32)
    m.colour_sd = np.full(4, 0.03, np.float32)  # a* b* spread of the labelled photos, about their means 0
    learned = np.array([1.6, 0.0, 0.0, 1.6, 0.0, 0.0], np.float32)  # L* a* b* of up face and body, Lab / 100
    p = np.array([0.7, 0.1, 0.1, 0.1])
    assert m.learned_light(learned, 0) and _sure(m, m.corroborated(p, {1: 0.97}, colour=learned))
    for shift in ([-0.6, 0, 0, -0.6, 0, 0],  # a dimmer exposure: L* down
                  [0, 0.2, 0.3, 0, 0.2, 0.3]):  # a warm light: a* and b* up
        seen = learned + np.array(shift, np.float32)
        assert not m.learned_light(seen, 0)
        assert not _sure(m, m.corroborated(p, {1: 0.97}, colour=seen))  # the agreement no longer lifts it
        assert not _sure(m, m.corroborated(p, {2: 0.97}, colour=seen))  # and the cap still holds
    sure = np.array([0.95, 0.03, 0.01, 0.01])
    assert _sure(m, m.corroborated(sure, {1: 0.97}, colour=learned + 0.6))  # the few-shot's own reading stands
    m.light_means = None
    with pytest.raises(AssertionError):
        m.learned_light(learned, 0)


def test_a_label_both_readers_contradict_alike_is_found():
    """contradicted_labels: the few-shot's out-of-fold pick and the reader's naming agree on one face of
    another value than the label's. Classes: 1, 2, 3 and 3 in red (same value), a logo (no value)."""
    from dicetower.vision.calibrate import contradicted_labels

    face_value = np.array([1, 2, 3, 3, -1])
    pick = np.array([1, 1, 1, 2, 3, 4, 0])
    y = np.array([0, 0, 0, 1, 2, 0, 0])
    readings = [{2: 0.9, 1: 0.05},  # both read 2, labelled 1: contradicted
                {1: 0.9, 2: 0.05},  # the reader reads the label's 1: not
                {2: 0.3, 1: 0.2},   # the reader names nothing (no lead): not
                {3: 0.9},           # both read 3, labelled 2: contradicted
                {3: 0.9},           # the pick is the label's value in another colour: not
                {1: 0.05},          # the pick is a logo: no value to name
                None]               # no standard reading
    assert contradicted_labels(pick, y, face_value, readings).tolist() == [True, False, False, True, False, False,
                                                                           False]
