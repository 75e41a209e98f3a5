"""`dicetower read IMAGE|FOLDER... [--json] [--die-set NAME | --die-types d4,d20] [--annotate DIR] [--camera-turn 90]`:
the dice reader on photos.

The --json form is the project's stable reading interface (checked independently): one object per
line and image, {"image": <path as given>, "dice": [DieReading.to_json()...], "ms": <read time>}, or
{"image": ..., "error": <what went wrong>} for an image that cannot be read. With --annotate a line also holds
"annotated" (the PNG's path), or "annotate_error" when that frame could not be saved. With --camera-turn each photo is
turned upright before it is read, a line holds "camera_turn" (degrees clockwise) and its boxes are in the turned
photo's pixels."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from .camera import IMAGE_SUFFIXES, FrameError, check_turn, folder_images, load_image, turned
from .reader import DiceReader, check_image


def read_image_file(reader: DiceReader, path: str, annotated: Path | None = None, turn: int = 0) -> dict[str, Any]:
    """Read one image file as `dicetower read --json` reports it: {"image", "dice", "ms"} (ms: time to
    decode and read the image), or {"image", "error"} when the file is missing or corrupt or the image
    too small to hold a die (reader.check_image). turn: degrees clockwise (0, 90, 180, 270: camera.turned) the
    image is turned before it is read, for a photo whose top is not the tray's far side (a camera strapped on its
    side, a phone photo whose EXIF turn was lost); the boxes are in the turned image's px, and a turn other than
    0 is reported as "camera_turn". Saves the annotated (turned) frame as the PNG file annotated when
    given (its folder made), and adds its path as "annotated", or "annotate_error" saying why it could not be
    written (the dice read are kept). Raises ValueError for another turn."""
    check_turn(turn)  # before the try: a wrong turn is the caller's error, not the image's
    try:
        t0 = time.perf_counter()
        image = turned(check_image(load_image(path)), turn)
        readings = reader.read(image)
        ms = (time.perf_counter() - t0) * 1000.0
    except FrameError as exc:
        return {"image": path, "error": str(exc)}
    except ValueError as exc:  # check_image: decoded, but no frame the reader can read
        return {"image": path, "error": f"{path}: {exc}"}
    out: dict[str, Any] = {"image": path, "dice": [r.to_json() for r in readings], "ms": round(ms, 1)}
    if turn:
        out["camera_turn"] = turn
    if annotated is not None:
        from .annotate import save_annotated

        try:
            out["annotated"] = str(save_annotated(image, readings, annotated))
        except OSError as exc:  # a full disk, a folder that cannot be made: the dice read stand
            out["annotate_error"] = f"{annotated}: the annotated frame was not saved ({exc})"
    return out


def image_paths(args: tuple[str, ...]) -> list[str]:
    """The image paths to read for `dicetower read`'s arguments: a folder stands for its image files
    (camera.folder_images: those in it, or when it holds none those below it), each as the folder's path
    joined with its path under it; any other argument, and a folder with no image file, is itself (`read`
    reports it)."""
    out: list[str] = []
    for arg in args:
        folder = Path(arg)
        files = folder_images(folder) if folder.is_dir() else []
        out += [str(f) for f in files] or [arg]
    return out


def _annotated_name(path: str, taken: set[str]) -> str:
    """The annotated frame's file name for the image at path: <stem>.png, or <stem>-2.png, -3... when a photo
    of that stem was annotated before in this run (taken, the names so far, which it is added to)."""
    stem, k = Path(path).stem, 1
    name = f"{stem}.png"
    while name in taken:
        k += 1
        name = f"{stem}-{k}.png"
    taken.add(name)
    return name


def _table(result: dict[str, Any]) -> str:
    """Readable form of one read_image_file result."""
    turn = f", turned {result['camera_turn']} degrees clockwise" if "camera_turn" in result else ""
    lines = [f"{result['image']}{turn}: {len(result['dice'])} dice, {result['ms']:.1f} ms"]
    for d in result["dice"]:
        flag = "  UNSURE" if d["unsure"] else ""
        if d.get("alternatives"):
            flag += " (or " + ", ".join(f"{a['die_type']} {a['value']}" for a in d["alternatives"]) + ")"
        extra = "".join(f"  {k}={d[k]}" for k in ("colour", "face_colour", "symbols") if k in d)
        value = "?" if d["value"] is None else d["value"]
        lines.append(f"  {d['die_type']:>4} {value!s:>3}  conf {d['confidence']:.2f}  box {d['box']}{extra}{flag}")
    if "annotated" in result:
        lines.append(f"  annotated: {result['annotated']}")
    return "\n".join(lines)


@click.command()
@click.argument("images", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per line and image.")
@click.option("--die-set", default=None, help="Calibrated dice set to read with (see `dicetower calibrate`).")
@click.option("--die-types", default=None, metavar="TYPES",
              help="The die types thrown, comma-separated (e.g. d20 or d4,d6,d8): a numbered die the reader is "
                   "unsure of is read again as one of them (one read sure as another type stays that type). "
                   "Default: any of d4, d6, d8, d10, d12, d20.")
@click.option("--annotate", "annotate_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Save each annotated frame (boxes, values, confidences) as DIR/<image name>.png "
                   "(<image name>-2.png for a second photo of that name).")
@click.option("--camera-turn", type=click.Choice(["0", "90", "180", "270"]), default="0", show_default=True,
              help="Turn each photo this many degrees clockwise before reading, so that the tray's far side is at "
                   "its top (a camera strapped on its side, a photo whose EXIF turn was lost): the reader takes a "
                   "die's side faces to lie below its top face, toward the camera. Boxes are then in the turned "
                   "photo's pixels.")
def read(images: tuple[str, ...], as_json: bool, die_set: str | None, die_types: str | None,
         annotate_dir: Path | None, camera_turn: str) -> None:
    """Read the dice in each IMAGE (JPEG/PNG; a folder: its image files in name order, or those in its
    subfolders when it holds none): die type, value, box [x, y, w, h] px, confidence. A missing or corrupt
    image, or an annotated frame that cannot be saved, is reported on stderr (and as an "error" line, or an
    "annotate_error" beside the dice, with --json); the others are still read, and the exit code is 1."""
    try:
        named = None if die_types is None else [t for t in die_types.split(",") if t.strip()]
        reader = DiceReader(die_set, die_types=named)
    except (ValueError, LookupError) as exc:
        raise click.ClickException(str(exc)) from exc
    if annotate_dir is not None:
        try:  # made before any photo is read: a folder that cannot be made is said at once
            annotate_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise click.ClickException(f"--annotate {annotate_dir}: cannot make the folder ({exc})") from exc
    failed = 0
    names: set[str] = set()  # the annotated files' names so far: photos of one name in two folders keep both
    for path in image_paths(images):
        if Path(path).is_dir():
            kinds = ", ".join(IMAGE_SUFFIXES)
            result = {"image": path, "error": f"{path}: a folder with no image file in it ({kinds})"}
        else:
            annotated = None if annotate_dir is None else annotate_dir / _annotated_name(path, names)
            result = read_image_file(reader, path, annotated, int(camera_turn))
        if "error" in result or "annotate_error" in result:
            failed += 1
            click.echo(f"error: {result.get('error') or result['annotate_error']}", err=True)
        if as_json:
            click.echo(json.dumps(result))
        elif "error" not in result:
            click.echo(_table(result))
        sys.stdout.flush()
    if failed:
        sys.exit(1)
