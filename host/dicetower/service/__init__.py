"""The tower service: a ROLL press on the tower -> a camera frame -> dice readings -> the table's rule
procedure -> the roll log -> the result screen on the tower's OLED.

  plan.py     what a ROLL resolves (procedure id and how readings become its inputs)
  roll.py     one roll from frame to logged outcome, no I/O with the tower
  tower.py    the service loop over the tower link (events in, screens out)
  cli.py      `dicetower run`
"""
