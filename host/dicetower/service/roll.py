"""One roll, from a camera frame to a logged outcome and its screen. No I/O with the tower here, so
the same path serves the live service, the simulated tower and the tests."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from dicetower import rules
from dicetower.readings import DieReading
from dicetower.vision.crops import die_crops

from .plan import RollPlan


class Reader(Protocol):
    def read(self, image: np.ndarray) -> list[DieReading]: ...


class Log(Protocol):
    def record_roll(self, readings: list[DieReading], outcome: dict[str, Any], *, system: str,
                    procedure: str, frame_sha256: str, frame_source: str | None = None,
                    crops: list[bytes] | None = None) -> Any: ...

    def mark_confirmed(self, roll_id: int, die_index: int, corrected_value: int | None,
                       corrected_type: str | None = None) -> None: ...


@dataclass(frozen=True)
class Correction:
    """A person's correction of an unsure reading (GEN-D01): the face value the die shows (1..sides of
    die_type) and its die type (the type read, unless the reader took the die for another type)."""

    die_type: str
    value: int


@dataclass
class RollResult:
    """What one roll produced.

    roll_id:   the roll log's id (the roll is logged before it is shown)
    readings:  the dice read, in reading order, with the values (and types) a person corrected (as resolved)
    outcome:   the procedure's outcome (JSON-serialisable), or {"roll_status": "rethrow", "reason": ...} when the
               throw must be made again (wrong dice, unsure dice the player rejected)
    screen:    the OLED lines to show (at most 8 of at most 16 characters; at most 3 under `big`)
    big:       a large figure (1..4 characters) drawn above the lines, or None
    """

    roll_id: int
    readings: list[DieReading]
    outcome: dict[str, Any]
    screen: list[str]
    frame_sha256: str
    frame_source: str
    unsure: list[int] = field(default_factory=list)
    state_changes: list[str] = field(default_factory=list)
    big: str | None = None


def frame_sha256(image: np.ndarray, source: str | None = None) -> str:
    """SHA-256 (hex) of the image a roll was read from: of the file's bytes when the frame came from
    an image file (anyone can check it against the photo), else of the raw HxWx3 BGR pixel bytes."""
    if source:
        path = Path(source)
        if path.is_file():
            return hashlib.sha256(path.read_bytes()).hexdigest()
    return hashlib.sha256(np.ascontiguousarray(image).tobytes()).hexdigest()


def screen_form(procedure_id: str, outcome: dict[str, Any]) -> tuple[list[str], str | None]:
    """(lines, big figure or None): the procedure's own OLED form when it has one, else the rules
    engine's generic form; checked to fit the 128x64 OLED (rules.screen.check_screen, ValueError)."""
    from dicetower.rules import screen as generic

    proc = rules.get(procedure_id)
    form = proc.screen(outcome) if proc.screen is not None else generic.generic_screen(procedure_id, outcome)
    generic.check_screen(form)
    if isinstance(form, dict):
        return list(form["lines"]), form["big"]
    return list(form), None


def refusal_screen(title: str, detail: str) -> list[str]:
    """Screen for a throw that must be made again: a title and the reason folded to 16 columns."""
    words, lines, line = detail.split(), [title[:16]], ""
    for word in words:
        if len(line) + len(word) + (1 if line else 0) > 16:
            lines.append(line)
            line = word[:16]
        else:
            line = f"{line} {word}" if line else word[:16]
    if line:
        lines.append(line)
    return lines[:8]


class RollPipeline:
    """Frame -> readings -> outcome -> log -> screen, for one table's RollPlan.

    reader: DiceReader-like (read(image) -> list[DieReading])
    log:    RollLog-like (record_roll(...))
    table:  the table profile (dicetower.service.table.Table) whose state resolved outcomes change
            (wounds, hearts, ...), saved after the roll is logged; None for no state
    """

    def __init__(self, reader: Reader, log: Log, plan: RollPlan, table: Any = None):
        self.reader = reader
        self.log = log
        self.plan = plan
        self.table = table

    def read(self, image: np.ndarray) -> list[DieReading]:
        """Read every die in the frame. image: HxWx3 uint8 BGR."""
        return self.reader.read(image)

    def resolve_and_log(self, image: np.ndarray, source: str, readings: list[DieReading],
                        rejected: bool = False, confirmed: dict[int, Correction | None] | None = None) -> RollResult:
        """Resolve the plan's procedure on these readings, log the roll, and return the screen.

        The roll is logged (committed) BEFORE the screen is returned, so a shown result is always in
        the log. Readings the player rejected (unsure, GEN-D01) or dice the procedure refuses
        (GEN-D04, RulesError) are logged with an outcome {"roll_status": "rethrow", ...} and a screen that
        asks for the dice again; nothing is guessed. Each die's crop of the frame is logged with it
        (die_crops). confirmed: {index into readings: the Correction a person made to that die, or None
        when they kept it as read}; the procedure is resolved on the corrected dice (so a die corrected to a
        type the procedure does not take is refused, GEN-D04), the readings are logged as read, and each
        confirmation (with its correction) is logged after the roll (RollLog.mark_confirmed), so the audit
        counts the corrected face, under the corrected type, and keeps what was read.
        Raises the log's error when logging fails (a correction that is no face of its die included:
        LogError): the caller must then not show a result."""
        confirmed = confirmed or {}
        readings_as_read = readings
        readings = [r if (c := confirmed.get(i)) is None else replace(r, die_type=c.die_type, value=c.value)
                    for i, r in enumerate(readings)]
        sha = frame_sha256(image, source)
        big = None
        unsure = [i for i, r in enumerate(readings) if r.unsure]
        if rejected:
            outcome: dict[str, Any] = {"roll_status": "rethrow", "reason": "unsure reading rejected (GEN-D01)"}
            screen = refusal_screen("DROP AGAIN", "an unsure die was rejected: drop the dice again")
        elif not readings:
            outcome = {"roll_status": "rethrow", "reason": "no dice seen in the tray"}
            screen = refusal_screen("NO DICE SEEN", "drop the dice again")
        else:
            try:
                outcome = {"roll_status": "resolved", **rules.resolve(self.plan.procedure, self.plan.build_inputs(readings))}
                screen, big = screen_form(self.plan.procedure, outcome)
            except rules.RulesError as exc:
                outcome = {"roll_status": "rethrow", "reason": str(exc)}
                screen = refusal_screen("THROW AGAIN", str(exc))
        record = self.log.record_roll(readings_as_read, outcome, system=self.plan.procedure.split(".")[0],
                                      procedure=self.plan.procedure, frame_sha256=sha, frame_source=source,
                                      crops=die_crops(image, readings_as_read))
        for i, correction in sorted(confirmed.items()):  # a person vouched for these readings: the audit may count them
            if correction is None:
                self.log.mark_confirmed(record.roll_id, i, None)
            else:
                self.log.mark_confirmed(record.roll_id, i, correction.value, correction.die_type)
        changes = self.table.apply(outcome) if self.table is not None and outcome["roll_status"] == "resolved" else []
        return RollResult(record.roll_id, readings, outcome, screen, sha, source, unsure, changes, big)
