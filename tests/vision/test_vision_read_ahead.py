"""The reader's work ahead in its second process (second_core: the worker's loop run here in a thread
over a socket pair, and the real worker process) and the view's two steps (view.floor_outlines, then
FloorOutlines.view once the dice are known): neither may change a reading, and a worker that fails or
dies loses no frame.
Real photos from ../shared/datasets (realdice_d20: a dice dome seen obliquely; lurig_dietype: close-ups
of one die, seen from above); skipped when the shared folder is absent."""

import logging
import os
import socket
import subprocess
import sys
import threading
from dataclasses import replace
from multiprocessing.connection import Connection

import cv2
import numpy as np
import pytest

from dicetower import paths
from dicetower.vision.camera import load_image
from dicetower.vision.detect import analysis_light_faces, find_die_bodies, find_pip_faces, whole_fine_faces
from dicetower.vision import reader as reader_module
from dicetower.vision import second_core
from dicetower.vision.reader import DiceReader, bodies_to_read_ahead, is_die_like
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
    reader = DiceReader(second_process=False)  # the readings to compare with: all in this process
    if not reader.reads_numbered:
        pytest.skip("needs the numbered-dice models (`make models`)")
    return reader


@pytest.fixture(scope="module")
def scenes():
    return photos("realdice_d20", 2) + photos("lurig_dietype", 2)


def worker_messages(image, read_all=False, read_first=True, monkeypatch=None, light="", fine=None,
                    die_types=None) -> list[tuple]:
    """The messages second_core.serve (the worker's loop, run here in a thread) sends for one frame, up to
    its "done". With monkeypatch, the pips are said found while the worker finds the bodies (its body
    search ends only once the stop is sent). light: "" no token in the pipe (no light read asked); "worker": the light-read
    token is left for the worker; "main": asked, but the token is taken here first. fine: polarities
    of a whole-frame finer read asked once the frame is done (its answer is the last message). die_types: the
    die types in play the frame is read under (DiceReader's)."""
    ours, theirs = socket.socketpair()
    main, worker = Connection(ours.detach()), Connection(theirs.detach())
    token_read, token_write = os.pipe()
    os.set_blocking(token_read, False)
    if light:
        os.write(token_write, b"t")
    if light == "main":
        assert second_core._claim(token_read)
    stop_sent = threading.Event()
    if monkeypatch is not None:
        from dicetower.vision import detect
        find = detect.find_die_bodies

        def found_after_the_stop(image, reference=None):
            assert stop_sent.wait(60)
            return find(image, reference)

        monkeypatch.setattr(detect, "find_die_bodies", found_after_the_stop)
    thread = threading.Thread(target=second_core.serve, args=(worker, token_read))
    thread.start()
    messages = [main.recv()]
    assert messages[0] == ("ready",)
    main.send(("frame", 1, image, None, read_all, read_first, die_types))
    if monkeypatch is not None:
        main.send(("stop", 1))
        stop_sent.set()
    while messages[-1][0] != "done":
        messages.append(main.recv())
    if fine is not None:
        main.send(("fine", 1, fine))
        messages.append(main.recv())
    main.close()  # the worker's loop ends at the end of file
    thread.join(60)
    assert not thread.is_alive()
    worker.close()
    assert not second_core._claim(token_read)  # the token was taken, by one side
    os.close(token_read)
    os.close(token_write)
    return messages[1:]


class LightGiven:
    """detect.ReadsElsewhere giving the analysis scale's light read from light(), the rest read here."""

    def __init__(self, light):
        self.light = light

    def whole_fine(self, polarities):
        return None


@pytest.fixture(scope="module")
def worker_ready():
    if not second_core.SECOND_PROCESS.wait_ready(120):
        pytest.skip("the reader's second process did not start here (see the warning logged)")


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
    read_ahead = 0
    for image in scenes:
        messages = worker_messages(image)
        kind, seq, bodies = messages[0]
        found = find_die_bodies(image)
        assert kind == "bodies" and seq == 1
        assert [(b.box, b.cut, b.ground_share) for b in bodies] == [(b.box, b.cut, b.ground_share) for b in found]
        assert all(np.array_equal(b.mask, f.mask) for b, f in zip(bodies, found))
        may_read = bodies_to_read_ahead(image, found, read_all=False)
        assert may_read == [i for i, b in enumerate(found) if is_die_like(image, b)]
        readings = [m for m in messages if m[0] == "reading"]
        assert [m[2] for m in readings] == may_read  # nothing said stop: every body that may be read is
        outlines = messages[-1][2]
        if not may_read:
            assert outlines is None and messages[-1] == ("done", 1, None)
            continue
        view = view_of_scene(image, [found[i].box for i in may_read])
        assert outlines is not None and outlines.view([found[i].box for i in may_read]) == view
        for _, _, i, their_view, reading in readings:
            assert their_view == view and reading == reader._classified(image, found[i], view)
            read_ahead += 1
    assert read_ahead, "no body was read ahead in these photos: the test shows nothing"


