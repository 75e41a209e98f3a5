"""`dicetower sim`: the simulated tower in the foreground, for a service or a terminal to talk to."""

from __future__ import annotations

import signal
import threading

import click


@click.command()
@click.option("--quiet", is_flag=True, help="Print only the serial URL, not the OLED's changes.")
def sim(quiet: bool) -> None:
    """Start the simulated tower (the unchanged firmware in micropython) and print its serial URL
    (socket://127.0.0.1:PORT, for `dicetower run --port URL` or pyserial) until Ctrl-C. Prints the
    OLED's text each time it changes. Ctrl-C (SIGINT) sets an event the loop waits on: a KeyboardInterrupt
    raised wherever the main thread happens to be (inside the board's condition wait, say) may leave a lock
    held, and once in CI the command had not exited 15 s after SIGINT."""
    from .firmware_info import FirmwareError
    from .tower import SimTower

    try:
        tower = SimTower().start()
    except FirmwareError as exc:
        raise click.ClickException(str(exc)) from None
    stop = threading.Event()
    signal.signal(signal.SIGINT, lambda signum, frame: stop.set())
    try:
        click.echo(tower.serial_url, nl=True)
        click.echo(f"simulated tower, firmware {tower.fw_version}: serial at {tower.serial_url}; Ctrl-C to stop", err=True)
        shown: list[str] = []
        while tower.running and not stop.is_set():
            lines = tower.oled_lines()
            if lines != shown and not quiet:
                shown = lines
                big = tower.oled_big()
                click.echo("OLED | " + (f"[{big}] " if big else "") + " / ".join(l for l in lines if l.strip() and "\ufffd" not in l))
            tower.wait_until(lambda: tower.oled_lines() != shown or not tower.running or stop.is_set(), 1.0)
        if not stop.is_set():
            raise click.ClickException("the simulated firmware stopped:\n" + tower.stderr)
    finally:
        tower.close()
