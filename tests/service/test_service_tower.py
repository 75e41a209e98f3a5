"""The service loop over a link: unsure dice wait for OK/NO, confirmations reach the log, BOOT gets
the idle line again, and a fairness alarm reaches the display after the result."""

import queue
from dataclasses import replace
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from dicetower.audit.rolllog import RollLog
from dicetower.audit.sprt import FairnessWatch
from dicetower.readings import DieReading
from dicetower.service.cli import describe, takes_key
from dicetower.service.plan import RollPlan
from dicetower.service.roll import Correction, RollPipeline
from dicetower.service.tower import (ASKING_FRAME, TowerService, confirm_screen, correction_faces,
                                     tray_position)
from dicetower.vision.annotate import NO_DIE


class ScriptedLink:
    """A link whose tower events are queued by the test; everything sent is recorded."""

    def __init__(self, events=()):
        self.events = queue.Queue()
        for e in events:
            self.events.put(e)
        self.screens, self.idle, self.lights = [], [], []

    def next_event(self, timeout_s):
        try:
            return self.events.get(timeout=timeout_s)
        except queue.Empty:
            return None

    def show_screen(self, lines, big=None):
        self.screens.append(list(lines))

    def show_idle(self, line):
        self.idle.append(line)

    def set_light(self, mode):
        self.lights.append(mode)


def event(kind, **fields):
    return SimpleNamespace(type=kind, seq=1, fields=fields)


class Camera:
    def read(self):
        return SimpleNamespace(image=np.zeros((8, 8, 3), np.uint8), source="memory")


class Reader:
    def __init__(self, readings):
        self.readings = readings

    def read(self, image):
        return list(self.readings)


def service(tmp_path, readings, events, **kw):
    log = RollLog(tmp_path / "rolls.sqlite")
    link = ScriptedLink(events)
    return TowerService(link, Camera(), RollPipeline(Reader(readings), log, RollPlan()), **kw), link, log


SURE, UNSURE = DieReading("d6", 6, (0, 0, 9, 9), 0.99), DieReading("d6", 5, (20, 0, 9, 9), 0.4)


def test_unsure_die_confirmed_on_the_panel_is_resolved_and_marked_confirmed(tmp_path):
    svc, link, log = service(tmp_path, [SURE, UNSURE], [event("ROLL"), event("BTN", name="ok", press="short")])
    result = svc.poll(1.0)
    assert result.outcome["successes"] == 3
    assert link.screens[0][0] == "UNSURE DIE 2" and "unsure" in link.lights
    dice = log.rolls()[0]["dice"]
    assert dice[1]["confirmed"] is True and dice[1]["face"] == 5
    log.close()


def test_unsure_die_rejected_or_unanswered_is_thrown_again(tmp_path):
    svc, link, log = service(tmp_path, [SURE, UNSURE], [event("ROLL"), event("BTN", name="no", press="short")])
    assert svc.poll(1.0).outcome["roll_status"] == "rethrow"
    second = tmp_path / "unanswered"
    second.mkdir()
    svc2, link2, log2 = service(second, [UNSURE], [event("ROLL")], confirm_timeout_s=0.2)
    assert svc2.poll(1.0).outcome["roll_status"] == "rethrow"
    assert log2.rolls()[0]["dice"][0]["face"] is None  # never counted by the audit unconfirmed
    log.close()
    log2.close()


def test_host_answer_typed_at_the_cli_counts_like_the_panel(tmp_path):
    svc, link, log = service(tmp_path, [UNSURE], [event("ROLL")])
    svc.answers.put("OK")
    assert svc.poll(1.0).outcome["roll_status"] == "resolved"
    log.close()


def btn(name, press="short"):
    return event("BTN", name=name, press=press)


def test_unsure_die_corrected_on_the_panel_resolves_and_logs_the_corrected_face(tmp_path):
    # hold OK: set the value from the 5 read; OK steps up (6, then round to 1), NO down (back to 6); hold OK keeps 6
    presses = [btn("ok", "long"), btn("ok"), btn("ok"), btn("no"), btn("ok", "long")]
    svc, link, log = service(tmp_path, [SURE, UNSURE], [event("ROLL"), *presses])
    result = svc.poll(1.0)
    assert result.outcome["successes"] == 4  # 6 and 6, not 6 and 5
    assert [r.value for r in result.readings] == [6, 6]
    assert [s[1] for s in link.screens[1:5]] == ["d6 is 5", "d6 is 6", "d6 is 1", "d6 is 6"]
    die = log.rolls()[0]["dice"][1]
    assert (die["value"], die["corrected_value"], die["face"], die["confirmed"]) == (5, 6, 6, True)
    assert log.verify().ok
    log.close()


