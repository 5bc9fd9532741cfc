"""The scenarios of features/sic_bo.feature, bound to the shared table steps."""

from pytest_bdd import scenarios

from bench.steps import *  # noqa: F401,F403  (the shipped step library: step definitions and fixtures)

scenarios("sic_bo.feature")
