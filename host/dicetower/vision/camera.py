"""Cameras: where the tower's frames come from. LiveCamera reads a real camera (cv2.VideoCapture);
ReplayCamera serves image files in order (the simulated tower's camera and `make run`'s default);
TurnedCamera turns another camera's frames upright (a webcam strapped another way round)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np


class FrameError(Exception):
    """A frame could not be had: a missing, unreadable or corrupt image file, or a camera that gave
    no frame. The message names the file or camera and says what to do."""


@dataclass
class Frame:
    """One camera frame. image: HxWx3 uint8 BGR; source: the file path it was read from, or
    "camera:<index>" for a live camera."""

    image: np.ndarray
    source: str


def load_image(path: Path | str) -> np.ndarray:
    """Read one image file. Returns HxWx3 uint8 BGR (grayscale files are converted, alpha dropped).
    Raises FrameError naming the file when it is missing, empty or not a decodable image."""
    path = Path(path)
    if path.is_dir():
        raise FrameError(f"{path}: is a folder; name the image files in it (e.g. {path}/*.jpg)")
    if not path.is_file():
        raise FrameError(f"{path}: no such image file")
    data = np.fromfile(str(path), dtype=np.uint8)
    if data.size == 0:
        raise FrameError(f"{path}: the file is empty; replace it with a JPEG or PNG photo")
    image = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise FrameError(f"{path}: not a readable image (corrupt or not JPEG/PNG/BMP); re-export or drop it")
    return image


#: image files read from a folder (the formats OpenCV's imread decodes), in any case
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


def folder_images(folder: Path | str) -> list[Path]:
    """The image files (IMAGE_SUFFIXES) a folder stands for, in name order: those directly in it; when there
    are none, those anywhere below it, in order of their path under it (a dataset's root, its photos under
    images/...). A folder holding images of its own is not searched deeper, so an --annotate folder kept
    inside it is not read as photos. [] for a folder with no image file at any depth. Raises OSError when
    the folder cannot be listed (NotADirectoryError for a file)."""
    root = Path(folder)
    own = sorted(f for f in root.iterdir() if f.is_file() and f.suffix.lower() in IMAGE_SUFFIXES)
    return own or sorted((f for f in root.rglob("*") if f.is_file() and f.suffix.lower() in IMAGE_SUFFIXES),
                         key=lambda f: f.relative_to(root).parts)


class ReplayCamera:
    """Serves image files in order, as a camera would serve frames; loops back to the first file when
    loop=True, else raises FrameError after the last one.

    paths: image files (JPEG/PNG/BMP). Raises ValueError when paths is empty."""

    def __init__(self, paths: list[Path] | list[str], loop: bool = True):
        self.paths = [Path(p) for p in paths]
        if not self.paths:
            raise ValueError("ReplayCamera needs at least one image file")
        self.loop = loop
        self._next = 0

    def read(self) -> Frame:
        """The next frame. Raises FrameError (naming the file) on a corrupt or missing file; the
        camera still moves on, so the next read serves the following file."""
        if self._next >= len(self.paths):
            if not self.loop:
                raise FrameError(f"replay camera: all {len(self.paths)} files served")
            self._next = 0
        path = self.paths[self._next]
        self._next += 1
        return Frame(load_image(path), str(path))

    def close(self) -> None:
        """Nothing to release; present so both cameras share one interface."""


class LiveCamera:
    """A real camera through cv2.VideoCapture(index). Raises FrameError when the camera cannot be
    opened (wrong index, no permission, in use by another program)."""

    def __init__(self, index: int = 0):
        self.index = index
        self._cap = cv2.VideoCapture(index)
        if not self._cap.isOpened():
            raise FrameError(f"camera {index}: cannot open it (check the index with `ls /dev/video*`, "
                             "and that no other program holds it)")

    def read(self) -> Frame:
        """Grab one frame: HxWx3 uint8 BGR. Raises FrameError when the camera gives none."""
        ok, image = self._cap.read()
        if not ok or image is None:
            raise FrameError(f"camera {self.index}: no frame (unplugged or busy?)")
        return Frame(image, f"camera:{self.index}")

    def close(self) -> None:
        """Release the camera device."""
        self._cap.release()


#: a camera's turn in degrees clockwise -> cv2.rotate's code that turns its frames so
CAMERA_TURNS = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}


def check_turn(degrees: int) -> int:
    """degrees when it is a turn `turned` makes (0, 90, 180 or 270 clockwise). Raises ValueError otherwise."""
    if degrees != 0 and degrees not in CAMERA_TURNS:
        raise ValueError(f"a camera turn is 0, 90, 180 or 270 degrees clockwise, not {degrees}")
    return degrees


def turned(image: np.ndarray, degrees: int) -> np.ndarray:
    """image (HxWx3 uint8 BGR) turned `degrees` clockwise: 0 (the image itself), 90, 180 or 270 (CAMERA_TURNS; H
    and W swap at 90 and 270). Raises ValueError for any other turn (check_turn)."""
    return image if check_turn(degrees) == 0 else cv2.rotate(image, CAMERA_TURNS[degrees])


class TurnedCamera:
    """Another camera's frames turned by `degrees` clockwise (0, 90, 180 or 270: turned), for a tower whose
    webcam is strapped with its image's top elsewhere than toward the tray's back wall (hardware/README.md): 90
    when the back wall shows at the frame's left, 180 at its bottom, 270 at its right. Read upright, the frames
    give the prompt's tray positions (service.tower.tray_position) and the pip reader's camera direction (an
    upright camera sees side faces below top faces) their meaning. A frame keeps its source, so a replayed
    file's SHA-256 is the file's. camera: LiveCamera / ReplayCamera-like (read, close).
    Raises ValueError for any other turn (check_turn)."""

    def __init__(self, camera: Any, degrees: int):
        self.camera = camera
        self.degrees = check_turn(degrees)

    def read(self) -> Frame:
        """The camera's next frame, turned (HxWx3 uint8 BGR; H and W swap at 90 and 270). Raises what the
        camera raises (FrameError)."""
        frame = self.camera.read()
        return Frame(turned(frame.image, self.degrees), frame.source)

    def close(self) -> None:
        """Close the camera turned."""
        self.camera.close()
