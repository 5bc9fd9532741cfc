"""The scenarios of features/lightning_dice.feature, bound to the shared table steps."""

from pytest_bdd import scenarios

from bench.steps import *  # noqa: F401,F403  (the shipped step library: step definitions and fixtures)

scenarios("lightning_dice.feature")
