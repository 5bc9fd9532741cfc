"""The emulated game controller (``bench emulate``): each game's round state
machine behind a real link, with fault injection and named misbehaviours."""

from bench.emulator.controller import EmulatedController
from bench.emulator.faults import Faults, FaultyPort, parse_faults
from bench.emulator.misbehaviours import MISBEHAVIOURS, Policy, policy_for

__all__ = ["EmulatedController", "Faults", "FaultyPort", "MISBEHAVIOURS", "Policy", "parse_faults", "policy_for"]
