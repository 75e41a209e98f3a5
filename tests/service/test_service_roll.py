"""The roll pipeline: logged before shown, unsure and wrong dice never resolved in silence."""

import hashlib

import numpy as np
import pytest

from dicetower import rules
from dicetower.readings import DieReading
from dicetower.service.plan import RollPlan
from dicetower.service.roll import RollPipeline, frame_sha256, refusal_screen


class FixedReader:
    def __init__(self, readings):
        self.readings = readings

    def read(self, image):
        return list(self.readings)


class MemoryLog:
    """Records calls; the real RollLog is exercised in tests/audit and tests/e2e."""

    def __init__(self, fail=False):
        self.rows, self.fail = [], fail

    def record_roll(self, readings, outcome, **kw):
        if self.fail:
            raise OSError("disk full")
        self.rows.append((readings, outcome, kw))

        class Rec:
            roll_id = len(self.rows)

        return Rec()


def die(value, confidence=0.99, die_type="d6"):
    return DieReading(die_type, value, (0, 0, 5, 5), confidence)


IMAGE = np.zeros((4, 4, 3), np.uint8)


def test_resolves_logs_then_returns_screen():
    log = MemoryLog()
    result = RollPipeline(FixedReader([die(6), die(5), die(2)]), log, RollPlan()).resolve_and_log(
        IMAGE, "mem", [die(6), die(5), die(2)])
    assert result.outcome["successes"] == 3
    assert log.rows and log.rows[0][1]["successes"] == 3
    assert any("3" in line for line in result.screen)
    assert all(len(line) <= 16 for line in result.screen) and len(result.screen) <= 8


def test_rejected_unsure_roll_is_logged_as_rethrow_not_resolved():
    log = MemoryLog()
    pipeline = RollPipeline(FixedReader([]), log, RollPlan())
    result = pipeline.resolve_and_log(IMAGE, "mem", [die(6), die(3, confidence=0.3)], rejected=True)
    assert result.outcome["roll_status"] == "rethrow" and "successes" not in result.outcome
    assert result.unsure == [1]
    assert log.rows[0][1]["roll_status"] == "rethrow"


def test_wrong_die_type_asks_for_a_rethrow():
    result = RollPipeline(FixedReader([]), MemoryLog(), RollPlan()).resolve_and_log(
        IMAGE, "mem", [die(6), die(7, die_type="d8")])
    assert result.outcome["roll_status"] == "rethrow"
    assert "d8" in result.outcome["reason"]


def test_log_failure_propagates_so_nothing_unlogged_is_shown():
    with pytest.raises(OSError):
        RollPipeline(FixedReader([]), MemoryLog(fail=True), RollPlan()).resolve_and_log(IMAGE, "mem", [die(6)])


def test_frame_hash_is_of_the_file_bytes_when_read_from_a_file(tmp_path):
    path = tmp_path / "f.bin"
    path.write_bytes(b"photo bytes")
    assert frame_sha256(IMAGE, str(path)) == hashlib.sha256(b"photo bytes").hexdigest()
    assert frame_sha256(IMAGE, None) == hashlib.sha256(IMAGE.tobytes()).hexdigest()


def test_refusal_screen_folds_to_the_oled():
    lines = refusal_screen("THROW AGAIN", "a d8 was seen in a d6 pool: take it out and drop the dice again")
    assert lines[0] == "THROW AGAIN" and all(len(line) <= 16 for line in lines) and len(lines) <= 8


def test_the_generic_oled_form_shows_the_procedures_outcome_not_the_services_keys():
    from dicetower.service.roll import screen_form

    outcome = rules.resolve("talon.npc_modifiers", {"npc_grade": "bons"})
    lines, big = screen_form("talon.npc_modifiers", {"roll_status": "resolved", "rethrow_of": 3, **outcome})
    assert (lines, big) == screen_form("talon.npc_modifiers", outcome)
    assert lines[0] == "NPC MODIFIERS" and len(lines) == 1 + len(outcome)  # a line per key of the procedure's


def test_a_table_state_that_cannot_be_saved_leaves_the_roll_logged_and_shown(tmp_path, monkeypatch):
    """A full disk (or a read-only profile) when the outcome is added to the table's state: the roll stays
    logged and is shown, its state change reported as not saved, and the profile on disk is as it was (it
    raised out of the roll before)."""
    import errno

    from dicetower.service import table as table_mod

    path = tmp_path / "t.toml"
    path.write_text('system = "d6pool"\n[roll]\nprocedure = "d6pool.count_successes"\n'
                    'apply = { successes = "characters.ana.xp" }\n[characters.ana]\nxp = 1\n', encoding="utf-8")
    table = table_mod.Table(path)

    def full(path, profile):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(table_mod, "save_profile", full)
    log = MemoryLog()
    result = RollPipeline(FixedReader([]), log, table.plan, table).resolve_and_log(IMAGE, "mem", [die(5), die(2)])
    assert result.outcome["successes"] == 1 and len(log.rows) == 1 and result.screen
    assert len(result.state_changes) == 1 and result.state_changes[0].startswith("NOT saved:")
    assert "No space left" in result.state_changes[0] and 'xp = 1' in path.read_text(encoding="utf-8")
