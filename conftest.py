"""Repository-wide pytest set-up: the bench's plugin, which adds
``--controller URL`` so that ``pytest features/`` plays the regulation
scenarios on a game controller (docs/controller-testing.md)."""

pytest_plugins = ["bench.pytest_plugin"]
