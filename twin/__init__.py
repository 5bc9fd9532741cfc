"""tablebench's physics digital twin: the Lightning Dice tower and the roulette wheel.

The twin stands in for the hardware's physical part. It must never import ``bench``.
"""

from tablebench_io import __version__  # noqa: F401  (one version for the whole tool)
