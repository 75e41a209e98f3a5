"""The roll log on real SQLite files: contents, hash chain and tampering, bad files, crash safety."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from dicetower.audit import rolllog
from dicetower.audit.rolllog import SCHEMA_VERSION, LogError, RollLog, chain_hash
from dicetower.readings import DieReading

SHA = hashlib.sha256(b"frame").hexdigest()


def d(die_type: str, value: int | None, conf: float = 0.97, die_id: str | None = None, x: int = 10) -> DieReading:
    return DieReading(die_type=die_type, value=value, box=(x, 20, 30, 30), confidence=conf, die_id=die_id)


def log_some(path, n=5):
    with RollLog(path, tower="sim", table="t1") as log:
        for i in range(n):
            log.record_roll([d("d6", 1 + i % 6, die_id="red"), d("d20", 1 + (7 * i) % 20, die_id="blue")],
                            {"successes": i}, system="d6pool", procedure="d6pool.count_successes",
                            frame_sha256=SHA, frame_source=f"img{i}.jpg")


def test_rolls_are_logged_with_every_field_and_read_back(tmp_path):
    path = tmp_path / "rolls.sqlite"
    with RollLog(path, tower="sim", table="friday") as log:
        rec = log.record_roll([d("d6", 5, 0.99, "A"), d("d6", 2, 0.5, "B")], {"successes": 1},
                              system="d6pool", procedure="d6pool.count_successes", frame_sha256=SHA,
                              frame_source="x.jpg", crops=[b"\x89PNG\r\n\x1a\nabc", b"\xff\xd8jpeg"])
        assert rec.roll_id == 1 and rec.time > 0
        rec2 = log.record_roll([], {"status": "rethrow"}, system="d6pool", procedure="d6pool.count_successes",
                               frame_sha256=SHA)
        assert rec2.roll_id == 2
    with RollLog(path, readonly=True) as log:
        rolls = log.rolls()
        assert log.verify().ok
    assert [r["roll_id"] for r in rolls] == [1, 2]
    first = rolls[0]
    assert first["tower"] == "sim" and first["table"] == "friday" and first["outcome"] == {"successes": 1}
    assert first["frame_sha256"] == SHA and first["time_utc"].endswith("+00:00")
    assert [(x["die_id"], x["value"], x["unsure"], x["confirmed"]) for x in first["dice"]] == \
        [("A", 5, False, False), ("B", 2, True, False)]
    crop = tmp_path / first["dice"][0]["crop_path"]
    assert crop.read_bytes() == b"\x89PNG\r\n\x1a\nabc" and crop.suffix == ".png"
    assert rolls[1]["dice"] == []
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_confirmation_and_correction_are_appended_and_chained(tmp_path):
    path = tmp_path / "rolls.sqlite"
    log_some(path, 2)
    with RollLog(path) as log:
        log.mark_confirmed(1, 0, None)
        log.mark_confirmed(2, 1, 13)
        with pytest.raises(LogError, match="out of range for a d20"):
            log.mark_confirmed(2, 1, 21)
        with pytest.raises(LogError, match="roll 9 has no die 0"):
            log.mark_confirmed(9, 0, 3)
        rolls = log.rolls()
        assert log.verify().ok
    assert rolls[0]["dice"][0]["confirmed"] and rolls[0]["dice"][0]["face"] == rolls[0]["dice"][0]["value"]
    corrected = rolls[1]["dice"][1]
    assert corrected["confirmed"] and corrected["corrected_value"] == 13 and corrected["face"] == 13
    assert corrected["value"] == 8  # what was read stays in the log


def test_a_die_the_reader_took_for_another_type_is_corrected_and_counted_under_its_type(tmp_path):
    path = tmp_path / "rolls.sqlite"
    log_some(path, 2)  # roll 2 read a d6 (die 0) and a d20 showing 8 (die 1)
    with RollLog(path) as log:
        with pytest.raises(LogError, match="out of range for a d12"):  # no d12 has a 17: nothing appended
            log.mark_confirmed(2, 1, 17, "d12")
        with pytest.raises(LogError, match="unknown die type 'd7'"):
            log.mark_confirmed(2, 1, 3, "d7")
        with pytest.raises(LogError, match="needs the face it shows"):
            log.mark_confirmed(2, 1, None, "d12")
        log.mark_confirmed(2, 1, 11, "d12")
        log.mark_confirmed(1, 1, 5, "d20")  # the type read: no type correction
        rolls = log.rolls()
        dice, rows = log.audit_columns()
        assert log.verify().ok
    retyped, kept = rolls[1]["dice"][1], rolls[0]["dice"][1]
    assert (retyped["die_type"], retyped["value"], retyped["corrected_type"], retyped["face"]) == ("d20", 8, "d12", 11)
    assert (kept["corrected_type"], kept["face"]) == (None, 5)
    assert dice[rows["key"][3]] == ("blue", "d12") and rows["face"][3] == 11 and rows["corrected"][3]
    assert dice[rows["key"][1]] == ("blue", "d20") and rows["face"][1] == 5
    with sqlite3.connect(path) as db:  # the correction is in the chain: edited, it no longer verifies
        db.execute("UPDATE confirmations SET corrected_type = 'd10' WHERE corrected_type = 'd12'")
    assert [f.table for f in faults_of(path)] == ["confirmations"]


def test_audit_columns_read_in_chunks_match_one_read_and_the_log(tmp_path, monkeypatch):
    path = tmp_path / "rolls.sqlite"
    log_some(path, 7)  # 14 readings, read back 3 per query and all in one
    with RollLog(path) as log:
        log.mark_confirmed(3, 1, 11)
        _, whole = log.audit_columns()
        monkeypatch.setattr(rolllog, "COLUMN_CHUNK", 3)
        dice, chunked = log.audit_columns()
        rolls = log.rolls()
    assert chunked.tolist() == whole.tolist() and chunked.size == 14
    logged = [(r["time"], die["die_id"], die["face"], die["box"][0] + die["box"][2] / 2)
              for r in rolls for die in r["dice"]]
    read = zip(chunked["epoch"], chunked["key"], chunked["face"], chunked["x"])
    assert [(epoch, dice[key][0], face, x) for epoch, key, face, x in read] == logged
    assert chunked["corrected"].tolist() == [i == 5 for i in range(14)]  # roll 3's d20 set to 11


def test_audit_columns_refuse_a_reading_of_no_logged_roll(tmp_path):
    path = tmp_path / "rolls.sqlite"
    log_some(path, 2)
    with sqlite3.connect(path) as db:  # edited outside dicetower: roll 2 deleted, its readings left
        db.execute("DELETE FROM rolls WHERE roll_id = 2")
    with RollLog(path, readonly=True) as log, pytest.raises(LogError, match="audit verify"):
        log.audit_columns()


def test_a_log_of_schema_version_2_is_read_as_it_is_and_upgraded_when_written(tmp_path):
    path = tmp_path / "rolls.sqlite"
    log_some(path, 2)
    with RollLog(path) as log:
        log.mark_confirmed(2, 1, 13)
        head = log.verify().head_hash
    with sqlite3.connect(path) as db:  # as version 2 wrote it: no corrected_type column
        db.execute("ALTER TABLE confirmations DROP COLUMN corrected_type")
        db.execute("PRAGMA user_version = 2")
    with RollLog(path, readonly=True) as log:
        assert log.verify().ok and log.verify().head_hash == head
        assert log.rolls()[1]["dice"][1]["face"] == 13 and log.audit_columns()[1]["face"][3] == 13
    with RollLog(path) as log:  # opened to write: upgraded in place, every old row's hash as it was
        assert log.verify().ok and log.verify().head_hash == head
        log.mark_confirmed(1, 1, 2, "d4")
        assert log.verify().ok and log.rolls()[0]["dice"][1]["corrected_type"] == "d4"
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3


def faults_of(path):
    with RollLog(path, readonly=True) as log:
        return log.verify().faults


def test_verify_finds_an_edited_face(tmp_path):
    path = tmp_path / "rolls.sqlite"
    log_some(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE readings SET value = 6 WHERE reading_id = 3")
    faults = faults_of(path)
    assert [(f.kind, f.table, f.row_id) for f in faults] == [("edited", "readings", 3)]


def test_verify_finds_an_edited_outcome_even_when_rehashed(tmp_path):
    path = tmp_path / "rolls.sqlite"
    log_some(path)
    with sqlite3.connect(path) as db:
        db.row_factory = sqlite3.Row
        row = dict(db.execute("SELECT * FROM rolls WHERE roll_id = 2").fetchone())
        row["outcome"] = json.dumps({"successes": 99})
        db.execute("UPDATE rolls SET outcome = ?, row_hash = ? WHERE roll_id = 2",
                   (row["outcome"], chain_hash(row["prev_hash"], "rolls", row)))
    faults = faults_of(path)
    assert [(f.kind, f.table, f.row_id) for f in faults] == [("edited", "rolls", 2)]


def test_verify_finds_an_inserted_row_with_a_valid_hash(tmp_path):
    path = tmp_path / "rolls.sqlite"
    log_some(path)
    with sqlite3.connect(path) as db:
        db.row_factory = sqlite3.Row
        before = dict(db.execute("SELECT * FROM readings WHERE reading_id = 4").fetchone())
        fake = dict(before, reading_id=100, seq=before["seq"] + 0.5, value=6, die_index=7,
                    prev_hash=before["row_hash"])
        fake["row_hash"] = chain_hash(fake["prev_hash"], "readings", fake)
        cols = ", ".join(fake)
        db.execute(f"INSERT INTO readings ({cols}) VALUES ({', '.join('?' * len(fake))})", list(fake.values()))
    faults = faults_of(path)
    assert [(f.kind, f.table, f.row_id) for f in faults] == [("inserted", "readings", 100)]


def test_verify_finds_a_deleted_row_in_the_middle_and_at_the_end(tmp_path):
    path = tmp_path / "rolls.sqlite"
    log_some(path)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM readings WHERE reading_id = 5")
    faults = faults_of(path)
    assert [(f.kind, f.table) for f in faults] == [("deleted", "readings")]
    assert faults[0].row_id == 6 and "1 row(s) deleted" in faults[0].detail
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM readings WHERE reading_id = 10")
    kinds = [(f.kind, f.table) for f in faults_of(path)]
    assert kinds == [("deleted", "readings"), ("deleted", "meta")]


def test_verify_finds_a_whole_roll_deleted(tmp_path):
    path = tmp_path / "rolls.sqlite"
    log_some(path)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM readings WHERE roll_id = 3")
        db.execute("DELETE FROM rolls WHERE roll_id = 3")
    faults = faults_of(path)
    assert [(f.kind, f.table, f.row_id) for f in faults] == [("deleted", "rolls", 4)]
    assert "3 row(s) deleted between seq 6 and rolls row 4 (seq 10)" in faults[0].detail


def test_verify_finds_an_edited_crop(tmp_path):
    path = tmp_path / "rolls.sqlite"
    with RollLog(path) as log:
        log.record_roll([d("d6", 4)], {}, system="s", procedure="p", frame_sha256=SHA, crops=[b"\x89PNG\r\n\x1a\n1"])
    crop = next((tmp_path / "rolls.sqlite.crops").iterdir())
    crop.write_bytes(b"\x89PNG\r\n\x1a\n2")
    assert [(f.kind, f.table) for f in faults_of(path)] == [("edited", "crop")]


def test_unknown_die_and_face_out_of_range_log_nothing(tmp_path):
    path = tmp_path / "rolls.sqlite"
    log_some(path, 1)
    with RollLog(path) as log:
        with pytest.raises(LogError, match=r"unknown die type 'd7' \(die 1 of the roll\)"):
            log.record_roll([d("d6", 3), d("d7", 3)], {}, system="s", procedure="p", frame_sha256=SHA)
        with pytest.raises(LogError, match="face 7 is out of range for a d6"):
            log.record_roll([d("d6", 7)], {}, system="s", procedure="p", frame_sha256=SHA)
        with pytest.raises(LogError, match="not 64 hex digits"):
            log.record_roll([d("d6", 2)], {}, system="s", procedure="p", frame_sha256="frame.jpg")
        assert len(log.rolls()) == 1 and log.verify().ok


def test_newer_schema_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "rolls.sqlite"
    log_some(path, 1)
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 7")
    before = path.read_bytes()
    with pytest.raises(LogError, match=r"newer dicetower \(roll log schema version 7.*upgrade dicetower"):
        RollLog(path)
    assert path.read_bytes() == before


def test_pre_release_schema_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "rolls.sqlite"
    log_some(path, 1)
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 1")
    before = path.read_bytes()
    with pytest.raises(LogError, match="schema version 1, written by a pre-release dicetower.*left untouched"):
        RollLog(path, readonly=True)
    assert path.read_bytes() == before


def test_corrupt_file_is_named_and_left_untouched(tmp_path):
    path = tmp_path / "rolls.sqlite"
    path.write_bytes(os.urandom(4096))
    before = path.read_bytes()
    with pytest.raises(LogError, match=f"{path.name} is not a SQLite database.*left untouched"):
        RollLog(path)
    assert path.read_bytes() == before
    # a SQLite header followed by garbage (a truncated or overwritten log)
    path.write_bytes(b"SQLite format 3\x00" + os.urandom(4000))
    with pytest.raises(LogError, match=f"{path.name} is corrupt or not a roll log"):
        RollLog(path)


def test_other_sqlite_database_is_not_taken_over(tmp_path):
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (x)")
    with pytest.raises(LogError, match="not a roll log"):
        RollLog(path)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == [("notes",)]


def test_read_only_database_says_the_roll_was_not_logged(tmp_path):
    path = tmp_path / "rolls.sqlite"
    log_some(path, 2)
    with RollLog(path) as log:
        log._db.execute("PRAGMA query_only = 1")  # SQLite refuses writes as on a read-only file (even for root)
        with pytest.raises(LogError, match=r"NOT logged.*readonly.*writable.*must not be shown"):
            log.record_roll([d("d6", 3)], {}, system="s", procedure="p", frame_sha256=SHA)
    with RollLog(path, readonly=True) as log:
        assert len(log.rolls()) == 2 and log.verify().ok
        with pytest.raises(LogError, match="opened read-only: roll .* NOT logged"):
            log.record_roll([d("d6", 3)], {}, system="s", procedure="p", frame_sha256=SHA)


def test_full_disk_says_the_roll_was_not_logged(tmp_path):
    path = tmp_path / "rolls.sqlite"
    log_some(path, 2)
    with RollLog(path) as log:
        page_count = log._db.execute("PRAGMA page_count").fetchone()[0]
        log._db.execute(f"PRAGMA max_page_count = {page_count}")  # the database cannot grow: a full disk
        with pytest.raises(LogError, match=r"NOT logged.*(full|disk).*must not be shown"):
            for i in range(200):
                log.record_roll([d("d6", 3)] * 10, {"pad": "x" * 2000}, system="s", procedure="p", frame_sha256=SHA)
    with RollLog(path, readonly=True) as log:
        assert log.verify().ok
        assert all(len(r["dice"]) == (2 if r["roll_id"] <= 2 else 10) for r in log.rolls())


WRITER = """
import sys
from dicetower.audit.rolllog import RollLog
from dicetower.readings import DieReading
with RollLog(sys.argv[1], tower="crash") as log:
    i = 0
    while True:
        dice = [DieReading("d6", 1 + (i + k) % 6, (k, 0, 5, 5), 0.9) for k in range(8)]
        rec = log.record_roll(dice, {"i": i}, system="s", procedure="p", frame_sha256="0" * 64)
        print(rec.roll_id, flush=True)
        i += 1
