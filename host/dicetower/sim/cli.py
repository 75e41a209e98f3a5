"""`dicetower sim`: the simulated tower in the foreground, for a service or a terminal to talk to."""

from __future__ import annotations

import click


@click.command()
@click.option("--quiet", is_flag=True, help="Print only the serial URL, not the OLED's changes.")
def sim(quiet: bool) -> None:
    """Start the simulated tower (the unchanged firmware in micropython) and print its serial URL
    (socket://127.0.0.1:PORT, for `dicetower run --port URL` or pyserial) until Ctrl-C. Prints the
    OLED's text each time it changes."""
    from .firmware_info import FirmwareError
    from .tower import SimTower

    try:
        tower = SimTower().start()
    except FirmwareError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        click.echo(tower.serial_url, nl=True)
        click.echo(f"simulated tower, firmware {tower.fw_version}: serial at {tower.serial_url}; Ctrl-C to stop", err=True)
        shown: list[str] = []
        while tower.running:
            lines = tower.oled_lines()
            if lines != shown and not quiet:
                shown = lines
                big = tower.oled_big()
                click.echo("OLED | " + (f"[{big}] " if big else "") + " / ".join(l for l in lines if l.strip() and "\ufffd" not in l))
            tower.wait_until(lambda: tower.oled_lines() != shown or not tower.running, 1.0)
        raise click.ClickException("the simulated firmware stopped:\n" + tower.stderr)
    except KeyboardInterrupt:
        pass
    finally:
        tower.close()
