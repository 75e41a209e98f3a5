"""Every vector of shared/rules/vectors.json, run through dicetower.rules (issue 3, "Must show" 2).

A vector passes when every key of its `expected` equals the outcome's (numbers exactly, booleans as
booleans, nested objects and lists recursively; extra outcome keys are fine). A vector a rules helper
holds to be wrong is listed in tests/rules/disputed/<system>.toml as `"vector-id" = "reason"` and runs
as xfail(strict=True): it must keep failing, and the reason is shown. A vector whose procedure is not
registered fails (it is never skipped).

GM judgement (RULES.md 0.2): an expected string "head (GM judgement)" means the inputs hold the GM's
answer, and the outcome must hold `head`; an expected string "gm_... (a or b)" means the outcome holds
a prompt {"prompt": str, "gm_judgement": true, "choices": [a, b]} (or, when the GM has answered, one
of the choices).
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from dicetower import rules
from dicetower.paths import shared_dir
from dicetower.rules.screen import check_screen, generic_screen

HERE = Path(__file__).parent
COPY = HERE / "vectors.json"
SHARED = shared_dir() / "rules" / "vectors.json"
DISPUTED_DIR = HERE / "disputed"


def vectors_file() -> Path:
    """shared/rules/vectors.json, or the identical copy beside this file when shared is absent."""
    return SHARED if SHARED.is_file() else COPY


VECTORS: list[dict[str, Any]] = json.loads(vectors_file().read_text(encoding="utf-8"))


def load_disputed() -> dict[str, tuple[str, str]]:
    """vector id -> (system of the file, reason), from every tests/rules/disputed/<system>.toml."""
    out: dict[str, tuple[str, str]] = {}
    for path in sorted(DISPUTED_DIR.glob("*.toml")):
        for vid, reason in tomllib.loads(path.read_text(encoding="utf-8")).items():
            out[vid] = (path.stem, reason)
    return out


DISPUTED = load_disputed()


def vector_params() -> list[Any]:
    params = []
    for v in VECTORS:
        marks = []
        if v["id"] in DISPUTED:
            marks.append(pytest.mark.xfail(strict=True, reason=f"disputed: {DISPUTED[v['id']][1]}"))
        params.append(pytest.param(v, id=v["id"], marks=marks))
    return params


GM_FORM = re.compile(r"^(?P<head>.*?)\s*\((?P<paren>[^()]*)\)$")


def gm_expectation(value: Any) -> dict[str, Any] | None:
    """None for an ordinary expected value; for a GM-judgement string, {"answers": [values the
    outcome may hold when the GM has answered], "choices": [prompt choices] or None}."""
    if not isinstance(value, str) or (m := GM_FORM.match(value)) is None:
        return None
    head, paren = m["head"], m["paren"]
    if "GM judgement" in paren:
        return {"answers": [head], "choices": None, "prompt_allowed": False}
    if head.startswith("gm_") and " or " in paren:
        choices = [json.loads(c.strip()) if re.fullmatch(r"-?\d+", c.strip()) else c.strip()
                   for c in paren.split(" or ")]
        return {"answers": choices, "choices": choices, "prompt_allowed": True}
    return None


def is_prompt(value: Any) -> bool:
    return (isinstance(value, dict) and value.get("gm_judgement") is True
            and isinstance(value.get("prompt"), str) and value["prompt"].strip() != ""
            and isinstance(value.get("choices"), list) and len(value["choices"]) >= 2)


def mismatches(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Differences between an expected value and an outcome's, as readable lines (empty = match)."""
    gm = gm_expectation(expected)
    if gm is not None:
        if is_prompt(actual):
            if not gm["prompt_allowed"]:
                return [f"{path}: the inputs hold the GM's answer, expected {gm['answers'][0]!r}, got a prompt"]
            if gm["choices"] is not None and sorted(map(str, actual["choices"])) != sorted(map(str, gm["choices"])):
                return [f"{path}: prompt choices {actual['choices']} != {gm['choices']}"]
            return []
        if actual in gm["answers"] and not isinstance(actual, bool):
            return []
        return [f"{path}: expected GM judgement {expected!r} (a prompt or {gm['answers']}), got {actual!r}"]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {actual!r}"]
        out = []
        for key, value in expected.items():
            if key not in actual:
                out.append(f"{path}.{key}: missing from the outcome")
            else:
                out += mismatches(value, actual[key], f"{path}.{key}")
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{path}: expected {expected!r}, got {actual!r}"]
        return [m for i, (e, a) in enumerate(zip(expected, actual)) for m in mismatches(e, a, f"{path}[{i}]")]
    if isinstance(expected, bool) or isinstance(actual, bool) or expected is None:
        return [] if type(actual) is type(expected) and actual == expected else [f"{path}: expected {expected!r}, got {actual!r}"]
    return [] if actual == expected else [f"{path}: expected {expected!r}, got {actual!r}"]


