"""The reader's work ahead on the second core (reader.DiceReader._guesses) and the view's two steps
(view.floor_outlines, then FloorOutlines.view once the dice are known): neither may change a reading.
Real photos from ../shared/datasets (realdice_d20: a dice dome seen obliquely; lurig_dietype: close-ups
of one die, seen from above); skipped when the shared folder is absent."""

import threading
import time
from concurrent.futures import Future
from dataclasses import replace

import numpy as np
import pytest

from dicetower import paths
from dicetower.vision.camera import load_image
from dicetower.vision.detect import find_die_bodies
from dicetower.vision import reader as reader_module
from dicetower.vision.reader import DiceReader, is_die_like
from dicetower.vision.scoring import load_labels
from dicetower.vision.view import TOP_DOWN, FloorOutlines, ViewEstimate, floor_outlines, view_of_scene

DATASETS = paths.shared_dir() / "datasets"
pytestmark = pytest.mark.skipif(not (DATASETS / "realdice_d20").is_dir() or not (DATASETS / "lurig_dietype").is_dir(),
                                reason=f"needs realdice_d20 and lurig_dietype in {DATASETS} (the team's shared folder)")


def photos(source: str, n: int) -> list[np.ndarray]:
    """n photos of a shared source, spread over its sorted list."""
    names = sorted(load_labels(DATASETS / source))
    return [load_image(DATASETS / source / name) for name in names[::max(1, len(names) // n)][:n]]


@pytest.fixture(scope="module")
def reader():
    reader = DiceReader()
    if not reader.reads_numbered:
        pytest.skip("needs the numbered-dice models (`make models`)")
    return reader


@pytest.fixture(scope="module")
def scenes():
    return photos("realdice_d20", 2) + photos("lurig_dietype", 2)


def done(value) -> Future:
    future: Future = Future()
    future.set_result(value)
    return future


def test_floor_outlines_give_the_view_of_scene_for_any_dice(scenes):
    # the outlines are found before the dice: any set of dice boxes gets the view view_of_scene gives
    for image in scenes:
        outlines = floor_outlines(image)
        boxes = [b.box for b in find_die_bodies(image)]
        for some in (boxes, boxes[:1], [(10, 10, 40, 40)]):
            assert outlines.view(some) == view_of_scene(image, some)
        assert outlines.view([]) == ViewEstimate(TOP_DOWN)  # no dice: nothing to say


def test_the_dome_is_seen_obliquely_unless_a_die_is_as_large_as_its_floor():
    image = photos("realdice_d20", 1)[0]
    outlines = floor_outlines(image)
    H, W = image.shape[:2]
    assert outlines.view([(W // 2 - 20, H // 2 - 20, 40, 40)]).oblique  # a d20 in the dome (59 degrees median)
    assert outlines.view([(0, 0, W, H)]).elevation == TOP_DOWN  # the floor is no larger than this "die"


def test_a_frame_too_small_for_a_scene_has_no_floor_and_bad_frames_are_refused():
    crop = np.full((120, 160, 3), 128, np.uint8)
    assert floor_outlines(crop) == FloorOutlines(floor_outlines(crop).scale)
    with pytest.raises(ValueError, match="HxWx3 uint8"):
        floor_outlines(np.zeros((480, 640), np.uint8))


def test_first_readings_are_what_reading_afterwards_gives(reader, scenes):
    for image in scenes:
        found = find_die_bodies(image)
        may_read = [b for b in found if is_die_like(image, b)]
        outlines, first = reader._guesses(image, done(found), threading.Event())
        assert set(first) == {id(b) for b in may_read}
        if not may_read:
            continue
        view = view_of_scene(image, [b.box for b in may_read])
        assert outlines is not None and outlines.view([b.box for b in may_read]) == view
        for body in may_read:
            assert first[id(body)] == (view, reader._classified(image, body, view))


def test_nothing_is_read_ahead_once_the_pips_are_found(reader, scenes):
    found = find_die_bodies(scenes[0])
    assert found
    pips_done = threading.Event()
    pips_done.set()
    assert reader._guesses(scenes[0], done(found), pips_done) == (None, {})


def test_a_first_reading_counts_only_under_the_view_the_die_is_read_under(reader, scenes, monkeypatch):
    # a planted first reading (value 99) under the scene's own view is the reading given; under another
    # view it is dropped and the die read again, as when nothing was read ahead
    own_guesses = DiceReader._guesses
    plain = {}
    planted = {}
    for k, image in enumerate(scenes):
        monkeypatch.setattr(DiceReader, "_guesses", lambda self, image, found_soon, pips_done: (None, {}))
        plain[k] = reader.read(image)
        for tilt in (0.0, 30.0):
            def plant(self, image, found_soon, pips_done, tilt=tilt):
                outlines, first = own_guesses(self, image, found_soon, threading.Event())
                moved = {key: (view if not tilt else replace(view, elevation=view.elevation - tilt),
                               replace(reading, value=99)) for key, (view, reading) in first.items()}
                return outlines, moved
            monkeypatch.setattr(DiceReader, "_guesses", plant)
            planted[k, tilt] = reader.read(image)
    planted_read = 0
    for k in plain:
        assert planted[k, 30.0] == plain[k]
        assert len(planted[k, 0.0]) == len(plain[k])
        for mine, own in zip(planted[k, 0.0], plain[k]):
            assert mine == own or mine == replace(own, value=99)
            planted_read += mine.value == 99
    assert planted_read, "no first reading was kept on these photos: the test shows nothing"


def test_reading_ahead_changes_no_reading(reader, scenes, monkeypatch):
    ahead = [reader.read(image) for image in scenes]
    monkeypatch.setattr(DiceReader, "_guesses", lambda self, image, found_soon, pips_done: (None, {}))
    assert [reader.read(image) for image in scenes] == ahead


def _a_slow_first_reading(monkeypatch) -> list[float]:
    """Make the second core's first reading take 0.3 s and the pip search end only once it began;
    returns the list the first readings append their end time (time.monotonic) to."""
    started, ended = threading.Event(), []
    classified = DiceReader._classified

    def slow(self, image, body, view):
        started.set()
        time.sleep(0.3)
        out = classified(self, image, body, view)
        ended.append(time.monotonic())
        return out

    def pips_after_a_first_reading_began(image, close_ups=True):
        assert started.wait(60), "no first reading began"
        return []

    monkeypatch.setattr(DiceReader, "_classified", slow)
    monkeypatch.setattr(reader_module, "find_pip_faces", pips_after_a_first_reading_began)
    return ended


def test_nothing_of_a_frame_runs_on_after_read_returns(reader, scenes, monkeypatch):
    # nothing of a frame is left running on the second core once read() returns: a first reading
    # still running when the pips are found is waited for, even when no body is left to read
    ended = _a_slow_first_reading(monkeypatch)
    monkeypatch.setattr(DiceReader, "_numbered_bodies", lambda self, image, faces, found: (faces, []))
    monkeypatch.setattr(reader_module, "find_close_up", lambda image: None)
    assert reader.read(scenes[0]) == []
    returned = time.monotonic()
    assert ended and ended[-1] <= returned
    assert len(ended) == 1  # the pips were found meanwhile: no second body read ahead


def test_nothing_of_a_frame_runs_on_after_read_raises(reader, scenes, monkeypatch):
    # an error after the pips are found (here in choosing the bodies to read) is raised only once the
    # first reading running on the second core has ended
    ended = _a_slow_first_reading(monkeypatch)

    def broken(self, image, faces, found):
        raise RuntimeError("choosing the bodies failed")

    monkeypatch.setattr(DiceReader, "_numbered_bodies", broken)
    with pytest.raises(RuntimeError, match="choosing the bodies failed"):
        reader.read(scenes[0])
    raised = time.monotonic()
    assert ended and ended[-1] <= raised
