"""Display forms of outcomes for the tower's 128x64 OLED (issue 3, item 9).

The firmware draws text in its built-in 8x8 font: at most 8 lines of 16 ASCII characters. A
procedure's screen function returns such a list of lines; `generic_screen` is the form used for a
procedure that registers none. `check_screen` says whether a form fits; it also accepts the "big
figure" form {"big": "3", "lines": [at most 3 lines]} (one large figure above 3 text lines).
"""

from __future__ import annotations

import unicodedata
from typing import Any

COLUMNS = 16
ROWS = 8
BIG_LINES = 3
BIG_COLUMNS = 4  # a large figure is drawn 4x the font: 128 px / 32 px


#: Letters NFKD does not split into a base letter and an accent (Polish ł in the seed 003 text).
NO_DECOMPOSITION = str.maketrans({"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "ß": "ss", "œ": "oe", "Œ": "OE"})


def ascii_text(text: Any) -> str:
    """`text` as printable ASCII: accents folded ("Dégât" -> "Degat", "Pachołek" -> "Pacholek"),
    other characters dropped."""
    folded = unicodedata.normalize("NFKD", str(text).translate(NO_DECOMPOSITION)).encode("ascii", "ignore").decode("ascii")
    return "".join(ch for ch in folded if 32 <= ord(ch) < 127)


def fit(text: Any) -> str:
    """One OLED line: ASCII-folded and cut to 16 columns."""
    return ascii_text(text)[:COLUMNS]


def wrap(text: Any, width: int = COLUMNS) -> list[str]:
    """ASCII-folded text folded on spaces into lines of at most `width` columns (long words are cut)."""
    lines: list[str] = []
    line = ""
    for word in ascii_text(text).split():
        word = word[:width]
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def label(key: str) -> str:
    """A snake_case outcome key or value as screen words: "attacker_hearts_after" -> "attacker hearts after"."""
    return key.replace("_", " ")


def _value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, list):
        return " ".join(_value_text(v) for v in value)
    if isinstance(value, dict):
        if value.get("gm_judgement"):
            return "GM decides"
        return " ".join(f"{k}={_value_text(v)}" for k, v in value.items())
    return label(str(value))


def shorten(words: str, room: int) -> str:
    """Words cut to fit `room` columns, the longest word first, none below 3 letters
    ("defender damage after", 14 -> "defen dama aft"), then cut at `room`."""
    parts = ascii_text(words).split()
    while parts and len(" ".join(parts)) > room:
        longest = max(range(len(parts)), key=lambda i: len(parts[i]))
        if len(parts[longest]) <= 3:
            break
        parts[longest] = parts[longest][:-1]
    return " ".join(parts)[:room]


def key_value_line(key: str, value: Any) -> str:
    """"key value" on one 16-column line, the key's words shortened so the value stays whole; a
    value too long to share the line is shown alone (cut at 16)."""
    text = ascii_text(_value_text(value))
    room = COLUMNS - len(text) - 1
    if room < 4:
        return fit(text)
    return fit(f"{shorten(label(key), room)} {text}")


def generic_screen(procedure_id: str, outcome: dict[str, Any]) -> list[str]:
    """Fallback display form: the procedure's name on the first line, then one "key value" line per
    top-level outcome key (in the outcome's order) while they fit. Keys whose value is a nested
    object other than a GM prompt are left out; a value too long to share its line is folded over
    lines of its own. Always passes check_screen."""
    lines = [fit(label(procedure_id.split(".", 1)[-1]).upper())]
    for key, value in outcome.items():
        if len(lines) == ROWS:
            break
        if key in ("procedure", "choices", "reroll_request") or (isinstance(value, dict) and not value.get("gm_judgement")):
            continue
        line = key_value_line(key, value)
        text = ascii_text(_value_text(value))
        lines += [line] if len(text) <= COLUMNS - 4 else wrap(text)
    return lines[:ROWS]


def check_screen(form: list[str] | dict[str, Any]) -> None:
    """Raise ValueError saying what does not fit the OLED, for a list of lines (at most 8 lines of at
    most 16 printable ASCII characters) or a big-figure form {"big": str of at most 4 characters,
    "lines": at most 3 such lines}."""
    if isinstance(form, dict):
        if set(form) - {"big", "lines"} or not isinstance(form.get("big"), str):
            raise ValueError(f"big-figure form must be {{'big': str, 'lines': [...]}}, not {form!r}")
        if not 0 < len(form["big"]) <= BIG_COLUMNS:
            raise ValueError(f"big figure {form['big']!r} must have 1..{BIG_COLUMNS} characters")
        lines, max_rows = form.get("lines", []), BIG_LINES
        _check_line(form["big"])
    else:
        lines, max_rows = form, ROWS
    if not isinstance(lines, list):
        raise ValueError(f"screen lines must be a list of str, not {type(lines).__name__}")
    if len(lines) > max_rows:
        raise ValueError(f"{len(lines)} lines; the OLED shows at most {max_rows} here")
    for line in lines:
        _check_line(line)


def _check_line(line: Any) -> None:
    if not isinstance(line, str):
        raise ValueError(f"screen line {line!r} is not a str")
    if len(line) > COLUMNS:
        raise ValueError(f"screen line {line!r} has {len(line)} characters; at most {COLUMNS} fit")
    if any(not 32 <= ord(ch) < 127 for ch in line):
        raise ValueError(f"screen line {line!r} has characters outside printable ASCII (8x8 font)")
