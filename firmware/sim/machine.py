"""Simulated `machine` for the unix port: Pin, PWM, I2C and bitstream, as the firmware uses them.

Outputs are reported to the simulation controller and inputs come from it (see _simbus.py). Only
the calls the firmware makes are here; anything else raises AttributeError, as a missing feature
would on a port that lacks it.
"""
import _simbus

I2C_DEVICES = (0x3C,)  # what is wired on the simulated bus: the SSD1306 OLED


class Pin:
    """A GPIO. Inputs with PULL_UP read 1 unless the controller presses the button on them."""

    IN = 1
    OUT = 3
    OPEN_DRAIN = 7
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, id, mode=-1, pull=-1, value=None):
        self.id = id
        self._mode = mode
        self._pull = pull
        self._out = 0 if value is None else value

    def init(self, mode=-1, pull=-1, value=None):
        if mode != -1:
            self._mode = mode
        if pull != -1:
            self._pull = pull
        if value is not None:
            self._out = value

    def value(self, v=None):
        if v is not None:
            self._out = 1 if v else 0
            return None
        if self._mode == Pin.OUT:
            return self._out
        return _simbus.input_level(self.id, 1 if self._pull == Pin.PULL_UP else 0)

    def __call__(self, v=None):
        return self.value(v)

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


class PWM:
    """PWM output; every change of frequency or duty is reported as `pwm PIN FREQ DUTY_NS`."""

    def __init__(self, dest, *, freq=0, duty_u16=None, duty_ns=None, invert=0):
        self._pin = dest.id if isinstance(dest, Pin) else dest
        self._freq = 0
        self._duty_ns = 0
        self.init(freq=freq, duty_u16=duty_u16, duty_ns=duty_ns)

    def init(self, *, freq=0, duty_u16=None, duty_ns=None, invert=0):
        if freq:
            self._freq = freq
        if duty_ns is not None:
            self._duty_ns = duty_ns
        elif duty_u16 is not None:
            self._duty_ns = self._u16_to_ns(duty_u16)
        self._report()

    def _u16_to_ns(self, u16):
        return u16 * 1_000_000_000 // (self._freq * 65535) if self._freq else 0

    def _report(self):
        _simbus.report("pwm %d %d %d" % (self._pin, self._freq, self._duty_ns))

    def freq(self, value=None):
        if value is None:
            return self._freq
        self._freq = value
        self._report()

    def duty_ns(self, value=None):
        if value is None:
            return self._duty_ns
        self._duty_ns = value
        self._report()

    def duty_u16(self, value=None):
        if value is None:
            return self._duty_ns * self._freq * 65535 // 1_000_000_000
        self._duty_ns = self._u16_to_ns(value)
        self._report()

    def deinit(self):
        self._freq = 0
        self._duty_ns = 0
        self._report()


class I2C:
    """I2C controller; writes are reported as `i2c BUS ADDR HEX`. Devices: I2C_DEVICES."""

    def __init__(self, id=0, *, scl=None, sda=None, freq=400_000, timeout=50_000):
        self._id = id

    def scan(self):
        return list(I2C_DEVICES)

    def writeto(self, addr, buf, stop=True):
        if addr not in I2C_DEVICES:
            raise OSError(19)  # ENODEV: no device acknowledged the address, as on the ESP32
        _simbus.report("i2c %d %d %s" % (self._id, addr, bytes(buf).hex()))
        return len(buf)


def bitstream(pin, encoding, timing, buf):
    """Send `buf` bit by bit on `pin` (the WS2812 signal): reported as `bits PIN HEX`."""
    _simbus.report("bits %d %s" % (pin.id, bytes(buf).hex()))
