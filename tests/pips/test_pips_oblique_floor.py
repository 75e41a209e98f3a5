"""The pip reader on small numbered dice lying on a large plain floor (dicetower.vision.synth
render_oblique_scene: a round dice-tray floor seen obliquely, d8/d12/d20 of any colour): a small light
die on a dark floor (or a dark one on a light floor) looks like the pip of a 1 whose face is the floor,
two of them like a 2, and a numeral's strokes, read at a close-up scale, like a 2's pips. None of these
may be a sure pip die. What tells them from pips: a pip is one paint-filled dent, plain inside
(pip_marks), while a die shows its numerals and facets; and a close-up scale is for pips too large for
the finer scale's filter, not for the small marks that scale already looked at (read_faces' finer); a
pip is an ellipse, a d4 seen from above a triangle (Pip.triangle_fill)."""

import math

import cv2
import numpy as np

from dicetower.readings import UNSURE_BELOW
from dicetower.vision import synth
from dicetower.vision.detect import KERNEL_PX, close_up_regions, find_die_bodies, find_pip_faces
from dicetower.vision.pips import MARKED_PIP, TRIANGLE_FILL, find_pips, pip_marks, pip_response, read_faces

from test_pips_drawn_faces import draw_face


def _oblique_scene(seed: int) -> np.ndarray:
    """640x480 BGR frame: 1 to 3 numbered dice (d8, d12, d20, no pips) on a round floor seen from
    30..70 degrees."""
    rng = np.random.default_rng(seed)
    elevation = float(rng.uniform(30, 70))
    dice = [(synth.standard_spec(str(rng.choice(["d8", "d12", "d20"])), rng, pips=False), 1)
            for _ in range(int(rng.integers(1, 4)))]
    frame, _, _ = synth.render_oblique_scene(dice, rng, elevation)
    return frame


def numbered_scene(seed: int) -> tuple[np.ndarray, list[dict]]:
    """640x480 BGR frame and its truths (synth.render_oblique_scene's): 1 to 3 dice of any type (d4..d20,
    numbered, no pips) on a round floor seen from 40..65 degrees, drawn from default_rng([4243, seed])."""
    rng = np.random.default_rng([4243, seed])
    dice = []
    for _ in range(int(rng.integers(1, 4))):
        t = str(rng.choice(["d4", "d6", "d8", "d10", "d12", "d20"]))
        dice.append((synth.standard_spec(t, rng, pips=False), int(rng.integers(1, synth.FACES[t] + 1))))
    synth.render_scene(dice, rng)  # the scene generator's draws, as the scenes were first made
    frame, truths, _ = synth.render_oblique_scene(dice, rng, float(rng.uniform(40, 65)))
    return frame, truths


def test_whole_dice_on_a_round_floor_are_never_a_sure_pip_die():
    """Scenes [4243, s]: a light d4 on a dark floor read as a sure 1's pip (s 1, 57: a triangle, no
    ellipse, Pip.triangle_fill 0.85..0.89) and a d6 and a d10 beside it at half scale read as the pips
    of a sure 2 (s 44: both marked inside, pip_marks 0.69 and 1.39). Read as the reader does; measured
    no sure face. Since the tray seen whole is searched for its dice (find_die_bodies), the d6 and d10
    of s 44 are bodies, for the face classifier, and no close-up scale looks at them."""
    for seed in (1, 44, 57):
        frame, _ = numbered_scene(seed)
        bodies = find_die_bodies(frame)
        faces = find_pip_faces(frame, lambda: close_up_regions(frame.shape, bodies))
        assert faces or bodies, f"seed {seed}: the dice are still read (pips, unsure, or bodies), not dropped"
        assert [(f.value, round(f.confidence, 2)) for f in faces if f.confidence >= UNSURE_BELOW] == [], seed


