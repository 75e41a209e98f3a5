"""`dicetower audit ...` on real SQLite logs: report (text, --json, --html), verify, import, export,
binomial, watch."""

from __future__ import annotations

import csv
import json
import re
import sqlite3
import subprocess
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from dicetower import paths
from dicetower.audit.cli import audit
from dicetower.audit.rolllog import SCHEMA_VERSION, RollLog
from dicetower.readings import DieReading

WELDON = "185,1149,3265,5475,6114,5194,3067,1331,403,105,14,4,0"


def run(*args: str, ok: bool = True):
    result = CliRunner().invoke(audit, list(args), catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


def session(path, rolls=400, seed=0, loaded=False):
    """A logged session: a d20 "blue" (face 20 at 4x when loaded), two d6 "red"/"white"; faces in roll order."""
    rng = np.random.default_rng(seed)
    p20 = np.full(20, 1 / 20)
    if loaded:
        p20 = np.full(20, 0.8 / 19)
        p20[19] = 0.2
    logged = {"blue": [], "red": [], "white": []}
    with RollLog(path, tower="sim", table="t1") as log:
        for i in range(rolls):
            faces = {"blue": int(rng.choice(20, p=p20)) + 1, "red": int(rng.integers(1, 7)), "white": int(rng.integers(1, 7))}
            dice = [DieReading("d20" if k == "blue" else "d6", v, (int(rng.integers(0, 600)), 40, 30, 30), 0.95, die_id=k)
                    for k, v in faces.items()]
            log.record_roll(dice, {"n": i}, system="s", procedure="p", frame_sha256="a" * 64,
                            time_epoch=1.79e9 + 600 * i)
            for k, v in faces.items():
                logged[k].append(v)
    return logged


def report_json(path) -> dict:
    out = run("report", "--log", str(path), "--json").output
    return {obj["die_id"]: obj for obj in map(json.loads, out.strip().splitlines())}


def test_report_json_counts_what_was_logged(tmp_path):
    path = tmp_path / "rolls.sqlite"
    logged = session(path)
    dice = report_json(path)
    assert set(dice) == {"blue", "red", "white"}
    for die_id, faces in logged.items():
        sides = 20 if die_id == "blue" else 6
        obj = dice[die_id]
        assert obj["n"] == len(faces) and obj["die_type"] == f"d{sides}"
        assert obj["counts"] == np.bincount(np.array(faces) - 1, minlength=sides).tolist()
        for key in ("chi2", "p_chi2", "g", "p_g"):
            assert isinstance(obj[key], float)


def test_report_text_finds_a_loaded_die_and_not_the_fair_ones(tmp_path):
    path = tmp_path / "rolls.sqlite"
    session(path, rolls=600, loaded=True)
    dice = report_json(path)
    assert dice["blue"]["p_chi2"] < 1e-6 and [f["face"] for f in dice["blue"]["faces"] if f["biased"]] == [20]
    text = run("report", "--log", str(path)).output
    blue = text.split("== blue")[1].split("==")[0]
    assert "EVIDENCE OF BIAS" in blue and "faces off (exact binomial, Holm): 20" in blue
    assert "all d6s [set, d6]" in text and "drop position" in text and "time of day" in text


def test_corrections_are_counted(tmp_path):
    path = tmp_path / "rolls.sqlite"
    logged = session(path, rolls=50)
    with RollLog(path) as log:
        log.mark_confirmed(1, 0, 20 if logged["blue"][0] != 20 else 19)
        new = 20 if logged["blue"][0] != 20 else 19
    blue = report_json(path)["blue"]
    expected = np.bincount(np.array([new] + logged["blue"][1:]) - 1, minlength=20)
    assert blue["counts"] == expected.tolist()
    # the report says how many faces a person set: the blue d20's one, none of the red d6's
    assert blue["corrected"] == 1 and report_json(path)["red"]["corrected"] == 0
    text = run("report", "--log", str(path)).output
    assert "== blue [die, d20] n = 50 (1 counted as a person corrected them, not as read)" in text
    with RollLog(path) as log:  # roll 2's blue die confirmed as read, roll 3's "corrected" to the value read
        log.mark_confirmed(2, 0, None)
        log.mark_confirmed(3, 0, logged["blue"][2])
    assert report_json(path)["blue"]["corrected"] == 1


def test_readings_a_person_said_are_no_die_are_named_and_not_counted(tmp_path):
    from dicetower.service.plan import RollPlan
    from dicetower.service.roll import RollPipeline

    path = tmp_path / "rolls.sqlite"
    logged = session(path, rolls=30)
    side_face = DieReading("d6", 2, (300, 40, 30, 30), 0.3, die_id="red")  # read as a second red d6, unsure
    thrown = [DieReading("d6", 5, (100, 40, 30, 30), 0.95, die_id="red"), side_face]
    with RollLog(path) as log:  # the service logs what a person answered "no die" as the outcome's not_dice
        pipeline = RollPipeline(None, log, RollPlan())
        for _ in range(2):
            pipeline.resolve_and_log(np.zeros((8, 8, 3), np.uint8), "memory", thrown, not_dice=[1])
        assert log.not_dice() == {("red", "d6"): 2}
    red = report_json(path)["red"]
    assert red["n"] == 32 and red["counts"][4] == logged["red"].count(5) + 2  # the two 5s thrown counted
    assert (red["uncounted"], red["not_dice"]) == (2, 2) and report_json(path)["blue"]["not_dice"] == 0
    text = run("report", "--log", str(path)).output
    assert "(2 not counted: no number read, or unsure and unconfirmed, 2 of them left out by a person as no die)" in \
        text.split("== red")[1].split("==")[0]


def test_html_report_holds_the_four_plots_per_die(tmp_path):
    path = tmp_path / "rolls.sqlite"
    session(path, rolls=200)
    out = tmp_path / "html"
    run("report", "--log", str(path), "--html", str(out))
    index = (out / "index.html").read_text()
    assert "Hash chain intact: 800 rows" in index
    images = [line.split("'")[1] for line in index.splitlines() if line.startswith("<img")]
    assert len(images) == 4 * 4  # 3 dice + the d6 set
    for kind in ("counts", "pvalue", "sprt", "transitions"):
        assert sum(kind in name for name in images) == 4
    for name in images:
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_verify_exit_codes(tmp_path):
    path = tmp_path / "rolls.sqlite"
    session(path, rolls=20)
    assert "intact: 80 rows" in run("verify", "--log", str(path)).output
    with sqlite3.connect(path) as db:
        db.execute("UPDATE readings SET value = 1 WHERE reading_id = 7")
    result = run("verify", "--log", str(path), ok=False)
    assert result.exit_code == 1 and "TAMPERED (edited): readings row 7" in result.output


def write_csv(path, rows, header=("die_id", "die_type", "face")):
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)


