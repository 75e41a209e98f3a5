"""Checking the dice a procedure receives against the dice it expects (RULES.md GEN-D01..D04), and
merging a physical reroll into an earlier throw (GEN-D03).

A die may come in any of the shapes the vision and the vectors use:
    5                                                   a bare face value
    {"value": 5} / {"face": 5}                          a value in a dict (vector shapes)
    {"die_type": "d6", "value": 5, "colour": "red", "die_id": "stone-3", "symbols": [...],
     "cocked": false}                                   a DieReading.to_json()-like dict
    DieReading(...)                                     the reading object itself
Every check raises RulesError with what was wrong and what to throw again; nothing is dropped silently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from dicetower.readings import DieReading

from .registry import RulesError

#: Die types the tower reads, by number of sides (RULES.md section 6).
SIDES = {"d4": 4, "d6": 6, "d8": 8, "d10": 10, "d12": 12, "d20": 20}


def die_sides(die_type: str) -> int:
    """Number of sides of a die type name ("d6" -> 6). Raises RulesError for an unknown type."""
    try:
        return SIDES[str(die_type).lower()]
    except KeyError:
        raise RulesError(f"unknown die type {die_type!r}; the tower reads {', '.join(SIDES)}") from None


@dataclass(frozen=True)
class Die:
    """One die as a procedure sees it, after checks.

    value:    face value, 1..sides (a d10 "0" already read as 10, GEN-D02)
    die_type: "d6".. or None when the input gave a bare number (then the procedure's type is assumed)
    colour:   body colour or None
    die_id:   identity of the physical die or None
    """

    value: int
    die_type: str | None = None
    colour: str | None = None
    die_id: str | None = None


def _as_dict(item: Any, where: str) -> dict[str, Any]:
    if isinstance(item, DieReading):
        return item.to_json()
    if isinstance(item, dict):
        return item
    if isinstance(item, bool) or not isinstance(item, int):
        raise RulesError(f"{where}: {item!r} is not a die reading; give a face value (int) or a reading "
                         f"{{'die_type': 'd6', 'value': 5}}")
    return {"value": item}


def read_die(item: Any, *, die_type: str, colours: Iterable[str] | None = None, where: str = "die") -> Die:
    """Check one die against the expected type (and body colour) and return it as a Die.

    item:     int | {"value"|"face": int, "die_type"?, "colour"?, "die_id"?, "cocked"?} | DieReading
    die_type: the die the procedure expects, e.g. "d6" (GEN-D04)
    colours:  allowed body colours, or None when colour does not matter; a reading without a colour
              is then refused (the engine cannot check what it was not told)
    Raises RulesError: cocked or unsure die (GEN-D01), wrong die type, wrong colour, value missing or
    out of 1..sides (d10 "0" reads 10, GEN-D02; percentile "00".."90" refused).
    """
    sides = die_sides(die_type)
    reading = _as_dict(item, where)
    if reading.get("cocked") or reading.get("unsure"):
        raise RulesError(f"{where} is cocked or unsure: pick it up and drop it through the tower again "
                         "(GEN-D01, not a reroll)")
    seen_type = reading.get("die_type")
    if seen_type is not None and str(seen_type).lower() != die_type:
        raise RulesError(f"{where} is a {seen_type}, but this roll needs {die_type}: take the {seen_type} "
                         f"out of the tray and throw a {die_type} instead (GEN-D04)")
    colour = reading.get("colour")
    if colours is not None:
        allowed = sorted(colours)
        if colour is None:
            raise RulesError(f"{where} has no colour reading; this roll needs a {' or '.join(allowed)} "
                             f"{die_type}: throw it again in good light (GEN-D04)")
        if colour not in allowed:
            raise RulesError(f"{where} is {colour}, but this roll needs a {' or '.join(allowed)} {die_type}: "
                             f"replace it and throw again (GEN-D04)")
    value = reading.get("value", reading.get("face"))
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{where} has no face value ({value!r}); throw it again (GEN-D01)")
    if die_type == "d10" and value == 0:
        value = 10  # GEN-D02: a d10's "0" face is 10
    if not 1 <= value <= sides:
        hint = " (percentile dice are not used, GEN-D02)" if die_type == "d10" and value % 10 == 0 else ""
        raise RulesError(f"{where} shows {value}, impossible on a {die_type} (1..{sides}){hint}: "
                         f"check the die and throw it again")
    return Die(value, None if seen_type is None else die_type, colour, reading.get("die_id"))


def read_dice(items: Any, *, die_type: str, count: int | None = None, max_count: int | None = None,
              colours: Iterable[str] | None = None, what: str = "dice") -> list[Die]:
    """Check a throw of several dice (see read_die) and its size.

    items:     list of dice in any shape read_die accepts
    count:     exact number of dice expected, or None
    max_count: most dice allowed, or None for no cap
    what:      what the dice are called in messages ("dice", "stones"; a die is "<what> #2")
    Raises RulesError when items is not a list, has the wrong number of dice (too many are never
    ignored, GEN-D04) or holds a wrong die (the message names it by its 1-based position).
    """
    if not isinstance(items, (list, tuple)):
        raise RulesError(f"{what} must be a list of dice readings, not {type(items).__name__}")
    n = len(items)
    if count is not None and n != count:
        raise RulesError(f"{n} {what} read but this roll needs exactly {count} {die_type}: "
                         f"{'take out the extra dice' if n > count else 'add the missing dice'} and throw again (GEN-D04)")
    if max_count is not None and n > max_count:
        raise RulesError(f"{n} {what} read but at most {max_count} are allowed: take out {n - max_count} "
                         "and throw again (GEN-D04)")
    colour_set = None if colours is None else list(colours)
    return [read_die(item, die_type=die_type, colours=colour_set, where=f"{what} #{i + 1}")
            for i, item in enumerate(items)]


def merge_reroll(previous: Sequence[Any], reroll: Sequence[int], new: Sequence[Any], *,
                 by_identity: bool = False) -> list[Any]:
    """Replace the rerolled dice of a throw by the readings of their physical re-throw (GEN-D03).

    previous:    the throw so far (any die shapes, kept as given)
    reroll:      0-based positions in `previous` of the dice picked up and dropped again
    new:         the readings of that re-throw only
    by_identity: match new readings to the rerolled dice by "die_id" (Throwing Stones, TS-D01)
                 instead of by order
    Returns the merged list (same length as previous). Raises RulesError when a position is out of
    range or repeated, the re-throw has a different number of dice, or (by_identity) a die_id does not
    match the dice that were picked up.
    """
    positions = list(reroll)
    if len(set(positions)) != len(positions) or any(not 0 <= p < len(previous) for p in positions):
        raise RulesError(f"reroll positions {positions} must be distinct and within 0..{len(previous) - 1}")
    if len(new) != len(positions):
        raise RulesError(f"{len(new)} dice read in the re-throw but {len(positions)} were to be rerolled: "
                         "throw exactly the dice that were picked up (GEN-D03)")
    merged = list(previous)
    if not by_identity:
        for p, reading in zip(positions, new):
            merged[p] = reading
        return merged
    wanted = {_die_id(previous[p], f"die #{p + 1}"): p for p in positions}
    for i, reading in enumerate(new):
        die_id = _die_id(reading, f"re-thrown die #{i + 1}")
        if die_id not in wanted:
            raise RulesError(f"re-thrown {die_id!r} was not picked up (expected {', '.join(sorted(map(str, wanted)))}): "
                             "throw only the stones being rerolled (GEN-D03)")
        merged[wanted.pop(die_id)] = reading
    return merged


def _die_id(item: Any, where: str) -> str:
    reading = _as_dict(item, where) if not isinstance(item, dict) else item
    die_id = reading.get("die_id")
    if not die_id:
        raise RulesError(f"{where} has no identity (die_id); identity is needed to match a reroll (GEN-D03)")
    return str(die_id)


# --- Choices and GM judgement: the other inputs a table supplies (GEN-D05, RULES.md 0.2) ----------

def gm_prompt(question: str, choices: Sequence[Any]) -> dict[str, Any]:
    """The outcome value for a GM decision the engine must not compute (RULES.md 0.2, last item):
    {"prompt": question, "gm_judgement": True, "choices": [...]}. The caller resolves again with the
    GM's answer in its inputs."""
    return {"prompt": question, "gm_judgement": True, "choices": list(choices)}


def choose(inputs: dict[str, Any], key: str, default: Any, *, allowed: Sequence[Any] | None = None,
           chooser: str = "player") -> tuple[Any, dict[str, Any]]:
    """A choice the rules leave to `chooser` (GEN-D05): the value in inputs[key] when given, else
    `default` (which favours the chooser). Returns (value, record) where record =
    {"value", "chosen_by": chooser | "default"} goes into the outcome's "choices". Raises RulesError
    when the given value is not one of `allowed`."""
    if key in inputs and inputs[key] is not None:
        value = inputs[key]
        if allowed is not None and value not in allowed:
            raise RulesError(f"{key} = {value!r} is not allowed; choose one of {list(allowed)}")
        return value, {"value": value, "chosen_by": chooser}
    return default, {"value": default, "chosen_by": "default"}