"""


def test_sigkill_mid_batch_keeps_every_committed_roll(tmp_path):
    path = tmp_path / "rolls.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True)
    committed = []
    deadline = time.monotonic() + 60
    while len(committed) < 40 and time.monotonic() < deadline:
        committed.append(int(proc.stdout.readline()))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    committed += [int(line) for line in proc.stdout.read().split()]
    assert len(committed) >= 40
    with RollLog(path, readonly=True) as log:
        result = log.verify()
        rolls = {r["roll_id"]: r for r in log.rolls()}
    assert result.ok, result.faults
    for roll_id in committed:
        assert len(rolls[roll_id]["dice"]) == 8
    assert all(len(r["dice"]) == 8 for r in rolls.values())  # no half-written roll


IMPORTER = """
import sys
from dicetower.audit.rolllog import RollLog
from dicetower.readings import DieReading
with RollLog(sys.argv[1], tower="crash") as log:
    for i in range(5):
        log.record_roll([DieReading("d6", 1 + i, (0, 0, 5, 5), 0.9)] * 3, {}, system="s", procedure="p",
                        frame_sha256="0" * 64)
    print("importing", flush=True)
    batch = [({"time_epoch": 0.0, "tower": "t", "system": "import", "procedure": "import.csv",
               "frame_sha256": "0" * 64}, [DieReading("d20", 1 + k % 20, (0, 0, 0, 0), 1.0)]) for k in range(100_000)]
    log.append_rows(batch, "big import")
    print("imported", flush=True)
