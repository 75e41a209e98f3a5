"""The `dicetower` command line. Each subcommand lives with the subpackage that does its job and is
imported only when called, so `dicetower resolve` does not pay for OpenCV."""

from __future__ import annotations

import importlib

import click

from dicetower import set_up_process

set_up_process()  # before any subcommand imports numpy

# command name -> "module:attribute" of a click command
COMMANDS = {
    "run": "dicetower.service.cli:run",
    "sim": "dicetower.sim.cli:sim",
    "read": "dicetower.vision.cli:read",
    "calibrate": "dicetower.vision.calibrate_cli:calibrate",
    "resolve": "dicetower.rules.cli:resolve",
    "odds": "dicetower.rules.cli:odds",
    "audit": "dicetower.audit.cli:audit",
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use (see COMMANDS)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        return getattr(importlib.import_module(module_name), attr)

    def invoke(self, ctx: click.Context) -> object:
        """Run the subcommand; a file or folder it cannot use that it did not report itself (a user data
        directory where a file stands, a full disk, no permission: OSError) is one "Error:" line naming the
        path, exit code 1, not a traceback."""
        try:
            return super().invoke(ctx)
        except OSError as exc:
            raise click.ClickException(f"{exc}: check that the path is a folder you may write to and that its "
                                       "disk has room") from exc


@click.group(cls=LazyGroup)
@click.version_option(package_name="dicetower")
def main() -> None:
    """Camera-read dice tower: read dice, resolve rolls, log them, audit fairness."""


if __name__ == "__main__":
    main()
