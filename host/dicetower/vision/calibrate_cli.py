"""`dicetower calibrate`: learn a dice set's faces, offline from labelled photos or from the readings players
confirmed in the roll log, or guided with the tower's camera (issue 4 item 5). The learned set is then used
by `dicetower read --die-set NAME` and by the service, through faces.classify_crop."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from dicetower.paths import models_dir, user_data_dir


def _store_dir(name: str, store: str) -> Path:
    return (models_dir() if store == "models" else user_data_dir() / "die_sets") / name


def _faces_option(die_type: str, faces: str | None, colours: str | None):
    """FaceClass list for guided calibration from --faces "1,2,3,4,5,logo" (default 1..N) and an
    optional --colours "ruby,gold,..." (one per face)."""
    from dicetower.vision.calibrate import CalibrationError, parse_face
    from dicetower.vision.synth import FACES

    if faces is None:
        if die_type not in FACES:
            raise CalibrationError(f"give --faces for a {die_type!r} (faces are known only for {sorted(FACES)})")
        values = [str(v) for v in range(1, FACES[die_type] + 1)]
    else:
        values = [v.strip() for v in faces.split(",") if v.strip()]
    cols = [c.strip() for c in colours.split(",")] if colours else [""] * len(values)
    if len(cols) != len(values):
        raise CalibrationError(f"--colours gives {len(cols)} colours for {len(values)} faces")
    return [parse_face(die_type, v, c, f"face {i + 1}") for i, (v, c) in enumerate(zip(values, cols))]


@click.command()
@click.option("--die-set", "die_set", required=True, help="Name of the dice set to learn (e.g. alkemy_red).")
@click.option("--from-labels", "labels", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="labels.csv (image,die_type,value,x,y,w,h,colour): calibrate offline from labelled photos.")
@click.option("--from-log", "log_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The tower's roll log (rolls.sqlite): learn the dice players confirmed or corrected, from the "
              "crops the service logged; every face needs --shots of them.")
@click.option("--images-root", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Folder the labels' image paths are relative to (default: the labels file's folder).")
@click.option("--store", type=click.Choice(["user", "models"]), default="user", show_default=True,
              help="Where to keep the set: the user's data directory or the checkout's models/.")
@click.option("--confusion", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the confusion matrix PNG (default: confusion.png in the set's folder).")
@click.option("--augment", type=int, default=1, show_default=True,
              help="Light/blur/centring variants per labelled die, each learned at every turn.")
@click.option("--die-type", default="d6", show_default=True, help="Guided mode: the die to calibrate.")
@click.option("--faces", default=None, help='Guided mode: faces to learn, comma-separated values/symbols, '
              'e.g. "1,2,3,4,5,logo" (default: 1..N of the die type).')
@click.option("--colours", default=None, help="Guided mode: face colours, comma-separated, one per face.")
@click.option("--shots", type=int, default=3, show_default=True,
              help="Guided mode: photos per face; --from-log: the least confirmed dice per face.")
@click.option("--camera", "camera_index", type=int, default=None, help="Guided mode: live camera index.")
@click.option("--tower", "tower_url", metavar="URL", default=None,
              help="Guided mode on the tower's panel: serial port of the tower (/dev/ttyUSB0, socket://HOST:PORT); "
              "the OLED says which face to set, then the player rolls and confirms each reading with OK/NO.")
@click.option("--replay", multiple=True, type=click.Path(dir_okay=False, path_type=Path),
              help="Guided mode: image files served as camera frames, in order (repeatable).")
def calibrate(die_set: str, labels: Path | None, log_path: Path | None, images_root: Path | None, store: str,
              confusion: Path | None, augment: int, die_type: str, faces: str | None, colours: str | None, shots: int,
              camera_index: int | None, tower_url: str | None, replay: tuple[Path, ...]) -> None:
    """Learn the faces of a dice set (custom symbols, logos, face colours) so it can be read.

    Offline: dicetower calibrate --from-labels labels.csv --images-root DIR --die-set NAME.
    From play: dicetower calibrate --from-log rolls.sqlite --die-set NAME (the dice players confirmed).
    Guided: dicetower calibrate --die-set NAME --die-type d6 --faces 1,2,3,4,5,logo --camera 0
    (or --replay FILES...): the CLI says which face to set in the tray and stops when all are learned;
    with --tower PORT the tower's panel guides instead (OLED questions, ROLL and OK/NO buttons).
    Prints the cross-validated accuracy and the confusion matrix (also saved as PNG)."""
    from dicetower.vision.calibrate import (CalibrationError, calibrate as run, learnable_colours, read_labels,
                                            read_log, save_confusion_png)
    from dicetower.vision.camera import FrameError

    out = _store_dir(die_set, store)
    try:
        if labels is not None and log_path is not None:
            raise CalibrationError("give --from-labels or --from-log, not both")
        if log_path is not None:
            if shots < 2:
                raise CalibrationError(f"--shots must be at least 2 (calibration cross-validates each face), "
                                       f"got {shots}")
            logged = read_log(log_path, shots)
            for where in logged.unreadable:
                click.echo(f"left out, crop missing or unreadable: {where}", err=True)
            click.echo(f"{len(logged.samples)} confirmed dice ({logged.corrected} of them corrected) from {log_path}; "
                       f"training {die_set!r} ...")
            ds, report = run(logged.samples, die_set, out_dir=out, n_aug=augment)
        elif labels is not None:
            samples, short = learnable_colours(read_labels(labels, images_root or labels.parent))
            if short:
                click.echo(f"warning: fewer than 2 photos of {', '.join(short)}: the faces are learned without "
                           "their colours (label 2 or more photos of each face in each colour to learn them)", err=True)
            click.echo(f"{len(samples)} labelled dice from {labels}; training {die_set!r} ...")
            ds, report = run(samples, die_set, out_dir=out, n_aug=augment)
        else:
            from dicetower.vision.camera import LiveCamera, ReplayCamera

            camera: ReplayCamera | LiveCamera
            if replay:
                camera = ReplayCamera(list(replay), loop=False)
            elif camera_index is not None:
                camera = LiveCamera(camera_index)
            else:
                raise CalibrationError("guided calibration needs --camera INDEX or --replay FILES "
                                       "(or use --from-labels labels.csv)")
            face_list = _faces_option(die_type, faces, colours)
            if tower_url is not None:
                ds, report = _on_panel(tower_url, camera, face_list, die_set, shots, out)
            else:
                ds, report = _at_keyboard(camera, face_list, die_set, shots, out)
    except (CalibrationError, FrameError, OSError) as exc:
        raise click.ClickException(str(exc)) from exc
    png = save_confusion_png(report, confusion or out / "confusion.png", title=f"{die_set}: cross-validated "
                             f"accuracy {report.accuracy:.3f} (n={report.n})")
    click.echo(report.text())
    click.echo(f"die set {die_set!r} saved in {ds.path}; confusion matrix: {png}")
    click.echo(f"read with: dicetower read --die-set {die_set} IMAGE")


def _at_keyboard(camera, face_list, die_set, shots, out):  # type: ignore[no-untyped-def]
    """Guided calibration answered with the Enter key (or printed prompts without a terminal)."""
    from dicetower.vision.calibrate import guided_calibration

    ask = (lambda prompt: click.prompt(prompt, default="", show_default=False)) if sys.stdin.isatty() \
        else (lambda prompt: click.echo(prompt))
    return guided_calibration(camera, face_list, die_set, shots_per_face=shots, ask=ask, say=click.echo, out_dir=out)


def _on_panel(url: str, camera, face_list, die_set: str, shots: int, out: Path):  # type: ignore[no-untyped-def]
    """Guided calibration on the tower's panel over the serial link at `url` (handshake first).
    LinkError becomes CalibrationError (the message says which port and what to check)."""
    from dicetower.link import LinkError, TowerLink
    from dicetower.vision.calibrate import CalibrationError
    from dicetower.vision.calibrate_panel import panel_calibration

    try:
        with TowerLink(url) as link:
            link.handshake()
            return panel_calibration(link, camera, face_list, die_set, shots_per_face=shots, say=click.echo,
                                     out_dir=out)
    except LinkError as exc:
        raise CalibrationError(str(exc)) from exc