"""


def test_sigkill_during_a_batch_import_leaves_all_or_nothing(tmp_path):
    path = tmp_path / "rolls.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", IMPORTER, str(path)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "importing"
    time.sleep(1.0)  # building and writing 100,000 chained rows takes several seconds
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = "imported" in proc.stdout.read()
    with RollLog(path, readonly=True) as log:
        result = log.verify()
        rolls = log.rolls()
    assert result.ok, result.faults
    assert [len(r["dice"]) for r in rolls[:5]] == [3] * 5
    assert len(rolls) in (5, 100_005) and (len(rolls) == 100_005) == finished


CONCURRENT = """
import sys
from dicetower.audit.rolllog import RollLog
from dicetower.readings import DieReading
with RollLog(sys.argv[1], tower=sys.argv[2]) as log:
    for i in range(40):
        log.record_roll([DieReading("d6", 1 + i % 6, (0, 0, 5, 5), 0.9)] * 4, {"i": i}, system="s", procedure="p",
                        frame_sha256="0" * 64)
"""


def test_two_writers_at_once_keep_one_valid_chain(tmp_path):
    path = tmp_path / "rolls.sqlite"
    RollLog(path).close()
    procs = [subprocess.Popen([sys.executable, "-c", CONCURRENT, str(path), name]) for name in ("A", "B")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    with RollLog(path, readonly=True) as log:
        result = log.verify()
        rolls = log.rolls()
    assert result.ok, result.faults
    assert sorted(r["tower"] for r in rolls) == ["A"] * 40 + ["B"] * 40
    assert all(len(r["dice"]) == 4 for r in rolls)
