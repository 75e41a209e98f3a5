"""Export of the roll log to CSV and JSON, and import of rolls made by hand or by another logger from a
CSV with the columns die_id,die_type,face (issue 5, item 6)."""

from __future__ import annotations

import csv
import hashlib
import json
import time
from pathlib import Path
from typing import IO

from dicetower.readings import DieReading

from .rolllog import SCHEMA_VERSION, LogError, RollLog, check_face

#: Columns of the CSV export, one row per die read (roll fields repeated). die_id, die_type and face
#: are the import columns, so an export can be imported into another log: die_type and face are the
#: type and face the audit counts (a person's correction, else as read), value and read_die_type as read.
EXPORT_COLUMNS = ["roll_id", "time_utc", "time_epoch", "tower", "table", "system", "procedure", "die_index",
                  "die_id", "die_type", "face", "value", "read_die_type", "confidence", "unsure", "confirmed",
                  "corrected_value", "corrected_type", "box", "frame_sha256", "frame_source", "outcome"]
IMPORT_COLUMNS = ("die_id", "die_type", "face")


def export_csv(log: RollLog, out: IO[str]) -> int:
    """Write the log as CSV (EXPORT_COLUMNS, one row per die read; die_type and face = the type and value the
    audit counts). Returns the number of rows written."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EXPORT_COLUMNS)
    rows = 0
    for roll in log.rolls():
        for die in roll["dice"]:
            writer.writerow([roll["roll_id"], roll["time_utc"], roll["time"], roll["tower"], roll["table"] or "",
                             roll["system"], roll["procedure"], die["die_index"], die["die_id"] or "",
                             die["counted_type"],
                             "" if die["face"] is None else die["face"], "" if die["value"] is None else die["value"],
                             die["die_type"], die["confidence"], int(die["unsure"]), int(die["confirmed"]),
                             "" if die["corrected_value"] is None else die["corrected_value"],
                             die["corrected_type"] or "",
                             json.dumps(die["box"]), roll["frame_sha256"], roll["frame_source"] or "",
                             json.dumps(roll["outcome"], sort_keys=True)])
            rows += 1
    return rows


def export_json(log: RollLog, out: IO[str]) -> int:
    """Write the log as one JSON document {"schema": version, "log": path, "rolls": [...]} where each roll
    is as RollLog.rolls() gives it. Returns the number of rolls written."""
    rolls = log.rolls()
    json.dump({"schema": SCHEMA_VERSION, "log": str(log.path), "rolls": rolls}, out, indent=1)
    out.write("\n")
    return len(rolls)


def import_csv(log: RollLog, csv_path: Path, *, tower: str = "import", table: str | None = None) -> list[int]:
    """Import a CSV of die readings (columns die_id,die_type,face; other columns ignored; die_id may be
    empty; an empty face means no number was read: logged, not counted; a d10's "0" is 10, RULES.md
    GEN-D02) into the log, in ONE transaction: each row becomes one roll of one die, in file order, with
    confidence 1.0 (a person read it), system "import", frame_sha256 = the CSV file's SHA-256 and
    frame_source "<file>:<line>". Imported rows are hash-chained like any other.

    Raises LogError naming the file and line: missing columns, unknown die type, a face that is not a
    number or out of range for its die. Every row is checked before anything is written, so on any
    error nothing is imported and nothing already logged changes. Returns the new roll ids.
    """
    try:
        data = csv_path.read_bytes()
    except OSError as exc:
        raise LogError(f"cannot read {csv_path}: {exc}") from exc
    sha = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise LogError(f"{csv_path} is not UTF-8 text ({exc}): save it as UTF-8 CSV") from exc
    reader = csv.DictReader(text.splitlines())
    header = [h.strip() for h in (reader.fieldnames or [])]
    missing = [c for c in IMPORT_COLUMNS if c not in header]
    if missing:
        raise LogError(f"{csv_path} lacks the column(s) {', '.join(missing)}: the first line must name at least "
                       f"{','.join(IMPORT_COLUMNS)} (it has: {','.join(header) or 'nothing'}); nothing was imported")
    reader.fieldnames = header
    now = time.time()
    rolls = []
    for row in reader:
        where = f"at line {reader.line_num} of {csv_path}"
        die_type = (row.get("die_type") or "").strip().lower()
        face_text = (row.get("face") or "").strip()
        try:
            face = int(face_text) if face_text else None
        except ValueError:
            raise LogError(f"face {face_text!r} {where} is not a whole number (leave it empty when no number "
                           "was read); nothing was imported") from None
        if die_type == "d10" and face == 0:
            face = 10  # RULES.md GEN-D02: a d10 face printed "0" reads as 10
        check_face(die_type, face, where=where + "; nothing was imported")
        die_id = (row.get("die_id") or "").strip() or None
        reading = DieReading(die_type=die_type, value=face, box=(0, 0, 0, 0), confidence=1.0, die_id=die_id)
        rolls.append(({"time_epoch": now, "tower": tower, "table_name": table, "system": "import",
                       "procedure": "import.csv", "outcome": {}, "frame_sha256": sha,
                       "frame_source": f"{csv_path.name}:{reader.line_num}"}, [reading]))
    if not rolls:
        raise LogError(f"{csv_path} holds no rows after its header: nothing was imported")
    return log.append_rows(rolls, f"import of {len(rolls)} rows from {csv_path}")
