"""With a die set (which reads every body, cut ones too), a body cut by the frame's border must not
decide the scene's view: the floor of an oblique scene cannot hold a body that lies partly outside the
frame, and counting it made realdice's dome top-down in half its photos. Real photo from
../shared/datasets/realdice_d20 (a dice dome seen obliquely); skipped when the shared folder is absent."""

from dataclasses import replace

import numpy as np
import pytest

from dicetower import paths
from dicetower.readings import DieReading
from dicetower.vision import reader as reader_module
from dicetower.vision.camera import load_image
from dicetower.vision.detect import find_die_bodies
from dicetower.vision.faces import FaceResult
from dicetower.vision.reader import DiceReader, is_die_like
from dicetower.vision.scoring import load_labels
from dicetower.vision.view import floor_outlines

REALDICE = paths.shared_dir() / "datasets" / "realdice_d20"
pytestmark = pytest.mark.skipif(not REALDICE.is_dir(), reason=f"needs {REALDICE} (the team's shared folder)")


@pytest.fixture(scope="module")
def dome_die():
    """A realdice photo (HxWx3 uint8 BGR) and the die body the reader finds in it (DieBody)."""
    names = sorted(load_labels(REALDICE))
    image = next(img for img in (load_image(REALDICE / n) for n in names[::16])
                 if any(is_die_like(img, b) for b in find_die_bodies(img)))
    return image, next(b for b in find_die_bodies(image) if is_die_like(image, b))


def test_a_cut_body_does_not_make_an_oblique_scene_top_down(dome_die, monkeypatch):
    image, die = dome_die
    x, y, w, h = die.box
    cut = replace(die, box=(0, y, w, h), cut=True)  # the same blob, at the frame's left edge
    outlines = floor_outlines(image)
    assert outlines.view([die.box]).oblique  # the dome, seen from the side
    assert not outlines.view([die.box, cut.box]).oblique  # why: no floor holds the cut body

    views = []

    def spy(crop, die_set=None, mask=None, view=None):
        views.append(view)
        return FaceResult("d20", 1, 0.9)

    reader = DiceReader(second_process=False)  # its parts are replaced here: all in this process
    monkeypatch.setattr(reader, "die_set", "spy")
    monkeypatch.setattr(reader, "classify", spy)
    monkeypatch.setattr(reader_module, "find_die_bodies", lambda image, reference=None: [die, cut])
    readings = reader.read(image)
    assert len(readings) == 2 and all(isinstance(r, DieReading) for r in readings)
    assert views and all(v is not None and v.oblique for v in views)  # both read under the dome's view
    cut_reading = next(r for r in readings if r.box[0] == 0)
    assert cut_reading.confidence <= reader_module.CUT_CONFIDENCE_MAX  # and the cut one is unsure
    assert np.isclose(next(r for r in readings if r.box[0] != 0).confidence, 0.9)


def test_a_cut_blob_of_the_grounds_colour_is_no_die_to_a_die_set(dome_die, monkeypatch):
    # a die set reads cut bodies (unsure), but not one whose colour is the ground's (the dome's rim, a
    # laptop's edge: ground_share over GROUND_SHARE_MAX, the test every body meets without a set)
    image, die = dome_die
    x, y, w, h = die.box
    cut_die = replace(die, box=(0, y, w, h), cut=True)  # a die's colour, cut by the border
    ground = replace(die, box=(image.shape[1] - w, y, w, h), cut=True,
                     ground_share=2 * reader_module.GROUND_SHARE_MAX)  # the ground's colour, cut

    def spy(crop, die_set=None, mask=None, view=None):
        return FaceResult("d20", 1, 0.9)

    reader = DiceReader(second_process=False)  # its parts are replaced here: all in this process
    monkeypatch.setattr(reader, "die_set", "spy")
    monkeypatch.setattr(reader, "classify", spy)
    monkeypatch.setattr(reader_module, "find_die_bodies", lambda image, reference=None: [die, cut_die, ground])
    read_boxes = sorted(r.box for r in reader.read(image))
    assert read_boxes == sorted([die.box, cut_die.box])
