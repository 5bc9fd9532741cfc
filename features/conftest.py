"""The regulation scenarios of this directory, played on a game controller
(``pytest features/ --controller URL``; docs/controller-testing.md).

The step definitions are those of the rules-engine run (``tests/features``):
the same sentences, bound to a ``ControllerTable`` instead of a ``RulesTable``
through the one fixture they all go through, ``open_table``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# The shared step definitions live beside the rules-engine binding.
STEPS_DIR = Path(__file__).resolve().parent.parent / "tests" / "features"
if str(STEPS_DIR) not in sys.path:
    sys.path.insert(0, str(STEPS_DIR))

from rules_table import READINGS  # noqa: E402

from bench.pytest_plugin import use_readings  # noqa: E402


def pytest_configure(config: pytest.Config) -> None:
    use_readings(config, READINGS)


@pytest.fixture
def open_table(controller_tables):
    """Every scenario's table is a controller-backed one here."""
    return controller_tables
