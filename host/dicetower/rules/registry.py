"""Registry of rule procedures by their RULES.md ids (e.g. `d6pool.count_successes`).

Each system module decorates its functions with @procedure("system.name"); the registry is filled
when dicetower.rules imports the five system modules.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable

Outcome = dict[str, Any]
#: An OLED form: lines, or {"big": "12", "lines": [...]} (one large figure above 3 lines)
Screen = list[str] | dict[str, Any]
#: The die type (e.g. "d6") a procedure takes through the tower under an input key, given its other inputs
#: (key, inputs) -> die type, or None when that key takes no dice (see takes)
DiceTaken = Callable[[str, dict[str, Any]], "str | None"]
#: How the readings of a physical re-throw (GEN-D03) enter a procedure's inputs: (inputs, outcome, dice) -> the
#: inputs to resolve again with, where outcome holds the reroll_request and dice are the readings of only the
#: dice it asked for; dice None: the player declined an optional re-throw, and None back: the outcome stands
Rethrow = Callable[[dict[str, Any], Outcome, list[Any] | None], dict[str, Any] | None]


class RulesError(ValueError):
    """Input a procedure cannot resolve: wrong dice (GEN-D04), missing field, value out of range.
    The message says what was wrong and what to do (e.g. "throw again with ...")."""


@dataclass(frozen=True)
class Procedure:
    """One procedure of RULES.md.

    id:      stable procedure id, "system.name"
    resolve: inputs (a vector's `inputs` object) -> outcome holding the vector's `expected` keys
    odds:    inputs -> exact distribution of the outcome (None for procedures that roll no dice)
    screen:  outcome -> OLED form: at most 8 lines of 16 characters, or {"big": figure of 1..4
             characters, "lines": at most 3 lines}; None for the generic form (rules/screen.py)
    dice:    (input key, inputs) -> the die type the procedure expects under that key (GEN-D04: what
             resolve checks the dice against), or None when the key takes no dice; None for procedures
             that take no numbered or pip dice through the tower (see takes)
    rethrow: (inputs, outcome, dice) -> the inputs to resolve again with once the dice that the outcome's
             "reroll_request" names were picked up and dropped through the tower again (GEN-D03): dice are the
             readings of that re-throw only (Rethrow); None for procedures whose requests the table settles
             itself (a declaration of rerolls, every player's initiative thrown again)
    """

    id: str
    resolve: Callable[[dict[str, Any]], Outcome]
    odds: Callable[[dict[str, Any]], Outcome] | None = None
    screen: Callable[[Outcome], Screen] | None = None
    dice: DiceTaken | None = None
    rethrow: Rethrow | None = None

    @property
    def system(self) -> str:
        return self.id.split(".", 1)[0]

    def die_type(self, key: str, inputs: dict[str, Any]) -> str | None:
        """The die type (e.g. "d6") this procedure expects under input `key` given its other inputs (a
        table's fixed ones; GEN-D04), or None when it declares none there. Raises RulesError when the
        inputs do not say which die it is (e.g. stepdie.test with no die nor characteristic)."""
        return None if self.dice is None else self.dice(key, inputs)


def takes(die: str | Callable[[dict[str, Any]], str], *keys: str) -> DiceTaken:
    """A procedure's `dice` declaration: under each of `keys` it takes `die` dice, a die type ("d6") or a
    function of its inputs giving one (the step die a character throws). Raises ValueError for no keys."""
    if not keys:
        raise ValueError("takes needs the input keys that receive the dice")

    def die_type(key: str, inputs: dict[str, Any]) -> str | None:
        if key not in keys:
            return None
        return die if isinstance(die, str) else die(inputs)

    return die_type


REGISTRY: dict[str, Procedure] = {}

#: What a procedure raises on inputs of a shape it does not read (a missing key, a number where a list goes, a
#: string where an object goes) when it has no check of its own for them
UNUSABLE_INPUT = (KeyError, TypeError, ValueError, AttributeError, IndexError)


def refusing(proc_id: str, fn: Callable[[dict[str, Any]], Outcome]) -> Callable[[dict[str, Any]], Outcome]:
    """fn (a procedure's resolve or odds: inputs -> outcome) raising RulesError for inputs it cannot use: its own
    RulesError as it is, any other UNUSABLE_INPUT as a RulesError that names the procedure, what failed and where
    the expected shape is shown, and a RecursionError (exact odds of a pool of some thousand dice) as one saying
    the count is too large (the original chained as its __cause__). A table's or a CLI user's malformed inputs
    are refused with a message, never a traceback."""

    @functools.wraps(fn)
    def checked(inputs: dict[str, Any]) -> Outcome:
        try:
            return fn(inputs)
        except RulesError:
            raise
        except UNUSABLE_INPUT as exc:
            what = f"missing input {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
            raise RulesError(f"{proc_id} cannot use these inputs ({what}); see its vectors in "
                             "shared/rules/vectors.json") from exc
        except RecursionError as exc:  # icepool sums n dice recursively: about a thousand is past Python's limit
            raise RulesError(f"{proc_id}: these inputs are too large to work out exactly (a pool of about a "
                             "thousand dice or more); give a smaller count") from exc

    return checked


def procedure(proc_id: str, *, odds: Callable[[dict[str, Any]], Outcome] | None = None,
              screen: Callable[[Outcome], Screen] | None = None, dice: DiceTaken | None = None,
              rethrow: Rethrow | None = None):
    """Decorator registering `fn(inputs) -> outcome` under `proc_id` (odds, screen, dice, rethrow: see Procedure);
    the registered resolve and odds raise RulesError on inputs they cannot use (refusing). Returns fn itself.
    Raises ValueError on a duplicate id."""

    def wrap(fn: Callable[[dict[str, Any]], Outcome]) -> Callable[[dict[str, Any]], Outcome]:
        if proc_id in REGISTRY:
            raise ValueError(f"procedure {proc_id} registered twice")
        REGISTRY[proc_id] = Procedure(proc_id, refusing(proc_id, fn), None if odds is None else refusing(proc_id, odds),
                                      screen, dice, rethrow)
        return fn

    return wrap
