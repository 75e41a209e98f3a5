"""The service loop: events from the tower link in, screens out."""

from __future__ import annotations

import enum
import logging
import queue
import time
from pathlib import Path
from typing import Any, Callable, Protocol

from dicetower.readings import DieReading

from .roll import Correction, RollPipeline, RollResult

log = logging.getLogger(__name__)


class Link(Protocol):
    def next_event(self, timeout_s: float) -> Any: ...
    def show_screen(self, lines: list[str], big: str | None = None) -> None: ...
    def show_idle(self, line: str) -> None: ...
    def set_light(self, mode: str) -> None: ...


class Camera(Protocol):
    def read(self) -> Any: ...


#: the annotated frame of the roll the tower is asking about, in TowerService's annotate_dir
ASKING_FRAME = "asking.png"


class Answer(enum.Enum):
    """A person's answer to the prompt for an unsure reading (GEN-D01)."""

    KEEP = "keep"  # the die shows what was read, or the face they set
    DROP_AGAIN = "drop again"  # the dice are thrown again; the first reading is discarded (GEN-D01)
    NOT_A_DIE = "not a die"  # no die lies there (a side face, a shadow, a mark on the tray): left out of the roll


def tray_position(box: tuple[int, int, int, int], frame_shape: tuple[int, ...]) -> str:
    """Where a die lies in the tray as a player facing it sees it: "back left", "back", "back right", "left",
    "middle", "right", "front left", "front" or "front right", by its box centre in thirds of the frame. The
    tower's camera is strapped with its image's top toward the tray's back wall (the mast) and so its left toward
    the tower (hardware/README.md). box: x, y, w, h px; frame_shape: the frame's (H, W, ...)."""
    height, width = frame_shape[:2]
    row = ("back", "", "front")[min(2, max(0, int(3 * (box[1] + box[3] / 2) / height)))]
    column = ("left", "", "right")[min(2, max(0, int(3 * (box[0] + box[2] / 2) / width)))]
    return " ".join(part for part in (row, column) if part) or "middle"


def confirm_screen(index: int, reading: DieReading, faces: list[Correction], where: str = "") -> list[str]:
    """OLED prompt for an unsure reading (GEN-D01): which die (its number and where it lies: tray_position), what
    was read ("d20 read 10", or "d6 cocked 4") and how sure ("front left 0.12"), the reader's next guesses that
    holding OK offers first ("or 16 18 19", another type's as "d8:3"), and which button does what. faces: the faces
    the die may be set to (correction_faces); [] for a die whose face cannot be set, which is only kept or
    dropped again. Holding NO says no die lies there (Answer.NOT_A_DIE). where: "" when the frame is not known
    ("conf 0.12")."""
    value = "?" if reading.value is None else str(reading.value)
    offered = [f for f in faces[1:1 + len(reading.alternatives)] if (f.die_type, f.value) in reading.alternatives]
    guesses = " ".join(reading.guess_label(f.die_type, f.value) for f in offered)
    lines = [f"UNSURE DIE {index + 1}", f"{reading.die_type} {'cocked' if reading.cocked else 'read'} {value}",
             f"{where or 'conf'} {reading.confidence:.2f}", f"or {guesses}" if guesses else "", "OK  = keep it",
             "NO  = drop again"]
    return lines + (["hold OK = fix"] if faces else []) + ["hold NO = no die"]


def correct_screen(index: int, reading: DieReading, face: Correction) -> list[str]:
    """OLED form while the player sets an unsure die's face (and type) on the panel: the face being set and
    the buttons."""
    return [f"FIX DIE {index + 1}", f"{face.die_type} is {face.value}", f"(read {reading.die_type} {reading.value})",
            "OK  = up", "NO  = down", "hold OK = keep", "hold NO = back"]


def correction_faces(reading: DieReading, die_types: tuple[str, ...] | None) -> list[Correction]:
    """The faces a person may set an unsure numbered or pip reading to, in the panel's order: the face read,
    then the reader's next guesses (reading.alternatives, best first, those among these faces), then the
    others going up from the face read: the read type's faces up to its sides, those of the other numbered die
    types in play (die_types, the table's `[roll] die_types`; None: the read type alone), so a die the reader
    took for another type of the table's is set right too, then the read type's from 1 (any type may be typed
    at the host: TowerService._typed), so stepping down from the face read goes down its numbers. [] when the
    reading has no value to set (symbol faces, no value read, a die type the log does not know)."""
    from dicetower.audit.rolllog import DIE_SIDES
    from dicetower.vision.shape import DIE_TYPES as NUMBERED  # the numbered dice (a stone's faces are symbols)

    if reading.value is None or reading.symbols or reading.die_type not in DIE_SIDES:
        return []
    others = [t for t in die_types or () if t != reading.die_type and t in NUMBERED]
    types = [reading.die_type] + (others if reading.die_type in NUMBERED else [])
    faces = [Correction(t, v) for t in types for v in range(1, DIE_SIDES[t] + 1)]
    read = Correction(reading.die_type, reading.value)
    k = faces.index(read) if read in faces else 0
    going_up = faces[k:] + faces[:k]
    guesses = [g for g in dict.fromkeys(Correction(t, v) for t, v in reading.alternatives)
               if g in faces and g != going_up[0]]
    return going_up[:1] + guesses + [f for f in going_up[1:] if f not in guesses]


