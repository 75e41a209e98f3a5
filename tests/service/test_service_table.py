"""Table profiles and roll plans: parsing, references, atomic save."""

import os
from pathlib import Path

import pytest

from dicetower import paths
from dicetower.readings import DieReading
from dicetower.service.plan import RollPlan
from dicetower.service.table import ProfileError, Table, load_profile, save_profile


def reading(value, die_type="d6", colour="white"):
    return DieReading(die_type=die_type, value=value, box=(0, 0, 10, 10), confidence=0.99, colour=colour)


def test_plan_passes_readings_with_fixed_inputs():
    plan = RollPlan(procedure="alkemy.simple_test", dice_input="dice", inputs={"target": 7})
    built = plan.build_inputs([reading(5), reading(2, colour="red")])
    assert built["target"] == 7
    assert built["dice"] == [{"die_type": "d6", "value": 5, "colour": "white"},
                             {"die_type": "d6", "value": 2, "colour": "red"}]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_profile_references_resolve_to_character_values(tmp_path):
    path = write(tmp_path, """
name = "Thursday"
system = "d6pool"
[roll]
procedure = "d6pool.count_successes"
[roll.inputs]
label = "@characters.ana.name"
[characters.ana]
name = "Ana"
characteristics = { DEXT = 4 }
""")
    table = Table(path)
    assert table.plan.inputs == {"label": "Ana"}
    assert table.idle_line() == "Thursday"


def test_the_die_types_in_play_come_from_the_profile(tmp_path):
    path = write(tmp_path, """
system = "stepdie"
[roll]
procedure = "stepdie.test"
die_types = ["d20", "@characters.bren.dice.A", "D8"]
[characters.bren]
dice = { A = "d6" }
""")
    assert Table(path).plan.die_types == ("d6", "d8", "d20")  # fewest faces first, the panel's order
    assert Table(path).plan.types_in_play() == ("d6", "d8", "d20")


def test_unnamed_the_die_types_in_play_are_those_the_procedure_takes(tmp_path):
    unnamed = write(tmp_path, "system = 'd6pool'\n[roll]\nprocedure = 'd6pool.count_successes'\n")
    assert Table(unnamed).plan.die_types is None and Table(unnamed).plan.types_in_play() == ("d6",)
    shipped = paths.repo_root() / "tables"
    assert Table(shipped / "stepdie.toml").plan.types_in_play() == ("d6",)  # Bren's agility die, his d6
    assert Table(shipped / "d6pool.toml").plan.types_in_play() == ("d6",)
    assert Table(shipped / "talon.toml").plan.types_in_play() == ("d6",)  # the dague's 1D6
    helped = write(tmp_path, """
system = "stepdie"
[roll]
procedure = "stepdie.test"
dice_input = "face"
inputs = { base_die = "@characters.bren.dice.F", helpers = 1, tn = 4 }
[characters.bren]
dice = { F = "d8" }
""")
    assert Table(helped).plan.types_in_play() == ("d10",)  # his d8, one size up with help (SD-D03)
    tests = write(tmp_path, "system = 'stepdie'\n[roll]\nprocedure = 'stepdie.tn_ladder'\n")
    assert Table(tests).plan.types_in_play() is None  # no dice thrown: any type


POOL = "system = 'd6pool'\n[roll]\nprocedure = 'd6pool.count_successes'\n"


@pytest.mark.parametrize("text, message", [
    ("system = 'chess'", "must be one of"),
    ("system = 'd6pool'\n[roll]\nprocedure = 'alkemy.simple_test'", "not of the table's system"),
    ("system = 'd6pool'\n[roll]\nprocedure = 'd6pool.count_successes'\ninputs = { x = '@nowhere.at.all' }", "refers to nothing"),
    ("system = = 'd6pool'", "not valid TOML"),
    ("system = 'd6pool'\n[roll]\nprocedure = 'd6pool.count_successes'\ndie_types = 'd6'", r"die_types must be a list"),
    ("system = 'd6pool'\n[roll]\nprocedure = 'd6pool.count_successes'\ndie_types = ['d6', 'd66']",
     r"die_types: unknown.*'d66'"),
    ("system = 'd6pool'\n[roll]\nprocedure = 'd6pool.count_successes'\ndie_types = ['d8']",
     r"die_types \['d8'\] leave out the d6 that d6pool.count_successes takes as 'faces' \(GEN-D04\)"),
    ("system = 'stepdie'\n[roll]\nprocedure = 'stepdie.test'\ndice_input = 'face'\ninputs = { tn = 4 }",
     r"inputs do not say which die stepdie.test takes as 'face': give the die thrown"),
    # shapes the rules would meet only at the first roll (a TypeError on the idle line, a refusal at every ROLL)
    (POOL + "inputs = [1, 2]", r"\[roll\] inputs must be a table"),
    (POOL + "odds = 5", r"\[roll\] odds must be a table"),
    (POOL + "dice_input = 5", r"dice_input must name the input"),
    (POOL + "apply = { successes = 3 }", r"\[roll.apply\] maps an outcome key to a profile path"),
    (POOL + "apply = '@characters'\n[characters]\nana = 1", r"\[roll\] apply must be a table"),
    ("system = 'd6pool'\nroll = 'd6pool.count_successes'", r"'roll' must be a table"),
])
def test_bad_profiles_say_what_to_fix(tmp_path, text, message):
    with pytest.raises(ProfileError, match=message):
        Table(write(tmp_path, text))


def test_save_profile_is_atomic_and_keeps_old_file_on_failure(tmp_path, monkeypatch):
    path = write(tmp_path, "system = 'd6pool'\n[characters.ana]\nwounds = 0\n")
    profile = load_profile(path)
    profile["characters"]["ana"]["wounds"] = 2
    save_profile(path, profile)
    assert load_profile(path)["characters"]["ana"]["wounds"] == 2

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    profile["characters"]["ana"]["wounds"] = 9
    with pytest.raises(OSError):
        save_profile(path, profile)
    assert load_profile(path)["characters"]["ana"]["wounds"] == 2
    assert [p.name for p in tmp_path.iterdir()] == ["table.toml"]


def test_idle_line_gives_the_odds_of_the_next_roll(tmp_path):
    path = write(tmp_path, """
system = "d6pool"
[roll]
procedure = "d6pool.simple_action"
inputs = { required_successes = 1 }
odds = { dice = 2 }
""")
    # P(at least one 5 or 6 on 2d6) = 1 - (4/6)^2 = 5/9 = 55.6 %
    assert "55.6%" in Table(path).idle_line()


def test_outcomes_change_table_state_and_are_saved(tmp_path):
    path = write(tmp_path, """
system = "d6pool"
[roll]
procedure = "d6pool.combat"
apply = { damage = "characters.ana.health.physical_damage" }
[characters.ana.health]
physical_damage = 1
""")
    table = Table(path)
    assert table.apply({"damage": 2, "winner": "attacker"}) == ["characters.ana.health.physical_damage: 1 -> 3"]
    assert load_profile(path)["characters"]["ana"]["health"]["physical_damage"] == 3
    assert table.apply({"damage": None}) == []
