"""The simulated board's wire to its controller (dicetower.sim): one TCP connection.

The shims (machine.py, neopixel.py) report every output (PWM, bitstream, I2C writes) as a text
line, and take input commands (button presses) non-blockingly whenever the firmware reads a pin.
The controller's address comes from the environment: DICETOWER_SIM_CTRL=127.0.0.1:PORT.

Lines to the controller:  `pwm PIN FREQ_HZ DUTY_NS`, `bits PIN HEX`, `i2c BUS ADDR HEX`
Lines from the controller: `press PIN MS` (hold an active-low button down for MS ms)
"""
import os
import select
import socket
import time

BOUNCE_MS = 3  # contact bounce (ms) at each edge of a simulated press: the level toggles every ms

_sock = None
_poll = None
_rx = b""
_presses = {}  # pin -> (start_ms, end_ms)


def _connect():
    global _sock, _poll
    if _sock is None:
        addr = os.getenv("DICETOWER_SIM_CTRL")
        if not addr:
            raise OSError("the simulated board needs DICETOWER_SIM_CTRL=HOST:PORT; start it with "
                          "`dicetower sim` or dicetower.sim.SimTower")
        host, port = addr.rsplit(":", 1)
        sock = socket.socket()
        sock.connect(socket.getaddrinfo(host, int(port))[0][-1])
        _poll = select.poll()
        _poll.register(sock, select.POLLIN)
        _sock = sock
    return _sock


def report(line: str) -> None:
    """Send one report line to the controller."""
    data = (line + "\n").encode()
    sock = _connect()
    while data:
        n = sock.send(data)
        data = data[n:]


def _drain() -> None:
    global _rx
    _connect()
    while _poll.poll(0):
        chunk = _sock.recv(256)
        if not chunk:
            raise SystemExit("simulated board: the controller closed the connection")
        _rx += chunk
    while b"\n" in _rx:
        line, _rx = _rx.split(b"\n", 1)
        words = line.decode().split()
        if len(words) == 3 and words[0] == "press":
            start = time.ticks_ms()
            _presses[int(words[1])] = (start, time.ticks_add(start, int(words[2])))


def input_level(pin: int, idle: int) -> int:
    """The level a button pin reads now: `idle` (its pull) unless a press holds it at 0."""
    _drain()
    span = _presses.get(pin)
    if span is None:
        return idle
    now = time.ticks_ms()
    since_start = time.ticks_diff(now, span[0])
    since_end = time.ticks_diff(now, span[1])
    if since_end >= BOUNCE_MS:
        del _presses[pin]
        return idle
    if since_start < BOUNCE_MS:
        return since_start & 1
    if since_end >= 0:
        return idle if since_end & 1 else 0
    return 0