def test_import_csv_then_report_and_verify(tmp_path):
    log_path = tmp_path / "rolls.sqlite"
    session(log_path, rolls=10)
    rng = np.random.default_rng(9)
    faces = rng.integers(1, 13, size=500)
    write_csv(tmp_path / "hand.csv", [("green", "d12", int(f)) for f in faces] + [("", "d6", 3)]
              + [("ten", "D10", 0), ("ten", "d10", 10), ("ten", "d10", 1)])
    out = run("import", str(tmp_path / "hand.csv"), "--log", str(log_path)).output
    assert "imported 504 readings" in out
    dice = report_json(log_path)
    assert dice["ten"]["counts"] == [1, 0, 0, 0, 0, 0, 0, 0, 0, 2]  # "0" on a d10 reads 10 (GEN-D02)
    assert dice["green"]["counts"] == np.bincount(faces - 1, minlength=12).tolist()
    assert dice[None]["n"] == 1 and dice[None]["die_type"] == "d6"
    assert dice["blue"]["n"] == 10  # nothing already logged was lost
    run("verify", "--log", str(log_path))  # imported rows are chained


@pytest.mark.parametrize("rows, message", [
    ([("a", "d6", 3), ("a", "d6", 7)], r"face 7 is out of range for a d6 \(1..6\) at line 3 of .*bad.csv"),
    ([("a", "d6", 3), ("b", "d7", 2)], r"unknown die type 'd7' at line 3 of .*bad.csv"),
    ([("a", "d6", "six")], r"face 'six' at line 2 of .*bad.csv is not a whole number"),
])
def test_bad_csv_names_the_row_and_imports_nothing(tmp_path, rows, message):
    log_path = tmp_path / "rolls.sqlite"
    session(log_path, rolls=5)
    before = report_json(log_path)
    write_csv(tmp_path / "bad.csv", rows)
    result = run("import", str(tmp_path / "bad.csv"), "--log", str(log_path), ok=False)
    assert result.exit_code == 1
    assert re.search(message, result.output), result.output
    assert "nothing was imported" in result.output
    assert report_json(log_path) == before
    run("verify", "--log", str(log_path))


def test_csv_without_the_columns_is_refused(tmp_path):
    write_csv(tmp_path / "x.csv", [("d6", 3)], header=("die_type", "value"))
    result = run("import", str(tmp_path / "x.csv"), "--log", str(tmp_path / "r.sqlite"), ok=False)
    assert "lacks the column(s) die_id, face" in result.output


