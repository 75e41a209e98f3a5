"""Frame codec of the host link (docs/protocol.md): one text line per message.

    TYPE|SEQ|key=value|key=value#CRC\\n

TYPE is upper-case letters, SEQ 0..255 (0: not acknowledged, 1..255: acknowledged and resent),
values are percent-escaped (`%`, `|`, `#`, `=` and bytes outside 0x20..0x7E as %XX), CRC is the
CRC-32 (binascii.crc32) of the UTF-8 bytes before `#`, as 8 lower-case hex digits. A frame is at
most MAX_FRAME bytes with its newline.
"""
import binascii
from micropython import const

PROTO = const(1)
MAX_FRAME = const(200)
SEQ_MAX = const(255)


def next_seq(seq: int) -> int:
    """The sequence number after `seq`: 1..255, wrapping to 1 (0 is for unacknowledged frames)."""
    return 1 if seq >= SEQ_MAX else seq + 1


def _escape(text: str) -> str:
    out = []
    for ch in text:
        o = ord(ch)
        if 0x20 <= o <= 0x7E and ch not in "%|#=":
            out.append(ch)
        else:
            for b in ch.encode():
                out.append("%%%02X" % b)
    return "".join(out)


def _unescape(text: str) -> str:
    if "%" not in text:
        return text
    raw = bytearray()
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "%" and i + 3 <= n:
            raw.append(int(text[i + 1:i + 3], 16))
            i += 3
        else:
            raw.extend(ch.encode())
            i += 1
    return str(raw, "utf-8")


def encode(kind: str, seq: int, fields: dict) -> bytes:
    """The frame for message `kind` (e.g. "ROLL") with sequence number `seq` and `fields`
    (str -> str or int; keys are written in sorted order). Raises ValueError when the frame would be
    longer than MAX_FRAME bytes or `seq` is outside 0..255."""
    if not 0 <= seq <= SEQ_MAX:
        raise ValueError("seq %d outside 0..255" % seq)
    parts = [kind, str(seq)]
    for key in sorted(fields):
        parts.append(key + "=" + _escape(str(fields[key])))
    body = "|".join(parts).encode()
    line = body + ("#%08x\n" % (binascii.crc32(body) & 0xFFFFFFFF)).encode()
    if len(line) > MAX_FRAME:
        raise ValueError("frame of %d bytes is longer than %d" % (len(line), MAX_FRAME))
    return line


def decode(line):
    """(kind, seq, fields) from one line (bytes, bytearray or memoryview, with or without the
    trailing newline/CR), or None when it is not a valid frame (bad CRC, bad shape, REPL noise)."""
    n = len(line)
    while n and line[n - 1] in (10, 13):
        n -= 1
    if n < 11 or line[n - 9] != 35:  # '#'
        return None
    body = bytes(line[:n - 9])
    try:
        crc = int(str(bytes(line[n - 8:n]), "ascii"), 16)
    except ValueError:
        return None
    if binascii.crc32(body) & 0xFFFFFFFF != crc:
        return None
    try:
        parts = str(body, "utf-8").split("|")
        kind = parts[0]
        seq = int(parts[1])
        fields = {}
        for part in parts[2:]:
            key, value = part.split("=")
            fields[key] = _unescape(value)
    except (ValueError, IndexError, UnicodeError):
        return None
    if not kind or not 0 <= seq <= SEQ_MAX:
        return None
    return kind, seq, fields
