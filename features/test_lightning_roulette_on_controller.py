"""The scenarios of lightning_roulette.feature, played on the controller (--controller URL)."""

from pytest_bdd import scenarios

from table_steps import *  # noqa: F401,F403  (step definitions and fixtures)

PLAYED_ON_CONTROLLER = True

scenarios("lightning_roulette.feature")
