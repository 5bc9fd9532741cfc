"""A camera as installed, as a recogniser knows it: ``calibration.json`` of a
frames folder (written by ``twin frames`` or ``bench run --camera``): the
camera as mounted, the dice's edge, the tray, the wheel's pocket order and
radii; never a frame's labels.

Apart from the recognisers that read with it (``bench.vision.reference``,
``bench.vision.reference_wheel``, ``bench.vision.learned``) because every one
of them, and the benchmarks that score them, load it the same way.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from twin.camera.spec import Camera


@dataclass(frozen=True)
class Calibration:
    scene: str
    camera: Camera
    data: dict
    cache: dict = field(default_factory=dict, compare=False, repr=False)   # what depends on it alone

    @classmethod
    def from_dict(cls, data: dict) -> "Calibration":
        c = data["camera"]
        camera = Camera(tuple(c["position_m"]), tuple(c["target_m"]), tuple(c.get("up", (0, 1, 0))),
                        float(c["fov_deg"]), int(c["width_px"]), int(c["height_px"]))
        return cls(data["scene"], camera, data)

    @classmethod
    def load(cls, path: str) -> "Calibration":
        with open(path, encoding="utf-8") as handle:
            return cls.from_dict(json.load(handle))
