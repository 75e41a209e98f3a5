"""End to end: the unchanged firmware in a real micropython process (the simulated tower), pyserial on
its socket URL, real OpenCV on a shipped real photo, a real SQLite roll log."""

import hashlib
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from dicetower import paths, rules
from dicetower.audit.rolllog import RollLog
from dicetower.link import TowerLink
from dicetower.service.plan import RollPlan
from dicetower.service.roll import RollPipeline
from dicetower.service.tower import TowerService
from dicetower.sim import SimTower
from dicetower.vision.camera import ReplayCamera
from dicetower.vision.reader import DiceReader
from dicetower.vision.scoring import load_labels

pytestmark = pytest.mark.e2e
DEMO = paths.repo_root() / "demo" / "matteop65"


def demo_labels() -> dict[str, list[int]]:
    """Labelled values of each shipped demo photo (labels.csv beside the photos), by file name."""
    return {Path(image).name: [int(r["value"]) for r in rows] for image, rows in load_labels(DEMO).items()}


def known_photo() -> tuple[Path, list[int]]:
    """A demo photo with three or more labelled dice, the first in name order."""
    for name, values in sorted(demo_labels().items()):
        if len(values) >= 3:
            return DEMO / name, values
    pytest.fail("the demo feed has no photo with three labelled dice")


