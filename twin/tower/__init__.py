"""The Lightning Dice tower twin (58 Pa. Code 625b.2(c), (d)).

Public API: ``load_design(path)``, ``drop(design, seed, loaded=None)``,
``drop_traced(...)`` (the same drop plus poses and obstacle contacts),
``stage(design, faces=..., cocked_die=...)`` and ``stage_no_roll(design)``
(a real drop showing an asked outcome, cocked dice only where truly held);
pictures in ``twin.tower.picture``. See docs/tower.md.
"""

from twin.tower.design import TowerDesign, load_design, parse_design
from twin.tower.dropping import DieRest, DropResult, Trace, drop, drop_traced
from twin.tower.staging import StagingError, shows_cocked, stage, stage_no_roll

__all__ = ["TowerDesign", "load_design", "parse_design", "DieRest", "DropResult", "Trace",
           "drop", "drop_traced", "stage", "stage_no_roll", "shows_cocked", "StagingError"]
