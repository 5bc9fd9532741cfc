"""The pytest plugin by its public name (``-p bench.pytest_plugin``,
``pytest_plugins = ["bench.pytest_plugin"]``); it lives in
``bench.scenarios.plugin``, which the ``pytest11`` entry point of the same
name loads."""

from bench.scenarios.plugin import *  # noqa: F401,F403
