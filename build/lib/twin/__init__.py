"""tablebench's physics digital twin: the Lightning Dice tower and the roulette wheel.

The twin stands in for the hardware's physical part. It must never import ``bench``.
"""

__version__ = "0.1.0"
