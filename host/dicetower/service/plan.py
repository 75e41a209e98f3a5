"""What a press of ROLL resolves: a rule procedure and how the dice readings become its inputs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dicetower.readings import DieReading


@dataclass(frozen=True)
class RollPlan:
    """How readings become a procedure's inputs.

    procedure:  RULES.md procedure id, e.g. "d6pool.count_successes" (seed 004, 5 La résolution)
    dice_input: the inputs key that receives the dice, e.g. "faces"; the dice go in as reading
                dicts (die_type, value, colour, face_colour, symbols, die_id) so that every procedure
                can check die type, colour and identity itself (GEN-D04)
    inputs:     fixed inputs merged in (characteristics, modifiers, TN... from the table profile)
    die_types:  the die types thrown for this roll (e.g. ("d6",), the profile's `[roll] die_types`), which the
                reader reads an unsure numbered die as (vision.reader.DiceReader's die_types), or None for any
    """

    procedure: str = "d6pool.count_successes"
    dice_input: str = "faces"
    inputs: dict[str, Any] = field(default_factory=dict)
    die_types: tuple[str, ...] | None = None

    def build_inputs(self, readings: list[DieReading]) -> dict[str, Any]:
        """The procedure's inputs for these readings: the fixed inputs plus the dice."""
        dice = [
            {k: v for k, v in r.to_json().items() if k not in ("box", "confidence", "unsure")}
            for r in readings
        ]
        return {**self.inputs, self.dice_input: dice}