def test_export_csv_imports_into_another_log_with_the_same_counts(tmp_path):
    src = tmp_path / "a.sqlite"
    session(src, rolls=60)
    with RollLog(src) as log:  # a person said roll 1's "red" d6 is a d8 showing 7: counted as that d8
        log.mark_confirmed(1, 1, 7, "d8")
    run("export", "--log", str(src), "--format", "csv", "-o", str(tmp_path / "a.csv"))
    with open(tmp_path / "a.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 180 and rows[0]["frame_sha256"] == "a" * 64
    fields = ("die_type", "face", "read_die_type", "corrected_type")
    assert tuple(rows[1][k] for k in fields) == ("d8", "7", "d6", "d8")
    assert rows[2]["corrected_type"] == "" and rows[2]["die_type"] == rows[2]["read_die_type"]
    run("import", str(tmp_path / "a.csv"), "--log", str(tmp_path / "b.sqlite"))

    def counts(path) -> dict:
        out = run("report", "--log", str(path), "--json").output
        return {(obj["die_id"], obj["die_type"]): obj["counts"] for obj in map(json.loads, out.strip().splitlines())}

    assert counts(src) == counts(tmp_path / "b.sqlite") and counts(src)["red", "d8"][6] == 1
    out = run("export", "--log", str(src), "--format", "json").output
    doc = json.loads(out)
    assert doc["schema"] == SCHEMA_VERSION and len(doc["rolls"]) == 60 and len(doc["rolls"][0]["dice"]) == 3


def test_binomial_mode_prints_weldons_figures():
    out = run("binomial", "--counts", WELDON, "--n-dice", "12", "--p", "1/3", "--pool-from", "10").output
    assert "11 cells, df 10" in out and "X2 = 35.494, p = 0.000103" in out and "G2 = 35.103" in out
    out = run("binomial", "--counts", WELDON, "--n-dice", "12", "--estimate-p", "--pool-from", "10").output
    assert "p = 0.337699" in out and "df 9" in out and "X2 = 8.180, p = 0.516" in out


def test_watch_replays_the_log_and_raises_the_alarm(tmp_path):
    path = tmp_path / "rolls.sqlite"
    session(path, rolls=600, loaded=True)
    out = run("watch", "--log", str(path)).output
    assert "ALARM blue (d20): face 20 comes up too often" in out


def test_missing_and_corrupt_logs_are_clear_errors(tmp_path):
    result = run("report", "--log", str(tmp_path / "nope.sqlite"), ok=False)
    assert result.exit_code == 1 and "there is no roll log at" in result.output
    assert not (tmp_path / "nope.sqlite").exists()
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    result = run("verify", "--log", str(bad), ok=False)
    assert "bad.sqlite is not a SQLite database" in result.output


def test_the_console_command_reaches_the_audit(tmp_path):
    path = tmp_path / "rolls.sqlite"
    session(path, rolls=30)
    proc = subprocess.run([sys.executable, "-m", "dicetower.cli", "audit", "report", "--log", str(path), "--json"],
                          capture_output=True, text=True, timeout=120, cwd=paths.repo_root())
    assert proc.returncode == 0, proc.stderr
    assert sorted(json.loads(line)["die_id"] for line in proc.stdout.splitlines()) == ["blue", "red", "white"]


def test_unsure_readings_count_only_once_a_person_confirms_them(tmp_path):
    path = tmp_path / "rolls.sqlite"
    with RollLog(path) as log:
        for value in (1, 2, 3):
            log.record_roll([DieReading("d6", value, (0, 0, 9, 9), 0.99, die_id="k")], {}, system="s",
                            procedure="p", frame_sha256="a" * 64)
        unsure = log.record_roll([DieReading("d6", 6, (0, 0, 9, 9), 0.4, die_id="k")], {}, system="s",
                                 procedure="p", frame_sha256="a" * 64)
    obj = report_json(path)["k"]
    assert obj["n"] == 3 and obj["counts"] == [1, 1, 1, 0, 0, 0] and obj["uncounted"] == 1
    with RollLog(path) as log:
        log.mark_confirmed(unsure.roll_id, 0, None)
    obj = report_json(path)["k"]
    assert obj["n"] == 4 and obj["counts"] == [1, 1, 1, 0, 0, 1] and obj["uncounted"] == 0


def test_report_refuses_faces_an_edited_log_cannot_hold(tmp_path):
    path = tmp_path / "rolls.sqlite"
    session(path, rolls=10)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE readings SET value = 9 WHERE reading_id = 2")
    result = run("report", "--log", str(path), ok=False)
    assert result.exit_code == 1 and "face 9 for the d6 red, out of range 1..6" in result.output
    assert "dicetower audit verify" in result.output


def test_few_rolls_are_reported_as_rough_not_as_a_verdict(tmp_path):
    path = tmp_path / "rolls.sqlite"
    session(path, rolls=12)
    dice = report_json(path)
    assert dice["blue"]["small_sample"] is True  # 12 rolls of a d20: 0.6 expected per face
    text = run("report", "--log", str(path)).output
    blue = text.split("== blue")[1].split("==")[0]
    assert "few rolls: 0.6 expected per face (< 5)" in blue and "roll more" in blue
