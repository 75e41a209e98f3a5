"""One roll, from a camera frame to a logged outcome and its screen. No I/O with the tower here, so
the same path serves the live service, the simulated tower and the tests."""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from dicetower import rules
from dicetower.readings import DieReading
from dicetower.rules.registry import Rethrow
from dicetower.vision.crops import die_crops

from .plan import RollPlan
from .table import ProfileError


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
    annotated: the roll's annotated frame (PNG) when the service saves them (TowerService's annotate_dir)
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
    annotated: Path | None = None

    @property
    def not_dice(self) -> list[int]:
        """Indices into readings of the unsure readings a person said are no die (a side face, a shadow, a mark on
        the tray): left out of the outcome, logged as read (unsure and never confirmed, so the audit does not count
        them), named by the outcome's "not_dice"."""
        return list(self.outcome.get("not_dice", []))


def frame_sha256(image: np.ndarray, source: str | None = None) -> str:
    """SHA-256 (hex) of the image a roll was read from: of the file's bytes when the frame came from
    an image file (anyone can check it against the photo), else of the raw HxWx3 BGR pixel bytes."""
    if source:
        path = Path(source)
        if path.is_file():
            return hashlib.sha256(path.read_bytes()).hexdigest()
    return hashlib.sha256(np.ascontiguousarray(image).tobytes()).hexdigest()


#: Outcome keys the service adds to a procedure's outcome (what became of the throw, which roll a re-throw
#: completes, the readings a person said are no die), which are not the procedure's to show
SERVICE_KEYS = ("roll_status", "rethrow_of", "rethrow_declined", "not_dice")


def screen_form(procedure_id: str, outcome: dict[str, Any]) -> tuple[list[str], str | None]:
    """(lines, big figure or None): the procedure's own OLED form when it has one, else the rules
    engine's generic form, of the outcome without the service's own keys (SERVICE_KEYS); checked to fit the
    128x64 OLED (rules.screen.check_screen, ValueError)."""
    from dicetower.rules import screen as generic

    outcome = {k: v for k, v in outcome.items() if k not in SERVICE_KEYS}
    proc = rules.get(procedure_id)
    form = proc.screen(outcome) if proc.screen is not None else generic.generic_screen(procedure_id, outcome)
    generic.check_screen(form)
    if isinstance(form, dict):
        return list(form["lines"]), form["big"]
    return list(form), None


@dataclass(frozen=True)
class PendingRethrow:
    """A logged roll whose outcome asks for some of its dice to be picked up and dropped through the tower again
    (its "reroll_request", GEN-D03), under a procedure that says how that re-throw is merged (rules Procedure's
    rethrow). roll_id: the log's id of that roll; inputs: what it was resolved with; outcome: its outcome;
    frame_sha256, frame_source: its frame (a declined re-throw is resolved on the dice of that frame)."""

    roll_id: int
    inputs: dict[str, Any]
    outcome: dict[str, Any]
    frame_sha256: str
    frame_source: str

    @property
    def request(self) -> dict[str, Any]:
        return dict(self.outcome["reroll_request"])

    @property
    def optional(self) -> bool:
        """Whether the player may decline the re-throw (a chance mulligan, Bersek's rerolls) or not (Demolition
        man's 1s, the defender's armour rerolls)."""
        return bool(self.request.get("optional", False))

    @property
    def count(self) -> int:
        """How many dice are to be thrown again (the request's positions, or Talon's dice)."""
        return len(self.request.get("positions", self.request.get("dice", [])))


