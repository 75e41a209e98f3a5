"""Reading plain-data procedure inputs (a vector's `inputs` object) with clear errors."""

from __future__ import annotations

from typing import Any

from .registry import RulesError


def int_input(inputs: dict[str, Any], key: str, default: int | None = None, *, minimum: int | None = None) -> int:
    """inputs[key] as an int (or `default` when absent). Raises RulesError when it is missing with no
    default, not an integer (booleans refused), or below `minimum`."""
    value = inputs.get(key, default)
    if value is None:
        raise RulesError(f"input {key!r} is missing: give it as an integer")
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"input {key!r} must be an integer, not {value!r}")
    if minimum is not None and value < minimum:
        raise RulesError(f"input {key!r} must be >= {minimum}, not {value}")
    return value
