"""Small numbered dice on a round tray's floor seen obliquely (synth.render_oblique_scene, all die types,
numbered): a tray seen whole and longer than any die is a container whose dice are found in it, not
nothing; a face read at a close-up scale centred in a body's box spans most of it
(detect.CLOSE_UP_FACE), not a small die taken whole for the pip of a 1 whose face is the floor found as
one body; and a lone pip with other marks of pip contrast on its face (a d20 numeral's stroke beside
its other strokes) is no sure 1 (pips._face_marked). Scenes [4243, s] of numbered_scene (the oblique
sweep); each case measured a sure d6 before."""

import cv2
import numpy as np

from dicetower.readings import UNSURE_BELOW
from dicetower.vision.boxes import centre, holds
from dicetower.vision.detect import KERNEL_PX, close_up_regions, find_die_bodies, find_pip_faces
from dicetower.vision.pips import read_faces

from test_pips_oblique_floor import numbered_scene


def test_a_tray_longer_than_any_die_is_searched_for_its_dice():
    """Seed 159: the tray seen whole, longer than any die (find_die_bodies' max_side_frac), gave no body
    at all, so the whole frame was searched at half scale and a d10 read as a sure 1. Now the dice in
    the tray are the bodies (none twice as long as the largest die; measured 2 of 3 found). A tray
    half the frame (seeds 61, 74) is taken for one large die, as a close-up is (searching such blobs
    for a tray's dice cost lurig's close-ups 9.5 ms a frame); no face in it is read sure (below)."""
    frame, truths = numbered_scene(159)
    bodies = find_die_bodies(frame)
    largest = max(max(t["box"][2:]) for t in truths)
    assert all(max(b.box[2:]) <= 2 * largest for b in bodies), [b.box for b in bodies]
    found = [t for t in truths if any(holds(b.box, centre(t["box"])) for b in bodies)]
    assert len(found) >= 2, [b.box for b in bodies]


def test_small_dice_on_a_tray_floor_are_no_sure_pip_die():
    """Seeds 39, 148, 159, read as the reader does (close-up scales only in the bodies' boxes): a
    whole d4, d20 or d10 was read as a sure 1 (0.97, 0.91, 1.0). Measured no sure face now, nor on
    seeds 61 and 74, whose tray is found as one body."""
    for seed in (39, 148, 159, 61, 74):
        frame, _ = numbered_scene(seed)
        faces = find_pip_faces(frame, lambda: close_up_regions(frame.shape, find_die_bodies(frame)))
        assert [(f.value, f.box) for f in faces if f.confidence >= UNSURE_BELOW] == [], seed


def test_a_numeral_stroke_beside_its_other_strokes_is_no_sure_1():
    """Seed 111: a stroke of a black d20's white "20" (3.4 px across) was read as a sure 1 (1.0); its
    other numerals' strokes lie on the same black body 2.2 major axes from it, too ragged to be taken
    for pips. Still read, unsure. Every face of the frame being small, it is read whole finer too, where
    the numeral's strokes read as an unsure 2 as well (the reader's reading of the scene is the same)."""
    frame, _ = numbered_scene(111)
    faces = find_pip_faces(frame, lambda: close_up_regions(frame.shape, find_die_bodies(frame)))
    assert 1 in [f.value for f in faces]
    assert all(f.confidence < UNSURE_BELOW for f in faces), [(f.value, f.confidence) for f in faces]


def _face_with_marks(marks: list[tuple[int, int]]) -> np.ndarray:
    """200x200 gray: a black die face (70 px) on a mid-grey floor with a white pip (8 px across) at
    its centre and white strokes (an L, 7x7 px, 2 px wide: a numeral's piece, too ragged for a pip)
    centred at the given offsets (px) from it."""
    gray = np.full((200, 200), 120, np.uint8)
    cv2.rectangle(gray, (65, 65), (135, 135), 25, -1)
    cv2.circle(gray, (100, 100), 4, 230, -1, cv2.LINE_AA)
    for dx, dy in marks:
        cv2.rectangle(gray, (100 + dx - 3, 100 + dy - 3), (100 + dx - 2, 100 + dy + 3), 230, -1)
        cv2.rectangle(gray, (100 + dx - 3, 100 + dy + 2), (100 + dx + 3, 100 + dy + 3), 230, -1)
    return cv2.GaussianBlur(gray, (0, 0), 0.7)


def test_marks_on_a_lone_pips_face_put_it_in_doubt():
    """A light pip alone on its dark face: a sure 1. The same with two light strokes 1.6 major axes
    from it (on the face of any 1 that size): unsure. Strokes 2.6 major axes away (where matteop65's 1s
    show their side faces' pips): sure."""
    def ones(gray):
        return [(f.value, f.confidence >= UNSURE_BELOW) for f in read_faces(gray, "light", KERNEL_PX)
                if abs(f.centre[0] - 100) < 2 and abs(f.centre[1] - 100) < 2]

    assert ones(_face_with_marks([])) == [(1, True)]
    assert ones(_face_with_marks([(16, -6), (16, 8)])) == [(1, False)]
    assert ones(_face_with_marks([(24, -6), (24, 8)])) == [(1, True)]