@pytest.mark.parametrize("vector", vector_params())
def test_vector(vector: dict[str, Any]) -> None:
    outcome = rules.resolve(vector["procedure"], json.loads(json.dumps(vector["inputs"])))
    json.dumps(outcome)  # outcomes are plain JSON
    problems = mismatches(vector["expected"], outcome)
    assert not problems, f"{vector['id']} ({vector['procedure']}):\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("vector", [pytest.param(v, id=v["id"]) for v in VECTORS])
def test_vector_display_fits_the_oled(vector: dict[str, Any]) -> None:
    """Issue 3, item 9: each outcome's display form (own or generic) fits 8 lines of 16 ASCII."""
    proc = rules.get(vector["procedure"])
    try:
        outcome = proc.resolve(json.loads(json.dumps(vector["inputs"])))
    except rules.RulesError as exc:
        pytest.fail(f"{vector['id']}: resolve refused the vector's inputs: {exc}")
    lines = proc.screen(outcome) if proc.screen else generic_screen(proc.id, outcome)
    check_screen(lines)
    assert lines, "an outcome's display form is never empty"


#: values put in place of an input field that a procedure reads as something else
WRONG_VALUES = (None, "x", -1, [], {}, 1.5, True)


def test_every_vector_with_a_field_dropped_or_mistyped_is_answered_or_refused_with_a_rules_error() -> None:
    """Bad input gets a clear RulesError naming the procedure, never a KeyError, TypeError or AttributeError
    (a table's malformed profile, a CLI user's JSON): each field of each vector's inputs dropped, then given
    each of WRONG_VALUES (about 6,000 inputs; a dropped "cards_revealed" was a KeyError in talon.ace_fumble, a
    string "track" an AttributeError in talon.npc_tracks, armour -1 a TypeError in throwing_stones.damage)."""
    crashes = []
    for vector in VECTORS:
        proc, inputs = rules.get(vector["procedure"]), vector["inputs"]
        variants = [{k: v for k, v in inputs.items() if k != key} for key in inputs]
        variants += [{**inputs, key: wrong} for key in inputs for wrong in WRONG_VALUES]
        for variant in variants:
            try:
                proc.resolve(json.loads(json.dumps(variant)))
            except rules.RulesError as exc:
                assert str(exc).strip(), f"{vector['id']}: an empty RulesError"
            except Exception as exc:  # noqa: BLE001 - what the test looks for
                crashes.append(f"{vector['id']} {sorted(set(inputs) ^ set(variant)) or variant}: {exc!r}")
    assert not crashes, f"{len(crashes)} inputs crashed a procedure, e.g.:\n" + "\n".join(crashes[:10])


def test_copy_of_vectors_is_identical_to_shared() -> None:
    if not SHARED.is_file():
        pytest.skip(f"shared rules folder not found at {SHARED}; only the copy in tests/rules is used")
    assert COPY.read_bytes() == SHARED.read_bytes(), \
        f"tests/rules/vectors.json differs from {SHARED}: copy the shared file over it"


def test_disputed_entries_name_real_vectors_of_their_system() -> None:
    by_id = {v["id"]: v for v in VECTORS}
    for vid, (system, reason) in DISPUTED.items():
        assert system in rules.SYSTEMS, f"disputed/{system}.toml is not named after a system"
        assert vid in by_id, f"disputed/{system}.toml lists {vid}, which is not a vector"
        assert by_id[vid]["system"] == system, f"{vid} is a {by_id[vid]['system']} vector, listed in {system}.toml"
        assert isinstance(reason, str) and len(reason) > 20, f"{vid}: give a reason citing the seed or a DECISION"


def test_vector_count_and_ids_are_unique() -> None:
    ids = [v["id"] for v in VECTORS]
    assert len(ids) == len(set(ids)), "duplicate vector ids"
    assert {v["system"] for v in VECTORS} <= set(rules.SYSTEMS)


@pytest.mark.parametrize("expected,actual,ok", [
    ("failure (GM judgement)", "failure", True),
    ("failure (GM judgement)", {"prompt": "Enough?", "gm_judgement": True, "choices": ["success", "failure"]}, False),
    ("gm_roleplay (0 or 1)", {"prompt": "Roleplay?", "gm_judgement": True, "choices": [0, 1]}, True),
    ("gm_roleplay (0 or 1)", {"prompt": "Roleplay?", "gm_judgement": True, "choices": [0, 2]}, False),
    ("gm_roleplay (0 or 1)", 1, True),
    ("gm_roleplay (0 or 1)", 3, False),
    ("one only (best: +4)", "one only (best: +4)", True),
    ({"a": 1, "b": [1, {"c": True}]}, {"a": 1, "b": [1, {"c": True, "x": 0}], "extra": 2}, True),
    ({"b": [1, {"c": True}]}, {"b": [1, {"c": 1}]}, False),
    ({"n": 0.5}, {"n": 0.5}, True),
    ({"n": 2}, {"n": 3}, False),
    ({"w": None}, {"w": None}, True),
    ({"w": None}, {"w": False}, False),
    ({"k": 1}, {}, False),
])
def test_harness_comparison_rules(expected: Any, actual: Any, ok: bool) -> None:
    """The comparison itself can fail: the harness is not a rubber stamp."""
    assert (mismatches(expected, actual) == []) is ok
