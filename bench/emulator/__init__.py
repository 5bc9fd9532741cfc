"""The emulated game controller (``bench emulate``): each game's round state
machine behind a real link, with fault injection and named misbehaviours."""

from bench.emulator.controller import EmulatedController
from bench.emulator.faults import Faults, FaultyPort, parse_faults
from bench.emulator.misbehaviours import MISBEHAVIOURS, Policy, policy_for
from bench.emulator import rng_misbehaviours  # noqa: F401  registers the Lucky RNG's (BATTERY_ONLY)

__all__ = ["EmulatedController", "Faults", "FaultyPort", "MISBEHAVIOURS", "Policy", "parse_faults", "policy_for"]
