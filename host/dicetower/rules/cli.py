"""`dicetower resolve` and `dicetower odds`: every rule procedure from the command line (issue 3,
"Must show" 3 and 7).

    dicetower resolve PROCEDURE_ID --input FILE.json   (FILE "-" = stdin)  -> outcome JSON on stdout
    dicetower odds PROCEDURE_ID --input FILE.json [--table]                 -> odds JSON on stdout

The input is one JSON object shaped like a vector's `inputs` (shared/rules/vectors.json). Exit codes:
0 answered; 1 the procedure refused the input (RulesError, or a missing/mistyped input field:
message on stderr, {"error": "..."} on stdout); 2 unknown procedure id (the known ids of that system on stderr and in the JSON) or unreadable
input file (click's usage error).
"""

from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

import click

from dicetower import rules
from dicetower.rules.odds import probability_json

INPUT_HELP = "JSON object shaped like a vector's inputs ('-' reads stdin)"


def _emit(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=2, ensure_ascii=False))


def _fail(message: str, code: int, **extra: Any) -> NoReturn:
    _emit({"error": message, **extra})
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _procedure(proc_id: str) -> rules.Procedure:
    try:
        return rules.get(proc_id)
    except rules.RulesError as exc:
        system = proc_id.split(".", 1)[0]
        known = [p for p in rules.all_ids() if p.startswith(system + ".")] or rules.all_ids()
        _fail(str(exc), 2, known=known)


def _inputs(stream: Any) -> dict[str, Any]:
    name = getattr(stream, "name", "input")
    try:
        data = json.load(stream)
    except json.JSONDecodeError as exc:
        _fail(f"{name} is not valid JSON ({exc}); give an object like a vector's inputs", 1)
    if not isinstance(data, dict):
        _fail(f"{name} holds a JSON {type(data).__name__}; give an object like a vector's inputs", 1)
    return data


@click.command()
@click.argument("procedure_id")
@click.option("--input", "input_file", type=click.File("r", encoding="utf-8"), required=True, help=INPUT_HELP)
def resolve(procedure_id: str, input_file: Any) -> None:
    """Resolve PROCEDURE_ID (a RULES.md id such as d6pool.count_successes) on the inputs in FILE and
    print the outcome as JSON."""
    proc = _procedure(procedure_id)
    inputs = _inputs(input_file)
    try:
        outcome = proc.resolve(inputs)
    except rules.RulesError as exc:
        _fail(str(exc), 1, procedure=procedure_id)
    _emit(outcome)


def certain_odds(proc: rules.Procedure, inputs: dict[str, Any]) -> dict[str, Any]:
    """Odds of a procedure that rolls no dice: its outcome on these inputs, with probability 1."""
    return {"procedure": proc.id, "method": "certain (no dice rolled)",
            "outcomes": [{"outcome": proc.resolve(inputs), **probability_json(1)}]}


def odds_table(odds: dict[str, Any]) -> str:
    """The odds JSON as a readable table: one line per outcome, then the named summaries."""
    rows = [f"{odds['procedure']}  ({odds['method']})"]
    width = max((len(json.dumps(o["outcome"], ensure_ascii=False)) for o in odds["outcomes"]), default=7)
    for o in odds["outcomes"]:
        rows.append(f"  {json.dumps(o['outcome'], ensure_ascii=False):<{width}}  {o['fraction']:>14}  {o['percent']:7.2f}%")
    for key, value in odds.items():
        if isinstance(value, dict) and "percent" in value:
            rows.append(f"  {key}: {value['fraction']} = {value['percent']:.2f}%")
        elif key not in ("procedure", "method", "outcomes") and not isinstance(value, list):
            rows.append(f"  {key}: {value}")
    return "\n".join(rows)


@click.command()
@click.argument("procedure_id")
@click.option("--input", "input_file", type=click.File("r", encoding="utf-8"), required=True, help=INPUT_HELP)
@click.option("--table", is_flag=True, help="print a readable table instead of JSON")
def odds(procedure_id: str, input_file: Any, table: bool) -> None:
    """Exact probability of each outcome of PROCEDURE_ID for the roll described in FILE (e.g.
    {"dice": 7} for d6pool.count_successes), as fractions and percentages. A procedure that rolls no
    dice answers its single certain outcome."""
    proc = _procedure(procedure_id)
    inputs = _inputs(input_file)
    try:
        result = proc.odds(inputs) if proc.odds is not None else certain_odds(proc, inputs)
    except rules.RulesError as exc:
        _fail(str(exc), 1, procedure=procedure_id)
    if table:
        click.echo(odds_table(result))
    else:
        _emit(result)


__all__ = ["resolve", "odds", "certain_odds", "odds_table"]