def run_until_roll(service: TowerService, timeout_s: float = 60.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        result = service.poll(0.1)
        if result is not None:
            return result
    pytest.fail("no ROLL event reached the host")


def test_roll_press_shows_host_result_on_oled_and_logs_it(tmp_path):
    photo, labelled = known_photo()
    expected = rules.resolve("d6pool.count_successes", {"faces": labelled})
    log_path = tmp_path / "rolls.sqlite"
    with SimTower() as tower, RollLog(log_path, tower="sim") as log:
        link = TowerLink(tower.serial_url)
        try:
            link.handshake()
            service = TowerService(link, ReplayCamera([photo]), RollPipeline(DiceReader(), log, RollPlan()),
                                   confirm_timeout_s=1.0)
            service.start()
            tower.press("roll")
            result = run_until_roll(service)
            # the gate opened and closed again, the light ring went to capture white
            assert tower.servo_angle == pytest.approx(tower.servo_closed_deg, abs=1.0)
            assert sorted(r.value for r in result.readings) == sorted(labelled)
            assert result.outcome["successes"] == expected["successes"]
            assert tower.wait_until(lambda: tower.shows(result.screen, result.big), 5.0), tower.oled_text_art()
            assert str(expected["successes"]) in " ".join(tower.oled_lines() + [tower.oled_big() or ""])
        finally:
            link.close()
        rolls = log.rolls()
    assert len(rolls) == 1
    assert rolls[0]["frame_sha256"] == hashlib.sha256(photo.read_bytes()).hexdigest()
    assert sorted(d["value"] for d in rolls[0]["dice"]) == sorted(labelled)


class FirstDieUnsure:
    """The real reader, with its first reading's confidence lowered under UNSURE_BELOW: the service must ask."""

    def __init__(self):
        self.reader = DiceReader()

    def read(self, image):
        readings = self.reader.read(image)
        return [replace(readings[0], confidence=0.3)] + readings[1:]


def roll_answered_on_the_panel(tmp_path, player):
    """One ROLL on the simulated tower whose first die is read unsure (FirstDieUnsure), answered by `player`
    (called with the SimTower on its own thread: it presses the panel's buttons) while the service runs.
    Returns (the RollResult, the logged roll)."""
    photo, _ = known_photo()
    with SimTower() as tower, RollLog(tmp_path / "rolls.sqlite", tower="sim") as log:
        link = TowerLink(tower.serial_url)
        try:
            link.handshake()
            service = TowerService(link, ReplayCamera([photo]), RollPipeline(FirstDieUnsure(), log, RollPlan()),
                                   confirm_timeout_s=30.0)
            service.start()
            presses = threading.Thread(target=player, args=(tower,))
            presses.start()
            tower.press("roll")
            result = run_until_roll(service)
            presses.join(30.0)
        finally:
            link.close()
        return result, log.rolls()[0]


def test_unsure_die_corrected_with_the_towers_buttons(tmp_path):
    panel_done = []

    def player(tower) -> None:  # holds OK on the prompt, steps the value up once, holds OK to keep it
        assert tower.wait_until(lambda: tower.oled_lines()[0] == "UNSURE DIE 1", 60.0), tower.oled_text_art()
        tower.press("ok", ms=1500)
        assert tower.wait_until(lambda: tower.oled_lines()[0] == "FIX DIE 1", 10.0), tower.oled_text_art()
        shown = tower.oled_lines()[1]
        time.sleep(0.5)  # the firmware counts the held press from when it read it: let it end first
        tower.press("ok")
        assert tower.wait_until(lambda: tower.oled_lines()[1] != shown, 10.0), tower.oled_text_art()
        tower.press("ok", ms=1500)
        panel_done.append(shown)

    result, roll = roll_answered_on_the_panel(tmp_path, player)
    assert panel_done, "the player's presses did not all reach the tower"
    read = roll["dice"][0]
    assert read["value"] == int(panel_done[0].split()[-1])  # logged as read
    assert read["corrected_value"] == read["value"] % 6 + 1 == read["face"] == result.readings[0].value
    assert result.outcome["roll_status"] == "resolved"


def test_a_die_held_no_on_the_towers_panel_is_left_out_of_the_roll(tmp_path):
    _, labelled = known_photo()
    prompts = []

    def player(tower) -> None:  # reads the whole prompt on the OLED, then holds NO: no die lies there
        assert tower.wait_until(lambda: tower.oled_lines()[0] == "UNSURE DIE 1", 60.0), tower.oled_text_art()
        prompts.append(tower.oled_lines())
        tower.press("no", ms=1500)

    result, roll = roll_answered_on_the_panel(tmp_path, player)
    assert prompts and prompts[0][-1] == "hold NO = no die"  # the prompt's 8th row, drawn by the firmware
    assert result.not_dice == [0] and roll["outcome"]["not_dice"] == [0]
    rest = [r.value for r in result.readings[1:]]
    assert result.outcome["successes"] == rules.resolve("d6pool.count_successes", {"faces": rest})["successes"]
    assert len(roll["dice"]) == len(labelled) and roll["dice"][0]["face"] is None  # logged, never counted


def test_make_run_rolls_three_times_and_logs_them(tmp_path):
    log_path, frames = tmp_path / "rolls.sqlite", tmp_path / "frames"
    proc = subprocess.run([sys.executable, "-m", "dicetower.cli", "run", "--rolls", "3", "--log", str(log_path),
                           "--annotate", str(frames)], capture_output=True, text=True, timeout=240, cwd=paths.repo_root())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("roll #") == 3
    with RollLog(log_path) as log:
        ids = [roll["roll_id"] for roll in log.rolls()]
    assert len(ids) == 3
    for roll_id in ids:  # each roll's annotated frame, its path printed
        assert (frames / f"roll-{roll_id}.png").is_file() and f"annotated frame: {frames / f'roll-{roll_id}.png'}" \
            in proc.stdout


def test_a_bad_table_profile_is_a_one_line_error_before_the_tower_starts(tmp_path):
    """The profile's error names the file and what to fix, without a Python traceback (a ProfileError was
    printed with one), and nothing is started or logged."""
    table = tmp_path / "bad.toml"
    table.write_text("system = 'd6pool'\n[roll]\nprocedure = 'd6pool.nothing_such'\n")
    proc = subprocess.run([sys.executable, "-m", "dicetower.cli", "run", "--rolls", "1",
                           "--log", str(tmp_path / "r.sqlite"), "--table", str(table)],
                          capture_output=True, text=True, timeout=240, cwd=paths.repo_root())
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"Error: {table}: unknown procedure 'd6pool.nothing_such'" in proc.stderr
    assert "simulated tower running" not in proc.stdout and not (tmp_path / "r.sqlite").exists()


def test_a_log_that_is_no_sqlite_file_is_a_one_line_error_before_the_tower_starts(tmp_path):
    """--log naming another kind of file: the roll log's LogError (it names the file, which is left untouched)
    as one line, not a traceback, and the simulated tower is not started."""
    photo = tmp_path / "photo.jpg"
    photo.write_bytes((DEMO / "valid_24.jpg").read_bytes())
    proc = subprocess.run([sys.executable, "-m", "dicetower.cli", "run", "--rolls", "1", "--log", str(photo)],
                          capture_output=True, text=True, timeout=240, cwd=paths.repo_root())
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"Error: {photo} is not a SQLite database" in proc.stderr and "simulated tower running" not in proc.stdout
    assert photo.read_bytes() == (DEMO / "valid_24.jpg").read_bytes()


def test_a_camera_that_cannot_be_opened_is_a_one_line_error_before_the_tower_starts(tmp_path):
    """--camera naming no camera (an unplugged webcam): LiveCamera's FrameError as one line saying what to
    check, not a traceback, and nothing started or logged."""
    proc = subprocess.run([sys.executable, "-m", "dicetower.cli", "run", "--rolls", "1", "--camera", "99",
                           "--log", str(tmp_path / "r.sqlite")],
                          capture_output=True, text=True, timeout=240, cwd=paths.repo_root())
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "Error: camera 99: cannot open it" in proc.stderr and "simulated tower running" not in proc.stdout
    assert not (tmp_path / "r.sqlite").exists()


def test_a_tower_port_that_cannot_be_opened_is_a_one_line_error(tmp_path):
    """--port naming no tower (an unplugged cable, a wrong name; here a socket:// URL nothing listens on):
    the link's LinkError as one line saying what to check, not a traceback."""
    proc = subprocess.run([sys.executable, "-m", "dicetower.cli", "run", "--port", "socket://127.0.0.1:1",
                           "--log", str(tmp_path / "r.sqlite")],
                          capture_output=True, text=True, timeout=240, cwd=paths.repo_root(), stdin=subprocess.DEVNULL)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "Error: cannot open the tower's serial port socket://127.0.0.1:1" in proc.stderr
    assert "plugged in" in proc.stderr


def test_a_tables_die_types_with_a_calibrated_set_is_refused_before_the_tower_starts(tmp_path):
    # the table names its dice (`[roll] die_types`); a calibrated set reads the dice it was calibrated on
    table = tmp_path / "named.toml"
    table.write_text((paths.repo_root() / "tables" / "d6pool.toml").read_text().replace(
        'procedure = "d6pool.simple_action"', 'procedure = "d6pool.simple_action"\ndie_types = ["d6", "d8"]'))
    proc = subprocess.run([sys.executable, "-m", "dicetower.cli", "run", "--rolls", "1",
                           "--log", str(tmp_path / "r.sqlite"),
                           "--table", str(table), "--die-set", "standard"],
                          capture_output=True, text=True, timeout=240, cwd=paths.repo_root())
    assert proc.returncode != 0 and "calibrated on" in proc.stderr and "Traceback" not in proc.stderr
    assert "simulated tower running" not in proc.stdout and not (tmp_path / "r.sqlite").exists()

