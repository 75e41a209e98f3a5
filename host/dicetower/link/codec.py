"""Frame codec of the tower link (docs/protocol.md), the host's twin of firmware/frame.py.

    TYPE|SEQ|key=value|key=value#CRC\\n

SEQ 0 = not acknowledged; 1..255 = acknowledged (ACK with the same SEQ) and resent until it is.
Values are percent-escaped (`%`, `|`, `#`, `=` and bytes outside 0x20..0x7E as %XX of their UTF-8
bytes); keys are written in sorted order; CRC is the CRC-32 (zlib.crc32 = binascii.crc32) of the
UTF-8 bytes before `#` as 8 lower-case hex digits. A frame is at most MAX_FRAME_BYTES bytes with
its newline (an ESP32's stdin buffer holds 260).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field

PROTO_VERSION = 1
MAX_FRAME_BYTES = 200
SEQ_MAX = 255

_KIND = re.compile(r"[A-Z]+\Z")
_KEY = re.compile(r"[a-z0-9]+\Z")
_SAFE = frozenset(range(0x20, 0x7F)) - {ord(c) for c in "%|#="}


class FrameError(ValueError):
    """A line that is not a valid frame (bad shape, bad checksum, too long); says what is wrong."""


def next_seq(seq: int) -> int:
    """The sequence number after `seq`: 1..255, wrapping to 1 (0 is for unacknowledged frames)."""
    return 1 if seq >= SEQ_MAX else seq + 1


def _escape(text: str) -> str:
    return "".join(chr(b) if b in _SAFE else "%%%02X" % b for b in text.encode("utf-8"))


def _unescape(text: str) -> str:
    if "%" not in text:
        return text
    out = bytearray()
    i = 0
    while i < len(text):
        if text[i] == "%":
            if i + 3 > len(text):
                raise FrameError(f"cut escape in {text!r}")
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
        else:
            out += text[i].encode("utf-8")
            i += 1
    return out.decode("utf-8")


@dataclass(frozen=True)
class Frame:
    """One message: kind ("ROLL", "SCR", "ACK", ...: upper-case letters), seq (0..255), fields
    (key: lower-case letters and digits -> text)."""

    kind: str
    seq: int
    fields: dict[str, str] = field(default_factory=dict)

    def encode(self) -> bytes:
        """The frame's line, newline included. Raises FrameError for a bad kind, key or seq, or
        when the line would be longer than MAX_FRAME_BYTES."""
        if not _KIND.match(self.kind):
            raise FrameError(f"message type {self.kind!r} must be upper-case letters")
        if not 0 <= self.seq <= SEQ_MAX:
            raise FrameError(f"seq {self.seq} is outside 0..{SEQ_MAX}")
        parts = [self.kind, str(self.seq)]
        for key in sorted(self.fields):
            if not _KEY.match(key):
                raise FrameError(f"field name {key!r} must be lower-case letters and digits")
            parts.append(f"{key}={_escape(str(self.fields[key]))}")
        body = "|".join(parts).encode("ascii")
        line = body + b"#%08x\n" % (zlib.crc32(body) & 0xFFFFFFFF)
        if len(line) > MAX_FRAME_BYTES:
            raise FrameError(f"{self.kind} frame of {len(line)} bytes is over the {MAX_FRAME_BYTES}-byte limit; "
                             "send less text")
        return line

    @classmethod
    def decode(cls, line: bytes) -> "Frame":
        """The frame in one received line (trailing CR/LF allowed). Raises FrameError saying why
        the line is not a frame (REPL noise, boot banner, corrupted bytes)."""
        line = line.rstrip(b"\r\n")
        if len(line) + 1 > MAX_FRAME_BYTES:
            raise FrameError(f"line of {len(line) + 1} bytes is over the {MAX_FRAME_BYTES}-byte limit")
        body, sep, crc = line.rpartition(b"#")
        if not sep or not re.fullmatch(rb"[0-9a-f]{8}", crc):
            raise FrameError(f"no '#CRC' at the end of {line[:40]!r}")
        if zlib.crc32(body) & 0xFFFFFFFF != int(crc, 16):
            raise FrameError(f"checksum mismatch in {line[:40]!r}")
        try:
            parts = body.decode("ascii").split("|")
            kind, seq = parts[0], int(parts[1])
            fields = {}
            for part in parts[2:]:
                key, value = part.split("=")
                fields[key] = _unescape(value)
        except (ValueError, IndexError) as exc:
            raise FrameError(f"malformed frame {line[:40]!r}: {exc}") from None
        if not _KIND.match(kind) or not 0 <= seq <= SEQ_MAX or not all(_KEY.match(k) for k in fields):
            raise FrameError(f"malformed frame {line[:40]!r}: bad type, seq or field name")
        return cls(kind, seq, fields)