def test_held_no_goes_back_to_the_prompt_and_a_value_kept_as_read_is_no_correction(tmp_path):
    presses = [btn("ok", "long"), btn("ok"), btn("no", "long"), btn("no")]
    svc, link, log = service(tmp_path, [UNSURE], [event("ROLL"), *presses])
    assert svc.poll(1.0).outcome["roll_status"] == "rethrow"
    assert link.screens[3][0] == "UNSURE DIE 1"  # the prompt again, then NO dropped the dice
    second = tmp_path / "kept"
    second.mkdir()
    svc2, _, log2 = service(second, [UNSURE], [event("ROLL"), btn("ok", "long"), btn("ok", "long")])
    assert svc2.poll(1.0).outcome["successes"] == 1
    die = log2.rolls()[0]["dice"][0]
    assert (die["confirmed"], die["corrected_value"], die["face"]) == (True, None, 5)
    log.close()
    log2.close()


def test_a_held_no_says_no_die_lies_there_and_the_roll_resolves_without_it(tmp_path):
    # a side face read as an unsure die of its own: the throw stands on the dice that are there
    svc, link, log = service(tmp_path, [SURE, UNSURE], [event("ROLL"), btn("no", "long")])
    result = svc.poll(1.0)
    assert link.screens[0][0] == "UNSURE DIE 2" and link.screens[0][-1] == "hold NO = no die"
    assert result.outcome["roll_status"] == "resolved" and result.outcome["successes"] == 2  # the 6 alone
    assert result.not_dice == [1] and "NOT A DIE" in describe(result).split("d6=5")[1]
    assert not any("not_dice" in line or "[1]" in line for line in result.screen)  # the service's key, not shown
    roll = log.rolls()[0]
    assert roll["outcome"]["not_dice"] == [1]
    kept, left_out = roll["dice"]
    assert (kept["face"], left_out["value"], left_out["unsure"], left_out["confirmed"], left_out["face"]) == \
        (6, 5, True, False, None)  # logged as read; the audit never counts it
    assert log.verify().ok
    log.close()


def test_no_die_typed_at_the_host_and_nothing_left_asks_for_the_dice_again(tmp_path):
    svc, link, log = service(tmp_path, [UNSURE], [event("ROLL")])
    svc.answers.put("NOT_A_DIE")
    result = svc.poll(1.0)
    assert result.outcome == {"roll_status": "rethrow", "reason": "no dice seen in the tray", "not_dice": [0]}
    assert result.screen[0] == "NO DICE SEEN"
    log.close()


def test_only_an_unconfirmed_unsure_reading_can_be_left_out(tmp_path):
    log = RollLog(tmp_path / "rolls.sqlite")
    pipeline = RollPipeline(Reader([]), log, RollPlan())
    image = np.zeros((8, 8, 3), np.uint8)
    for not_dice, confirmed in (([0], {}), ([2], {}), ([1], {1: None})):
        with pytest.raises(ValueError, match="only an unsure reading"):
            pipeline.resolve_and_log(image, "memory", [SURE, UNSURE], confirmed=confirmed, not_dice=not_dice)
    assert log.rolls() == []  # nothing logged
    log.close()


class TrayCamera:
    """A grey 480x640 frame, large enough for the annotated frame's labels."""

    def read(self):
        return SimpleNamespace(image=np.full((480, 640, 3), 90, np.uint8), source="memory")


def test_annotated_frames_of_the_roll_asked_about_and_of_each_logged_roll_are_saved(tmp_path):
    log = RollLog(tmp_path / "rolls.sqlite")
    link = ScriptedLink([event("ROLL"), btn("ok")])
    seen_when_asked = []
    frames = tmp_path / "frames"
    svc = TowerService(link, TrayCamera(), RollPipeline(Reader([SURE, replace(UNSURE, box=(300, 200, 60, 60))]), log,
                                                        RollPlan()), annotate_dir=frames,
                       on_prompt=lambda lines: seen_when_asked.append((frames / ASKING_FRAME).is_file()))
    result = svc.poll(1.0)
    assert seen_when_asked == [True]  # saved before the tower asked
    assert result.annotated == frames / f"roll-{result.roll_id}.png" and result.annotated.is_file()
    asked = cv2.imread(str(frames / ASKING_FRAME))
    assert asked.shape == (480, 640, 3) and (asked[200, 300:360] == (0, 0, 255)).all()  # the unsure die's box
    log.close()


