"""The reading of one die: what the vision produces and the rules engine and roll log consume."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: Below this confidence (0..1) a reading is unsure: the player must confirm it or drop the die again
#: (RULES.md GEN-D01). Never resolved in silence.
UNSURE_BELOW = 0.80


@dataclass
class DieReading:
    """One die read from one frame.

    die_type:   "d4" | "d6" | "d8" | "d10" | "d12" | "d20" | "stone" (a Throwing Stones stone)
    value:      face value (1..N), or None for faces that carry symbols only
    box:        (x, y, w, h) in pixels of the frame: top-left corner, width, height
    confidence: 0..1, the classifier's confidence in value/face
    colour:     body colour name (e.g. "white", "yellow", "red") or None when unknown
    face_colour: colour of the up face (Throwing Stones: "ruby", "gold", "silver", "rainbow") or None
    symbols:    symbol ids on the up face (custom dice), empty for plain numbered/pip dice
    die_id:     identity of the physical die (stone id, registered die), or None
    cocked:     True when the die is not lying flat (GEN-D01: to be thrown again)
    alternatives: the classifier's next most probable faces, (die_type, value), best first
                (faces.FaceResult.alternatives); empty for readings that rank none (pip faces)
    """

    die_type: str
    value: int | None
    box: tuple[int, int, int, int]
    confidence: float
    colour: str | None = None
    face_colour: str | None = None
    symbols: list[str] = field(default_factory=list)
    die_id: str | None = None
    cocked: bool = False
    alternatives: list[tuple[str, int]] = field(default_factory=list)

    @property
    def unsure(self) -> bool:
        """True when the reading must be confirmed by a person (low confidence or cocked)."""
        return self.cocked or self.confidence < UNSURE_BELOW

    def guess_label(self, die_type: str, value: int) -> str:
        """How a face the reader may have read instead (one of alternatives) is shown beside this reading
        on the OLED and the annotated frame: its value for a face of the type read ("16"), else "d8:3"."""
        return str(value) if die_type == self.die_type else f"{die_type}:{value}"

    def to_json(self) -> dict[str, Any]:
        """JSON form used by `dicetower read --json`: die_type, value, box [x,y,w,h], confidence, plus
        colour/symbols/die_id/cocked/unsure when they carry information, and for an unsure reading its
        alternatives, best first, as [{"die_type", "value"}, ...] when it has any (what a person checking it
        may find instead)."""
        out: dict[str, Any] = {
            "die_type": self.die_type,
            "value": self.value,
            "box": [int(v) for v in self.box],
            "confidence": round(float(self.confidence), 4),
        }
        extra = asdict(self)
        for key in ("colour", "face_colour", "die_id"):
            if extra[key] is not None:
                out[key] = extra[key]
        if self.symbols:
            out["symbols"] = list(self.symbols)
        if self.cocked:
            out["cocked"] = True
        out["unsure"] = self.unsure
        if self.unsure and self.alternatives:
            out["alternatives"] = [{"die_type": t, "value": int(v)} for t, v in self.alternatives]
        return out

    @classmethod
    def from_json(cls, obj: dict[str, Any]) -> "DieReading":
        """Inverse of to_json. Raises KeyError/TypeError on a malformed object."""
        return cls(
            die_type=str(obj["die_type"]),
            value=None if obj.get("value") is None else int(obj["value"]),
            box=tuple(int(v) for v in obj.get("box", (0, 0, 0, 0))),  # type: ignore[arg-type]
            confidence=float(obj.get("confidence", 1.0)),
            colour=obj.get("colour"),
            face_colour=obj.get("face_colour"),
            symbols=list(obj.get("symbols", [])),
            die_id=obj.get("die_id"),
            cocked=bool(obj.get("cocked", False)),
            alternatives=[(str(a["die_type"]), int(a["value"])) for a in obj.get("alternatives", [])],
        )
