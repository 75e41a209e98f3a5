"""Frame codec (dicetower.link.codec) against docs/protocol.md and against the firmware's codec run
on the real micropython."""

import ast
import json
import re
import subprocess

import pytest

from dicetower import paths
from dicetower.link import Frame, FrameError
from dicetower.link.codec import MAX_FRAME_BYTES, next_seq
from dicetower.link.tower_link import FIRMWARE_VERSION, LIGHT_MODES
from dicetower.sim.firmware_info import firmware_env, micropython_path

DOC = paths.repo_root() / "docs" / "protocol.md"


def doc_block(tag: str) -> list[str]:
    """Lines of the fenced block tagged `tag` in docs/protocol.md."""
    match = re.search(rf"^```{tag}\n(.*?)^```", DOC.read_text(), re.S | re.M)
    assert match, f"no ```{tag} block in {DOC}"
    return match.group(1).splitlines()


def doc_examples() -> list[tuple[str, Frame]]:
    lines = doc_block("frames")
    out = []
    for line, meaning in zip(lines[::2], lines[1::2]):
        kind, seq, fields = meaning.removeprefix("=> ").split(" ", 2)
        out.append((line, Frame(kind, int(seq), json.loads(fields))))
    return out


@pytest.mark.parametrize("line,frame", doc_examples(), ids=lambda x: x.split("#")[0] if isinstance(x, str) else "")
def test_doc_example_decodes_and_encodes_back(line, frame):
    assert Frame.decode(line.encode()) == frame
    assert frame.encode() == (line + "\n").encode()


@pytest.mark.parametrize("line", doc_block("noise"))
def test_doc_noise_line_is_refused(line):
    with pytest.raises(FrameError):
        Frame.decode(line.encode())


def test_doc_session_lines_are_frames():
    session = doc_block("session")
    assert len(session) >= 10
    for line in session:
        who, _, rest = line.partition(" -> ")
        assert who.strip() in ("host", "tower")
        Frame.decode(rest.split("  ")[0].encode())


def test_host_and_firmware_codecs_write_the_same_bytes():
    """The same messages encoded by firmware/frame.py on micropython and by the host codec."""
    frames = [Frame("SCR", 200, {"0": "50% | #1 = top", "1": "d\u00e9 \u00e0 6", "big": "12"}),
              Frame("BTN", 255, {"name": "no", "press": "long"}), Frame("ROLL", 0, {}),
              Frame("IDLE", 17, {"text": "P(k>=3) = 0.421\tnext"})]
    script = "import frame, sys\n" + "".join(
        f"sys.stdout.write(frame.encode({f.kind!r}, {f.seq}, {f.fields!r}).decode())\n" for f in frames)
    proc = subprocess.run([micropython_path(), "-c", script], env=firmware_env(), capture_output=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines(keepends=True) == [f.encode() for f in frames]


def test_every_single_byte_change_is_refused():
    line = bytearray(Frame("SCR", 3, {"0": "d6: 6 5 3 1", "1": "3 successes"}).encode())
    for i in range(len(line) - 1):
        for bit in (0x01, 0x20):
            changed = bytearray(line)
            changed[i] ^= bit
            with pytest.raises(FrameError):
                Frame.decode(bytes(changed))


def test_bad_frames_are_refused_with_a_reason():
    with pytest.raises(FrameError, match="over the 200-byte limit"):
        Frame("SCR", 1, {"0": "x" * 190}).encode()
    with pytest.raises(FrameError, match="upper-case"):
        Frame("roll", 1).encode()
    with pytest.raises(FrameError, match="field name"):
        Frame("SCR", 1, {"Line": "x"}).encode()
    with pytest.raises(FrameError, match="outside 0..255"):
        Frame("ROLL", 256).encode()
    assert len(Frame("SCR", 255, {str(i): "W" * 16 for i in range(8)}).encode()) <= MAX_FRAME_BYTES


def test_seq_wraps_to_one():
    assert [next_seq(s) for s in (0, 1, 254, 255)] == [1, 2, 255, 1]


def test_host_expects_the_firmware_of_this_checkout():
    board = (paths.firmware_dir() / "board.py").read_text()
    assert re.search(r'^FW_VERSION = "([^"]+)"', board, re.M).group(1) == FIRMWARE_VERSION
    tree = ast.parse((paths.firmware_dir() / "lightring.py").read_text())
    modes = next(node.value for node in tree.body if isinstance(node, ast.Assign) and node.targets[0].id == "MODES")
    assert tuple(k.value for k in modes.keys) == LIGHT_MODES
