"""`dicetower read IMAGE|FOLDER... [--json] [--die-set NAME | --die-types d4,d20] [--annotate DIR]`: the dice reader
on photos.

The --json form is the project's stable reading interface (checked independently): one object per
line and image, {"image": <path as given>, "dice": [DieReading.to_json()...], "ms": <read time>}, or
{"image": ..., "error": <what went wrong>} for an image that cannot be read."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from .camera import FrameError, load_image
from .reader import DiceReader, check_image


def read_image_file(reader: DiceReader, path: str, annotate_dir: Path | None = None) -> dict[str, Any]:
    """Read one image file as `dicetower read --json` reports it: {"image", "dice", "ms"} (ms: time to
    decode and read the image), or {"image", "error"} when the file is missing or corrupt or the image
    too small to hold a die (reader.check_image). Saves the annotated frame as annotate_dir/<stem>.png
    when annotate_dir is given."""
    try:
        t0 = time.perf_counter()
        image = check_image(load_image(path))
        readings = reader.read(image)
        ms = (time.perf_counter() - t0) * 1000.0
    except FrameError as exc:
        return {"image": path, "error": str(exc)}
    except ValueError as exc:  # check_image: decoded, but no frame the reader can read
        return {"image": path, "error": f"{path}: {exc}"}
    out: dict[str, Any] = {"image": path, "dice": [r.to_json() for r in readings], "ms": round(ms, 1)}
    if annotate_dir is not None:
        from .annotate import save_annotated

        out_path = save_annotated(image, readings, annotate_dir / (Path(path).stem + ".png"))
        out["annotated"] = str(out_path)
    return out


#: the files of a folder given to `dicetower read` that are read (the formats OpenCV's imread decodes), any case
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


def image_paths(args: tuple[str, ...]) -> list[str]:
    """The image paths to read for `dicetower read`'s arguments: a folder stands for its image files
    (IMAGE_SUFFIXES, not its subfolders') in name order, each as the folder's path joined with its name; any
    other argument, and a folder with no image file, is itself (`read` reports it)."""
    out: list[str] = []
    for arg in args:
        folder = Path(arg)
        files = sorted(f.name for f in folder.iterdir() if f.is_file() and f.suffix.lower() in IMAGE_SUFFIXES) \
            if folder.is_dir() else []
        out += [str(folder / name) for name in files] or [arg]
    return out


def _table(result: dict[str, Any]) -> str:
    """Readable form of one read_image_file result."""
    lines = [f"{result['image']}: {len(result['dice'])} dice, {result['ms']:.1f} ms"]
    for d in result["dice"]:
        flag = "  UNSURE" if d["unsure"] else ""
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
              help="Save each annotated frame (boxes, values, confidences) as DIR/<image name>.png.")
def read(images: tuple[str, ...], as_json: bool, die_set: str | None, die_types: str | None,
         annotate_dir: Path | None) -> None:
    """Read the dice in each IMAGE (JPEG/PNG; a folder: its image files, in name order): die type, value, box
    [x, y, w, h] px, confidence. A missing or corrupt image is reported on stderr (and as an "error" line with
    --json); the others are still read, and the exit code is 1."""
    try:
        named = None if die_types is None else [t for t in die_types.split(",") if t.strip()]
        reader = DiceReader(die_set, die_types=named)
    except (ValueError, LookupError) as exc:
        raise click.ClickException(str(exc)) from exc
    failed = 0
    for path in image_paths(images):
        if Path(path).is_dir():
            kinds = ", ".join(IMAGE_SUFFIXES)
            result = {"image": path, "error": f"{path}: a folder with no image file in it ({kinds})"}
        else:
            result = read_image_file(reader, path, annotate_dir)
        if "error" in result:
            failed += 1
            click.echo(f"error: {result['error']}", err=True)
        if as_json:
            click.echo(json.dumps(result))
        elif "error" not in result:
            click.echo(_table(result))
        sys.stdout.flush()
    if failed:
        sys.exit(1)