def rethrow_screen(lines: list[str], big: str | None, pending: PendingRethrow) -> list[str]:
    """lines (of a form with the large figure big, or None) ending with what the player does next: "REROLL n:
    ROLL" (pick up those n dice and drop them again), then "NO: keep as is" when the re-throw is optional
    (RollPipeline.decline), else "hold NO: give up" (RollPipeline.abandon); the form's last lines make room (at
    most 3 lines under big, 8 without)."""
    from dicetower.rules.screen import fit

    ask = [fit(f"REROLL {pending.count}: ROLL"), fit("NO: keep as is" if pending.optional else "hold NO: give up")]
    return lines[:(3 if big is not None else 8) - len(ask)] + ask


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
    pending: the re-throw the last resolved outcome asks for (PendingRethrow), or None: the next throw's dice
            are then that re-throw's, merged into that roll's inputs (GEN-D03), and the table's state waits
            for the outcome that asks for none
    """

    def __init__(self, reader: Reader, log: Log, plan: RollPlan, table: Any = None):
        self.reader = reader
        self.log = log
        self.plan = plan
        self.table = table
        self.pending: PendingRethrow | None = None

    def read(self, image: np.ndarray) -> list[DieReading]:
        """Read every die in the frame. image: HxWx3 uint8 BGR."""
        return self.reader.read(image)

    def resolve_and_log(self, image: np.ndarray, source: str, readings: list[DieReading],
                        rejected: bool = False, confirmed: dict[int, Correction | None] | None = None,
                        not_dice: Collection[int] = ()) -> RollResult:
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
        not_dice: indices into readings of unsure readings a person said are no die (a side face, a shadow): the
        procedure is resolved without them, and they are logged as read, never confirmed (the audit does not count
        an unsure reading nobody confirmed), with the outcome's "not_dice" (sorted indices) saying who left them
        out; when no reading is left, nothing was thrown that the camera saw, and the dice are asked for again.
        Raises ValueError for a not_dice index that is no unsure reading, or one also in confirmed.
        While a re-throw is pending (self.pending) these readings are its dice: the procedure's rethrow merges
        them into the asking roll's inputs (a wrong count or stone is refused as above, and the re-throw stays
        pending), and the outcome says "rethrow_of": that roll's id. An outcome that asks for a re-throw of its
        own (reroll_request, under a procedure that merges one) becomes pending, and its screen ends with what
        to do (rethrow_screen).
        Raises the log's error when logging fails (a correction that is no face of its die included:
        LogError): the caller must then not show a result."""
        confirmed = confirmed or {}
        not_dice = sorted(set(not_dice))
        for i in not_dice:
            if not 0 <= i < len(readings) or not readings[i].unsure or i in confirmed:
                raise ValueError(f"reading {i} cannot be left out as no die: only an unsure reading of the "
                                 f"{len(readings)} read that nobody confirmed can")
        readings_as_read = readings
        readings = [r if (c := confirmed.get(i)) is None else replace(r, die_type=c.die_type, value=c.value,
                                                                     alternatives=[])  # a person set the face
                    for i, r in enumerate(readings)]
        sha = frame_sha256(image, source)
        big = None
        unsure = [i for i, r in enumerate(readings) if r.unsure]
        pending = self.pending
        inputs: dict[str, Any] = {}
        thrown = [r for i, r in enumerate(readings) if i not in not_dice]
        if rejected:
            outcome: dict[str, Any] = {"roll_status": "rethrow", "reason": "unsure reading rejected (GEN-D01)"}
            screen = refusal_screen("DROP AGAIN", "an unsure die was rejected: drop the dice again")
        elif not thrown:
            outcome = {"roll_status": "rethrow", "reason": "no dice seen in the tray"}
            screen = refusal_screen("NO DICE SEEN", "drop the dice again")
        else:
            try:
                if pending is None:
                    inputs = self.plan.build_inputs(thrown)
                else:
                    inputs = self._rethrow_inputs(pending, self.plan.dice(thrown))
                outcome = {"roll_status": "resolved", **rules.resolve(self.plan.procedure, inputs)}
                screen, big = screen_form(self.plan.procedure, outcome)
            except rules.RulesError as exc:
                outcome = {"roll_status": "rethrow", "reason": str(exc)}
                screen = refusal_screen("THROW AGAIN", str(exc))
        if pending is not None:
            outcome["rethrow_of"] = pending.roll_id
        if not_dice:
            outcome["not_dice"] = not_dice
        record = self._record(readings_as_read, outcome, sha, source, die_crops(image, readings_as_read))
        for i, correction in sorted(confirmed.items()):  # a person vouched for these readings: the audit may count them
            if correction is None:
                self.log.mark_confirmed(record.roll_id, i, None)
            else:
                self.log.mark_confirmed(record.roll_id, i, correction.value, correction.die_type)
        screen, changes = self._settle(record.roll_id, inputs, outcome, screen, big, sha, source)
        return RollResult(record.roll_id, readings, outcome, screen, sha, source, unsure, changes, big)

    def decline(self) -> RollResult | None:
        """The player declined the pending re-throw, when it is optional (a chance mulligan, Bersek's damage
        rerolls): the procedure's rethrow says what follows, either the asking outcome as it stands (without its
        request) or a resolution on the same dice with the re-throw declined (the attacker declines and the
        defender's armour rerolls come next). That outcome is logged as a roll of no dice on the asking roll's
        frame, with "rethrow_of" and "rethrow_declined", then settled like any (its own request pending, or the
        table's state changed). None when no optional re-throw is pending. Raises the log's error (LogError)."""
        pending = self.pending
        if pending is None or not pending.optional:
            return None
        big = None
        inputs = pending.inputs
        try:
            declined = self._rethrow()(pending.inputs, pending.outcome, None)
            if declined is None:
                outcome = {k: v for k, v in pending.outcome.items() if k != "reroll_request"}
            else:
                inputs = declined
                outcome = {"roll_status": "resolved", **rules.resolve(self.plan.procedure, inputs)}
            screen, big = screen_form(self.plan.procedure, outcome)
        except rules.RulesError as exc:
            outcome = {"roll_status": "rethrow", "reason": str(exc)}
            screen = refusal_screen("CANNOT DECLINE", str(exc))
        outcome.update(rethrow_of=pending.roll_id, rethrow_declined=True)
        record = self._record([], outcome, pending.frame_sha256, pending.frame_source, [])
        screen, changes = self._settle(record.roll_id, inputs, outcome, screen, big, pending.frame_sha256,
                                       pending.frame_source)
        return RollResult(record.roll_id, [], outcome, screen, pending.frame_sha256, pending.frame_source, [],
                          changes, big)

    def abandon(self) -> RollResult | None:
        """The player gave up the pending re-throw (the dice that should go again are lost, or will not read): logged
        as a roll of no dice on the asking roll's frame, outcome {"roll_status": "abandoned", "reason",
        "rethrow_of"}; nothing is resolved, and the table's state is not changed. None when no re-throw is pending.
        Raises the log's error (LogError)."""
        pending = self.pending
        if pending is None:
            return None
        outcome = {"roll_status": "abandoned", "reason": "the re-throw was given up: the roll it completes stays "
                   "unresolved", "rethrow_of": pending.roll_id}
        record = self._record([], outcome, pending.frame_sha256, pending.frame_source, [])
        self.pending = None
        return RollResult(record.roll_id, [], outcome, refusal_screen("ABANDONED", "roll not resolved: press ROLL"),
                          pending.frame_sha256, pending.frame_source)

    def _record(self, readings: list[DieReading], outcome: dict[str, Any], sha: str, source: str,
                crops: list[bytes]) -> Any:
        """Log one roll of the plan's procedure (RollLog.record_roll: committed when this returns)."""
        return self.log.record_roll(readings, outcome, system=self.plan.procedure.split(".")[0],
                                    procedure=self.plan.procedure, frame_sha256=sha, frame_source=source, crops=crops)

    def _rethrow(self) -> Rethrow:
        """The plan's procedure's rethrow (a re-throw is pending only under a procedure that has one)."""
        rethrow = rules.get(self.plan.procedure).rethrow
        assert rethrow is not None
        return rethrow

    def _rethrow_inputs(self, pending: PendingRethrow, dice: list[dict[str, Any]]) -> dict[str, Any]:
        """The pending roll's inputs with these re-thrown dice merged (the procedure's rethrow). Raises RulesError."""
        inputs = self._rethrow()(pending.inputs, pending.outcome, dice)
        assert inputs is not None  # dice given: the re-throw is merged
        return inputs

    def _settle(self, roll_id: int, inputs: dict[str, Any], outcome: dict[str, Any], screen: list[str],
                big: str | None, sha: str, source: str) -> tuple[list[str], list[str]]:
        """After a logged roll: a resolved outcome that asks for a re-throw the procedure merges becomes pending
        (its screen says what to do); one that asks for none ends any pending re-throw and changes the table's
        state. A refused throw (roll_status "rethrow") leaves a pending re-throw pending. Returns (screen, the
        table's changed fields, or one "NOT saved: <why>" when the profile could not be updated: a full disk, a
        read-only file, an [roll.apply] target that is no number; the roll stays logged and is shown)."""
        if outcome["roll_status"] != "resolved":
            return screen, []
        if "reroll_request" in outcome and rules.get(self.plan.procedure).rethrow is not None:
            self.pending = PendingRethrow(roll_id, inputs, outcome, sha, source)
            return rethrow_screen(screen, big, self.pending), []
        self.pending = None
        if self.table is None:
            return screen, []
        try:
            return screen, self.table.apply(outcome)
        except (ProfileError, OSError) as exc:  # the roll is logged and shown; the profile on disk is as it was
            return screen, [f"NOT saved: {exc}"]
