"""Settling: on a live stream, wait until the dice have stopped, then read once (issue 4 item 2).

Motion is the mean absolute difference between consecutive frames (grayscale, downscaled to 160 px
and blurred, so sensor noise and JPEG artefacts stay well below a moving die). The dice have settled
when the last `window` differences all stay under `still_threshold`; after `timeout_s` without that,
NotSettled is raised rather than a blurred frame read. Cocked dice (GEN-D01) are flagged by the reader
on the settled frame."""

from __future__ import annotations

import time
from typing import Callable, Protocol

import cv2
import numpy as np

from dicetower.readings import DieReading

from .camera import Frame

#: Mean absolute grey-level change per pixel (0..255) under which two frames count as still.
STILL_THRESHOLD = 1.5


class FrameSource(Protocol):
    def read(self) -> Frame: ...


class NotSettled(Exception):
    """The dice did not stop within the timeout; the message gives the last motion measured."""


def _small(image: np.ndarray) -> np.ndarray:
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    s = 160.0 / max(gray.shape)
    small = cv2.resize(gray, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (3, 3), 0).astype(np.float32)


def frame_motion(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute grey-level difference (0..255) between two frames (HxWx3 uint8 BGR, same size),
    measured at 160 px. Raises ValueError when the frames differ in size."""
    if a.shape != b.shape:
        raise ValueError(f"frames differ in size: {a.shape} vs {b.shape}")
    return float(np.abs(_small(a) - _small(b)).mean())


def wait_settled(camera: FrameSource, window: int = 3, still_threshold: float = STILL_THRESHOLD,
                 timeout_s: float = 3.0, max_frames: int | None = None,
                 clock: Callable[[], float] = time.monotonic) -> Frame:
    """Read frames from camera until `window` consecutive frame-to-frame motions are all below
    still_threshold; return the last (settled) frame. Raises NotSettled after timeout_s seconds
    (by clock) or max_frames frames without settling."""
    start = clock()
    prev = camera.read()
    still = 0
    frames = 1
    motion = float("nan")
    while True:
        if clock() - start > timeout_s or (max_frames is not None and frames >= max_frames):
            raise NotSettled(f"dice not settled after {frames} frames / {clock() - start:.1f} s "
                             f"(last motion {motion:.2f} grey levels, still below {still_threshold}): "
                             "drop them again or check the tray is not shaking")
        frame = camera.read()
        frames += 1
        motion = frame_motion(prev.image, frame.image)
        still = still + 1 if motion < still_threshold else 0
        if still >= window:
            return frame
        prev = frame


class Reader(Protocol):
    def read(self, image: np.ndarray) -> list[DieReading]: ...


def read_when_settled(camera: FrameSource, reader: Reader, **settle: float) -> tuple[Frame, list[DieReading]]:
    """Wait until the dice settle (wait_settled, same keyword arguments), then read that frame once.
    Returns (settled frame, readings); cocked dice come back flagged (GEN-D01). Raises NotSettled."""
    frame = wait_settled(camera, **settle)  # type: ignore[arg-type]
    return frame, reader.read(frame.image)
