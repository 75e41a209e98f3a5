"""Rules engine: every procedure of the five seed systems (ids from shared/rules/RULES.md).

One module per system: throwing_stones, alkemy, talon, stepdie, d6pool. Use `get(proc_id)` or
`resolve(proc_id, inputs)`; both raise KeyError-free RulesError with the known ids on a bad id.
"""

from __future__ import annotations

import importlib
from typing import Any

from .registry import REGISTRY, Outcome, Procedure, RulesError, procedure

SYSTEMS = ("throwing_stones", "alkemy", "talon", "stepdie", "d6pool")


def _load() -> None:
    for name in SYSTEMS:
        try:
            importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:  # a system not written yet
            if exc.name != f"{__name__}.{name}":
                raise


def get(proc_id: str) -> Procedure:
    """The procedure with this RULES.md id. Raises RulesError naming the known ids when unknown."""
    _load()
    try:
        return REGISTRY[proc_id]
    except KeyError:
        system = proc_id.split(".", 1)[0]
        known = sorted(p for p in REGISTRY if p.startswith(system + ".")) or sorted(REGISTRY)
        raise RulesError(f"unknown procedure {proc_id!r}; known: {', '.join(known)}") from None


def resolve(proc_id: str, inputs: dict[str, Any]) -> Outcome:
    """Resolve one procedure on plain-data inputs (a vector's `inputs`). Raises RulesError."""
    return get(proc_id).resolve(inputs)


def all_ids() -> list[str]:
    """Every registered procedure id, sorted."""
    _load()
    return sorted(REGISTRY)


__all__ = ["SYSTEMS", "Outcome", "Procedure", "RulesError", "procedure", "get", "resolve", "all_ids"]
