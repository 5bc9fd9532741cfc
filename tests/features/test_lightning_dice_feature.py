"""The scenarios of features/lightning_dice.feature, bound to the shared table steps."""

from pytest_bdd import scenarios

from table_steps import *  # noqa: F401,F403  (step definitions and fixtures)

scenarios("lightning_dice.feature")
