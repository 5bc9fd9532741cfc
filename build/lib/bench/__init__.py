"""tablebench's test bench: rules, protocol, link, emulator, cycle, journal.

The bench drives the physics twin (``twin``); the twin never imports the bench.
"""

__version__ = "0.1.0"
