"""Repository-wide pytest set-up: the bench's plugins. ``bench.pytest_plugin``
adds ``--controller URL`` so that ``pytest features/`` plays the regulation
scenarios on a game controller (docs/controller-testing.md);
``bench.pytest_clause_tags`` registers every feature tag (a clause) as a marker."""

pytest_plugins = ["bench.pytest_plugin", "bench.pytest_clause_tags"]