def test_the_worker_reads_ahead_under_the_die_types_in_play(scenes):
    told = DiceReader(second_process=False, die_types=["d4"])  # no die in these photos is a d4
    read_ahead = d4s = 0
    for image in scenes:
        messages = worker_messages(image, die_types=told.die_types)
        found = messages[0][2]
        for _, _, i, view, reading in (m for m in messages if m[0] == "reading"):
            assert reading == told._classified(image, found[i], view)
            assert reading.die_type == "d4" or not reading.unsure  # unsure: read again as a die in play
            read_ahead += 1
            d4s += reading.die_type == "d4"
    assert read_ahead, "no body was read ahead in these photos: the test shows nothing"
    assert d4s, "no die read as a d4: the worker may not have been told the types in play"


def test_nothing_is_read_ahead_once_the_pips_are_found(scenes, monkeypatch):
    messages = worker_messages(scenes[0], monkeypatch=monkeypatch)
    assert [m[0] for m in messages] == ["bodies", "done"] and messages[0][2]  # bodies found, none read
    assert messages[1] == ("done", 1, None)


@pytest.fixture(scope="module")
def light_pips():
    """Photos with light pips on dark dice: matteop65's white dice with black pips, inverted."""
    if not (DATASETS / "matteop65_table_d6").is_dir():
        pytest.skip(f"needs matteop65_table_d6 in {DATASETS}")
    return [255 - image for image in photos("matteop65_table_d6", 2)]


def test_the_worker_reads_the_light_pips_when_it_takes_the_token_first(scenes, light_pips):
    read_here = 0
    for image in scenes + light_pips:
        messages = worker_messages(image, light="worker")
        lights = [m for m in messages if m[0] == "light"]
        assert len(lights) == 1 and [m[0] for m in messages[-2:]] == ["light", "done"]  # once done with the rest
        faces = lights[0][2]
        assert faces == analysis_light_faces(image)
        given = []
        assert find_pip_faces(image, elsewhere=LightGiven(lambda: given.append(1) or faces)) == find_pip_faces(image)
        assert given == [1]
        read_here += len(faces) > 0
        assert "light" not in [m[0] for m in worker_messages(image, light="main")]  # taken here first
    assert read_here, "no light pips in these photos: the test shows nothing"


@pytest.fixture(scope="module")
def small_dice():
    """Frames of small pip dice: four matteop65 photos at half size to a 640x480 frame."""
    if not (DATASETS / "matteop65_table_d6").is_dir():
        pytest.skip(f"needs matteop65_table_d6 in {DATASETS}")
    shots = [cv2.resize(p, (320, 240), interpolation=cv2.INTER_AREA) for p in photos("matteop65_table_d6", 8)]
    return [np.vstack([np.hstack(shots[k:k + 2]), np.hstack(shots[k + 2:k + 4])]) for k in (0, 4)]


class FineGiven(LightGiven):
    """detect.ReadsElsewhere giving the whole-frame finer read from fine(polarities), the rest read here."""

    def __init__(self, fine):
        super().__init__(lambda: None)
        self.fine, self.asked = fine, []

    def whole_fine(self, polarities):
        self.asked.append(polarities)
        return lambda: self.fine(polarities)


def test_the_worker_reads_the_whole_frame_finer_once_its_part_is_done(small_dice):
    asked = 0
    for image in small_dice:
        messages = worker_messages(image, fine=["dark"])
        assert messages[-2][0] == "done" and messages[-1][:2] == ("fine", 1)
        faces = messages[-1][2]
        assert faces and faces == whole_fine_faces(image, ["dark"])
        given = FineGiven(lambda polarities: faces)
        assert find_pip_faces(image, elsewhere=given) == find_pip_faces(image)
        assert given.asked in ([], [["dark"]])  # asked at most once, for the small dice's dark pips
        asked += len(given.asked)
    assert asked, "no frame held sure small pip faces: the test shows nothing"


def test_a_worker_whose_body_search_fails_says_so_and_goes_on(scenes, monkeypatch):
    from dicetower.vision import detect

    def broken(image, reference=None):
        raise RuntimeError("no bodies today")

    monkeypatch.setattr(detect, "find_die_bodies", broken)
    messages = worker_messages(scenes[0])
    assert [m[0] for m in messages] == ["failed", "done"] and "no bodies today" in messages[0][2]


