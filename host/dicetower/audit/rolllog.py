"""The roll log: a tamper-evident SQLite record of every die the tower read (issue 5, item 1).

Layout of the file (schema version SCHEMA_VERSION, kept in `PRAGMA user_version`):

* ``rolls``:         one row per roll: roll id, time (UTC ISO 8601 and Unix epoch s), tower, table or
                     session, rule system, procedure id, the procedure's outcome (JSON), the SHA-256 of
                     the frame the dice were read from and where that frame came from.
* ``readings``:      one row per die read: roll id, die index in the roll, die identity and type, face
                     read (value), confidence 0..1, box (x, y, w, h px), colours, symbols, cocked,
                     unsure, and the path (relative to the database) and SHA-256 of the die's crop.
* ``confirmations``: appended when a person confirms or corrects a reading after it was logged
                     (nothing is ever updated in place): the face they set, and the die type when the
                     reader took the die for another type (schema version 3).
* ``meta``:          the chain head (last sequence number and hash).

Hash chain: every row of the three tables carries ``seq`` (1, 2, 3, ... across all tables, in write
order), ``prev_hash`` and ``row_hash = sha256(prev_hash + canonical row content)`` where the canonical
content is the table name and the row's other columns as a compact JSON array (see `canonical`). `verify` (and
`dicetower audit verify`) recomputes the chain and names any edited, inserted or deleted row. A chain
only shows tampering by someone who did not recompute every later hash; publish or write down the head
hash (`verify` prints it) to pin the log's content up to that point. A column added by a later schema
version (ADDED_COLUMNS) is left out of the array while it is NULL, so the rows written before it was
added hash as they were written, and a log of the version before (2) is upgraded in place when opened to
write (the column added, no row rewritten) and read as it is when opened read-only.

The log runs in WAL mode with ``synchronous=FULL``: a roll is durable when `record_roll` returns, and a
crash (even SIGKILL) mid-write loses at most the roll being written, never a committed one.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import math
import os
import re
import sqlite3
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

import numpy as np
from dicetower.readings import DieReading

#: Schema version this code writes and reads (PRAGMA user_version). Bump with a migration.
#: Version 1 was a pre-release layout (box as JSON, rows hashed as JSON objects) that no release wrote;
#: version 2 lacks confirmations.corrected_type (upgraded in place: _upgrade).
SCHEMA_VERSION = 3
#: Columns later schema versions added to a chained table (version, table, column, SQL type): hashed only
#: when not NULL (canonical), so the rows written before keep their hashes.
ADDED_COLUMNS = ((3, "confirmations", "corrected_type", "TEXT"),)

#: Sides of each die type the tower reads (DieReading.die_type). A Throwing Stones stone is a six-sided
#: die whose faces are numbered 1..6 by the stone catalogue (RULES.md TS-D01); a d10's "0" reads 10
#: (GEN-D02).
DIE_SIDES: dict[str, int] = {"d4": 4, "d6": 6, "d8": 8, "d10": 10, "d12": 12, "d20": 20, "stone": 6}

GENESIS_HASH = "0" * 64
#: readings read per query by RollLog.audit_columns, each column as one text (SQLite's default limit on a
#: text is 1e9 bytes; a chunk's longest column, the roll times, is about 18 MB)
COLUMN_CHUNK = 1_000_000
_SHA256_HEX = re.compile("[0-9a-f]{64}")
SQLITE_HEADER = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE rolls (
    roll_id      INTEGER PRIMARY KEY,
    seq          INTEGER NOT NULL UNIQUE,
    time_utc     TEXT NOT NULL,
    time_epoch   REAL NOT NULL,
    tower        TEXT NOT NULL,
    table_name   TEXT,
    system       TEXT NOT NULL,
    procedure    TEXT NOT NULL,
    outcome      TEXT NOT NULL,
    frame_sha256 TEXT NOT NULL,
    frame_source TEXT,
    prev_hash    TEXT NOT NULL,
    row_hash     TEXT NOT NULL
);
CREATE TABLE readings (
    reading_id   INTEGER PRIMARY KEY,
    seq          INTEGER NOT NULL UNIQUE,
    roll_id      INTEGER NOT NULL REFERENCES rolls(roll_id),
    die_index    INTEGER NOT NULL,
    die_id       TEXT,
    die_type     TEXT NOT NULL,
    value        INTEGER,
    confidence   REAL NOT NULL,
    box_x        INTEGER NOT NULL,
    box_y        INTEGER NOT NULL,
    box_w        INTEGER NOT NULL,
    box_h        INTEGER NOT NULL,
    colour       TEXT,
    face_colour  TEXT,
    symbols      TEXT NOT NULL,
    cocked       INTEGER NOT NULL,
    unsure       INTEGER NOT NULL,
    crop_path    TEXT,
    crop_sha256  TEXT,
    prev_hash    TEXT NOT NULL,
    row_hash     TEXT NOT NULL,
    UNIQUE (roll_id, die_index)
);
CREATE TABLE confirmations (
    confirmation_id INTEGER PRIMARY KEY,
    seq             INTEGER NOT NULL UNIQUE,
    roll_id         INTEGER NOT NULL,
    die_index       INTEGER NOT NULL,
    time_utc        TEXT NOT NULL,
    time_epoch      REAL NOT NULL,
    corrected_value INTEGER,
    corrected_type  TEXT,
    prev_hash       TEXT NOT NULL,
    row_hash        TEXT NOT NULL
);
CREATE INDEX confirmations_die ON confirmations (roll_id, die_index);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""

#: The hashed tables and their columns in canonical order (everything but prev_hash and row_hash).
CHAINED_COLUMNS: dict[str, tuple[str, ...]] = {
    "rolls": ("roll_id", "seq", "time_utc", "time_epoch", "tower", "table_name", "system", "procedure",
              "outcome", "frame_sha256", "frame_source"),
    "readings": ("reading_id", "seq", "roll_id", "die_index", "die_id", "die_type", "value", "confidence",
                 "box_x", "box_y", "box_w", "box_h", "colour", "face_colour", "symbols", "cocked", "unsure", "crop_path", "crop_sha256"),
    "confirmations": ("confirmation_id", "seq", "roll_id", "die_index", "time_utc", "time_epoch",
                      "corrected_value", "corrected_type"),
}
_ID_COLUMN = {"rolls": "roll_id", "readings": "reading_id", "confirmations": "confirmation_id"}
_ADDED = {table: {c for _, t, c, _ in ADDED_COLUMNS if t == table} for _, table, _, _ in ADDED_COLUMNS}


class LogError(Exception):
    """A roll log problem with a message that says what went wrong, which file, and what to do."""


@dataclass(frozen=True)
class RollRecord:
    """A logged roll: its id in the log and its time (Unix epoch, s)."""

    roll_id: int
    time: float


@dataclass(frozen=True)
class ChainFault:
    """One break in the hash chain.

    kind:  "edited" (content no longer matches its hash), "inserted" (a row the chain skips),
           "deleted" (rows missing before this one, or at the end)
    table: "rolls" | "readings" | "confirmations" | "meta" (chain head) | "crop" (crop file) | "sqlite" (integrity check)
    row_id: the row's id in its table (roll_id, reading_id, confirmation_id), or None
    seq:   the row's chain sequence number, or None
    detail: a sentence for a person
    """

    kind: str
    table: str
    row_id: int | None
    seq: int | None
    detail: str


@dataclass
class VerifyResult:
    """What `RollLog.verify` found: rows checked, the chain head, and every fault (empty when intact)."""

    rows: int
    head_seq: int
    head_hash: str
    faults: list[ChainFault] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.faults


_CANONICAL = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def canonical(table: str, row: dict[str, Any]) -> str:
    """Canonical content of a chained row: the JSON array [table, value, ...] with the values in
    CHAINED_COLUMNS[table] order, compact (floats in Python's shortest round-trip form, so a value read
    back from SQLite's 8-byte REAL gives the same text); a column of ADDED_COLUMNS is left out while it
    is NULL (absent from row: a log of an earlier version), as in the rows written before it existed."""
    added = _ADDED.get(table, ())
    return _CANONICAL.encode([table, *[row.get(col) for col in CHAINED_COLUMNS[table]
                                       if col not in added or row.get(col) is not None]])


def chain_hash(prev_hash: str, table: str, row: dict[str, Any]) -> str:
    """sha256(prev_hash + canonical(table, row)) as 64 hex digits."""
    return hashlib.sha256((prev_hash + canonical(table, row)).encode("utf-8")).hexdigest()


def die_sides(die_type: str, *, where: str = "") -> int:
    """Number of faces of a die type ("d20" -> 20). Raises LogError naming the unknown type and `where`."""
    try:
        return DIE_SIDES[die_type]
    except KeyError:
        known = ", ".join(DIE_SIDES)
        raise LogError(f"unknown die type {die_type!r}{' ' + where if where else ''}: the log knows {known}") from None


def check_face(die_type: str, face: int | None, *, where: str = "") -> None:
    """Raise LogError when `face` is not a face of `die_type` (1..sides; None = no number read)."""
    sides = die_sides(die_type, where=where)
    if face is not None and not 1 <= face <= sides:
        raise LogError(f"face {face} is out of range for a {die_type} (1..{sides}){' ' + where if where else ''}")


def utc_iso(epoch: float) -> str:
    """Unix time (s) -> UTC ISO 8601 with milliseconds, e.g. 2026-11-21T05:00:37.123+00:00."""
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat(timespec="milliseconds")


class RollLog:
    """The roll log in one SQLite file (created on first use unless `readonly`).

    path:     the SQLite file; crops go in the folder ``<name>.crops`` beside it
    tower:    the tower these rolls come from ("sim", a serial port, a name)
    table:    the table or session the rolls belong to, or None
    readonly: open an existing log for reading (audit, verify, export); never creates or writes

    Raises LogError: the file is not a roll log or is corrupt (named, left untouched), the log was
    written by a newer dicetower (schema version named: upgrade), the file cannot be opened.
    Use as a context manager or call close().
    """

    def __init__(self, path: str | Path, tower: str = "sim", table: str | None = None, *,
                 readonly: bool = False):
        self.path = Path(path)
        self.tower = tower
        self.table = table
        self.readonly = readonly
        self.crops_dir = self.path.with_name(self.path.name + ".crops")
        self._check_file()
        try:
            if readonly:
                self._db = sqlite3.connect(self.path.resolve().as_uri() + "?mode=ro", uri=True, isolation_level=None)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, isolation_level=None, timeout=10.0)
        except sqlite3.Error as exc:
            raise LogError(f"cannot open the roll log {self.path}: {exc}") from exc
        try:
            self._open_schema()
        except sqlite3.OperationalError as exc:  # read-only file or folder, disk full, locked
            self._db.close()
            raise LogError(f"cannot use the roll log {self.path} ({exc}): make the file and its folder writable, "
                           "free disk space, or choose another --log; nothing was logged") from exc
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise LogError(f"{self.path} is corrupt or not a roll log ({exc}); it was left untouched: "
                           "move it aside or choose another --log") from exc
        except LogError:
            self._db.close()
            raise

    # -- opening ---------------------------------------------------------------------------------
    def _check_file(self) -> None:
        if not self.path.exists():
            if self.readonly:
                raise LogError(f"there is no roll log at {self.path}: check the --log path")
            return
        if self.path.is_dir():
            raise LogError(f"{self.path} is a folder, not a roll log file: choose a file path for --log")
        with open(self.path, "rb") as fh:
            head = fh.read(len(SQLITE_HEADER))
        if head and head != SQLITE_HEADER:
            raise LogError(f"{self.path} is not a SQLite database (corrupt, or another kind of file); it was "
                           "left untouched: move it aside or choose another --log")

    def _open_schema(self) -> None:
        db = self._db
        db.execute("PRAGMA busy_timeout = 10000")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise LogError(f"{self.path} was written by a newer dicetower (roll log schema version {version}; "
                           f"this dicetower reads up to version {SCHEMA_VERSION}): upgrade dicetower to read it")
        if version == 1:
            raise LogError(f"{self.path} is a roll log of schema version {version}, written by a pre-release "
                           f"dicetower; this dicetower reads version {SCHEMA_VERSION} and cannot check its hash "
                           "chain. It was left untouched: move it aside and start a new log")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if version == 0:
            if tables:
                raise LogError(f"{self.path} is a SQLite database but not a roll log (tables: "
                               f"{', '.join(sorted(tables))}); it was left untouched: choose another --log")
            if self.readonly:
                raise LogError(f"{self.path} is an empty file, not a roll log: check the --log path")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("BEGIN IMMEDIATE")
            try:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("INSERT INTO meta VALUES ('head_seq', '0'), ('head_hash', ?)", (GENESIS_HASH,))
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        elif not {"rolls", "readings", "confirmations", "meta"} <= tables:
            raise LogError(f"{self.path} says roll log schema version {version} but lacks its tables "
                           f"(has: {', '.join(sorted(tables)) or 'none'}); it is damaged and was left untouched")
        elif version < SCHEMA_VERSION and not self.readonly:
            self._upgrade(version)
        self._columns = {table: tuple(c for c in columns if c in self._table_columns(table))
                         for table, columns in CHAINED_COLUMNS.items()}
        if not self.readonly:
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = FULL")

    def _table_columns(self, table: str) -> set[str]:
        """The names of a table's columns in this file."""
        return {r[1] for r in self._db.execute(f"PRAGMA table_info({table})")}

    def _upgrade(self, version: int) -> None:
        """Bring a log of an earlier schema version up to SCHEMA_VERSION in one transaction: add the
        ADDED_COLUMNS after `version` (NULL in every row written before, which canonical leaves out of
        their hashes: no row is rewritten and the chain verifies as before). Raises LogError when the
        file cannot be written (then it is left as it was)."""
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                for added_in, table, column, sql_type in ADDED_COLUMNS:
                    if added_in > version and column not in self._table_columns(table):
                        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {sql_type}")
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise LogError(f"{self.path} is a roll log of schema version {version} and could not be upgraded to "
                           f"version {SCHEMA_VERSION} ({exc}); it was left as it was: make it writable, or read it "
                           "with `dicetower audit` (read-only)") from exc

    def close(self) -> None:
        """Close the database (every committed roll is already on disk)."""
        self._db.close()

    def __enter__(self) -> "RollLog":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ---------------------------------------------------------------------------------
    def _write(self, what: str, body) -> Any:  # type: ignore[no-untyped-def]
        """Run body(chain) in one IMMEDIATE transaction; turn SQLite failures into LogError."""
        if self.readonly:
            raise LogError(f"{self.path} was opened read-only: {what} was NOT logged")
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._write_error(what, exc) from exc
        try:
            head_seq = int(db.execute("SELECT value FROM meta WHERE key = 'head_seq'").fetchone()[0])
            head_hash = db.execute("SELECT value FROM meta WHERE key = 'head_hash'").fetchone()[0]
            chain = _Chain(db, head_seq, head_hash)
            result = body(chain)
            db.execute("UPDATE meta SET value = ? WHERE key = 'head_seq'", (str(chain.seq),))
            db.execute("UPDATE meta SET value = ? WHERE key = 'head_hash'", (chain.hash,))
            db.execute("COMMIT")
            return result
        except BaseException as exc:
            if db.in_transaction:
                try:
                    db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            if isinstance(exc, sqlite3.Error):
                raise self._write_error(what, exc) from exc
            raise

    def _write_error(self, what: str, exc: sqlite3.Error) -> LogError:
        text = str(exc)
        if "full" in text or "disk" in text or "I/O" in text:
            advice = "free some disk space, then drop the dice again"
        elif "readonly" in text or "read-only" in text or "permission" in text.lower():
            advice = "make the file and its folder writable or choose another --log, then drop the dice again"
        elif "locked" in text or "busy" in text:
            advice = "another program holds the log; close it, then drop the dice again"
        else:
            advice = "check the file with `dicetower audit verify`, then drop the dice again"
        return LogError(f"{what} was NOT logged to {self.path} ({text}): {advice}. Its result must not be shown.")

    def record_roll(self, readings: list[DieReading], outcome: dict[str, Any], *, system: str, procedure: str,
                    frame_sha256: str, frame_source: str | None = None, crops: list[bytes] | None = None,
                    time_epoch: float | None = None) -> RollRecord:
        """Log one roll in one transaction: one ``rolls`` row and one ``readings`` row per die, chained.
        The roll is committed (durable) when this returns, so log it BEFORE showing its result.

        readings:     the dice read (DieReading), in reading order; may be empty (no dice seen)
        outcome:      the procedure's outcome, JSON-serialisable
        system:       the rule system id (e.g. "d6pool"); procedure: its procedure id (RULES.md)
        frame_sha256: 64 hex digits, SHA-256 of the frame the dice were read from
        frame_source: where the frame came from (file path, "camera:0"), or None
        crops:        one encoded image (PNG/JPEG bytes) per reading, saved in ``<log>.crops/``
        time_epoch:   the roll's time (Unix s); default now

        Raises LogError: an unknown die type, a face out of range or a confidence outside 0..1 (the
        die's index is named), frame_sha256 not 64 lowercase hex digits,
        outcome not JSON, crops not matching readings, or the database refused the write (disk full,
        read-only, locked). On any error nothing of the roll is logged.
        """
        for i, reading in enumerate(readings):
            check_face(reading.die_type, reading.value, where=f"(die {i} of the roll)")
            if not 0.0 <= reading.confidence <= 1.0:  # also refuses NaN
                raise LogError(f"confidence {reading.confidence} of die {i} is not in 0..1; roll NOT logged")
        if not _SHA256_HEX.fullmatch(frame_sha256):
            raise LogError(f"frame_sha256 {frame_sha256!r} is not 64 hex digits (a SHA-256); roll NOT logged")
        if crops is not None and len(crops) != len(readings):
            raise LogError(f"{len(crops)} crops for {len(readings)} dice: give one crop per die read; roll NOT logged")
        try:
            outcome_json = json.dumps(outcome, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise LogError(f"the outcome is not JSON-serialisable ({exc}); roll NOT logged") from exc
        epoch = time.time() if time_epoch is None else float(time_epoch)
        written: list[Path] = []

        def body(chain: _Chain) -> RollRecord:
            roll_id = chain.add("rolls", {
                "time_utc": utc_iso(epoch), "time_epoch": epoch, "tower": self.tower, "table_name": self.table,
                "system": system, "procedure": procedure, "outcome": outcome_json, "frame_sha256": frame_sha256,
                "frame_source": frame_source})
            for i, reading in enumerate(readings):
                crop_path = crop_sha = None
                if crops is not None:
                    crop_path, crop_sha = self._save_crop(roll_id, i, crops[i])
                    written.append(self.path.parent / crop_path)
                chain.add("readings", reading_row(roll_id, i, reading, crop_path, crop_sha))
            return RollRecord(roll_id, epoch)

        try:
            return self._write(f"roll ({len(readings)} dice)", body)
        except BaseException:
            for path in written:
                path.unlink(missing_ok=True)
            raise

    def _save_crop(self, roll_id: int, die_index: int, data: bytes) -> tuple[str, str]:
        """Write one crop beside the database (fsync'd); return (path relative to the log's folder, sha256)."""
        ext = ".png" if data[:8] == b"\x89PNG\r\n\x1a\n" else ".jpg" if data[:2] == b"\xff\xd8" else ".bin"
        self.crops_dir.mkdir(exist_ok=True)
        target = self.crops_dir / f"roll{roll_id:08d}-die{die_index:02d}{ext}"
        try:
            with open(target, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            raise LogError(f"cannot save the crop {target} ({exc}); roll NOT logged: free disk space or "
                           "make the folder writable") from exc
        return str(target.relative_to(self.path.parent)), hashlib.sha256(data).hexdigest()

    def mark_confirmed(self, roll_id: int, die_index: int, corrected_value: int | None,
                       corrected_type: str | None = None) -> None:
        """Record that a person confirmed a logged reading (corrected_value None) or corrected it to
        corrected_value, of a die of corrected_type when the reader took it for another type (None: the
        type read). Appended as a chained ``confirmations`` row; the reading itself is never changed, and
        the audit counts the latest correction, under the corrected type (GEN-D01: unsure readings are
        confirmed).

        Raises LogError: no such roll or die, an unknown corrected type, a type corrected without a face,
        a corrected face out of range for the die's type, the write failed.
        """
        row = self._db.execute("SELECT die_type FROM readings WHERE roll_id = ? AND die_index = ?",
                               (roll_id, die_index)).fetchone()
        if row is None:
            raise LogError(f"roll {roll_id} has no die {die_index} in {self.path}: nothing was confirmed")
        where = f"(correction of roll {roll_id}, die {die_index})"
        if corrected_type is not None and corrected_value is None:
            raise LogError(f"a die type corrected to {corrected_type} needs the face it shows {where}: "
                           "give the value too")
        if corrected_type == row[0]:
            corrected_type = None  # the type read: nothing to correct
        check_face(row[0] if corrected_type is None else corrected_type, corrected_value, where=where)
        now = time.time()
        self._write(f"confirmation of roll {roll_id} die {die_index}", lambda chain: chain.add("confirmations", {
            "roll_id": roll_id, "die_index": die_index, "time_utc": utc_iso(now), "time_epoch": now,
            "corrected_value": corrected_value, "corrected_type": corrected_type}))

    def append_rows(self, rolls: list[tuple[dict[str, Any], list[DieReading]]], what: str) -> list[int]:
        """Log many rolls in ONE transaction (all or nothing), e.g. an import. Each item is
        (roll fields: time_epoch, tower, table_name, system, procedure, outcome (dict), frame_sha256,
        frame_source; readings). Faces must already be checked. Returns the new roll ids.
        Raises LogError when the database refuses the write; then nothing is logged."""

        def body(chain: _Chain) -> list[int]:
            ids = []
            for fields, readings in rolls:
                epoch = float(fields["time_epoch"])
                roll_id = chain.add("rolls", {
                    "time_utc": utc_iso(epoch), "time_epoch": epoch, "tower": fields["tower"],
                    "table_name": fields.get("table_name"), "system": fields["system"],
                    "procedure": fields["procedure"],
                    "outcome": json.dumps(fields.get("outcome", {}), sort_keys=True, separators=(",", ":")),
                    "frame_sha256": fields["frame_sha256"], "frame_source": fields.get("frame_source")})
                for i, reading in enumerate(readings):
                    chain.add("readings", reading_row(roll_id, i, reading, None, None))
                ids.append(roll_id)
            return ids

        return self._write(what, body)

    # -- reading ---------------------------------------------------------------------------------
    def corrections(self) -> dict[tuple[int, int], tuple[int | None, str | None]]:
        """{(roll_id, die_index): (latest corrected value, its corrected die type)} for every confirmed die:
        (None, None) = confirmed as read; the type None = the type read."""
        return {(r, d): (v, t) for r, d, v, t in self._db.execute(
            f"SELECT roll_id, die_index, corrected_value, {self._corrected_type} FROM confirmations ORDER BY seq")}

    def not_dice(self) -> dict[tuple[str | None, str], int]:
        """{(die_id, die_type as read): how many of its readings a person said are no die} (a side face or a
        shadow read as a die; the service's outcome key "not_dice", dicetower.service.roll). Such readings are
        unsure and never confirmed, so the audit does not count them; it says how many there were, since leaving
        a real die out is also a way to put a thumb on the scale. The rolls are scanned first (CROSS JOIN keeps
        that order: SQLite would scan every reading instead, 0.3 s against 0.02 s on 100,000 rolls)."""
        return {(die_id, die_type): n for die_id, die_type, n in self._db.execute(
            "SELECT d.die_id, d.die_type, COUNT(*) FROM rolls r CROSS JOIN json_each(r.outcome, '$.not_dice') j "
            "CROSS JOIN readings d ON d.roll_id = r.roll_id AND d.die_index = j.value "
            "WHERE instr(r.outcome, '\"not_dice\"') AND json_valid(r.outcome) GROUP BY d.die_id, d.die_type")}

    @property
    def _corrected_type(self) -> str:
        """The confirmations column of corrected types in a SELECT ("NULL" in a version 2 log read as it is)."""
        return "corrected_type" if "corrected_type" in self._columns["confirmations"] else "NULL"

    def rolls(self, after: int = 0) -> list[dict[str, Any]]:
        """Every roll with roll_id > after (default: all), oldest first: {roll_id, time (epoch s), time_utc, tower, table, system, procedure,
        outcome (parsed), frame_sha256, frame_source, dice: [{die_index, die_id, die_type, value (as read),
        confidence, box [x,y,w,h], colour, face_colour, symbols, cocked, unsure, confirmed (bool),
        corrected_value, corrected_type (None: the type read), face (the value the audit counts: the
        correction if corrected, else the value read; None when no number was read or the reading is unsure
        and nobody confirmed it), counted_type (the die type the audit counts face under: corrected_type
        when set, else die_type, the type read), crop_path}]}."""
        corrections = self.corrections()
        out: dict[int, dict[str, Any]] = {}
        for row in self._db.execute(
                "SELECT roll_id, time_epoch, time_utc, tower, table_name, system, procedure, outcome, "
                "frame_sha256, frame_source FROM rolls WHERE roll_id > ? ORDER BY roll_id", (after,)):
            out[row[0]] = {"roll_id": row[0], "time": row[1], "time_utc": row[2], "tower": row[3], "table": row[4],
                           "system": row[5], "procedure": row[6], "outcome": json.loads(row[7]),
                           "frame_sha256": row[8], "frame_source": row[9], "dice": []}
        for row in self._db.execute(
                "SELECT roll_id, die_index, die_id, die_type, value, confidence, json_array(box_x, box_y, box_w, box_h), "
                "colour, face_colour, symbols, cocked, unsure, crop_path FROM readings WHERE roll_id > ? "
                "ORDER BY roll_id, die_index", (after,)):
            key = (row[0], row[1])
            confirmed = key in corrections
            corrected, corrected_type = corrections.get(key, (None, None))
            roll = out.get(row[0])
            if roll is None:  # a reading whose roll row is gone: `verify` reports it
                continue
            roll["dice"].append({
                "die_index": row[1], "die_id": row[2], "die_type": row[3], "value": row[4], "confidence": row[5],
                "box": json.loads(row[6]), "colour": row[7], "face_colour": row[8], "symbols": json.loads(row[9]),
                "cocked": bool(row[10]), "unsure": bool(row[11]), "confirmed": confirmed,
                "corrected_value": corrected, "corrected_type": corrected_type,
                "counted_type": corrected_type or row[3],
                "face": corrected if corrected is not None else row[4] if confirmed or not row[11] else None,
                "crop_path": row[12]})
        return list(out.values())

    def audit_columns(self) -> tuple[list[tuple[str | None, str]], np.ndarray]:
        """Every die read, in log order (roll by roll, die by die), as columns for the audit.

        Returns (dice, rows): dice = [(die_id, die_type), ...] (in no particular order); rows = a
        structured array, shape (n,), fields reading_id (i8), epoch (f8, roll time, Unix s), key (i8,
        index into dice: the die's type as a person corrected it, else as read), face (i8), x (f8, box
        centre x in px: the die's drop position in the tray), corrected (?, True when face is a person's
        correction, not the value read).
        face is the value the audit counts: a person's latest correction, else the value read; 0 when
        there is nothing to count: no number read, or an unsure reading (GEN-D01) nobody confirmed."""
        dice = [(die_id, die_type) for die_type, die_id in self._db.execute(
            "SELECT DISTINCT die_type, die_id FROM readings")]
        retyped = {rid: (die_id, die_type) for rid, die_id, die_type in self._db.execute(
            f"SELECT d.reading_id, d.die_id, {self._corrected_type} FROM confirmations c JOIN readings d "
            "ON d.roll_id = c.roll_id AND d.die_index = c.die_index ORDER BY c.seq")}  # the latest: None = as read
        dice += sorted({die for die in retyped.values() if die[1] is not None} - set(dice), key=str)
        case = " ".join(f"WHEN d.die_type = ? AND d.die_id IS ? THEN {i}" for i in range(len(dice)))
        params = [v for die_id, die_type in dice for v in (die_type, die_id)]
        rows = self._reading_columns(case, params)
        confirmed = {rid: (value, corrected) for rid, value, corrected in self._db.execute(
            "SELECT d.reading_id, COALESCE(c.corrected_value, d.value, 0), "
            "c.corrected_value IS NOT NULL AND c.corrected_value IS NOT d.value FROM confirmations c JOIN readings d "
            "ON d.roll_id = c.roll_id AND d.die_index = c.die_index ORDER BY c.seq")}
        if confirmed:
            at = np.searchsorted(rows["reading_id"], np.fromiter(confirmed, dtype=np.int64, count=len(confirmed)))
            rows["face"][at] = [value for value, _ in confirmed.values()]
            rows["corrected"][at] = [bool(corrected) for _, corrected in confirmed.values()]
        index = {die: i for i, die in enumerate(dice)}
        moved = {rid: index[die] for rid, die in retyped.items() if die[1] is not None}
        if moved:
            at = np.searchsorted(rows["reading_id"], np.fromiter(moved, dtype=np.int64, count=len(moved)))
            rows["key"][at] = list(moved.values())
            rows["corrected"][at] = True
        return dice, rows

    def _reading_columns(self, case: str, params: list[Any]) -> np.ndarray:
        """audit_columns' rows as read (no corrections yet), sorted by reading_id; key by case (SQL WHEN clauses
        on d.die_type and d.die_id, with their params). Each column of COLUMN_CHUNK readings comes as one
        group_concat text of integers that numpy parses, the roll times are looked up by roll id in numpy and
        the box centre is twice its x summed as an integer (SQLite writes a REAL as text slowly): 1,000,000
        readings in 2.4-3.0 s where rows of Python tuples took 3.2-3.9 s (interleaved, bench.audit's log).
        Raises LogError when a column comes back short (a NULL where the schema has NOT NULL) or a reading's roll
        is not in the log: an edited log."""
        fields = [("reading_id", "i8"), ("epoch", "f8"), ("key", "i8"), ("face", "i8"), ("x", "f8"), ("corrected", "?")]
        query = (f"SELECT count(*), group_concat(reading_id), group_concat(roll_id), "
                 f"group_concat(CASE {case or 'WHEN 0 THEN 0'} END), "
                 "group_concat(CASE WHEN unsure THEN 0 ELSE COALESCE(value, 0) END), group_concat(2 * box_x + box_w) "
                 "FROM readings d WHERE reading_id > ? AND reading_id <= ?")
        rolls = self._db.execute("SELECT roll_id, time_epoch FROM rolls ORDER BY roll_id").fetchall()
        roll_ids, epochs = np.array(rolls, dtype=float).reshape(-1, 2).T
        last = int(self._db.execute("SELECT COALESCE(MAX(reading_id), 0) FROM readings").fetchone()[0])
        chunks = []
        for start in range(0, last, COLUMN_CHUNK):
            n, *texts = self._db.execute(query, params + [start, start + COLUMN_CHUNK]).fetchone()
            if not n:
                continue
            columns = [np.fromstring(text or "", sep=",") for text in texts]
            for name, column in zip(("reading_id", "roll_id", "key", "face", "box"), columns):
                if column.size != n:
                    raise LogError(f"{self.path}: {n - column.size} of {n} readings have no {name} (a NULL where "
                                   "the log's schema allows none): it was edited outside dicetower; run "
                                   "`dicetower audit verify`")
            at = np.searchsorted(roll_ids, columns[1]).clip(0, max(roll_ids.size - 1, 0))
            if roll_ids.size == 0 or not np.array_equal(roll_ids[at], columns[1]):
                raise LogError(f"{self.path}: readings of rolls the log does not hold: it was edited outside "
                               "dicetower; run `dicetower audit verify`")
            chunk = np.zeros(n, dtype=fields)
            chunk["reading_id"], chunk["key"], chunk["face"] = columns[0], columns[2], columns[3]
            chunk["epoch"] = epochs[at]
            chunk["x"] = columns[4] / 2
            chunks.append(chunk)
        rows = np.concatenate(chunks) if chunks else np.zeros(0, dtype=fields)
        return rows[np.argsort(rows["reading_id"], kind="stable")]

    def count_readings(self) -> int:
        """Number of die readings logged."""
        return int(self._db.execute("SELECT COUNT(*) FROM readings").fetchone()[0])

    # -- verification ----------------------------------------------------------------------------
    def _chained_rows(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every chained row of the three tables as (table, row), in seq order (merged from their seq
        indexes, so a million rows stream through without being held in memory)."""

        def rows(table: str, columns: tuple[str, ...]) -> Iterator[tuple[float, str, dict[str, Any]]]:
            names = columns + ("prev_hash", "row_hash")
            for values in self._db.execute(f"SELECT {', '.join(names)} FROM {table} ORDER BY seq"):
                seq = values[1]
                yield (seq if isinstance(seq, (int, float)) else math.inf), table, dict(zip(names, values))

        for _, table, row in heapq.merge(*(rows(t, c) for t, c in self._columns.items()), key=lambda x: x[0]):
            yield table, row

    def verify(self) -> VerifyResult:
        """Recompute the hash chain over every row, in seq order, and name each break:

        * edited:   a row whose content no longer gives its stored row_hash (a changed face, time, ...),
                    or one edited and re-hashed (the next row no longer links to it)
        * inserted: a row the chain skips (the next row links to the row before it), or rows past the
                    recorded chain head
        * deleted:  rows missing before a row (its seq jumps and its link is broken), or at the end of
                    the log (the recorded chain head is further on)
        Crop files are checked against their SHA-256 too (an edited crop is reported as edited).
        Also runs SQLite's quick_check. Raises LogError if the file cannot be read at all.
        """
        try:
            problems = [r[0] for r in self._db.execute("PRAGMA quick_check")]
            meta = dict(self._db.execute("SELECT key, value FROM meta"))
            faults: list[ChainFault] = []
            if problems != ["ok"]:
                faults.append(ChainFault("edited", "sqlite", None, None,
                                         "SQLite integrity check: " + "; ".join(problems[:5])))
            count, expected, prev_seq = self._walk_chain(faults)
        except sqlite3.DatabaseError as exc:
            raise LogError(f"{self.path} cannot be read ({exc}): the file is damaged") from exc
        head_seq = int(meta.get("head_seq", "0"))
        head_hash = meta.get("head_hash", GENESIS_HASH)
        if head_seq > prev_seq:
            faults.append(ChainFault("deleted", "meta", None, head_seq, f"the log's head is seq {head_seq} but the "
                                     f"last row present is seq {prev_seq}: rows were deleted from the end"))
        elif head_seq < prev_seq:
            faults.append(ChainFault("inserted", "meta", None, prev_seq, f"rows after the log's head (seq {head_seq}) "
                                     "were added outside dicetower"))
        elif head_hash != expected and not faults:
            faults.append(ChainFault("edited", "meta", None, head_seq, "the log's recorded head hash does not match "
                                     "its last row: the last row or the head was edited"))
        return VerifyResult(rows=count, head_seq=prev_seq, head_hash=expected, faults=faults)

    def _walk_chain(self, faults: list[ChainFault]) -> tuple[int, str, int]:
        """Walk the chain in seq order, appending each break to `faults`; return (rows, last hash, last seq)."""
        expected, prev_seq, prev_name = GENESIS_HASH, 0, "the start of the log"
        expected_before = None  # the link before `expected`, to recognise an inserted row
        prev_table: str = ""
        prev_row: dict[str, Any] = {}  # the row before the current one
        stream = self._chained_rows()
        current = next(stream, None)
        count = 0
        while current is not None:
            following = next(stream, None)
            count += 1
            table, row = current
            rid, seq = row[_ID_COLUMN[table]], row["seq"]
            name = f"{table} row {rid} (seq {seq})"
            current, skip = following, False
            if row["prev_hash"] != expected:
                nxt = following[1] if following is not None else None
                if nxt is not None and nxt["prev_hash"] == expected:
                    faults.append(ChainFault("inserted", table, rid, seq, f"{name} was inserted: the chain "
                                             "skips it (the next row links to the row before it)"))
                    skip = True  # the chain goes on from the row before the inserted one
                elif count > 1 and row["prev_hash"] == expected_before:
                    faults.append(ChainFault("inserted", prev_table, prev_row[_ID_COLUMN[prev_table]],
                                             prev_row["seq"], f"{prev_name} was inserted: the chain skips it "
                                             f"({name} links to the row before it)"))
                elif isinstance(seq, int) and seq > prev_seq + 1:
                    faults.append(ChainFault("deleted", table, rid, seq, f"{seq - prev_seq - 1} row(s) deleted "
                                             f"between seq {prev_seq} and {name}"))
                elif count > 1:
                    faults.append(ChainFault("edited", prev_table, prev_row[_ID_COLUMN[prev_table]], prev_row["seq"],
                                             f"{prev_name} was edited and re-hashed: {name} no longer links to it"))
                else:
                    faults.append(ChainFault("edited", table, rid, seq, f"{name}: its link to the start of the "
                                             "log was altered"))
            prev_table, prev_row = table, row
            if skip:
                prev_name = name
                continue
            if chain_hash(row["prev_hash"], table, row) != row["row_hash"]:
                faults.append(ChainFault("edited", table, rid, seq, f"{name} was edited: its content no longer "
                                         "matches its hash"))
            if table == "readings" and row["crop_path"]:
                crop = self.path.parent / row["crop_path"]
                if not crop.is_file():
                    faults.append(ChainFault("deleted", "crop", rid, seq, f"crop {crop} of {name} is missing"))
                elif hashlib.sha256(crop.read_bytes()).hexdigest() != row["crop_sha256"]:
                    faults.append(ChainFault("edited", "crop", rid, seq, f"crop {crop} of {name} was edited"))
            expected_before = row["prev_hash"]
            expected, prev_seq, prev_name = row["row_hash"], seq, name
        return count, expected, prev_seq


def reading_row(roll_id: int, die_index: int, reading: DieReading, crop_path: str | None,
                crop_sha256: str | None) -> dict[str, Any]:
    """The ``readings`` row (without ids and hashes) of one DieReading."""
    return {"roll_id": roll_id, "die_index": die_index, "die_id": reading.die_id, "die_type": reading.die_type,
            "value": reading.value, "confidence": float(reading.confidence),
            "box_x": int(reading.box[0]), "box_y": int(reading.box[1]), "box_w": int(reading.box[2]),
            "box_h": int(reading.box[3]), "colour": reading.colour,
            "face_colour": reading.face_colour, "symbols": json.dumps(list(reading.symbols)),
            "cocked": int(bool(reading.cocked)), "unsure": int(reading.unsure),
            "crop_path": crop_path, "crop_sha256": crop_sha256}


class _Chain:
    """Appends chained rows inside one open transaction."""

    def __init__(self, db: sqlite3.Connection, seq: int, last_hash: str):
        self.db, self.seq, self.hash = db, seq, last_hash
        self.next_ids: dict[str, int] = {}

    def add(self, table: str, fields: dict[str, Any]) -> int:
        """Insert one row into `table` with the next seq and its chain hash; return its id."""
        id_col = _ID_COLUMN[table]
        next_id = self.next_ids.get(table)
        if next_id is None:
            next_id = self.db.execute(f"SELECT COALESCE(MAX({id_col}), 0) + 1 FROM {table}").fetchone()[0]
        self.next_ids[table] = next_id + 1
        self.seq += 1
        row = {id_col: next_id, "seq": self.seq, **fields}
        row_hash = chain_hash(self.hash, table, row)
        self.db.execute(_INSERT[table], [row[c] for c in CHAINED_COLUMNS[table]] + [self.hash, row_hash])
        self.hash = row_hash
        return next_id


_INSERT = {table: f"INSERT INTO {table} ({', '.join(cols + ('prev_hash', 'row_hash'))}) "
                  f"VALUES ({', '.join('?' * (len(cols) + 2))})" for table, cols in CHAINED_COLUMNS.items()}
