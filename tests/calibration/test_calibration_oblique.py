"""A calibrated set seen from an oblique camera (issue 4 items 5, 6): the few-shot describes the face
pointing up (fewshot.centre_die / patches: the up face's centre and foreshortening from the view's
elevation, numerals.face_patch's geometry), learns each labelled photo under its own view
(calibrate.find_die: the reader's crop, mask and view), and flags a reading from a view it was not
learned under; a set saved without its views asks to be recalibrated."""

from __future__ import annotations

import csv

import cv2
import numpy as np
import pytest

from dicetower.paths import shared_dir
from dicetower.vision import synth
from dicetower.vision.faces import DieSet, DieSetError, FaceClass, forget_die_set, load_die_set
from dicetower.vision.fewshot import Centred, centre_die, describe, fit_described, patches
from dicetower.vision.numerals import UP_FACE_DEPTH
from dicetower.vision.view import TOP_DOWN, ViewEstimate

REALDICE = shared_dir() / "datasets" / "realdice_d20"


def _disc(radius: int = 30, side: int = 96) -> np.ndarray:
    """A light disc (a die seen from above) on a dark ground, side x side x 3 uint8 BGR."""
    crop = np.full((side, side, 3), 40, np.uint8)
    cv2.circle(crop, (side // 2, side // 2), radius, (200, 190, 180), -1)
    return crop


def test_seen_obliquely_the_up_face_is_centred_above_the_die():
    crop = _disc()
    flat, side_on = centre_die(crop), centre_die(crop, 50.0)
    assert flat.squash == 1.0 and abs(flat.centre[1] - 47.5) < 1.5
    radius = flat.radius / 1.1  # the area radius
    assert side_on.squash == pytest.approx(np.sin(np.radians(50.0)))
    assert side_on.centre[1] == pytest.approx(flat.centre[1] - UP_FACE_DEPTH * radius * np.cos(np.radians(50.0)))
    assert side_on.centre[0] == pytest.approx(flat.centre[0])
    assert centre_die(crop, 80.0).centre == flat.centre  # from 75 degrees up: top-down (view.TOP_DOWN_FROM)
    with pytest.raises(ValueError, match="elevation"):
        centre_die(crop, 0.0)


def test_patches_undo_the_up_face_foreshortening():
    """A face drawn round, then squashed vertically by sin(e) as a camera at e sees it: its patch,
    stretched back (Centred.squash), matches the round face's at every turn; taken as it is, not."""
    face = np.full((96, 96, 3), 60, np.uint8)
    cv2.putText(face, "7", (30, 70), cv2.FONT_HERSHEY_SIMPLEX, 2.0, (230, 230, 230), 5)
    s = float(np.sin(np.radians(45.0)))
    squashed = np.full_like(face, 60)
    h = int(round(96 * s))
    squashed[(96 - h) // 2:(96 - h) // 2 + h] = cv2.resize(face, (96, h), interpolation=cv2.INTER_AREA)
    colour = np.zeros(6, np.float32)
    angles = [0.0, 40.0, 130.0]
    round_face = patches(Centred(face, (47.5, 47.5), 40.0, colour), angles).astype(float)
    undone = patches(Centred(squashed, (47.5, 47.5), 40.0, colour, squash=s), angles).astype(float)
    as_seen = patches(Centred(squashed, (47.5, 47.5), 40.0, colour), angles).astype(float)
    assert np.abs(undone - round_face).mean() < 0.4 * np.abs(as_seen - round_face).mean()


def _two_face_set() -> DieSet:
    """A set of two faces learned from one crop each, seen at 50 to 60 degrees."""
    rng = np.random.default_rng(2)
    spec = synth.standard_spec("d6", rng, pips=False)
    ground = np.full((110, 110, 3), 90, np.uint8)
    a, _ = synth.render_crop(spec, 3, rng, 110, background=ground)
    b, _ = synth.render_crop(spec, 5, rng, 110, background=ground)
    model = fit_described(describe([a, b], rng, elevations=[50.0, 60.0]), np.array([0, 1]), 2, rng)
    model.threshold, model.elevations = 0.6, (50.0, 60.0)
    return DieSet("two", [FaceClass("d6", 3), FaceClass("d6", 5)], model), a


def test_a_reading_from_a_view_the_set_was_not_learned_under_is_flagged():
    ds, a = _two_face_set()
    seen = ds.classify(a, view=ViewEstimate(55.0))
    assert seen.value == 3 and not seen.unsure  # a view it was learned under: the set vouches for it
    assert ds.classify(a, view=ViewEstimate(55.0, sure=False)).unsure  # the elevation itself unsure
    assert ds.classify(a).unsure  # top-down (a set learned from the side)
    assert ds.classify(a, view=ViewEstimate(30.0)).unsure  # from lower than any labelled photo


def test_a_set_saved_without_its_views_asks_to_be_recalibrated(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    from dicetower.paths import user_data_dir

    ds, _ = _two_face_set()
    where = ds.save(user_data_dir() / "die_sets" / "before_views")
    with np.load(where / "model.npz") as z:
        fields = {k: z[k] for k in z.files if k != "elevations"}
    np.savez_compressed(where / "model.npz", **fields)
    forget_die_set("before_views")
    with pytest.raises(DieSetError, match="unreadable .*recalibrate it"):
        load_die_set("before_views")


@pytest.mark.skipif(not REALDICE.is_dir(), reason=f"{REALDICE} not found (the shared real photos)")
def test_labelled_photos_of_a_dice_dome_are_learned_as_the_reader_sees_them():
    """realdice_d20 (one d20 in a dice dome, camera from the side, no box in labels.csv): read_labels
    takes the reader's crop and mask of the die and the scene's oblique view (~59 degrees)."""
    from dicetower.vision.calibrate import read_labels

    rows = list(csv.DictReader((REALDICE / "labels.csv").open(newline="")))
    some = {r["image"] for r in rows[::40]}
    samples = read_labels(REALDICE / "labels.csv", REALDICE, keep=lambda r: r["image"] in some)
    assert len(samples) == len(some)
    for s in samples:
        assert s.mask is not None and s.mask.shape == s.crop.shape[:2]
        assert max(s.crop.shape[:2]) < 120  # the die's box, not the dome or the photo
        assert s.view is not None and s.view.oblique and 40 <= s.elevation <= 75, s.view
    assert TOP_DOWN not in {s.elevation for s in samples}
