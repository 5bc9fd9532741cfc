"""The kinds of plant the twin builds (a dice tower, a roulette wheel), in one
place: how a design file says which it is, what a run of it is called, and
which function does each job for it. Everything that differs by kind asks
``plant_kind(name)`` for its part instead of branching on the name, so a
third plant is a row here and its own modules.

The functions are named, not imported: the validation and the edge estimate
each look up the other's part of a kind (a wheel's validation reports the
edge's latest safe call) without importing each other's package at load time.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from tablebench_io.yamlfile import read_yaml
from twin.errors import DesignError
from twin.shipped import shipped_design

TOWER, WHEEL = "tower", "wheel"


def _function(name: str) -> Callable:
    module, _, attr = name.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass(frozen=True)
class PlantKind:
    name: str                 # "tower" / "wheel"
    marker: str               # the field only this kind's design holds
    run: str                  # one run of it: "drop" / "spin"
    watched: bool             # a camera watches the run before betting closes (twin edge's observer)
    # "module:function" of each job:
    loader: str               # design file -> design
    one_run: str              # (design, seed) -> the run's record (twin.validate.runs)
    checks: str               # (records, confidence, design) -> the validation's checks
    validation_extra: str | None   # (path, records, results, workers, confidence, progress) -> dict, or None
    edge_estimate: str        # (design, path, EdgeAsk) -> the kind's edge estimate (twin.edge.pipeline)
    edge_text: str            # EdgeOutcome -> the text `twin edge` prints
    edge_page: str            # the edge page's parts (twin.edge.report.EdgePage)
    validation_page: str      # the validation page's parts (twin.validate.report.ValidationPage)

    @property
    def runs(self) -> str:
        """The plural, as in ``--drops N``."""
        return f"{self.run}s"

    @property
    def size_option(self) -> str:
        return f"--{self.runs}"

    def part(self, job: str) -> Callable:
        """The function doing ``job`` (a field name above) for this kind."""
        return _function(getattr(self, job))


PLANT_KINDS: dict[str, PlantKind] = {k.name: k for k in (
    PlantKind(TOWER, marker="dice", run="drop", watched=False,
              loader="twin.tower:load_design", one_run="twin.validate.runs:tower_run",
              checks="twin.validate.tower_checks:tower_checks", validation_extra=None,
              edge_estimate="twin.edge.pipeline:TowerEstimate", edge_text="twin.commands.edge:tower_text", edge_page="twin.edge.report:TOWER_PAGE",
              validation_page="twin.validate.report:TOWER_PAGE"),
    PlantKind(WHEEL, marker="pockets", run="spin", watched=True,
              loader="twin.wheel:load_design", one_run="twin.validate.runs:wheel_run",
              checks="twin.validate.wheel_checks:wheel_checks",
              validation_extra="twin.edge.pipeline:call_time_summary",
              edge_estimate="twin.edge.pipeline:WheelEstimate", edge_text="twin.commands.edge:wheel_text", edge_page="twin.edge.report:WHEEL_PAGE",
              validation_page="twin.validate.report:WHEEL_PAGE"),
)}
KINDS = tuple(PLANT_KINDS)


def plant_kind(name: str) -> PlantKind:
    try:
        return PLANT_KINDS[name]
    except KeyError:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {name!r}") from None


def design_kind(path: str | Path) -> str:
    """"tower" or "wheel", from what the design file holds (a wheel lists
    its pockets, a tower its dice); a shipped design by name too."""
    path = shipped_design(path)
    data = read_yaml(path, DesignError)
    for kind in PLANT_KINDS.values():
        if isinstance(data, dict) and kind.marker in data:
            return kind.name
    raise DesignError("neither a tower (no 'dice') nor a wheel (no 'pockets')", file=str(path))
