"""tablebench's test bench, a folder to a job (README, Layout): rules,
protocol, play, oracle, emulator, journal, session, report, scenarios,
conformance, commands.

The bench drives the physics twin (``twin``); the twin never imports the bench.
"""

from tablebench_io import __version__  # noqa: F401  (one version for the whole tool)
