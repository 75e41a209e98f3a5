"""Guided calibration on the tower's panel (issue 4 item 5a): the OLED says which face to set in
the tray and shows the progress, the player answers with the panel's buttons, the host takes the
frames, and it stops when every face is learned.

Two phases, both driven by the tower's buttons over the link (docs/protocol.md):
1. Set: for each face in turn the OLED asks "SET <face> UP" and the player sets the die showing it
   in the tray and presses ROLL (the tower drops the dice and sends ROLL): one labelled photo of
   every face, so the host knows the set. A die the standard reader reads as another value of the
   die is named ("DIE READS 3 NOT 2"): OK keeps the photo, NO asks for the face again.
2. Roll and confirm: the player presses ROLL, the host reads the die with what it has learned so
   far (fewshot.py) and asks "<face>? OK = yes, NO = no"; OK keeps the photo under that face, NO
   asks about the next most probable face still needing photos (NO to ASK_AT_MOST of them: the
   photo is dropped).
   Rolls go on until every face has its shots.
Then the set is cross-validated and saved by calibrate.calibrate.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np

from dicetower.vision.calibrate import (CalibrationError, CalibrationReport, Found, LabelledCrop, calibrate, find_die,
                                        misplaced_value)
from dicetower.vision.faces import DieSet, FaceClass
from dicetower.vision.fewshot import describe, fit_described

SCREEN_COLS = 16  # characters per OLED row (link.tower_link.SCREEN_COLS)
ASK_AT_MOST = 3   # faces proposed for one rolled photo before it is dropped


def _face_text(face: FaceClass) -> str:
    """A face as shown on the 16-column OLED: '6|axe', '2|epee|epee@ruby' cut to 16."""
    return face.key.split(":", 1)[1][:SCREEN_COLS]


def _wait(link: Any, want: set[str], timeout_s: float) -> str | None:
    """Wait for a ROLL event or an OK/NO button press from the tower; returns "roll", "ok" or "no"
    (only those in `want`), None after timeout_s seconds without one."""
    import time

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        event = link.next_event(min(0.2, max(0.0, deadline - time.monotonic())))
        if event is None:
            continue
        name = "roll" if event.type == "ROLL" else event.fields.get("name") if event.type == "BTN" else None
        if name in want and (event.type == "ROLL" or event.fields.get("press", "short") == "short"):
            return name
    return None


def panel_calibration(link: Any, camera: Any, faces: list[FaceClass], name: str, shots_per_face: int = 3,
                      say: Callable[[str], None] = print, out_dir: Path | None = None,
                      answer_timeout_s: float = 120.0, max_rolls: int | None = None
                      ) -> tuple[DieSet, CalibrationReport]:
    """Calibrate the set `name` with the tower: link is a TowerLink (handshake done) or any object
    with next_event(timeout_s), show_screen(lines), set_light(mode); camera has read() -> Frame
    (vision.camera). faces: the set's faces (at least 2); shots_per_face >= 2 photos of each.
    say: progress lines for the host's terminal. answer_timeout_s: how long to wait for a press (s);
    max_rolls: rolls allowed in phase 2 (default 4 x the shots still missing).
    Returns (set, report) as calibrate.calibrate. Raises CalibrationError when the player does not
    answer in time, no die is found 3 times in a row, or the rolls run out; LinkError (link) and
    FrameError (camera) pass through."""
    if len(faces) < 2 or len(set(faces)) != len(faces):
        raise CalibrationError("panel calibration needs at least 2 different faces")
    if shots_per_face < 2:
        raise CalibrationError("panel calibration needs at least 2 shots per face (one is tested against the others)")
    total = len(faces) * shots_per_face
    samples: list[LabelledCrop] = []
    described: list[tuple[np.ndarray, np.ndarray]] = []  # fewshot.describe of each sample, for the refits
    count = {f: 0 for f in faces}

    def progress() -> str:
        return f"{len(samples)}/{total} photos"

    def shoot() -> tuple[Found, str] | None:
        """The die of a new frame as the reader sees it (calibrate.find_die: crop, mask, view)."""
        frame = camera.read()
        found = find_die(frame.image)
        if found is None:
            link.show_screen(["NO DIE SEEN", "", "Put the die in", "the tray's", "middle, press", "ROLL again", "", progress()])
            say(f"no die found in {frame.source}: put the die in the middle of the tray")
        return None if found is None else (found, frame.source)

    def keep(face: FaceClass, found: Found, source: str) -> None:
        sample = LabelledCrop(found[0], face, f"{source}#{len(samples)}", *found[1:])
        samples.append(sample)
        described.extend(describe([sample.crop], np.random.default_rng(len(samples)), n_aug=0,
                                  elevations=[sample.elevation]))
        count[face] += 1
        say(f"[{len(samples)}/{total}] learned {face.key} from {source}")

    def wait(want: set[str], what: str) -> str:
        answer = _wait(link, want, answer_timeout_s)
        if answer is None:
            link.show_screen(["CALIBRATION", "STOPPED", "", f"no {what} in", f"{answer_timeout_s:g} s", "", progress()])
            raise CalibrationError(f"no {what} on the tower's panel within {answer_timeout_s:g} s; calibration "
                                   f"stopped after {progress()}")
        return answer

    def ask_to_set(face: FaceClass) -> None:
        link.show_screen([f"CALIBRATE {name}"[:SCREEN_COLS], "", "Set the die with", _face_text(face),
                          "up in the tray,", "then press ROLL", "", progress()])
        say(f"set the {face.die_type} showing {_face_text(face)} in the tray, then press ROLL on the tower")

    link.set_light("capture")
    # phase 1: one photo of every face, set by hand; a die the standard reader reads as another value of
    # the die (calibrate.misplaced_value: set the wrong way up) is named, OK keeps it, NO sets it again
    for face in faces:
        ask_to_set(face)
        for _ in range(3):
            wait({"roll"}, "ROLL press")
            shot = shoot()
            if shot is None:
                continue
            other = misplaced_value(shot[0], face)
            if other is not None:
                link.show_screen(["DIE READS", str(other), f"NOT {_face_text(face)}"[:SCREEN_COLS], "",
                                  "OK  = keep it", "NO  = set it", "      again", progress()])
                say(f"the die reads {other} in {shot[1]}, not {_face_text(face)}: OK keeps it as "
                    f"{_face_text(face)}, NO sets it again")
                if wait({"ok", "no"}, "OK/NO answer") == "no":
                    ask_to_set(face)
                    continue
            keep(face, *shot)
            break
        else:
            raise CalibrationError(f"no shot of {face.key} taken after 3 tries; check the camera, the light and "
                                   "which face is up")
    # phase 2: roll, read with what is learned so far, confirm on the panel
    rolls_left = max_rolls if max_rolls is not None else 4 * (total - len(samples))
    misses = 0
    asked = False  # the roll screen is up (NO DIE SEEN also asks for ROLL)
    while len(samples) < total:
        if rolls_left <= 0:
            raise CalibrationError(f"rolls ran out with {progress()}; faces still missing photos: "
                                   + ", ".join(f.key for f in faces if count[f] < shots_per_face))
        rolls_left -= 1
        if not asked:
            link.show_screen([f"CALIBRATE {name}"[:SCREEN_COLS], "", "Put the die in", "the tower and",
                              "press ROLL", "", "", progress()])
            say(f"roll the die: press ROLL on the tower ({progress()})")
        asked = False
        wait({"roll"}, "ROLL press")
        shot = shoot()
        if shot is None:
            misses += 1
            asked = True
            if misses >= 3:
                raise CalibrationError("no die seen in 3 rolls in a row; check the camera and the light")
            continue
        misses = 0
        found, source = shot
        crop, mask, view = found
        model = fit_described(described, np.array([faces.index(s.face) for s in samples]), len(faces),
                              np.random.default_rng(len(samples)))
        ranked = [faces[j] for j in np.argsort(-model.logits(crop, mask, view.elevation))
                  if count[faces[j]] < shots_per_face]
        for face in ranked[:ASK_AT_MOST]:
            link.show_screen(["IS THE DIE UP", "SHOWING", _face_text(face), "", "OK  = yes", "NO  = no", "",
                              progress()])
            say(f"the die reads {face.key}: OK or NO on the tower?")
            if wait({"ok", "no"}, "OK/NO answer") == "ok":
                keep(face, found, source)
                break
        else:
            say("no face confirmed: that photo is dropped")
    link.show_screen(["CALIBRATE", "every face", "learned:", "training...", "", "", "", progress()])
    link.set_light("idle")
    say("every face learned; training")
    ds, report = calibrate(samples, name, out_dir=out_dir)
    link.show_screen(["CALIBRATED", name[:SCREEN_COLS], "", f"accuracy {report.accuracy:.2f}",
                      f"unsure {report.unsure_rate:.2f}", "", progress()])
    return ds, report
