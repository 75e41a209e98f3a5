"""The engine as a whole (issue 3): every RULES.md procedure id registered, odds for every procedure
that rolls dice, and the shared pieces every system uses (dice.py, odds.py, screen.py)."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any

import icepool
import pytest

from dicetower import rules
from dicetower.paths import shared_dir
from dicetower.readings import DieReading
from dicetower.rules import RulesError
from dicetower.rules.dice import choose, gm_prompt, merge_reroll, read_dice, read_die
from dicetower.rules.odds import distribution_to_json, fraction_str, idle_line, label_distribution, odds_result
from dicetower.rules.screen import check_screen, generic_screen, wrap
from test_rules_vectors import VECTORS

RULES_MD = shared_dir() / "rules" / "RULES.md"
ID_PATTERN = re.compile(r"`((?:throwing_stones|alkemy|talon|stepdie|d6pool)\.[a-z_.0-9]+)`")
#: Inputs that carry a throw of dice (or cards off the deck): a procedure with such an input rolls.
THROW_KEY = re.compile(r"^(face|faces|attack_face|roll|d\d+|d6_damage|cards_revealed|check_card|card|throws)$"
                       r"|_roll$|_rolls_")


def rulebook_ids() -> list[str]:
    if not RULES_MD.is_file():
        pytest.skip(f"shared rules digest not found at {RULES_MD}")
    return sorted(set(ID_PATTERN.findall(RULES_MD.read_text(encoding="utf-8"))))


def test_every_rulebook_procedure_id_is_registered():
    ids = rulebook_ids()
    assert len(ids) >= 80, f"only {len(ids)} ids parsed from RULES.md: the pattern is wrong"
    missing = sorted(set(ids) - set(rules.all_ids()))
    assert not missing, f"{len(missing)} RULES.md procedures not registered: {', '.join(missing)}"


def rolling_vectors() -> list[Any]:
    """One vector per procedure whose inputs hold a throw (see THROW_KEY, or a list under "dice")."""
    seen: dict[str, dict] = {}
    for v in VECTORS:
        rolls = any(THROW_KEY.search(k) for k in v["inputs"]) or isinstance(v["inputs"].get("dice"), list)
        if rolls and v["procedure"] not in seen:
            seen[v["procedure"]] = v
    return [pytest.param(v, id=p) for p, v in sorted(seen.items())]


def check_odds_form(odds: dict[str, Any], proc_id: str) -> None:
    """The odds JSON every procedure answers (rules_common.md, "Odds")."""
    assert odds["procedure"] == proc_id and isinstance(odds["method"], str)
    fractions = [Fraction(o["fraction"]) for o in odds["outcomes"]]
    assert fractions and sum(fractions) == 1, "outcome probabilities must sum to exactly 1"
    for o, p in zip(odds["outcomes"], fractions):
        assert o["fraction"] == f"{p.numerator}/{p.denominator}", "fractions in lowest terms"
        assert o["percent"] == round(float(p) * 100, 2)
    json.dumps(odds)


@pytest.mark.parametrize("vector", rolling_vectors())
def test_every_procedure_that_rolls_answers_odds_on_its_own_inputs(vector):
    """`dicetower odds ID --input F` on the same file as `resolve` (the throw in it is ignored)."""
    proc = rules.get(vector["procedure"])
    assert proc.odds is not None, f"{proc.id} consumes a throw but registers no odds"
    try:
        odds = proc.odds(json.loads(json.dumps(vector["inputs"])))
    except RulesError as exc:
        # odds may need more than the vector gives (e.g. a stone catalogue, TS-D01): then say which input
        assert re.search(r"'[a-z_]+'", str(exc)), f"{proc.id}: odds refused without naming the input it needs: {exc}"
        return
    check_odds_form(odds, proc.id)


def test_every_registered_odds_function_is_exact_or_says_its_method():
    for proc_id in rules.all_ids():
        proc = rules.get(proc_id)
        vectors = [v for v in VECTORS if v["procedure"] == proc_id]
        if proc.odds is None or not vectors:
            continue
        try:
            odds = proc.odds(json.loads(json.dumps(vectors[0]["inputs"])))
        except RulesError:
            continue  # needs inputs its vectors do not give (checked by the test above for rolling ones)
        check_odds_form(odds, proc_id)


# --- dice.py -------------------------------------------------------------------------------------

def test_read_die_accepts_every_shape():
    shapes = [4, {"value": 4}, {"face": 4}, {"die_type": "d8", "value": 4, "colour": "red", "die_id": "x"},
              DieReading("d8", 4, (0, 0, 1, 1), 0.95, colour="red")]
    assert [read_die(s, die_type="d8").value for s in shapes] == [4] * 5


def test_read_die_rejects_unsure_and_percentile_and_off_colour():
    with pytest.raises(RulesError, match="cocked or unsure"):
        read_die(DieReading("d6", 4, (0, 0, 1, 1), 0.3), die_type="d6")
    with pytest.raises(RulesError, match="percentile"):
        read_die({"die_type": "d10", "value": 70}, die_type="d10")
    with pytest.raises(RulesError, match="is red, but this roll needs a yellow"):
        read_die({"die_type": "d6", "value": 2, "colour": "red"}, die_type="d6", colours=["yellow"])
    with pytest.raises(RulesError, match="no colour reading"):
        read_die({"die_type": "d6", "value": 2}, die_type="d6", colours=["yellow"])


def test_read_dice_refuses_extra_dice_rather_than_ignoring_them():
    with pytest.raises(RulesError, match="at most 10"):
        read_dice([1] * 11, die_type="d6", max_count=10)
    with pytest.raises(RulesError, match="dice #2 is a d12"):
        read_dice([1, {"die_type": "d12", "value": 3}], die_type="d6")


def test_merge_reroll_by_position_and_by_identity():
    assert merge_reroll([1, 2, 3], [0, 2], [6, 5]) == [6, 2, 5]
    stones = [{"die_id": "s1", "value": 1}, {"die_id": "s2", "value": 2}]
    merged = merge_reroll(stones, [0, 1], [{"die_id": "s2", "value": 6}, {"die_id": "s1", "value": 4}], by_identity=True)
    assert [s["value"] for s in merged] == [4, 6]
    with pytest.raises(RulesError, match="was not picked up"):
        merge_reroll(stones, [0], [{"die_id": "s2", "value": 6}], by_identity=True)
    with pytest.raises(RulesError, match="2 were to be rerolled"):
        merge_reroll([1, 2, 3], [0, 1], [4])
    with pytest.raises(RulesError, match="distinct"):
        merge_reroll([1, 2, 3], [0, 0], [4, 5])


def test_choices_record_who_chose_and_gm_prompt_form():
    assert choose({}, "keep", "highest") == ("highest", {"value": "highest", "chosen_by": "default"})
    assert choose({"keep": "lowest"}, "keep", "highest", chooser="GM")[1]["chosen_by"] == "GM"
    with pytest.raises(RulesError, match="not allowed"):
        choose({"keep": "middle"}, "keep", "highest", allowed=["highest", "lowest"])
    assert gm_prompt("Roleplay?", [0, 1]) == {"prompt": "Roleplay?", "gm_judgement": True, "choices": [0, 1]}


# --- odds.py -------------------------------------------------------------------------------------

def test_fractions_and_distributions():
    assert fraction_str(Fraction(10, 60)) == "1/6" and fraction_str(1) == "1/1"
    two = distribution_to_json(icepool.d6 + icepool.d6)
    assert two[0] == {"outcome": 2, "fraction": "1/36", "percent": 2.78}
    assert two[5] == {"outcome": 7, "fraction": "1/6", "percent": 16.67}
    with pytest.raises(ValueError, match="sum to"):
        distribution_to_json({"a": Fraction(1, 2)})


def test_label_distribution_groups_and_orders():
    labels = label_distribution(icepool.d6, lambda f: "high" if f > 4 else "low", order=("high", "low"))
    assert list(labels) == ["high", "low"] and labels["high"] == Fraction(1, 3)


def test_idle_line_fits_one_oled_line():
    odds = odds_result("x.y", icepool.d6, success=Fraction(1, 3))
    assert idle_line(odds) == "Success 33.3%"
    assert idle_line(odds_result("x.y", icepool.d6)).startswith("Top ")
    for proc_id in ("d6pool.count_successes", "stepdie.test"):
        line = idle_line(rules.get(proc_id).odds({"dice": 11} if proc_id.startswith("d6") else {"die": "d10", "tn": 8}))
        check_screen([line])


# --- screen.py -----------------------------------------------------------------------------------

@pytest.mark.parametrize("form,fragment", [
    (["x" * 17], "17 characters"),
    (["ok"] * 9, "at most 8"),
    (["Dégât"], "ASCII"),
    ({"big": "12345", "lines": []}, "1..4"),
    ({"big": "3", "lines": ["a", "b", "c", "d"]}, "at most 3"),
    ([3], "not a str"),
])
def test_check_screen_says_what_does_not_fit(form, fragment):
    with pytest.raises(ValueError, match=fragment):
        check_screen(form)


def test_check_screen_accepts_both_forms():
    check_screen(["x" * 16] * 8)
    check_screen({"big": "12", "lines": ["successes", "", "6 6 5"]})


def test_generic_screen_folds_accents_long_values_and_prompts():
    outcome = {"état": "Blessé", "reason": "the target is out of range and behind full cover",
               "answer": gm_prompt("Is it enough?", ["yes", "no"]), "nested": {"a": 1}, "n": 3}
    lines = generic_screen("talon.health_apply_damage", outcome)
    check_screen(lines)
    assert lines[0] == "HEALTH APPLY DAM"
    assert lines[1] == "etat Blesse"
    assert "GM decides" in " ".join(lines) and not any("a=1" in line for line in lines)
    assert wrap("the target is out of range") == ["the target is", "out of range"]


def test_idle_line_for_the_roll_about_to_be_made():
    from dicetower.rules.odds import idle_line_for

    assert idle_line_for("stepdie.test", {"die": "d10", "tn": 8}) == "Success 30.0%"  # 8, 9 and the exceptional 10
    assert idle_line_for("d6pool.count_successes", {"dice": 2}) == "Mean 1.00"
    assert idle_line_for("d6pool.count_successes", {}) is None  # pool size not known yet
    assert idle_line_for("d6pool.advancement_cost", {"level": 2}) is None  # rolls no dice
    with pytest.raises(RulesError, match="unknown procedure"):
        idle_line_for("d6pool.nothing", {})
