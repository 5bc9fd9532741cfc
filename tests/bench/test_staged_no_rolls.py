"""Each no roll a covering session stages on the tower twin is a drop of its
own (issue 41: rounds 4 and 9 of a session showed the same staged drop, seed
1002210). The plan draws a cocked throw's pick (bench.rules.coverage), and may
draw one pick twice; the plant keeps NO_ROLLS_STAGED cocked drops in its
catalogue and never stages one of them twice while another is left."""

from __future__ import annotations

import json

import pytest

from bench.rules.coverage import NO_ROLLS_STAGED
from bench.session.runner import SessionConfig, run_session


def staged_no_rolls(tmp_path, game: str, seed: int, rounds: int) -> list[tuple[int, int]]:
    """(round, drop seed) of every staged throw whose dice were not all flat."""
    outcome = run_session(SessionConfig(game=game, rounds=rounds, seed=seed, out=str(tmp_path / game),
                                        progress=False, plant="tower"))
    assert outcome.status == 0, outcome.round_failures
    out = []
    for line in outcome.journal.read_text().splitlines():
        for reading in json.loads(line).get("plants") or ():
            if reading["detail"].get("staged") == "a die cocked":
                assert not all(reading["flat"]), reading      # a staged no roll shows one
                out.append((reading["round"], reading["seed"]))
    return out


@pytest.mark.parametrize("game, seed, rounds, at_least", (
    # Seed 3 stages cocked throws in rounds 2, 7, 9 and 10 with picks 0, 1, 2, 1: the plan draws pick 1 twice,
    # and picks 0 and 2 were one drop before (a catalogue of two).
    ("lightning-dice", 3, 11, 4),
    # Seed 4's round 2 is a no roll, a second one and an outcome, picks 2 then 0: the same drop twice in a row before.
    ("sic-bo", 4, 2, 2),
))
def test_a_covering_session_never_stages_one_drop_for_two_no_rolls(tmp_path, game, seed, rounds, at_least):
    no_rolls = staged_no_rolls(tmp_path, game, seed, rounds)
    assert len(no_rolls) >= at_least, no_rolls
    seeds = [s for _, s in no_rolls]
    assert len(set(seeds)) == len(seeds), f"the same staged drop in two no rolls: {no_rolls}"


def test_one_pick_drawn_again_and_again_stages_every_cocked_drop_before_the_first_again(tmp_path):
    from bench.play.plant import TowerPlant
    from bench.play.staging import SeedMemo
    from bench.rules.outcome_classes import Throw
    plant = TowerPlant("standard", session_seed=3, memo=SeedMemo(tmp_path / "memo.json"))
    seeds = [plant.read(n, 0, 3, Throw(cocked=True, pick=1)).seed for n in range(2, 3 + NO_ROLLS_STAGED)]
    assert len(set(seeds[:NO_ROLLS_STAGED])) == NO_ROLLS_STAGED and seeds[-1] == seeds[0], seeds
