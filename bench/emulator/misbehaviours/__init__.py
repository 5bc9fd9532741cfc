"""Named misbehaviours: deliberate breaches of the regulations, each a mutant
the oracle and the Gherkin suite must catch, selected by name with
``bench emulate --misbehave NAME``.

The compliant controller asks its ``Policy`` at each point where a controller
could go wrong; a misbehaviour is a Policy subclass that answers one of those
questions unlawfully. Adding one is adding a class with ``@misbehaviour``.

The misbehaviours live by family, a module each; importing this package
registers them in ``MISBEHAVIOURS`` in the order of the imports below (the
order every listing and the mutation score show them in).
"""

from bench.emulator.misbehaviours.core import (BATTERY_ONLY, LIGHTNING, MISBEHAVIOURS, Policy, every_misbehaviour,
                                               misbehaviour, policy_for)
from bench.emulator.misbehaviours import (round_breaches, lucky_payouts, settlement_frames, wagers,  # noqa: F401
                                          readings, paytables, staged_outcomes, stake_limits, lucky_draw)

__all__ = ["BATTERY_ONLY", "LIGHTNING", "MISBEHAVIOURS", "Policy", "every_misbehaviour", "misbehaviour",
           "policy_for"]