def test_the_rolls_annotated_frame_draws_a_reading_said_to_be_no_die_grey(tmp_path):
    log = RollLog(tmp_path / "rolls.sqlite")
    svc = TowerService(ScriptedLink([event("ROLL"), btn("no", "long")]), TrayCamera(),
                       RollPipeline(Reader([SURE, replace(UNSURE, box=(300, 200, 60, 60))]), log, RollPlan()),
                       annotate_dir=tmp_path)
    result = svc.poll(1.0)
    asked, logged = cv2.imread(str(tmp_path / ASKING_FRAME)), cv2.imread(str(result.annotated))
    assert (asked[200, 300:360] == (0, 0, 255)).all() and (logged[200, 300:360] == NO_DIE).all()
    log.close()


def test_a_die_is_placed_in_the_tray_by_thirds_of_the_frame_as_a_player_facing_it_sees_them():
    shape = (480, 640, 3)  # the image's top is the tray's back wall, its left the tower's side
    where = {(x, y): tray_position((x - 20, y - 20, 40, 40), shape) for x in (100, 320, 600) for y in (60, 240, 470)}
    assert where == {(100, 60): "back left", (320, 60): "back", (600, 60): "back right",
                     (100, 240): "left", (320, 240): "middle", (600, 240): "right",
                     (100, 470): "front left", (320, 470): "front", (600, 470): "front right"}
    assert tray_position((630, 470, 40, 40), shape) == "front right"  # a box running off the frame


def test_the_prompt_says_where_the_unsure_die_lies_and_that_it_is_cocked(tmp_path):
    log = RollLog(tmp_path / "rolls.sqlite")
    cocked = replace(UNSURE, box=(560, 400, 40, 40), cocked=True)
    link = ScriptedLink([event("ROLL"), btn("ok")])
    svc = TowerService(link, TrayCamera(), RollPipeline(Reader([SURE, cocked]), log, RollPlan()))
    svc.poll(1.0)
    assert link.screens[0][:3] == ["UNSURE DIE 2", "d6 cocked 5", "front right 0.40"]
    assert all(len(line) <= 16 for line in link.screens[0])  # the OLED's 16 characters a row
    assert confirm_screen(1, UNSURE, [])[1:3] == ["d6 read 5", "conf 0.40"]  # no frame: no place
    log.close()


def test_an_annotated_frame_that_cannot_be_saved_is_said_and_the_roll_goes_on(tmp_path):
    (tmp_path / "frames").write_text("a file, not a folder")
    errors = []
    log = RollLog(tmp_path / "rolls.sqlite")
    link = ScriptedLink([event("ROLL")])
    svc = TowerService(link, TrayCamera(), RollPipeline(Reader([SURE]), log, RollPlan()),
                       annotate_dir=tmp_path / "frames", on_error=errors.append)
    result = svc.poll(1.0)
    assert result.outcome["roll_status"] == "resolved" and result.annotated is None
    assert len(errors) == 1 and "roll-1.png not saved" in errors[0] and len(log.rolls()) == 1
    assert link.screens[-1] == result.screen
    log.close()


def test_host_sets_a_value_and_a_value_no_face_of_the_die_is_ignored(tmp_path, caplog):
    svc, link, log = service(tmp_path, [SURE, UNSURE], [event("ROLL")])
    for answer in ("SET 9", "SET x", "SET 2"):  # a d6 has no 9
        svc.answers.put(answer)
    result = svc.poll(1.0)
    assert result.outcome["successes"] == 2 and log.rolls()[0]["dice"][1]["corrected_value"] == 2
    assert "'SET 9' ignored" in caplog.text and "from 1 to 6" in caplog.text
    log.close()


