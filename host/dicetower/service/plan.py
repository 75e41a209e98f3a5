"""What a press of ROLL resolves: a rule procedure and how the dice readings become its inputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dicetower import rules
from dicetower.readings import DieReading


@dataclass(frozen=True)
class RollPlan:
    """How readings become a procedure's inputs.

    procedure:  RULES.md procedure id, e.g. "d6pool.count_successes" (seed 004, 5 La résolution)
    dice_input: the inputs key that receives the dice, e.g. "faces"; the dice go in as reading
                dicts (die_type, value, colour, face_colour, symbols, die_id) so that every procedure
                can check die type, colour and identity itself (GEN-D04)
    inputs:     fixed inputs merged in (characteristics, modifiers, TN... from the table profile)
    die_types:  the die types the table names for this roll (the profile's `[roll] die_types`, e.g. ("d6",)), or
                None when it names none: then the procedure's own are in play (types_in_play)
    """

    procedure: str = "d6pool.count_successes"
    dice_input: str = "faces"
    inputs: dict[str, Any] = field(default_factory=dict)
    die_types: tuple[str, ...] | None = None

    def procedure_die(self) -> str | None:
        """The die type the procedure expects as dice_input given the fixed inputs (rules.Procedure.die_type,
        GEN-D04: "d6" for a d6 pool, the character's step die for stepdie.test), or None when it declares
        none there. Raises RulesError when the inputs do not say which die it is (a table profile is checked
        for this when loaded, service.table.plan_from_profile)."""
        return rules.get(self.procedure).die_type(self.dice_input, self.inputs)

    def types_in_play(self) -> tuple[str, ...] | None:
        """The die types thrown for this roll, which the reader reads an unsure numbered die as
        (vision.reader.DiceReader's die_types) and the panel steps through when a die's type is corrected:
        die_types when the table names them, else the procedure's own (procedure_die), else None (any type).
        Raises RulesError as procedure_die does."""
        if self.die_types is not None:
            return self.die_types
        die_type = self.procedure_die()
        return None if die_type is None else (die_type,)

    def dice(self, readings: list[DieReading]) -> list[dict[str, Any]]:
        """The readings as the procedure takes dice: reading dicts (die_type, value, colour, face_colour,
        symbols, die_id), without where they lay, how sure the reader was or what else it might have read."""
        return [{k: v for k, v in r.to_json().items() if k not in ("box", "confidence", "unsure", "alternatives")}
                for r in readings]

    def build_inputs(self, readings: list[DieReading]) -> dict[str, Any]:
        """The procedure's inputs for these readings: the fixed inputs plus the dice."""
        return {**self.inputs, self.dice_input: self.dice(readings)}
