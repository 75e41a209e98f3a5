"""The simulated tower: the unchanged firmware in a real micropython process on a simulated board
(servo, light ring, OLED, buttons), its serial link on a TCP port that pyserial opens."""

from .firmware_info import FirmwareError
from .tower import SimTower

__all__ = ["SimTower", "FirmwareError"]
