"""Shared fixtures for the face-classifier tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def user_data(tmp_path, monkeypatch):
    """A private user data directory (XDG_DATA_HOME) so calibrated sets do not touch the user's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    from dicetower.paths import user_data_dir

    return user_data_dir()
