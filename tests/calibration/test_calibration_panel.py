"""Guided calibration on the tower's panel (issue 4 item 5a) over the real link: the unchanged
firmware in micropython (SimTower), pyserial on its socket, a replay camera of synthetic tray
photos with ground truth. The test plays the player: it reads the OLED, presses ROLL, and answers
OK only when the face the OLED asks about is the one the photo shows."""

from __future__ import annotations

import threading

import cv2
import numpy as np
import pytest

from dicetower.link import TowerLink
from dicetower.sim import SimTower
from dicetower.vision import synth
from dicetower.vision.calibrate import CalibrationError
from dicetower.vision.calibrate_panel import panel_calibration
from dicetower.vision.camera import ReplayCamera
from dicetower.vision.faces import FaceClass


def _frames(tmp_path, spec, order, seed):
    rng = np.random.default_rng(seed)
    files = []
    for i, value in enumerate(order):
        frame, _ = synth.render_scene([(spec, value)], rng, size=(320, 240), die_px=(80, 100))
        path = tmp_path / f"frame_{i:02d}_{value}.png"
        cv2.imwrite(str(path), frame)
        files.append(path)
    return files


class Player(threading.Thread):
    """Presses the tower's buttons as a player would, from what the OLED shows: ROLL when asked to
    set or roll the die, OK/NO to "IS THE DIE UP SHOWING <face>" by the photo's true face."""

    def __init__(self, tower, truths):
        super().__init__(daemon=True)
        self.tower, self.truths, self.stop = tower, list(truths), threading.Event()
        self.questions: list[str] = []
        self.rolls = 0

    def run(self):
        last = None
        while not self.stop.is_set():
            rows = self.tower.oled_lines()
            screen = tuple(rows)
            if screen == last:
                self.tower.wait_until(lambda: tuple(self.tower.oled_lines()) != last or self.stop.is_set(), 0.5)
                continue
            last = screen
            self.react(rows)

    def react(self, rows):
        """Press what the screen (OLED rows) asks for."""
        if rows[0].startswith("CALIBRATE ") and "press ROLL" in " ".join(rows) or rows[0] == "NO DIE SEEN":
            self.rolls += 1
            self.tower.press("roll")
        elif rows[0] == "IS THE DIE UP":
            self.questions.append(rows[2])
            shown = self.truths[self.rolls - 1]
            self.tower.press("ok" if rows[2] == shown else "no")


def test_panel_calibration_over_the_simulated_tower(tmp_path):
    spec = synth.alkemy_spec("red", logo_six=True)
    faces = [FaceClass("d6", v, (), "red") for v in range(1, 6)] + [FaceClass("d6", 6, ("axe",), "red")]
    # phase 1: faces 1..6 set by hand; phase 2: rolls (a face already complete comes up too)
    order = [1, 2, 3, 4, 5, 6] + [3, 6, 1, 2, 6, 4, 5, 3, 2, 3, 2, 1, 4, 5, 3, 2]
    camera = ReplayCamera(_frames(tmp_path, spec, order, seed=5), loop=False)
    truths = [f"{v}@red" if v < 6 else "6|axe@red" for v in order]
    said = []
    with SimTower() as tower:
        link = TowerLink(tower.serial_url)
        player = Player(tower, truths)
        try:
            link.handshake()
            player.start()
            ds, report = panel_calibration(link, camera, faces, "panel_test", shots_per_face=2, say=said.append,
                                           out_dir=tmp_path / "set", answer_timeout_s=30)
            assert tower.wait_until(lambda: tower.oled_lines()[0] == "CALIBRATED", 5.0), tower.oled_text_art()
        finally:
            player.stop.set()
            link.close()
    assert said[0].startswith("set the d6 showing 1@red")
    assert any(s.startswith("[12/12]") for s in said)
    assert report.n == 12 and (tmp_path / "set" / "set.json").is_file()
    assert player.rolls <= len(order)
    # no face is learned more than its shots: a face already complete is not proposed again
    learned_keys = [s.split(" learned ")[1].split(" from ")[0] for s in said if " learned " in s]
    assert sorted(set(learned_keys)) == sorted(f.key for f in faces)
    assert all(learned_keys.count(k) == 2 for k in learned_keys)
    # every kept photo was confirmed by the player on the panel as its true face
    frames = [s.split(" from ")[1] for s in said if " learned " in s]
    for key, source in zip(learned_keys, frames):
        assert key.split(":", 1)[1] == truths[int(source.split("frame_")[1][:2])]


def test_panel_calibration_stops_when_the_player_does_not_answer(tmp_path):
    spec = synth.alkemy_spec("white")
    faces = [FaceClass("d6", v, (), "white") for v in (1, 2)]
    camera = ReplayCamera(_frames(tmp_path, spec, [1, 2], seed=1), loop=False)
    with SimTower() as tower:
        link = TowerLink(tower.serial_url)
        try:
            link.handshake()
            with pytest.raises(CalibrationError, match=r"no ROLL press .* within 0.5 s; calibration stopped after 0/4"):
                panel_calibration(link, camera, faces, "silent", shots_per_face=2, say=lambda s: None,
                                  out_dir=tmp_path / "set", answer_timeout_s=0.5)
            assert tower.wait_until(lambda: tower.oled_lines()[:2] == ["CALIBRATION", "STOPPED"], 5.0), \
                tower.oled_text_art()
        finally:
            link.close()
    assert not (tmp_path / "set").exists()


class SettingPlayer(Player):
    """A Player who answers "DIE READS <value> NOT <face>" (phase 1: the die set the wrong way up)
    with `answer` and notes each such screen."""

    def __init__(self, tower, truths, answer):
        super().__init__(tower, truths)
        self.answer, self.warnings = answer, []

    def react(self, rows):
        if rows[0] == "DIE READS":
            self.warnings.append(" ".join(rows[:3]))
            self.tower.press(self.answer)
        else:
            super().react(rows)


@pytest.mark.parametrize("answer", ["no", "ok"])
def test_a_face_set_the_wrong_way_up_is_named_on_the_panel(tmp_path, answer):
    """Phase 1 of a red Alkemy d6's 1, 2 and 3: the die set for the 2 shows a 3. The OLED says "DIE
    READS 3 NOT 2@red"; NO asks for the 2 again and the next photo (a 2) is learned, OK keeps the photo
    as the 2. Before, the 3 was learned as the 2 with nothing said."""
    spec = synth.alkemy_spec("red")
    faces = [FaceClass("d6", v, (), "red") for v in (1, 2, 3)]
    order = ([1, 3, 2, 3] if answer == "no" else [1, 3, 3]) + [1, 2, 3, 1, 2, 3, 1, 2, 3]
    files = _frames(tmp_path, spec, order, seed=5)
    truths = [f"{v}@red" for v in order]
    said = []
    with SimTower() as tower:
        link = TowerLink(tower.serial_url)
        player = SettingPlayer(tower, truths, answer)
        try:
            link.handshake()
            player.start()
            _, report = panel_calibration(link, ReplayCamera(files, loop=False), faces, "set_wrong", shots_per_face=2,
                                          say=said.append, out_dir=tmp_path / "set", answer_timeout_s=30)
        finally:
            player.stop.set()
            link.close()
    assert player.warnings == ["DIE READS 3 NOT 2@red"], player.warnings
    learned_twos = [s.split(" from ")[1] for s in said if " learned d6:2@red " in s]
    assert (str(files[1]) in learned_twos) == (answer == "ok")
    assert learned_twos[0] == str(files[1] if answer == "ok" else files[2])
    assert report.n == 6