class TowerService:
    """Runs the tower: on each ROLL event reads a frame, has unsure dice confirmed or corrected, resolves, logs,
    shows.

    link:      TowerLink-like (next_event, show_screen, show_idle, set_light)
    camera:    ReplayCamera/LiveCamera-like (read() -> Frame(image, source))
    pipeline:  RollPipeline for the table's plan
    confirm_timeout_s: how long to wait for OK/NO on an unsure die (s), from the last press while the player
               corrects its value; no answer counts as NO, so an unsure die is never resolved in silence
    on_result: called with each RollResult after it is logged and shown (printing, tests)
    on_prompt: called with the OLED lines of each prompt for an unsure die (confirm_screen) as they are shown, so
               a person answering at the host terminal sees which die is asked about, what was read and the
               reader's next guesses
    settle:    wait for the dice to stop on a live camera (vision.settle.wait_settled) before reading;
               off for the replay camera, whose every frame is a different photo
    annotate_dir: a folder for annotated frames (vision.annotate, each die numbered as the prompts number it):
               before the first prompt of a roll its frame as read is saved as ASKING_FRAME there, and each
               logged roll's frame (the faces a person set) as roll-<roll id>.png (RollResult.annotated),
               before it is shown; None: none saved. A frame that cannot be saved (a full disk) goes to
               on_error and the roll goes on
    watch:     live fairness watch (dicetower.audit.sprt.FairnessWatch) fed every sure or confirmed
               reading of a resolved roll; its alarms go to `on_alarm` and, alarm_delay_s after the
               result, to the tower's display with the light ring in alarm mode
    """

    def __init__(self, link: Link, camera: Camera, pipeline: RollPipeline, *,
                 confirm_timeout_s: float = 30.0, idle_line: str = "Press ROLL",
                 on_result: Callable[[RollResult], None] | None = None,
                 watch: Any = None, on_alarm: Callable[[Any], None] | None = None,
                 alarm_delay_s: float = 3.0, on_error: Callable[[str], None] | None = None,
                 settle: bool = False, on_prompt: Callable[[list[str]], None] | None = None,
                 annotate_dir: Path | None = None):
        self.link = link
        self.camera = camera
        self.pipeline = pipeline
        self.confirm_timeout_s = confirm_timeout_s
        self.idle_line = idle_line
        self.on_result = on_result
        self.watch = watch
        self.on_alarm = on_alarm
        self.alarm_delay_s = alarm_delay_s
        self._pending_alarm: tuple[float, list[str]] | None = None
        self.on_error = on_error
        self.on_prompt = on_prompt
        self.settle = settle
        self.annotate_dir = annotate_dir
        #: rolls that produced no shown result (camera gave no frame, the log could not be written)
        self.failures: list[str] = []
        #: answers typed at the host ("OK"/"NO"), merged with the tower's panel buttons
        self.answers: "queue.Queue[str]" = queue.Queue()
        self.results: list[RollResult] = []

    def start(self) -> None:
        """Show the idle screen (the link's handshake is done by its owner)."""
        self.link.show_idle(self.idle_line)

    def poll(self, timeout_s: float = 0.1) -> RollResult | None:
        """Handle at most one tower event; returns the RollResult when it was a ROLL, or a NO that declined
        the pending optional re-throw or a held NO that gave up a pending one (handle_decline). A tower that
        restarted (BOOT) gets its idle line again; a due fairness alarm is shown."""
        if self._pending_alarm and time.monotonic() >= self._pending_alarm[0]:
            self.link.show_screen(self._pending_alarm[1])
            self._pending_alarm = None
        pending = self.pipeline.pending
        if pending is not None and pending.optional and self._typed_no():
            return self.handle_decline()
        event = self.link.next_event(timeout_s)
        if event is None:
            return None
        if event.type == "BOOT":
            self.start()
        if event.type == "BTN" and event.fields.get("name") == "no" and pending is not None:
            if event.fields.get("press") == "long":
                return self.handle_decline(abandon=True)
            if pending.optional:
                return self.handle_decline()
        if event.type != "ROLL":
            return None
        return self.handle_roll()

    def _typed_no(self) -> bool:
        """Whether "NO" was typed at the host (answers) while an optional re-throw is pending; any other answer
        then is dropped with a warning that says what it can be."""
        try:
            answer = self.answers.get_nowait()
        except queue.Empty:
            return False
        if answer.split() == ["NO"]:
            return True
        log.warning("answer %r ignored: a re-throw is pending: press ROLL to throw those dice again, or type NO to "
                    "keep the throw as it is", answer)
        return False

    def handle_decline(self, abandon: bool = False) -> RollResult | None:
        """The player declined the pending optional re-throw (NO on the panel while the screen says "NO: keep as
        is"; RollPipeline.decline) or, abandon, gave up any pending re-throw (NO held: RollPipeline.abandon, the
        dice that should go again are lost or will not read): that outcome is logged, then shown. A log that cannot
        be written ends it as handle_roll's do. None when no such re-throw is pending."""
        from dicetower.audit.rolllog import LogError

        try:
            result = self.pipeline.abandon() if abandon else self.pipeline.decline()
        except LogError as exc:
            self._fail(f"roll log: {exc}", ["LOG FAILED", "result NOT shown", "check the host's", "disk, then",
                                             "press NO again"])
            return None
        if result is not None:
            self._show(result)
        return result

    def handle_roll(self) -> RollResult | None:
        """Frame -> readings -> (confirmation of unsure dice) -> outcome -> log -> screen.

        A camera that gives no frame (FrameError), dice that do not settle (NotSettled), and a log that cannot be written (LogError: disk
        full, read-only, corrupt file) end the roll without a result: the OLED says why and asks for
        the dice again, the reason goes to `on_error` and `failures`, and the service keeps running.
        Nothing is shown that is not logged."""
        from dicetower.audit.rolllog import LogError
        from dicetower.vision.camera import FrameError
        from dicetower.vision.settle import NotSettled

        try:
            return self._roll()
        except FrameError as exc:
            self._fail(f"camera: {exc}", ["CAMERA ERROR", "no frame read:", "drop the dice", "again"])
        except NotSettled as exc:
            self._fail(f"camera: {exc}", ["NOT SETTLED", "dice still moving", "drop the dice", "again"])
        except LogError as exc:
            self._fail(f"roll log: {exc}", ["LOG FAILED", "result NOT shown", "check the host's", "disk, then drop", "the dice again"])
        return None

    def _fail(self, reason: str, screen: list[str]) -> None:
        self.failures.append(reason)
        self.link.set_light("alarm")
        self.link.show_screen(screen)
        if self.on_error:
            self.on_error(reason)

    def _roll(self) -> RollResult:
        from dicetower.vision.settle import wait_settled

        frame = wait_settled(self.camera) if self.settle else self.camera.read()
        readings = self.pipeline.read(frame.image)
        if any(r.unsure for r in readings):
            self._annotated(frame.image, readings, ASKING_FRAME)
        confirmed: dict[int, Correction | None] = {}
        not_dice: list[int] = []
        rejected = False
        for i, reading in enumerate(readings):
            if reading.unsure:
                answer, corrected = self._confirm(i, reading, tray_position(reading.box, frame.image.shape))
                if answer is Answer.DROP_AGAIN:
                    rejected = True
                    break
                if answer is Answer.NOT_A_DIE:
                    not_dice.append(i)
                else:
                    confirmed[i] = corrected
        result = self.pipeline.resolve_and_log(frame.image, frame.source, readings, rejected=rejected,
                                               confirmed=confirmed, not_dice=not_dice)
        result.annotated = self._annotated(frame.image, result.readings, f"roll-{result.roll_id}.png", result.not_dice)
        self._show(result)
        if self.watch is not None and not rejected:
            self._watch(result.readings, list(confirmed))
        return result

    def _annotated(self, image: Any, readings: list[DieReading], name: str, not_dice: list[int] | None = None
                   ) -> Path | None:
        """Save the annotated frame of image (HxWx3 uint8 BGR) and readings, numbered, those a person said are no
        die (not_dice) grey, as `name` in annotate_dir; its path, or None when there is no annotate_dir or the file
        could not be written (said to on_error)."""
        if self.annotate_dir is None:
            return None
        from dicetower.vision.annotate import save_annotated

        try:
            return save_annotated(image, readings, self.annotate_dir / name, numbered=True, not_dice=not_dice or ())
        except OSError as exc:
            if self.on_error:
                self.on_error(f"annotated frame {self.annotate_dir / name} not saved: {exc}")
            return None

    def _show(self, result: RollResult) -> None:
        """Show a logged result on the tower and hand it to on_result."""
        self.link.show_screen(result.screen, big=result.big)
        self.link.set_light("idle")
        self.results.append(result)
        if self.on_result:
            self.on_result(result)

    def _watch(self, readings: list[DieReading], confirmed: list[int]) -> None:
        """Feed the fairness watch; schedule the display of its first alarm (issue 5 item 3)."""
        sure = [r for i, r in enumerate(readings) if not r.unsure or i in confirmed]
        alarms = self.watch.feed_roll(sure)
        for alarm in alarms:
            if self.on_alarm:
                self.on_alarm(alarm)
        if alarms:
            self.link.set_light("alarm")
            self._pending_alarm = (time.monotonic() + self.alarm_delay_s, alarms[0].screen())

    def _confirm(self, index: int, reading: DieReading, where: str) -> tuple[Answer, Correction | None]:
        """Ask the player about an unsure reading: (their Answer, their Correction when they kept the die with
        another face, else None). On the panel: OK keeps it, NO drops the dice again, holding NO says no die
        lies there (a side face, a shadow: left out of the roll, which need not be thrown again); holding OK
        sets the face (correctable dice): OK / NO step up / down through correction_faces (the face read, the
        reader's next guesses, the others), holding OK keeps the face set, holding NO goes back to the prompt.
        At the host (answers): "OK", "NO", "NOT_A_DIE", "SET <value>" or "SET <die type> <value>". No answer
        within confirm_timeout_s (from the last press) drops the dice again: never resolved in silence. where:
        the die's place in the tray for the prompt (tray_position)."""
        faces = correction_faces(reading, self.pipeline.plan.types_in_play())
        self.link.set_light("unsure")
        prompt = confirm_screen(index, reading, faces, where)
        self.link.show_screen(prompt)
        if self.on_prompt is not None:
            self.on_prompt(prompt)
        at: int | None = None  # index into faces of the face being set on the panel; None: the prompt is shown
        deadline = time.monotonic() + self.confirm_timeout_s
        while time.monotonic() < deadline:
            try:
                answer = self._typed(self.answers.get_nowait(), reading, bool(faces))
                if answer is not None:
                    return answer
            except queue.Empty:
                pass
            event = self.link.next_event(0.1)
            if event is None or event.type != "BTN" or event.fields.get("name") not in ("ok", "no"):
                continue
            ok, held = event.fields["name"] == "ok", event.fields.get("press") == "long"
            if at is None and not (ok and held and faces):
                return Answer.KEEP if ok else Answer.NOT_A_DIE if held else Answer.DROP_AGAIN, None
            deadline = time.monotonic() + self.confirm_timeout_s  # the player is setting the face
            if at is None:
                read = (reading.die_type, reading.value)
                at = next((k for k, f in enumerate(faces) if (f.die_type, f.value) == read), 0)
            elif held and ok:
                face = faces[at]
                return Answer.KEEP, None if (face.die_type, face.value) == (reading.die_type, reading.value) else face
            elif held:
                at = None
                self.link.show_screen(prompt)
                continue
            else:
                at = (at + (1 if ok else -1)) % len(faces)
            self.link.show_screen(correct_screen(index, reading, faces[at]))
        return Answer.DROP_AGAIN, None

    def _typed(self, answer: str, reading: DieReading, correctable: bool) -> tuple[Answer, Correction | None] | None:
        """A host answer ("OK", "NO", "NOT_A_DIE", "SET <value>", "SET <die type> <value>") as _confirm's answer; None,
        with a warning logged that says what to type, for one that is none of those or sets no face of a
        die the log knows (a type not in play may be set: the rules then refuse the die, GEN-D04)."""
        from dicetower.audit.rolllog import DIE_SIDES
        from dicetower.vision.shape import DIE_TYPES as NUMBERED

        words = answer.split()
        typed = {"OK": Answer.KEEP, "NO": Answer.DROP_AGAIN, "NOT_A_DIE": Answer.NOT_A_DIE}
        if len(words) == 1 and words[0] in typed:
            return typed[words[0]], None
        if correctable and len(words) in (2, 3) and words[0] == "SET" and words[-1].isdigit():
            die_type = words[1].lower() if len(words) == 3 else reading.die_type
            value = int(words[-1])
            if (die_type == reading.die_type or (die_type in NUMBERED and reading.die_type in NUMBERED)) \
                    and 1 <= value <= DIE_SIDES.get(die_type, 0):
                kept = (die_type, value) == (reading.die_type, reading.value)
                return Answer.KEEP, None if kept else Correction(die_type, value)
        log.warning("answer %r ignored: %s", answer,
                    f"type OK, NO, NOT_A_DIE, SET <value> (from 1 to {DIE_SIDES[reading.die_type]} for this "
                    f"{reading.die_type}) or SET <die type> <value> (e.g. SET d8 5)" if correctable
                    else "type OK, NO or NOT_A_DIE (this die's value cannot be set)")
        return None
