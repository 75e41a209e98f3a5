"""Every pin and bus of the tower in one place (ESP32 DevKitC v4, see hardware/pinout.md).

The simulated board (firmware/sim) reads the same numbers, so the sim and the real tower agree.
"""
from micropython import const

FW_VERSION = "0.1.0"

# I2C bus 0 to the SSD1306 128x64 OLED (address 0x3C), 400 kHz.
I2C_ID = const(0)
I2C_SDA = const(21)
I2C_SCL = const(22)
I2C_FREQ = const(400_000)
OLED_ADDR = const(0x3C)
OLED_WIDTH = const(128)
OLED_HEIGHT = const(64)

# Gate servo (SG90/MG90S class hobby servo): 50 Hz PWM, pulse 500..2500 us over 0..180 degrees.
SERVO_PIN = const(18)
SERVO_FREQ_HZ = const(50)
SERVO_MIN_US = const(500)
SERVO_MAX_US = const(2500)
SERVO_RANGE_DEG = const(180)
GATE_CLOSED_DEG = const(10)
GATE_OPEN_DEG = const(100)

# WS2812B light ring (12 LEDs, GRB order) around the camera.
RING_PIN = const(13)
RING_COUNT = const(12)

# Panel buttons, active-low: each button shorts its pin to GND, the internal pull-up holds it high.
BTN_ROLL = const(25)
BTN_OK = const(26)
BTN_NO = const(27)

# name -> pin, for the app and the simulated board
BUTTONS = (("roll", BTN_ROLL), ("ok", BTN_OK), ("no", BTN_NO))
