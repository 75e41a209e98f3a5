"""Registry of rule procedures by their RULES.md ids (e.g. `d6pool.count_successes`).

Each system module decorates its functions with @procedure("system.name"); the registry is filled
when dicetower.rules imports the five system modules.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

Outcome = dict[str, Any]
#: An OLED form: lines, or {"big": "12", "lines": [...]} (one large figure above 3 lines)
Screen = list[str] | dict[str, Any]


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
    """

    id: str
    resolve: Callable[[dict[str, Any]], Outcome]
    odds: Callable[[dict[str, Any]], Outcome] | None = None
    screen: Callable[[Outcome], Screen] | None = None

    @property
    def system(self) -> str:
        return self.id.split(".", 1)[0]


REGISTRY: dict[str, Procedure] = {}


def procedure(proc_id: str, *, odds: Callable[[dict[str, Any]], Outcome] | None = None,
              screen: Callable[[Outcome], Screen] | None = None):
    """Decorator registering `fn(inputs) -> outcome` under `proc_id`. Raises ValueError on a duplicate id."""

    def wrap(fn: Callable[[dict[str, Any]], Outcome]) -> Callable[[dict[str, Any]], Outcome]:
        if proc_id in REGISTRY:
            raise ValueError(f"procedure {proc_id} registered twice")
        REGISTRY[proc_id] = Procedure(proc_id, fn, odds, screen)
        return fn

    return wrap
