"""`dicetower run`: the tower service, on the simulated tower unless a serial port is named."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from pathlib import Path

import click

from dicetower import paths
from dicetower.readings import DieReading

from .roll import RollResult

def demo_feed() -> list[Path]:
    """The shipped replay feed: real photos in demo/matteop65 (MIT, see its ATTRIBUTION.md)."""
    return image_files((str(paths.repo_root() / "demo" / "matteop65"),))


def image_files(items: tuple[str, ...]) -> list[Path]:
    """Image files named directly or standing for the named folders (vision.camera.folder_images: a folder's
    own image files in name order, or those below it when it holds none), in the order given.
    Raises click.BadParameter when a path does not exist or holds no image."""
    from dicetower.vision.camera import IMAGE_SUFFIXES, folder_images

    files: list[Path] = []
    for item in items:
        path = Path(item)
        if path.is_dir():
            files += folder_images(path)
        elif path.is_file():
            files.append(path)
        else:
            raise click.BadParameter(f"{item}: no such file or folder", param_hint="--replay")
    if not files:
        raise click.BadParameter(f"no image files ({' '.join(IMAGE_SUFFIXES)}) found", param_hint="--replay")
    return files


def describe(result: RollResult) -> str:
    """One printed line per roll: the dice read, flags (UNSURE; NOT A DIE: a person said no die lies there) and
    the logged outcome."""

    def die(i: int, r: DieReading) -> str:
        flag = (" UNSURE" if r.unsure else "") + (" NOT A DIE" if i in result.not_dice else "")
        return f"{r.die_type}={'?' if r.value is None else r.value}({r.confidence:.2f}{flag})"

    dice = " ".join(die(i, r) for i, r in enumerate(result.readings)) or "(no dice)"
    return f"roll #{result.roll_id} from {Path(result.frame_source).name}: {dice}"


@click.command()
@click.option("--port", metavar="URL", help="Serial port of a real tower (/dev/ttyUSB0, socket://HOST:PORT). "
              "Default: start the simulated tower.")
@click.option("--camera", "camera_index", type=int, metavar="INDEX", help="Live camera (cv2.VideoCapture index).")
@click.option("--replay", multiple=True, metavar="PATH", help="Replay camera: image files or folders (repeatable). "
              "Default: the shipped demo feed.")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Roll log SQLite file (default: rolls.sqlite in the user's data directory).")
@click.option("--table", "table_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Table profile (TOML): rule system, characters, what ROLL resolves.")
@click.option("--die-set", default=None, help="Calibrated dice set to read with (see `dicetower calibrate`).")
@click.option("--rolls", type=int, default=None, help="Press ROLL this many times by itself, then exit 0 (simulated tower).")
@click.option("--camera-turn", type=click.Choice(["0", "90", "180", "270"]), default="0", show_default=True,
              help="Turn each frame this many degrees clockwise before reading, for a webcam strapped with its "
              "image's top elsewhere than toward the tray's back wall: 90 when the back wall shows at the frame's "
              "left, 180 at its bottom, 270 at its right (see it with --annotate).")
@click.option("--annotate", "annotate_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              metavar="DIRECTORY", help="Save each roll's annotated frame (boxes, values, confidences, the dice "
              "numbered as the tower's prompts number them) as DIR/roll-<roll id>.png, and the frame of the roll "
              "the tower is asking about as DIR/asking.png.")
def run(port: str | None, camera_index: int | None, replay: tuple[str, ...], log_path: Path | None,
        table_path: Path | None, die_set: str | None, rolls: int | None, camera_turn: str,
        annotate_dir: Path | None) -> None:
    """Run the tower service. In the terminal: `r` presses ROLL (simulated tower), `y`/`n` answer an
    unsure reading (`n` also declines an optional re-throw), `x` says no die lies where it was read, `q` quits."""
    from dicetower.audit.rolllog import LogError, RollLog
    from dicetower.audit.sprt import FairnessWatch
    from dicetower.link import LinkError, TowerLink
    from dicetower.vision.camera import FrameError, LiveCamera, ReplayCamera, TurnedCamera
    from dicetower.vision.reader import DiceReader

    from .roll import RollPipeline
    from .plan import RollPlan
    from .table import ProfileError, Table
    from .tower import ASKING_FRAME, TowerService

    if rolls is not None and port:
        raise click.UsageError("--rolls presses ROLL on the simulated tower; it cannot press a real tower's button")
    try:
        camera: LiveCamera | ReplayCamera | TurnedCamera = (
            LiveCamera(camera_index) if camera_index is not None
            else ReplayCamera(image_files(replay) if replay else demo_feed()))
    except FrameError as exc:  # no such camera, or one another program holds: the message says what to check
        raise click.ClickException(str(exc)) from exc
    if camera_turn != "0":
        camera = TurnedCamera(camera, int(camera_turn))
    log_path = log_path or paths.default_log_path()
    try:
        table = Table(table_path) if table_path else None
        idle_line = table.idle_line() if table else "d6 pool: ROLL"
    except ProfileError as exc:  # the message names the file and the field to fix
        raise click.ClickException(str(exc)) from exc
    plan = table.plan if table else RollPlan()
    try:  # a calibrated set reads the dice it was calibrated on: it takes no die types, and refuses those a table names
        reader = DiceReader(die_set, die_types=plan.die_types if die_set else plan.types_in_play())
    except (ValueError, LookupError) as exc:  # an unknown die set, die types in play named with one
        raise click.ClickException(str(exc)) from exc

    with contextlib.ExitStack() as stack:
        try:  # opened first: a log that cannot be used (another kind of file, a corrupt one) stops nothing started
            log = stack.enter_context(RollLog(log_path, tower=port or "sim"))
        except LogError as exc:  # the message names the file and what to do
            raise click.ClickException(str(exc)) from exc
        sim = None
        if port is None:
            from dicetower.sim import SimTower

            sim = stack.enter_context(SimTower())
            port = sim.serial_url
            click.echo(f"simulated tower running; serial link at {port}")
        try:
            link = TowerLink(port)
        except LinkError as exc:  # an unplugged cable, a wrong port name: the message says what to check
            raise click.ClickException(str(exc)) from exc
        stack.callback(link.close)

        def show(result: RollResult) -> None:
            click.echo(describe(result))
            if result.annotated is not None:
                click.echo(f"annotated frame: {result.annotated}")
            click.echo("outcome: " + ", ".join(f"{k}={v}" for k, v in result.outcome.items()))
            for change in result.state_changes:
                click.echo(f"table state: {change}")
            click.echo("screen: " + (f"[{result.big}] " if result.big else "") + " | ".join(result.screen))
            if sim is not None:
                sim.wait_until(lambda: sim.shows(result.screen, result.big), 5.0)
                click.echo(sim.oled_text_art())

        service = TowerService(link, camera, RollPipeline(reader, log, plan, table),
                               idle_line=idle_line, on_result=show, watch=FairnessWatch(),
                               on_alarm=lambda alarm: click.echo(alarm.message, err=True),
                               on_error=lambda reason: click.echo(f"roll not resolved: {reason}", err=True),
                               on_prompt=lambda lines: click.echo("tower asks: " + " | ".join(filter(None, lines)) + (
                                   f" (frame: {annotate_dir / ASKING_FRAME})" if annotate_dir else "")),
                               confirm_timeout_s=2.0 if rolls is not None else 30.0,
                               settle=camera_index is not None, annotate_dir=annotate_dir)
        try:
            hello = link.handshake()
            click.echo(f"tower firmware {hello.get('fw')} (protocol {hello.get('proto')}); roll log {log_path}")
            _serve(service, sim, rolls)
        except LinkError as exc:
            detail = f"\nfirmware output:\n{sim.stderr}" if sim is not None and sim.stderr else ""
            raise click.ClickException(f"{exc}{detail}") from exc
        if rolls is not None:
            n = len(service.results)
            click.echo(f"{n} roll{'' if n == 1 else 's'} logged to {log_path}")
            if service.failures:
                raise click.ClickException(f"{len(service.failures)} of {rolls} rolls failed: " + "; ".join(service.failures))


def _serve(service, sim, rolls: int | None) -> None:  # type: ignore[no-untyped-def]
    """Press ROLL `rolls` times on the simulated tower and handle each, or serve interactively."""
    service.start()
    if rolls is None:
        _interactive(service, sim)
        return
    for _ in range(rolls):
        before = len(service.results) + len(service.failures)
        sim.press("roll")
        deadline = time.monotonic() + 60
        while len(service.results) + len(service.failures) == before:
            if time.monotonic() > deadline:
                raise click.ClickException("the tower sent no ROLL within 60 s of the press")
            service.poll(0.1)


@contextlib.contextmanager
def _cbreak():
    """Single-key input without echo while keeping output processing (cbreak, not raw: printed
    lines still start at the left margin, Ctrl-C still interrupts). No-op when stdin is no terminal."""
    if not sys.stdin.isatty():
        yield
        return
    import termios
    import tty

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    try:
        tty.setcbreak(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


def takes_key(typed: str, key: str) -> bool:
    """Whether a key pressed at the terminal goes into the correction being typed (typed: its keys so far, sent
    on Enter as "SET <typed>"): digits, the "d" that starts a die type, and one space after the type ("d8 5")."""
    return key.isdigit() or (key == "d" and not typed) or (key == " " and typed[:1] == "d" and " " not in typed)


def _interactive(service, sim) -> None:  # type: ignore[no-untyped-def]
    """Keys: r = press ROLL (simulated tower), y/n = keep or drop again an unsure reading, x = no die lies there
    (a side face, a shadow: left out of the roll), digits then Enter = correct it to that value, a die type, a
    space and the value (e.g. d8 5) then Enter = correct its type and value, n = decline an optional re-throw (a
    mulligan) and keep the throw as it is, q = quit."""
    quit_flag = threading.Event()

    def keys() -> None:
        typed = ""  # a correction ("5", "d8 5"), sent on Enter
        while not quit_flag.is_set():
            key = sys.stdin.read(1)
            if takes_key(typed, key):
                typed += key
                click.echo(key, nl=False)
                continue
            if key in ("\n", "\r") and typed:
                click.echo("")
                service.answers.put(f"SET {typed}")
            typed = ""
            if key in ("", "q", "\x04"):  # end of input, q, Ctrl-D
                quit_flag.set()
            elif key == "r":
                if sim is None:
                    click.echo("press the ROLL button on the tower", err=True)
                else:
                    sim.press("roll")
            elif key in ("y", "n", "x"):
                service.answers.put({"y": "OK", "n": "NO", "x": "NOT_A_DIE"}[key])

    unsure = ("y/n = keep/re-throw an unsure die, x = it is no die, its value (or type and value: d8 5) + Enter = "
              "correct it, n = keep a throw whose re-throw is optional")
    click.echo(f"r = ROLL, {unsure}, q = quit" if sim else f"press ROLL on the tower; {unsure}; q = quit")
    with _cbreak():
        threading.Thread(target=keys, daemon=True).start()
        try:
            while not quit_flag.is_set():
                service.poll(0.1)
        except KeyboardInterrupt:
            pass
