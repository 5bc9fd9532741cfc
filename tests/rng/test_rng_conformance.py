"""The conformance kit's checks of the raw RNG exchange (docs/protocol.md
section 18): the emulated controller passes both in both versions, one
that does not offer the exchange is SKIPped (an optional feature), one that
scales out of range fails."""

from __future__ import annotations

from bench.conformance.suite import FAIL, PASS, SKIP, run_suite
from bench.emulator.misbehaviours import Policy
from bench.emulator.rng_misbehaviours import LuckyRng
from bench.emulator.threaded import threaded_controller
from bench.rules.submission import default_rules

LD = "lightning-dice"
RULES = default_rules(LD)
NAMES = ("rng-exchange", "rng-exchange-not-in-play")


def statuses(policy=None) -> dict[str, str]:
    with threaded_controller(LD, RULES, seed=3, policy=policy) as url:
        results = run_suite(url, game=LD, rules=RULES, versions=(1, 2), only=lambda c: c.name in NAMES)
    return {r.id: r.status for r in results}


class NoExchange(Policy):
    rng_exchange = False


class Outside(LuckyRng):
    def scale(self, size: int) -> int:
        return size


class BadScaling(Policy):
    def make_lucky_rng(self, seed: int) -> LuckyRng:
        return Outside(seed)


def test_the_emulated_controller_passes_the_exchange_checks_in_both_versions():
    assert statuses() == {f"{n}[v{v}]": PASS for n in NAMES for v in (1, 2)}


def test_a_controller_without_the_exchange_is_skipped_and_a_wrong_one_fails():
    assert set(statuses(NoExchange()).values()) == {SKIP}
    wrong = statuses(BadScaling())
    assert wrong["rng-exchange[v1]"] == FAIL and wrong["rng-exchange-not-in-play[v1]"] == PASS
