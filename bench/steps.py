"""The shipped step library, by its public name: a test module binds a feature
with ``from bench.steps import *`` (docs/controller-testing.md). The steps
live in ``bench.scenarios.steps``."""

from bench.scenarios.steps import *  # noqa: F401,F403
