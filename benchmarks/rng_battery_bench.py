"""The 810a.5 battery (bench rng) measured (docs/rng.md, "What it finds, and
at what N"):

1. the family's false-alarm rate on a fair generator: the compliant
   controller's raw and scaled output (the collection exchange's LuckyRng)
   over many seeds, and its Lucky draws exactly as the emulated controller
   makes them in play (one RNG a round from the recorded seed);
2. for each misbehaviour of bench.emulator.rng_misbehaviours, the N at which
   the family fails on every one of three seeds, and the tests that fail:
   from a collection (raw and scaled values) where the defect is in the
   generator or its scaling, from the Lucky draws of simulated sessions
   (the policy's own draw_lucky, fair dice) where it is in play.

Run under nice:  nice -n 15 .venv/bin/python benchmarks/rng_battery_bench.py [--seeds 100]
"""

from __future__ import annotations

import argparse
import random
import time
from types import SimpleNamespace

from bench.emulator import policy_for
from bench.emulator.rng_misbehaviours import lucky_rng
from bench.rng import judge as judging
from bench.rng.outcome import PROFILES
from bench.rng.sources import Draws, lucky_bets_won
from bench.rules import Round, describe, get_game
from bench.rules.submission import default_rules

GAME = "lightning-dice"
PA = PROFILES["pennsylvania"]
COLLECTION_LADDER = (1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000)
ROUND_LADDER = (300, 1_300, 2_700, 5_000, 10_000, 20_000)
TRIES = 3


def controller(name: str | None, seed: int) -> SimpleNamespace:
    rules = default_rules(GAME)
    return SimpleNamespace(game=get_game(GAME), rules=rules, seed=seed, game_name=GAME,
                           policy=policy_for(name, GAME, None))


def collection(name: str | None, seed: int, n: int) -> Draws:
    ctrl = controller(name, seed)
    generator = lucky_rng(ctrl.policy, seed)
    size = len(ctrl.rules.lucky.positions)
    return Draws(path=f"collection-{seed}", game=GAME, seed=seed, kind="rng-collection", raw=generator.raw(n),
                 scaled=generator.scaled(n, size), scaled_size=size)


def session(name: str | None, seed: int, rounds: int, ctrl: SimpleNamespace | None = None) -> Draws:
    """The Lucky draws of a session of ``rounds`` against the policy, as the emulated controller draws them."""
    ctrl = ctrl or controller(name, seed)
    hook = getattr(ctrl.policy, "on_session_start", None)
    if hook is not None:
        hook()
    kind = describe(GAME).outcome
    positions = ctrl.rules.lucky.positions
    draws = Draws(path=f"session-{seed}", game=GAME, seed=seed, kind="session", positions=tuple(positions),
                  lucky_rate=float(ctrl.rules.lucky.lucky_probability(positions[0])))
    dice = random.Random(f"{seed}:dice")
    won: list[str] = []
    for number in range(1, rounds + 1):
        lucky = ctrl.policy.draw_lucky(ctrl, random.Random(f"{seed}:lucky:{number}"))
        draws.lucky_first.append(positions.index(lucky[0].bet))
        if won:
            draws.again.append(any(x.bet == won[0] for x in lucky))
        faces = [dice.randint(1, 6) for _ in range(3)]
        round_ = Round(GAME, **kind.round_fields(kind.settled_outcome({"dice": faces})), no_roll=False, lucky=lucky)
        ctrl.policy.settle(ctrl, round_, [])
        won = lucky_bets_won(GAME, ctrl.rules, round_)
    return draws


def verdict(files: list[Draws]) -> tuple[bool, list[str], bool]:
    judgement = judging.judge(files, PA)
    failed = sorted(judgement.rng.failed, key=lambda f: f[1])
    return judgement.rng.passed, [f"{o.test} ({o.source.split('(')[0]})" for o, _ in failed], \
        bool(judgement.rng.too_short)


def false_alarms(seeds: int) -> None:
    for what, make in (("collection, 20,000 raw + 20,000 scaled", lambda s: [collection(None, s, 20_000)]),
                       ("Lucky draws in play, 1,300 rounds", lambda s: [session(None, s, 1_300)])):
        start = time.process_time()
        fails = sum(not verdict(make(1000 + s))[0] for s in range(seeds))
        print(f"fair, {what}: the family failed {fails} of {seeds} seeds ({fails / seeds:.1%}; stated at most "
              f"{PA.alpha:.0%}), {time.process_time() - start:.0f} CPU s")


def needed(name: str, make, ladder) -> tuple[int | None, list[str]]:
    for n in ladder:
        results = [verdict(make(seed, n)) for seed in range(1, TRIES + 1)]
        if all(not passed for passed, _, _ in results):
            return n, results[0][1]
    return None, []


def restarted(seed: int, rounds: int) -> list[Draws]:
    """Two sessions announcing different seeds, each after a restart of the controller."""
    return [session("same-sequence-after-restart", seed * 100 + k, rounds) for k in (1, 2)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100)
    args = parser.parse_args()
    false_alarms(args.seeds)
    print()
    print("| misbehaviour | judged on | N it took (3 of 3 seeds fail) | tests that fail (strongest first) |")
    print("|---|---|---|---|")
    cases = [
        ("modulo-bias", "collection", lambda s, n: [collection("modulo-bias", s, n)], COLLECTION_LADDER),
        ("short-period-rng", "collection", lambda s, n: [collection("short-period-rng", s, n)], COLLECTION_LADDER),
        ("stuck-low-bit", "collection", lambda s, n: [collection("stuck-low-bit", s, n)], COLLECTION_LADDER),
        ("lucky-follows-previous", "collection", lambda s, n: [collection("lucky-follows-previous", s, n)],
         COLLECTION_LADDER),
        ("same-sequence-after-restart", "collections of two restarts",
         lambda s, n: [collection("same-sequence-after-restart", s * 100 + k, n) for k in (1, 2)], COLLECTION_LADDER),
        ("modulo-bias", "Lucky draws in play", lambda s, n: [session("modulo-bias", s, n)], ROUND_LADDER),
        ("short-period-rng", "Lucky draws in play", lambda s, n: [session("short-period-rng", s, n)], ROUND_LADDER),
        ("lucky-follows-previous", "Lucky draws in play", lambda s, n: [session("lucky-follows-previous", s, n)],
         ROUND_LADDER),
        ("same-sequence-after-restart", "two sessions (rounds each)", restarted, ROUND_LADDER),
        ("lucky-again-after-win", "Lucky draws in play", lambda s, n: [session("lucky-again-after-win", s, n)],
         ROUND_LADDER),
        ("lucky-favours-a-number", "Lucky draws in play", lambda s, n: [session("lucky-favours-a-number", s, n)],
         ROUND_LADDER),
        ("stuck-low-bit", "Lucky draws in play", lambda s, n: [session("stuck-low-bit", s, n)], ROUND_LADDER[:3]),
    ]
    for name, where, make, ladder in cases:
        n, tests = needed(name, make, ladder)
        shown = f"{n:,}" if n else f"not found by {ladder[-1]:,}"
        print(f"| {name} | {where} | {shown} | {', '.join(dict.fromkeys(tests[:4]))} |", flush=True)


if __name__ == "__main__":
    from tablebench_io.portable_math import restart_pinned
    restart_pinned()       # the libm the commands run: the figures are theirs (docs/reproducibility.md)
    main()
