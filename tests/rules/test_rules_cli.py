"""`dicetower resolve` / `dicetower odds` through the installed console script (.venv/bin/dicetower),
on vectors and on inputs that are not vectors (issue 3, "Must show" 3 and 7)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from dicetower import rules
from test_rules_vectors import DISPUTED, VECTORS, mismatches

SCRIPT = Path(sys.executable).with_name("dicetower")
OWN_SYSTEMS = ("stepdie", "d6pool")


def run(*args: str, stdin: str | None = None, input_obj: Any = None, tmp_path: Path | None = None):
    """Run the console script; the input goes through a file when tmp_path is given, else stdin."""
    argv = [str(SCRIPT), *args]
    if input_obj is not None and tmp_path is not None:
        path = tmp_path / "inputs.json"
        path.write_text(json.dumps(input_obj), encoding="utf-8")
        argv += ["--input", str(path)]
    elif input_obj is not None:
        stdin = json.dumps(input_obj)
        argv += ["--input", "-"]
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=60)


def own_vectors() -> list[Any]:
    return [pytest.param(v, id=v["id"]) for v in VECTORS
            if v["system"] in OWN_SYSTEMS and v["id"] not in DISPUTED]


def test_console_script_is_installed():
    assert SCRIPT.is_file(), f"{SCRIPT} missing: install the package (pip install -e .)"


@pytest.mark.parametrize("vector", own_vectors())
def test_resolve_answers_vector_through_the_console_script(vector, tmp_path):
    proc = run("resolve", vector["procedure"], input_obj=vector["inputs"], tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert mismatches(vector["expected"], json.loads(proc.stdout)) == []


def test_resolve_reads_stdin_and_counts_a_pool_not_in_the_vectors():
    proc = run("resolve", "d6pool.count_successes", input_obj={"faces": [6, 6, 6, 5, 2, 5, 1]})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["successes"] == 2 + 2 + 2 + 1 + 1


def test_resolve_takes_vision_readings():
    readings = [{"die_type": "d6", "value": 6, "colour": "white", "box": [1, 2, 3, 4]},
                {"die_type": "d6", "value": 5}]
    proc = run("resolve", "d6pool.count_successes", input_obj={"faces": readings})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["successes"] == 3


def test_rules_error_exits_1_with_json_error_and_message_on_stderr():
    proc = run("resolve", "d6pool.count_successes",
               input_obj={"faces": [{"die_type": "d6", "value": 5}, {"die_type": "d8", "value": 5}]})
    assert proc.returncode == 1
    error = json.loads(proc.stdout)["error"]
    assert "d8" in error and "d6" in error
    assert "d8" in proc.stderr


def test_missing_input_field_is_a_clear_error_not_a_traceback():
    proc = run("resolve", "d6pool.combat", input_obj={"attacker_successes": 2})
    assert proc.returncode == 1
    assert "defender" in json.loads(proc.stdout)["error"]
    assert "Traceback" not in proc.stderr


def test_input_of_the_wrong_shape_is_a_clear_error_not_a_traceback():
    """A string where a procedure reads an object (talon.npc_tracks' track) is refused with exit 1, the
    procedure named in the message, and no traceback (it was an AttributeError)."""
    proc = run("resolve", "talon.npc_tracks", input_obj={"npc": "troisieme_zone", "track": "x", "damage": 3})
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "talon.npc_tracks cannot use these inputs" in json.loads(proc.stdout)["error"]


def test_odds_of_a_pool_too_large_to_work_out_is_a_clear_error():
    """Exact odds of 100,000 d6 run past Python's recursion limit in icepool: refused, exit 1, no traceback."""
    proc = run("odds", "d6pool.count_successes", input_obj={"dice": 100_000})
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "too large to work out exactly" in json.loads(proc.stdout)["error"]


def test_unknown_procedure_exits_2_listing_the_systems_ids():
    proc = run("resolve", "d6pool.no_such_thing", input_obj={})
    assert proc.returncode == 2
    known = json.loads(proc.stdout)["known"]
    assert "d6pool.count_successes" in known and all(k.startswith("d6pool.") for k in known)
    assert "d6pool.count_successes" in proc.stderr


@pytest.mark.parametrize("stdin,fragment", [("[1, 2]", "list"), ("{not json", "not valid JSON")])
def test_input_that_is_not_an_object_is_refused(stdin, fragment):
    proc = run("resolve", "d6pool.count_successes", "--input", "-", stdin=stdin)
    assert proc.returncode == 1 and fragment in json.loads(proc.stdout)["error"]


def test_odds_of_a_pool_are_exact_fractions_summing_to_one(tmp_path):
    proc = run("odds", "d6pool.count_successes", input_obj={"dice": 4, "required_successes": 3}, tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    odds = json.loads(proc.stdout)
    assert odds["procedure"] == "d6pool.count_successes" and odds["method"] == "exact (icepool)"
    fractions = {o["outcome"]: Fraction(o["fraction"]) for o in odds["outcomes"]}
    assert sum(fractions.values()) == 1
    assert fractions[0] == Fraction(4, 6) ** 4  # every die 1-4
    assert fractions[8] == Fraction(1, 6) ** 4  # every die a 6
    assert Fraction(odds["success"]["fraction"]) == sum(p for s, p in fractions.items() if s >= 3)
    assert odds["success"]["percent"] == round(float(Fraction(odds["success"]["fraction"])) * 100, 2)


def test_odds_table_form_is_readable():
    proc = run("odds", "d6pool.count_successes", "--table", input_obj={"dice": 1})
    assert proc.returncode == 0, proc.stderr
    assert "2/3" in proc.stdout and "66.67%" in proc.stdout  # P(0 successes) on one die


def test_odds_of_a_procedure_without_dice_is_its_certain_outcome():
    proc = run("odds", "d6pool.advancement_cost", input_obj={"level": 4})
    assert proc.returncode == 0, proc.stderr
    odds = json.loads(proc.stdout)
    assert odds["outcomes"] == [{"outcome": rules.resolve("d6pool.advancement_cost", {"level": 4}),
                                 "fraction": "1/1", "percent": 100.0}]


@pytest.mark.parametrize("system", [s for s in rules.SYSTEMS if s not in OWN_SYSTEMS])
def test_resolve_answers_one_vector_of_each_other_system(system, tmp_path):
    """The one entry point serves every system: the first undisputed vector of each other system."""
    vector = next(v for v in VECTORS if v["system"] == system and v["id"] not in DISPUTED)
    proc = run("resolve", vector["procedure"], input_obj=vector["inputs"], tmp_path=tmp_path)
    assert proc.returncode == 0, f"{vector['id']}: {proc.stdout}{proc.stderr}"
    assert mismatches(vector["expected"], json.loads(proc.stdout)) == []


def test_odds_of_a_step_die_attack_through_the_console_script():
    proc = run("odds", "stepdie.attack", input_obj={"base_die": "d10", "helpers": 1, "target": "boss",
                                                    "tn_shift_degrees": -1})
    assert proc.returncode == 0, proc.stderr
    odds = json.loads(proc.stdout)
    by = {o["outcome"]: o["fraction"] for o in odds["outcomes"]}
    # d12 against TN 8 (boss 12 one degree easier): 12 exceptional, 8-11 success, 2-7 failure, 1 complication
    assert by == {"exceptional_success": "1/12", "success": "1/3", "failure": "1/2", "complication": "1/12"}
    assert odds["success"]["fraction"] == "5/12" and odds["vengeance"]["fraction"] == "7/12"
