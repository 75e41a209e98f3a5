"""The host side of the tower's serial link (docs/protocol.md)."""

from .codec import MAX_FRAME_BYTES, PROTO_VERSION, Frame, FrameError
from .tower_link import Event, LinkError, TowerLink

__all__ = ["TowerLink", "Event", "LinkError", "Frame", "FrameError", "PROTO_VERSION", "MAX_FRAME_BYTES"]
