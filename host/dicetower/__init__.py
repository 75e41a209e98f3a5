"""dicetower: host software for the camera-read dice tower.

Subpackages, one job each:
  link     framed serial messages to and from the tower (pyserial)
  sim      the simulated tower: the unchanged firmware in a real micropython process
  vision   cameras, dice detection, face reading, calibration
  rules    the rules engine of the five seed systems (procedure ids of shared/rules/RULES.md)
  audit    the roll log (SQLite) and the fairness statistics
  service  the tower service that joins them: ROLL -> frame -> readings -> outcome -> log -> display
"""

__version__ = "0.1.0"
