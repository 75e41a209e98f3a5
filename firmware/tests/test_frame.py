"""Frame codec (frame.py) against the examples of docs/protocol.md, read from the document."""
import json

import frame

DOC = "docs/protocol.md"  # run from the repository root (firmware/tools/run_tests.py does)


def doc_block(tag):
    """Lines of the fenced block tagged `tag` in docs/protocol.md."""
    lines = []
    inside = False
    with open(DOC) as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.strip() == "```" + tag:
                inside = True
            elif inside and line.strip() == "```":
                break
            elif inside:
                lines.append(line)
    assert lines, "no ```%s block in %s" % (tag, DOC)
    return lines


def doc_examples():
    """(frame line, kind, seq, fields) for each example frame."""
    lines = doc_block("frames")
    out = []
    for i in range(0, len(lines), 2):
        kind, seq, fields = lines[i + 1][3:].split(" ", 2)
        out.append((lines[i], kind, int(seq), json.loads(fields)))
    return out


def test_doc_frames_decode_to_their_stated_meaning():
    examples = doc_examples()
    assert len(examples) >= 10
    for line, kind, seq, fields in examples:
        assert frame.decode(line.encode()) == (kind, seq, fields), line


def test_doc_frames_encode_to_the_same_bytes():
    for line, kind, seq, fields in doc_examples():
        assert frame.encode(kind, seq, fields) == (line + "\n").encode(), line


def test_doc_noise_lines_are_rejected():
    noise = doc_block("noise")
    assert len(noise) >= 4
    for line in noise:
        assert frame.decode(line.encode()) is None, line


def test_crlf_and_memoryview_input():
    line = frame.encode("BTN", 7, {"name": "ok", "press": "short"})
    buf = bytearray(line[:-1] + b"\r\n")
    assert frame.decode(memoryview(buf)[:len(buf)]) == ("BTN", 7, {"name": "ok", "press": "short"})


def test_every_byte_flip_is_caught_by_the_crc():
    line = bytearray(frame.encode("SCR", 3, {"0": "d6: 6 5 3 1", "1": "3 successes"}))
    for i in range(len(line) - 1):
        original = line[i]
        line[i] = original ^ 0x01
        assert frame.decode(line) is None, i
        line[i] = original


def test_non_ascii_and_separators_round_trip():
    fields = {"0": "50% | #1 = top", "1": "d\u00e9 \u00e0 6"}
    line = frame.encode("SCR", 9, fields)
    assert line.count(b"|") == 3  # TYPE|SEQ|0=...|1=...: the values' own bars are escaped
    assert frame.decode(line) == ("SCR", 9, fields)


def test_frames_longer_than_the_limit_are_refused():
    try:
        frame.encode("SCR", 1, {"0": "x" * 190})
    except ValueError:
        pass
    else:
        raise AssertionError("a frame over MAX_FRAME bytes was encoded")
    longest = frame.encode("SCR", 255, {str(i): "W" * 16 for i in range(8)})
    assert len(longest) <= frame.MAX_FRAME


def test_seq_wraps_from_255_to_1():
    assert frame.next_seq(0) == 1
    assert frame.next_seq(254) == 255
    assert frame.next_seq(255) == 1


def test_doc_session_frames_are_valid():
    session = doc_block("session")
    assert len(session) >= 10
    for line in session:
        who, _, rest = line.partition(" -> ")
        assert who.strip() in ("host", "tower"), line
        assert frame.decode(rest.split("  ")[0].encode()) is not None, line
