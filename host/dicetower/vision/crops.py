"""A die's crop as the roll log keeps it (`<log>.crops/`, one PNG per reading, its SHA-256 in the hash chain):
the frame cut to the die's box, with the die's mask (which pixels are the die, as the reader's body search
found it) as the PNG's alpha channel and the view elevation the frame was read under as a PNG text chunk
(ELEVATION_KEY). Whoever audits the log sees what each reading was read from, and `dicetower calibrate
--from-log` learns each die as the reader sees it, from an oblique camera too: realdice_d20's dome, learned
from play (5 rolls a face) from crops with neither, cross-validated 0.10 (the die found again in its own
crop, and read as if seen from above); with the mask and the view 0.82, near the 0.84 of the whole photos.
A pip die's crop (no body read) has no mask; a crop logged before these were kept has neither: both read
back as None. Pillow writes and reads the text chunk (OpenCV's PNG codec writes none)."""

from __future__ import annotations

import io
from dataclasses import dataclass

import cv2
import numpy as np

from dicetower.readings import DieReading

#: the PNG text chunk's keyword for the view elevation (degrees, 90 = top-down) the frame was read under
ELEVATION_KEY = "dicetower:view_elevation"
#: a die body of the frame is the body a reading was read from when their boxes overlap this much (IoU):
#: the reader's box is the body's, or the die's own within it (reader.body_die_box), scaled back from the
#: reading copy and rounded
SAME_BODY_IOU = 0.8


@dataclass
class LoggedCrop:
    """One logged crop read back. crop: HxWx3 uint8 BGR; mask: HxW uint8 (255 = the die) or None (a pip die,
    an older log); elevation: the view elevation in degrees (90 = top-down) or None (not logged)."""

    crop: np.ndarray
    mask: np.ndarray | None
    elevation: float | None


def encode_crop(crop: np.ndarray, mask: np.ndarray | None = None, elevation: float | None = None) -> bytes:
    """The PNG bytes of a die's crop (HxWx3 uint8 BGR) with its mask (HxW uint8, non-zero = the die; None:
    none) as alpha and its view elevation (degrees) as a text chunk. Raises ValueError for a crop that is
    not HxWx3 uint8 or a mask of another size."""
    if crop.dtype != np.uint8 or crop.ndim != 3 or crop.shape[2] != 3 or not crop.size:
        raise ValueError(f"a die crop is HxWx3 uint8 BGR, got {crop.dtype} {crop.shape}")
    from PIL import Image, PngImagePlugin

    rgb = cv2.cvtColor(crop, cv2.COLOR_BGR2RGB)
    if mask is not None:
        if mask.shape != crop.shape[:2]:
            raise ValueError(f"the mask ({mask.shape}) must be the crop's size ({crop.shape[:2]})")
        image = Image.fromarray(np.dstack([rgb, np.where(mask > 0, 255, 0).astype(np.uint8)]), "RGBA")
    else:
        image = Image.fromarray(rgb, "RGB")
    info = PngImagePlugin.PngInfo()
    if elevation is not None:
        info.add_text(ELEVATION_KEY, f"{float(elevation):.2f}")
    out = io.BytesIO()
    image.save(out, format="PNG", pnginfo=info)
    return out.getvalue()


def decode_crop(data: bytes) -> LoggedCrop:
    """A logged crop's PNG bytes read back (encode_crop's, or an older log's plain PNG). Raises ValueError
    for bytes that are no PNG image, or an elevation chunk that is no number."""
    from PIL import Image, UnidentifiedImageError

    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError, SyntaxError) as exc:
        raise ValueError(f"not a readable PNG image ({exc})") from None
    text = getattr(image, "text", {}) or {}
    try:
        elevation = float(text[ELEVATION_KEY]) if ELEVATION_KEY in text else None
    except ValueError:
        raise ValueError(f"its {ELEVATION_KEY} chunk {text[ELEVATION_KEY]!r} is no number") from None
    pixels = np.asarray(image.convert("RGBA") if image.mode in ("RGBA", "LA", "PA") else image.convert("RGB"))
    crop = cv2.cvtColor(np.ascontiguousarray(pixels[:, :, :3]), cv2.COLOR_RGB2BGR)
    mask = np.ascontiguousarray(pixels[:, :, 3]) if pixels.shape[2] == 4 else None
    return LoggedCrop(crop, mask, elevation)


def die_crops(image: np.ndarray, readings: list[DieReading]) -> list[bytes]:
    """One PNG per reading (RollLog.record_roll's crops): the frame (HxWx3 uint8 BGR) cut to the die's box (x,
    y, w, h px, clipped to the frame; the whole frame for a box wholly outside it, which the reader never
    gives), encoded by encode_crop with the mask of the die body it was read from and the frame's view. The
    bodies and the view are found again on the reader's copy of the frame (reader.reading_copy,
    detect.find_die_bodies, view.view_of_scene over the bodies read, whole in the frame), as
    calibrate.find_die finds them in a labelled photo: a body whose box, or the die's own box within it
    (reader.body_die_box), is the reading's (SAME_BODY_IOU) gives its mask, and the crop is cut to the body's
    box (the mask's, its shadow kept, as the reader read it); with no such body (a pip die), or in a frame the
    reader would not read (under reader.MIN_FRAME_SIDE px a side), no mask and no elevation. Raises
    ValueError when a crop cannot be encoded (not an image)."""
    from dicetower.vision.boxes import iou
    from dicetower.vision.detect import find_die_bodies
    from dicetower.vision.reader import MIN_FRAME_SIDE, body_die_box, reading_copy, whole_boxes
    from dicetower.vision.view import view_of_scene

    h, w = image.shape[:2]
    frame, f = reading_copy(image)
    bodies = find_die_bodies(frame) if readings and min(image.shape[:2]) >= MIN_FRAME_SIDE else []
    die_boxes: dict[int, tuple[int, int, int, int]] = {}  # body_die_box of the bodies a reading meets, once

    def same_body(k: int, rb: tuple[int, int, int, int]) -> float:
        if k not in die_boxes:
            die_boxes[k] = body_die_box(frame, bodies[k])
        return max(iou(bodies[k].box, rb), iou(die_boxes[k], rb))

    read_from = []
    for r in readings:
        rx, ry, rw, rh = (int(round(v * f)) for v in r.box)  # on the reader's copy
        rb = (rx, ry, rw, rh)
        same = [(same_body(k, rb), k) for k, b in enumerate(bodies) if iou(b.box, rb) > 0]
        best = max(same, default=(0.0, 0))
        read_from.append(bodies[best[1]] if best[0] >= SAME_BODY_IOU else None)
    whole = whole_boxes([b for b in read_from if b is not None])
    elevation = view_of_scene(frame, whole).elevation if whole else None
    out = []
    for r, body in zip(readings, read_from):
        x, y, bw, bh = r.box if body is None else (int(round(v / f)) for v in body.box)  # the mask's box
        x0, y0, x1, y1 = max(0, x), max(0, y), min(w, x + bw), min(h, y + bh)
        crop = np.ascontiguousarray(image[y0:y1, x0:x1] if x1 > x0 and y1 > y0 else image)
        mask = None
        if body is not None:
            over_box = body.mask[:body.box[3], :body.box[2]]
            mask = cv2.resize(over_box, (crop.shape[1], crop.shape[0]), interpolation=cv2.INTER_NEAREST)
        out.append(encode_crop(crop, mask, elevation if body is not None else None))
    return out