def test_a_first_reading_counts_only_under_the_view_the_die_is_read_under(worker_ready, scenes, monkeypatch):
    # a planted first reading (value 99) under the scene's own view is the reading given; under another
    # view it is dropped and the die read again, as when nothing was read ahead
    alone = DiceReader(second_process=False)
    reader = DiceReader()
    reader.read(scenes[0])  # the worker reads from a reader's second frame on
    finish = second_core.WorkAhead.finish
    planted_read = 0
    for image in scenes:
        plain = alone.read(image)
        for tilt in (0.0, 30.0):
            def plant(self, tilt=tilt):
                outlines, first = finish(self)
                return outlines, {i: (view if not tilt else replace(view, elevation=view.elevation - tilt),
                                      replace(reading, value=99)) for i, (view, reading) in first.items()}
            monkeypatch.setattr(second_core.WorkAhead, "finish", plant)
            planted = reader.read(image)
            if tilt:
                assert planted == plain
            else:
                assert len(planted) == len(plain)
                for mine, own in zip(planted, plain):
                    assert mine == own or mine == replace(own, value=99)
                    planted_read += mine.value == 99
    assert planted_read, "no first reading was kept on these photos: the test shows nothing"


def _counting_work_ahead(monkeypatch) -> list[int]:
    """Count the frames the worker took (WorkAhead.finish calls)."""
    taken = []
    finish = second_core.WorkAhead.finish

    def counted(self):
        taken.append(1)
        return finish(self)

    monkeypatch.setattr(second_core.WorkAhead, "finish", counted)
    return taken


def test_reading_ahead_changes_no_reading(worker_ready, scenes, monkeypatch):
    taken = _counting_work_ahead(monkeypatch)
    reader, alone = DiceReader(), DiceReader(second_process=False)
    assert [reader.read(image) for image in scenes] == [alone.read(image) for image in scenes]
    assert len(taken) == len(scenes) - 1  # the first frame alone, every other with the worker


def test_light_pips_the_worker_read_give_the_readings_read_here(worker_ready, scenes, light_pips, monkeypatch):
    # the pip search waits, before it begins, for the worker's light read: the worker takes the token
    # every frame, and the readings are those read in one process
    find, used = reader_module.find_pip_faces, []

    def after_the_workers_light_read(image, close_ups=True, elsewhere=None, set_aside=None):
        if elsewhere is None:  # the reader alone
            return find(image, close_ups, set_aside=set_aside)
        elsewhere._take("light", "failed")

        def light():
            used.append(elsewhere.light())
            return used[-1]

        return find(image, close_ups, LightGiven(light), set_aside=set_aside)

    reader, alone = DiceReader(), DiceReader(second_process=False)
    reader.read(scenes[0])
    monkeypatch.setattr(reader_module, "find_pip_faces", after_the_workers_light_read)
    frames = scenes + light_pips
    assert [reader.read(image) for image in frames] == [alone.read(image) for image in frames]
    assert len(used) == len(frames) and all(faces is not None for faces in used)
    assert any(used), "no light pips in these photos: the test shows nothing"


def test_a_whole_frame_read_the_worker_made_gives_the_readings_read_here(worker_ready, small_dice, monkeypatch):
    # the reader asks for the worker's whole-frame read only once the worker is done with the frame:
    # here it waits for that, so the worker reads it every frame; the readings are those read alone
    whole_fine, used = second_core.WorkAhead.whole_fine, []

    def once_done(self, polarities):
        self._take("done")
        take = whole_fine(self, polarities)
        assert take is not None

        def taken():
            used.append(take())
            return used[-1]

        return taken

    reader, alone = DiceReader(), DiceReader(second_process=False)
    reader.read(small_dice[0])
    monkeypatch.setattr(second_core.WorkAhead, "whole_fine", once_done)
    assert [reader.read(image) for image in small_dice] == [alone.read(image) for image in small_dice]
    assert used and all(used), "no whole-frame read was made by the worker: the test shows nothing"


def test_a_read_that_raises_leaves_the_worker_free_for_the_next(worker_ready, reader, scenes, monkeypatch):
    # an error after the pips are found (here in choosing the bodies to read) is raised only once the
    # worker has ended the frame: the next frame's messages are its own
    taken = _counting_work_ahead(monkeypatch)
    reading = DiceReader()
    reading.read(scenes[1])

    def broken(self, image, faces, found, set_aside=None):
        raise RuntimeError("choosing the bodies failed")

    with monkeypatch.context() as patch:
        patch.setattr(DiceReader, "_numbered_bodies", broken)
        with pytest.raises(RuntimeError, match="choosing the bodies failed"):
            reading.read(scenes[0])
    assert taken == [1]
    assert [reading.read(image) for image in scenes] == [reader.read(image) for image in scenes]
    assert len(taken) == 1 + len(scenes)


