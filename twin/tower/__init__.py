"""The Lightning Dice tower twin (58 Pa. Code 625b.2(c), (d)).

Public API: ``load_design(path)``, ``drop(design, seed, loaded=None)``,
``drop_traced(...)``, ``stage(design, ...)`` and the pictures in ``picture``.
"""

from twin.tower.design import TowerDesign, load_design, parse_design
from twin.tower.dropping import DieRest, DropResult, Trace, drop, drop_traced

__all__ = ["TowerDesign", "load_design", "parse_design", "DieRest", "DropResult", "Trace",
           "drop", "drop_traced"]
