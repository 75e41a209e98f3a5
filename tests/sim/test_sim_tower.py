"""The simulated tower for real: the unchanged firmware in micropython, pyserial on its socket URL."""

import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
import serial

from dicetower.link import Frame, FrameError, TowerLink
from dicetower.sim import SimTower

WHITE = (255, 255, 255)


@pytest.fixture(scope="module")
def tower():
    with SimTower() as t:
        yield t


@pytest.fixture
def link(tower):
    with TowerLink(tower.serial_url) as link:
        link.handshake()
        yield link


def test_boots_to_its_boot_screen(tower):
    lines = tower.oled_lines()
    assert lines[0] == "DICE TOWER" and lines[1] == f"fw {tower.fw_version}"
    assert tower.servo_angle == pytest.approx(tower.servo_closed_deg, abs=0.5)


def test_roll_press_drops_lights_and_reaches_the_host(tower, link):
    link.set_light("idle")
    assert tower.wait_until(lambda: tower.leds and tower.leds[0] != WHITE, 5)
    before = len(tower.servo_history)
    tower.press("roll")
    event = link.next_event(10)
    assert event is not None and event.type == "ROLL"
    moves = tower.servo_history[before:]
    assert moves == pytest.approx([tower.servo_open_deg, tower.servo_closed_deg], abs=0.5)
    assert tower.leds == [WHITE] * 12
    assert tower.oled_lines()[3] == "rolling..."
    link.show_screen(["d6: 6 5 3 1", "", "3 successes"])
    assert tower.wait_until(lambda: tower.oled_lines()[:3] == ["d6: 6 5 3 1", "", "3 successes"], 5), tower.oled_text_art()
    link.show_screen(["d6: 6 6 5", "successes"], big="4")
    assert tower.wait_until(lambda: tower.oled_big() == "4", 5), tower.oled_text_art()
    assert tower.oled_lines()[5:7] == ["d6: 6 6 5", "successes"]
    link.set_light("idle")
    assert tower.wait_until(lambda: tower.leds[0] == (12, 8, 4), 5)
    assert tower.board.errors == []  # every report of the shims was understood


def test_ok_short_and_no_long_presses_become_btn_events(tower, link):
    tower.press("ok")
    event = link.next_event(10)
    assert (event.type, event.fields) == ("BTN", {"name": "ok", "press": "short"})
    tower.press("no", ms=1500)
    event = link.next_event(10)
    assert (event.type, event.fields) == ("BTN", {"name": "no", "press": "long"})
    assert link.next_event(0.3) is None  # the long press's release is not also a short press


def test_idle_line_and_png(tower, link, tmp_path):
    cv2 = pytest.importorskip("cv2")
    link.show_idle("P(3+ successes) = 42.1%")
    assert tower.wait_until(lambda: tower.oled_lines()[2:4] == ["P(3+ successes)", "= 42.1%"], 5)
    png = cv2.imread(str(tower.save_png(tmp_path / "idle.png")), cv2.IMREAD_GRAYSCALE)
    assert png.shape == (256, 512)
    assert np.array_equal(png[::4, ::4] > 0, tower.framebuffer().astype(bool))
    art = tower.oled_text_art()
    assert len(art.split("\n")) == 32 and "\u2588" in art


def test_unknown_button_is_refused(tower):
    with pytest.raises(ValueError, match="unknown button 'go'.*no, ok, roll"):
        tower.press("go")


def test_port_can_be_reopened_by_pyserial(tower):
    for _ in range(2):
        with TowerLink(tower.serial_url) as link:
            assert link.handshake()["fw"] == tower.fw_version
    port = serial.serial_for_url(tower.serial_url, timeout=1)
    port.close()


def test_close_stops_the_firmware_and_the_port():
    t = SimTower().start()
    url = t.serial_url
    assert t.running
    t.close()
    assert not t.running
    host, port = url.removeprefix("socket://").split(":")
    with pytest.raises(OSError):
        socket.create_connection((host, int(port)), timeout=1)


def test_a_host_connecting_after_start_gets_no_boot_announcement():
    # start() returns once the firmware has announced BOOT to nobody, as a tower booted before the
    # cable went in: the first host's first event is then the first press, not a stale BOOT
    with SimTower() as t, TowerLink(t.serial_url) as link:
        link.handshake()
        t.press("ok")
        event = link.next_event(10)
        assert event is not None and (event.type, event.fields) == ("BTN", {"name": "ok", "press": "short"})


def test_dicetower_sim_command_serves_until_interrupted():
    proc = subprocess.Popen([sys.executable, "-m", "dicetower.cli", "sim", "--quiet"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("socket://127.0.0.1:")
        with TowerLink(url) as link:
            assert link.handshake()["proto"] == 1
        proc.send_signal(signal.SIGINT)
        assert proc.wait(15) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def read_frames(port, count: int, limit_s: float = 10.0) -> list:
    """The next `count` frames read by pyserial (noise lines skipped)."""
    frames = []
    deadline = time.monotonic() + limit_s
    while len(frames) < count and time.monotonic() < deadline:
        line = port.readline()
        try:
            frames.append(Frame.decode(line))
        except FrameError:
            continue
    return frames


def test_firmware_acks_a_repeat_but_draws_once_and_ignores_noise(tower):
    with serial.serial_for_url(tower.serial_url, timeout=0.5) as port:
        scr = Frame("SCR", 200, {"0": "repeat test"}).encode()
        port.write(b"garbage line\n" + scr[:-4] + b"zzz\n" + scr)  # noise, a corrupted copy, the frame
        assert [(f.kind, f.seq) for f in read_frames(port, 1)] == [("ACK", 200)]
        assert tower.wait_until(lambda: tower.oled_lines()[0] == "repeat test", 5)
        writes = tower.board.oled.writes
        port.write(scr)  # the host's resend after a lost ACK
        assert [(f.kind, f.seq) for f in read_frames(port, 1)] == [("ACK", 200)]
        assert tower.board.oled.writes == writes  # acknowledged again, not drawn again


def test_firmware_resends_roll_until_acknowledged(tower):
    with serial.serial_for_url(tower.serial_url, timeout=0.5) as port:
        tower.press("roll")
        first, again = read_frames(port, 2)
        assert first.kind == "ROLL" and again == first  # same seq: a resend, not a new roll
        port.write(Frame("ACK", first.seq).encode())
        time.sleep(0.6)  # let a resend already on its way arrive before listening
        port.reset_input_buffer()
        later = read_frames(port, 1, limit_s=1.5)
        assert later == []  # acknowledged: no more resends