def test_a_die_the_reader_took_for_another_type_of_the_tables_is_set_right_on_the_panel(tmp_path):
    # the table throws d6 and d8: from the d6 5 read, OK steps to 6, then on to the d8's faces; hold OK keeps d8 1
    log = RollLog(tmp_path / "rolls.sqlite")
    link = ScriptedLink([event("ROLL"), btn("ok", "long"), btn("ok"), btn("ok"), btn("ok", "long")])
    plan = RollPlan(die_types=("d6", "d8"))  # the d6 pool: a d8 is no die of it
    svc = TowerService(link, Camera(), RollPipeline(Reader([SURE, UNSURE]), log, plan))
    result = svc.poll(1.0)
    assert [s[1] for s in link.screens[1:4]] == ["d6 is 5", "d6 is 6", "d8 is 1"]
    assert link.screens[3][2] == "(read d6 5)"
    assert result.outcome["roll_status"] == "rethrow" and "d8" in result.outcome["reason"]  # GEN-D04: refused
    assert (result.readings[1].die_type, result.readings[1].value) == ("d8", 1)
    die = log.rolls()[0]["dice"][1]
    assert (die["die_type"], die["value"], die["corrected_type"], die["face"]) == ("d6", 5, "d8", 1)
    dice, rows = log.audit_columns()
    assert dice[rows["key"][1]] == (None, "d8") and rows["corrected"][1]
    assert log.verify().ok
    log.close()


def test_the_readers_next_guesses_come_first_when_a_face_is_set(tmp_path):
    # a d20 read 10 whose next guesses are 16, a d8's 3 (no d8 is thrown: not offered) and 19
    d20 = DieReading("d20", 10, (0, 0, 9, 9), 0.3, alternatives=[("d20", 16), ("d8", 3), ("d20", 19)])
    faces = correction_faces(d20, ("d20",))
    assert [f.value for f in faces[:4]] == [10, 16, 19, 11] and faces[-1].value == 9  # NO from 10 still gives 9
    assert sorted(f.value for f in faces) == list(range(1, 21)) and {f.die_type for f in faces} == {"d20"}
    assert correction_faces(replace(d20, alternatives=[]), ("d20",)) == \
        [Correction("d20", v) for v in [*range(10, 21), *range(1, 10)]]  # no guesses: up from the face read
    assert confirm_screen(0, d20, faces)[3] == "or 16 19"
    log = RollLog(tmp_path / "rolls.sqlite")
    link = ScriptedLink([event("ROLL"), btn("ok", "long"), btn("ok"), btn("ok", "long")])
    prompts: list[list[str]] = []
    svc = TowerService(link, Camera(), RollPipeline(Reader([d20]), log, RollPlan(die_types=("d20",))),
                       on_prompt=prompts.append)
    result = svc.poll(1.0)
    assert link.screens[0][3] == "or 16 19" and prompts == [link.screens[0]]  # the host terminal sees it too
    assert [s[1] for s in link.screens[1:3]] == ["d20 is 10", "d20 is 16"]  # one press to the first guess
    assert (result.readings[0].value, result.readings[0].alternatives) == (16, [])  # set by a person
    die = log.rolls()[0]["dice"][0]
    assert (die["value"], die["corrected_value"], die["face"]) == (10, 16, 16)
    log.close()


def test_the_bench_counts_presses_to_the_labelled_face_the_shorter_way_round():
    from bench.vision import correction_presses

    die = DieReading("d20", 10, (0, 0, 9, 9), 0.3, alternatives=[("d20", 16), ("d20", 19)]).to_json()
    label = {"die_type": "d20", "value": "16"}
    assert correction_presses(die, label, ("d20",)) == (1, 6)  # the first guess against 10 -> 16 going up
    assert correction_presses(die, dict(label, value="9"), ("d20",)) == (1, 1)  # one press down either way
    assert correction_presses(die, dict(label, value="19"), ("d20",)) == (2, 9)  # second guess; 10 -> 19 by 9 ups
    assert correction_presses(die, {"die_type": "d8", "value": "3"}, ("d20",)) is None  # no d8 thrown
    assert correction_presses(die, dict(label, value=""), ("d20",)) is None


def test_a_guess_of_another_type_in_play_is_offered_with_its_type():
    d6 = DieReading("d6", 5, (0, 0, 9, 9), 0.4, alternatives=[("d8", 7), ("d6", 3)])
    faces = correction_faces(d6, ("d6", "d8"))
    assert faces[:3] == [Correction("d6", 5), Correction("d8", 7), Correction("d6", 3)]
    assert confirm_screen(1, d6, faces)[3] == "or d8:7 3"
    assert confirm_screen(1, replace(d6, alternatives=[]), correction_faces(d6, ("d6",)))[3] == ""


def test_host_sets_a_die_type_and_value_and_an_impossible_one_is_ignored(tmp_path, caplog):
    d10 = DieReading("d10", 7, (0, 0, 9, 9), 0.4)
    svc, link, log = service(tmp_path, [d10], [event("ROLL")])
    for answer in ("SET d7 3", "SET d20 21", "SET stone 2", "SET d20 17"):
        svc.answers.put(answer)
    result = svc.poll(1.0)
    assert (result.readings[0].die_type, result.readings[0].value) == ("d20", 17)
    die = log.rolls()[0]["dice"][0]
    assert (die["die_type"], die["corrected_type"], die["face"]) == ("d10", "d20", 17)
    assert "'SET d20 21' ignored" in caplog.text and "'SET stone 2' ignored" in caplog.text
    assert "SET <die type> <value>" in caplog.text
    log.close()