def test_a_triangle_is_no_pip_and_a_disc_is():
    """A light triangle (a d4 seen from above) on a dark floor is read at most an unsure 1
    (triangle_fill over TRIANGLE_FILL); a light disc of its size, a sure 1."""
    for side in (12, 16):
        gray = np.full((200, 200), 40, np.uint8)
        h = side * math.sqrt(3) / 2
        corners = np.array([[100 - side / 2, 100 + h / 3], [100 + side / 2, 100 + h / 3], [100, 100 - 2 * h / 3]])
        cv2.fillConvexPoly(gray, np.round(corners * 16).astype(np.int32), 200, cv2.LINE_AA, 4)
        faces = read_faces(cv2.GaussianBlur(gray, (0, 0), 0.7), "light", KERNEL_PX)
        assert [f.value for f in faces] == [1] and faces[0].pips[0].triangle_fill > TRIANGLE_FILL, side
        assert faces[0].confidence < UNSURE_BELOW, side
        disc = np.full((200, 200), 40, np.uint8)
        cv2.circle(disc, (100, 100), side // 2, 200, -1, cv2.LINE_AA)
        faces = read_faces(cv2.GaussianBlur(disc, (0, 0), 0.7), "light", KERNEL_PX)
        assert [(f.value, f.confidence >= UNSURE_BELOW) for f in faces] == [(1, True)], side


def test_small_numbered_dice_on_a_round_floor_are_never_a_sure_pip_die():
    """Seeds 0..39, read as the reader does (close-up scales only in the die bodies' boxes). Before
    pip_marks and read_faces' finer: 11 sure d6 readings (8 lone dice read as a sure 1, two dice read
    as a sure 2, two numerals' strokes read as a sure 2); measured 0."""
    sure = []
    for seed in range(40):
        frame = _oblique_scene(seed)
        faces = find_pip_faces(frame, lambda: close_up_regions(frame.shape, find_die_bodies(frame)))
        sure += [(seed, f.value, round(f.confidence, 2)) for f in faces if f.confidence >= UNSURE_BELOW]
    assert sure == []


def test_a_pip_is_plain_inside_and_a_small_die_is_not():
    """A drawn 1's pip (dark on a white die, light on a black one) measures far under MARKED_PIP; a
    small light die with a dark numeral on it, on a dark floor, far over it, and is read at most an
    unsure 1."""
    for body, ink, polarity in ((235, 30, "dark"), (40, 220, "light")):
        gray = draw_face(1, side=90, body=body, ink=ink)
        pips, _ = find_pips(pip_response(gray, polarity, KERNEL_PX), gray, KERNEL_PX)
        assert len(pips) == 1 and pip_marks(gray, pips[0]) < 0.5 * MARKED_PIP, polarity
    floor = np.full((200, 200), 40, np.uint8)
    cv2.circle(floor, (100, 100), 9, 220, -1, cv2.LINE_AA)
    cv2.putText(floor, "8", (96, 105), cv2.FONT_HERSHEY_PLAIN, 0.9, 60, 2, cv2.LINE_AA)
    gray = cv2.GaussianBlur(floor, (0, 0), 0.7)
    pips, _ = find_pips(pip_response(gray, "light", KERNEL_PX), gray, KERNEL_PX)
    assert len(pips) == 1 and pip_marks(gray, pips[0]) > 2 * MARKED_PIP
    faces = read_faces(gray, "light", KERNEL_PX)
    assert all(f.confidence < UNSURE_BELOW for f in faces)


def test_numeral_strokes_at_a_close_up_scale_are_left_to_the_finer_scale():
    """Seeds 5 and 37: a d12's light numerals, at half the analysis scale, made a sure 2 of 3 px
    pips (6 px at the analysis scale, which its filter spans and did not read as pips). Read with
    finer=2 there, no face of such pips is found; the dice of seed 0, large enough to be pips at that
    scale (11 px), are still looked at."""
    for seed in (5, 37):
        gray = cv2.cvtColor(_oblique_scene(seed), cv2.COLOR_BGR2GRAY)
        half = cv2.resize(gray, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        faces = read_faces(half, "light", KERNEL_PX, finer=2.0)
        assert not any(f.value == 2 and f.confidence >= UNSURE_BELOW for f in faces), seed
    gray = cv2.cvtColor(_oblique_scene(0), cv2.COLOR_BGR2GRAY)
    half = cv2.resize(gray, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    assert read_faces(half, "light", KERNEL_PX, finer=2.0), "a die 11 px across at this scale is still looked at"
