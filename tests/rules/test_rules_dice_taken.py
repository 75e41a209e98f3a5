"""The dice each procedure declares it takes (rules.Procedure.die_type, GEN-D04) are the dice its rule
checks: every vector of shared/rules/vectors.json that gives dice under a declared key resolves the same
with those dice read as the declared type, and is refused with one die of another type."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from dicetower import rules
from dicetower.rules.registry import takes

from test_rules_vectors import VECTORS

rules.get("d6pool.count_successes")  # loads the five systems


def typed(value: Any, die_type: str) -> Any:
    """value (a face, a reading or a list of them) with every die read as a die_type."""
    if isinstance(value, list):
        return [typed(v, die_type) for v in value]
    if isinstance(value, dict):
        return {**value, "die_type": die_type}
    return {"die_type": die_type, "value": value}


def first_as(value: Any, die_type: str) -> Any:
    """value with its first die read as a die_type."""
    if isinstance(value, list):
        return [first_as(value[0], die_type)] + copy.deepcopy(value[1:])
    return typed(value, die_type)


def declared_dice() -> list[tuple[str, str, str]]:
    """(vector id, input key, declared die type) for every vector that gives dice under a key its
    procedure declares, and that resolves."""
    out = []
    for v in VECTORS:
        proc = rules.REGISTRY.get(v["procedure"])
        if proc is None or proc.dice is None:
            continue
        try:
            proc.resolve(copy.deepcopy(v["inputs"]))
        except rules.RulesError:
            continue
        for key in v["inputs"]:
            try:
                die_type = proc.die_type(key, v["inputs"])
            except rules.RulesError:
                continue
            if die_type is not None:
                out.append((v["id"], key, die_type))
    return out


DECLARED = declared_dice()
BY_ID = {v["id"]: v for v in VECTORS}


def test_the_vectors_give_dice_under_the_declared_keys_of_every_system_that_takes_numbered_dice():
    systems = {BY_ID[vid]["procedure"].split(".")[0] for vid, _, _ in DECLARED}
    assert {"d6pool", "stepdie", "talon", "throwing_stones"} <= systems
    assert len(DECLARED) >= 20


@pytest.mark.parametrize("vid, key, die_type", DECLARED, ids=[f"{v}-{k}" for v, k, _ in DECLARED])
def test_the_declared_type_is_the_one_the_rule_takes(vid, key, die_type):
    vector = BY_ID[vid]
    proc = rules.get(vector["procedure"])
    plain = proc.resolve(copy.deepcopy(vector["inputs"]))
    as_declared = {**copy.deepcopy(vector["inputs"]), key: typed(vector["inputs"][key], die_type)}
    assert proc.resolve(as_declared) == plain
    other = "d8" if die_type != "d8" else "d10"
    wrong = {**copy.deepcopy(vector["inputs"]), key: first_as(vector["inputs"][key], other)}
    with pytest.raises(rules.RulesError, match="GEN-D04"):
        proc.resolve(wrong)


def test_a_procedure_names_its_die_from_its_inputs():
    test = rules.get("stepdie.test")
    assert test.die_type("face", {"dice": {"F": "d8", "A": "d6"}, "characteristic": "A", "tn": 4}) == "d6"
    assert test.die_type("face", {"base_die": "d10", "helpers": 1, "tn": 4}) == "d12"  # one size up (SD-D03)
    assert test.die_type("tn", {"die": "d8"}) is None
    with pytest.raises(rules.RulesError, match="give the die thrown"):
        test.die_type("face", {"tn": 4})
    damage = rules.get("talon.damage_roll")
    assert damage.die_type("readings", {"weapon": "epee_batarde"}) == "d10"
    assert damage.die_type("d4", {"dice": "1D4"}) == "d4"
    assert damage.die_type("d6", {"dice": "1D4"}) is None  # a d6 key is not read for 1D4
    assert rules.get("d6pool.opposed_action").die_type("b_faces", {}) == "d6"
    assert rules.get("alkemy.characteristic_test").die_type("dice", {}) is None  # Alkemy's dice: a calibrated set's
    with pytest.raises(ValueError, match="input keys"):
        takes("d6")