def test_the_terminal_takes_a_value_or_a_die_type_and_value_as_one_correction():
    def typed(keys: str) -> str:
        out = ""
        for key in keys:
            out += key if takes_key(out, key) else ""
        return out

    assert typed("d20 17") == "d20 17" and typed("12") == "12"
    assert typed("5d") == "5" and typed("d8  5") == "d8 5" and typed(" 5") == "5"  # y, n, r, q keep their meaning
    assert not takes_key("", "y") and not takes_key("d8", "n")


def test_a_die_with_no_value_to_set_is_kept_by_a_held_ok(tmp_path):
    stone = DieReading("stone", None, (0, 0, 9, 9), 0.4, symbols=["sword"])
    svc, link, log = service(tmp_path, [stone], [event("ROLL"), btn("ok", "long")])
    svc.poll(1.0)
    assert "hold OK = fix" not in link.screens[0]
    assert log.rolls()[0]["dice"][0]["confirmed"] is True
    log.close()


def test_tower_restart_gets_the_idle_line_again(tmp_path):
    svc, link, log = service(tmp_path, [SURE], [event("BOOT", fw="0.1.0")], idle_line="Success 45.7%")
    assert svc.poll(1.0) is None
    assert link.idle == ["Success 45.7%"]
    log.close()


def test_fairness_alarm_shows_after_the_result(tmp_path):
    # a d6 that always shows 6 crosses its SPRT bound within a few dozen rolls
    alarms = []
    svc, link, log = service(tmp_path, [SURE], [], watch=FairnessWatch(), on_alarm=alarms.append, alarm_delay_s=0.0)
    for _ in range(60):
        link.events.put(event("ROLL"))
        svc.poll(1.0)
        if alarms:
            break
    assert alarms and alarms[0].face == 6
    assert link.lights[-1] == "alarm"
    svc.poll(0.01)
    assert link.screens[-1][0] == "DIE ALARM"
    log.close()


class BrokenCamera:
    def read(self):
        from dicetower.vision.camera import FrameError

        raise FrameError("frame.jpg: not a readable image (corrupt)")


def test_corrupt_frame_asks_for_the_dice_again_and_keeps_serving(tmp_path):
    errors = []
    svc, link, log = service(tmp_path, [SURE], [event("ROLL"), event("ROLL")], on_error=errors.append)
    svc.camera = BrokenCamera()
    assert svc.poll(1.0) is None
    assert link.screens[-1][0] == "CAMERA ERROR" and "corrupt" in errors[0]
    svc.camera = Camera()
    assert svc.poll(1.0).outcome["successes"] == 2  # the next roll is served
    log.close()


def test_log_that_cannot_be_written_shows_no_result(tmp_path):
    from dicetower.audit.rolllog import LogError

    class FullDiskLog:
        def record_roll(self, *a, **kw):
            raise LogError("rolls.sqlite: database or disk is full; the roll was NOT logged")

    errors = []
    link = ScriptedLink([event("ROLL")])
    svc = TowerService(link, Camera(), RollPipeline(Reader([SURE]), FullDiskLog(), RollPlan()), on_error=errors.append)
    assert svc.poll(1.0) is None
    assert link.screens == [["LOG FAILED", "result NOT shown", "check the host's", "disk, then drop", "the dice again"]]
    assert "NOT logged" in errors[0] and svc.results == []


class ShakyCamera:
    """A live camera whose frames never stop changing (a tray that keeps shaking)."""

    def __init__(self):
        self.n = 0

    def read(self):
        self.n += 1
        image = np.full((60, 80, 3), 40 * (self.n % 2) + 20, np.uint8)
        return SimpleNamespace(image=image, source="camera:0")


def test_live_dice_that_never_settle_are_not_read(tmp_path):
    errors = []
    svc, link, log = service(tmp_path, [SURE], [event("ROLL")], on_error=errors.append, settle=True)
    svc.camera = ShakyCamera()
    assert svc.poll(1.0) is None
    assert link.screens[-1][0] == "NOT SETTLED" and "not settled" in errors[0]
    assert log.rolls() == []
    log.close()