def test_a_worker_that_dies_loses_no_frame(reader, scenes, monkeypatch, caplog):
    # its own worker, killed between frames: the frame is read here alone, with the same readings, the
    # worker is not used again, and the log says so
    process = second_core.SecondProcess()
    monkeypatch.setattr(reader_module, "SECOND_PROCESS", process)
    if not process.wait_ready(120):
        pytest.skip("the reader's second process did not start here")
    taken = _counting_work_ahead(monkeypatch)
    reading = DiceReader()
    reading.read(scenes[0])
    assert taken == [] and reading.read(scenes[1]) == reader.read(scenes[1]) and taken == [1]
    process._proc.kill()
    process._proc.wait()
    with caplog.at_level(logging.WARNING, logger=second_core.__name__):
        assert [reading.read(image) for image in scenes] == [reader.read(image) for image in scenes]
    assert "reading on in one process" in caplog.text
    assert process.ahead(scenes[0], None, False, True) is None  # given up


def test_a_process_that_ends_before_its_worker_is_ready_ends_it_quietly():
    # `dicetower run --rolls 2` read two frames and exited while its worker still loaded: the worker is
    # killed and waited for at exit, and says nothing (it printed a broken pipe's traceback before)
    program = ("import numpy as np\n"
               "from dicetower.vision.reader import DiceReader\n"
               "from dicetower.vision.second_core import SECOND_PROCESS\n"
               "reader, frame = DiceReader(), np.full((480, 640, 3), 128, np.uint8)\n"
               "reader.read(frame); reader.read(frame)\n"
               "print(SECOND_PROCESS._proc.pid, SECOND_PROCESS._ready)\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    pid, ready = done.stdout.split()
    assert ready == "False"  # it was still loading: the case under test
    assert "Traceback" not in done.stderr and "Error" not in done.stderr, done.stderr
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid), 0)  # ended and reaped, not left running


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs Linux's /proc to see the worker's files")
def test_the_worker_writes_nothing_to_the_callers_standard_output():
    # `dicetower read --json` writes its readings to standard output: the worker's is /dev/null (its
    # errors still go to standard error)
    process = second_core.SecondProcess()
    try:
        if not process.wait_ready(120):
            pytest.skip("the reader's second process did not start here")
        fds = f"/proc/{process._proc.pid}/fd"
        assert os.readlink(f"{fds}/1") == os.devnull
        assert os.readlink(f"{fds}/2") == os.readlink("/proc/self/fd/2")
    finally:
        process.stop()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_reads_with_its_own_worker_and_leaves_the_parents_alone(worker_ready, reader, scenes):
    # a child forked after the worker started must not talk to the parent's worker (the two would
    # interleave their frames on one socket): it starts its own; the parent's goes on as before
    taken = []
    finish = second_core.WorkAhead.finish

    def counted(self):
        taken.append(1)
        return finish(self)

    second_core.WorkAhead.finish = counted
    try:
        reading = DiceReader()
        reading.read(scenes[0])
        parent_worker = second_core.SECOND_PROCESS._proc.pid
        assert reading.read(scenes[1]) == reader.read(scenes[1]) and taken == [1]
        out_read, out_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: report, then leave without running pytest's exit
            code = 1
            try:
                fresh = second_core.SECOND_PROCESS._proc is None
                ready = second_core.SECOND_PROCESS.wait_ready(120)
                own = second_core.SECOND_PROCESS._proc.pid != parent_worker
                same = reading.read(scenes[2]) == reader.read(scenes[2])
                os.write(out_write, f"{fresh} {ready} {own} {same} {len(taken)}".encode())
                second_core.SECOND_PROCESS.stop()
                code = 0
            finally:
                os._exit(code)
        os.close(out_write)
        _, status = os.waitpid(pid, 0)
        report = os.read(out_read, 200).decode().split()
        os.close(out_read)
        assert os.waitstatus_to_exitcode(status) == 0
        assert report == ["True", "True", "True", "True", "2"]  # fresh, its own worker used, same readings
        assert second_core.SECOND_PROCESS._proc.pid == parent_worker
        assert reading.read(scenes[3]) == reader.read(scenes[3]) and taken == [1, 1]  # the parent's still works
    finally:
        second_core.WorkAhead.finish = finish
