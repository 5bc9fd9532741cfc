"""The scenarios of round_order.feature, played on the controller (--controller URL)."""

from pytest_bdd import scenarios

from bench.steps import *  # noqa: F401,F403  (the shipped step library: step definitions and fixtures)

PLAYED_ON_CONTROLLER = True

scenarios("round_order.feature")
