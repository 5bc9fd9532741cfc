"""Reading the label files ``twin frames`` writes beside each frame: JSON
only, importing neither the renderer (PyBullet) nor SciPy, so that a
recogniser's scores (``bench recognize``) need no twin extra."""

from __future__ import annotations

import json
from pathlib import Path

NOT_LABELS = ("calibration.json", "coco.json")


class NotLabels(ValueError):
    """A JSON file in a frames folder that is not a frame's labels (its path in the message)."""


def read_labels(folder: str | Path, *, moment: str | None = None) -> list[dict]:
    """Every frame label of ``folder``, in name order (``calibration.json``
    and ``coco.json`` are not labels); with ``moment``, only the frames of
    that moment (``rest``: the frames a result is read from). ValueError
    naming the file for one that is not a frame's labels."""
    out = []
    for path in sorted(Path(folder).glob("*.json")):
        if path.name in NOT_LABELS:
            continue
        try:
            label = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as err:
            raise NotLabels(f"{path}: not a frame's labels: {err}") from None
        if not isinstance(label, dict) or not isinstance(label.get("truth"), dict) or "image" not in label:
            raise NotLabels(f"{path}: not a frame's labels: no image or truth")
        if moment is None or label.get("moment") == moment:
            out.append(label)
    return out
