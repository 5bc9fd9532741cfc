"""End to end: the oracle judging live sessions with `bench emulate` in its
own process over TCP. Against every named misbehaviour it names that
misbehaviour's clause (and nothing else); against the compliant emulator,
several rounds of each game, it finds nothing. Link faults (duplicated frames,
a reset mid-round, slow replies) are judged for what they are."""

from __future__ import annotations

import pytest

from bench.emulator.misbehaviours import MISBEHAVIOURS
from bench.rules.submission import default_rules
from bench.oracle import Oracle
from bench.oracle.feed import judged_message
from bench.rules.coverage import MULTISETS
from tests.link.conftest import REPLY, connect, emulator_process, hello, play_round

FLAT3 = (True, True, True)
FLAT2 = (True, True)
PAYTABLE = {"sic-bo": "A", "dice-ology": "1"}
LD, SB, LR, DO = "lightning-dice", "sic-bo", "lightning-roulette", "dice-ology"


def dice(*faces, flat=FLAT3):
    return dict(dice=faces, flat=flat)


def rolls(*throws):
    """Dice-Ology readings, numbered; a throw given as (a, b, False) has a cocked die (thrown again)."""
    out, k = [], 1
    for throw in throws:
        cocked = len(throw) == 3
        out.append(dict(roll=k, dice=throw[:2], flat=(True, not cocked)))
        k += 0 if cocked else 1
    return out


def not_lucky_pocket(said):
    lucky = {x.bet for m in said if m.type == "LUCKY" for x in m["lucky"]}
    return {"pocket": next(n for n in range(37) if f"straight:{n}" not in lucky)}


def judge_session(game, rounds, *, misbehave=None, faults=(), response_timeout=2.0, seed=7) -> Oracle:
    """Play ``rounds`` ((wagers, readings, late) each) against `bench emulate`,
    every frame the oracle judges (bench.oracle.feed) fed to it; returns the oracle, finished."""
    oracle = Oracle(game, default_rules(game, PAYTABLE.get(game)), response_timeout=response_timeout)
    args = ["--game", game, "--seed", str(seed)]
    args += ["--misbehave", misbehave] if misbehave else []
    for fault in faults:
        args += ["--fault", fault]

    def observe(event):                 # what bench run's oracle judges (bench.oracle.feed)
        message = judged_message(event)
        if message is not None:
            oracle.observe(event.direction, message, event.mono)

    with emulator_process(*args) as url:
        session = connect(url, game, observer=observe)
        try:
            _, opened = hello(session, game)
            number = opened["round"]
            for wagers, readings, late in rounds:
                play_round(session, game, number, wagers, readings, late=late)
                number = session.receive(REPLY, expect="OPEN")["round"]
        finally:
            session.port.close()
    oracle.finish()
    return oracle


LATE_BET = {LD: "high", SB: "big", LR: "black", DO: "big-ones"}
BETTING_CLAUSE = {LD: "625b.2(d)(1)", SB: "625a.5(c)", LR: "617c.3(c)", DO: "20:18:33:14(1)(d)"}
ONE_THROW = {LD: [dice(1, 2, 3)], SB: [dice(1, 2, 3)], LR: [dict(pocket=3)], DO: rolls((1, 1), (3, 4))}
FIRST_BET = {LD: "low", SB: "small", LR: "red", DO: "little-ones"}

# misbehaviour -> (game, rounds, the clause every violation must name)
CASES = {
    "five-lucky-numbers": (LD, [([("w1", "low", 100)], [dice(1, 2, 3)], ())], "625b.2(d)(2)"),
    "lucky-odds-out-of-range": (LD, [([("w1", "low", 100)], [dice(1, 2, 3)], ())], "625b.2(g)(3)"),
    # a cocked die: the mutant pays the faces (5-5-1 makes total:11 win) instead of returning the stake
    "pay-on-no-roll": (LD, [([("w1", "total:11", 100)], [dice(5, 5, 1, flat=(True, False, True))], ())],
                       "625b.2(d)(5)"),
    "clear-before-settle": (LD, [([("w1", "low", 100)], [dice(1, 2, 3)], ())], "625b.2(d)(6)"),
    "lucky-before-no-more-bets": (LD, [([("w1", "low", 100)], [dice(1, 2, 3)], ())], "625b.2(g)(1)"),
    # every straight up covered, the ball in a pocket that is not Lucky: one of them wins at 29 to 1
    "straight-up-35-to-1": (LR, [([(f"s{n}", f"straight:{n}", 10) for n in range(37)], not_lucky_pocket, ())],
                            "617c.3(f)"),
    "six-lucky-numbers": (LR, [([("w1", "red", 100)], [dict(pocket=3)], ())], "617c.3(d)"),
    "lucky-payout-not-listed": (LR, [([("w1", "red", 100)], [dict(pocket=3)], ())], "617c.3(g)"),
    # a triple totalling 6: small loses (625a.3(6)); three threes: one of a kind pays 3 to 1 on paytable A
    "small-wins-on-triple": (SB, [([("w1", "small", 100)], [dice(2, 2, 2)], ())], "625a.3(6)"),
    "one-of-a-kind-12-to-1": (SB, [([("w1", "single:3", 100)], [dice(3, 3, 3)], ())], "625a.6(b)(3)"),
    # a seven on the first roll: Little Ones loses then and there; the mutant plays on until 2..6 are rolled
    "little-ones-survive-seven": (DO, [([("w1", "little-ones", 100)],
                                        rolls((3, 4), (1, 1), (1, 2), (2, 2), (2, 3), (3, 3)), ())],
                                  "20:18:33:14(1)(b)"),
}
for _game in (LD, SB, LR, DO):
    CASES[f"accept-late-wager@{_game}"] = (_game, [([("w1", FIRST_BET[_game], 100)], ONE_THROW[_game],
                                                    [("late", LATE_BET[_game], 100)])], BETTING_CLAUSE[_game])



def faces_for(bet: str) -> tuple[int, ...]:
    """Three faces on which the total ``bet`` wins, all different where the total allows."""
    options = [m for m in MULTISETS if sum(m) == int(bet.partition(":")[2])]
    return min(options, key=lambda m: (len(m) - len(set(m)), m))


def lucky_win(said):
    """The dice on which the round's first Lucky Number wins (the plant chooses after seeing them)."""
    lucky = [x.bet for m in said if m.type == "LUCKY" for x in m["lucky"]]
    return dice(*faces_for(lucky[0]))


ALL_TOTALS = [(f"t{t}", f"total:{t}", 100) for t in range(3, 19)]
LD_WINS = ALL_TOTALS + [("lo", "low", 100), ("hi", "high", 100), ("ad", "any-double", 100)]
LOW_WINS = [("w1", "low", 100)], [dice(1, 2, 3)], ()
CASES.update({
    "lucky-win-one-unit-short": (LD, [(ALL_TOTALS, lucky_win, ())], "625b.2(g)(3)"),
    "lucky-win-at-base-odds": (LD, [(ALL_TOTALS, lucky_win, ())], "625b.2(g)(3)"),
    # low, high or any double wins beside the Lucky total, and is paid its odds
    "lucky-odds-on-other-bets": (LD, [(LD_WINS, lucky_win, ())], "625b.2(f)"),
    "settle-twice": (LD, [LOW_WINS], "625b.2(d)(6)"),
    "settle-phantom-wager": (LD, [LOW_WINS], "625b.2(d)(6)"),
    "odd-stake-rounding": (LD, [([("w1", "low", 101)], [dice(1, 2, 3)], ())], "625b.2(f)"),
    "payout-cap": (LD, [([("w1", "low", 50_000)], [dice(1, 2, 3)], ())], "625b.2(f)"),
    "accept-unknown-bet": (LD, [([("w1", "total:19", 100), ("w2", "low", 100)], [dice(1, 2, 3)], ())],
                           "625b.2(e)(5)"),
    "accept-zero-stake": (LD, [([("w1", "low", 0)], [dice(1, 2, 3)], ())], "protocol"),
    # a losing reading: the emulator keeps the unlawful stake and pays nothing, as the rules would
    "accept-over-limit": (LD, [([("w1", "low", 1_000_001)], [dice(4, 5, 6)], ())], "601a.2"),
    "accept-duplicate-id": (LD, [([("w1", "low", 100), ("w1", "low", 100)], [dice(1, 2, 3)], ())], "protocol"),
    "any-double-loses-on-triple": (LD, [([("w1", "any-double", 100)], [dice(2, 2, 2)], ())], "625b.2(f)"),
    # total 10: the small bet of 625a.3(6) wins; (f)'s label "Low (3-9)" would lose
    "low-high-by-label": (LD, [([("w1", "low", 100)], [dice(3, 3, 4)], ())], "625b.2(f)"),
    "no-roll-only-if-all-cocked": (LD, [([("w1", "total:11", 100)], [dice(5, 5, 1, flat=(True, False, True))], ())],
                                   "625b.2(d)(5)"),
    "double-loses-on-triple": (SB, [([("w1", "double:2", 100)], [dice(2, 2, 2)], ())], "625a.6(a)"),
    "sic-bo-totals-by-paytable-b": (SB, [([("w1", "total:4", 100)], [dice(1, 1, 2)], ())], "625a.6(a)"),
    "single-pair-pays-even": (SB, [([("w1", "single:3", 100)], [dice(3, 3, 5)], ())], "625a.6(b)(2)"),
    "dice-ology-pay-table-2": (DO, [([("w1", "little-ones", 100)],
                                     rolls((1, 1), (1, 2), (2, 2), (2, 3), (3, 3)), ())], "20:18:33:14(1)(c)"),
    "big-ones-survive-seven": (DO, [([("w1", "big-ones", 100)],
                                     rolls((3, 4), (4, 4), (4, 5), (5, 5), (5, 6), (6, 6)), ())], "20:18:33:14(2)(c)"),
    "even-money-half-back-on-zero": (LR, [([("w1", "red", 100)], [dict(pocket=0)], ())], "617a.4"),
    # the big bet of 625a.3(7) loses on any triple; total 18 (not Lucky in round 1 at seed 7) pays 149 to 1
    "high-wins-on-high-triple": (LD, [([("w1", "high", 100)], [dice(4, 4, 4)], ())], "625b.2(e)(2)"),
    "total-3-18-at-triple-odds": (LD, [([("w1", "total:18", 100)], [dice(6, 6, 6)], ())], "625b.2(f)"),
    "ld-total-3-18-clamped": (LD, [([("w1", "total:18", 100)], [dice(6, 6, 6)], ())], "625b.2(f)"),
    # Sic Bo shakes again after every no roll; the mutant takes the second cocked shake as it lies
    "second-no-roll-settles": (SB, [([("w1", "small", 100)], [dice(1, 2, 3, flat=(True, False, True)),
                                                             dice(1, 2, 3, flat=(False, True, True)), dice(1, 2, 4)],
                                     ())], "625a.5"),
    # stakes at the limits (1 to 1,000,000 by default) must be taken
    "refuse-max-stake": (LD, [([("w1", "low", 1_000_000)], [dice(1, 2, 3)], ())], "601a.2"),
    "refuse-min-stake": (LD, [([("w1", "low", 1)], [dice(1, 2, 3)], ())], "601a.2"),
    # odds within (g)(3)'s range that the submission never draws: flagged as the LUCKY comes
    "lucky-odds-not-in-submission": (LD, [([("w1", "low", 100)], [dice(1, 2, 3)], ())], "625b.2(g)(1)"),
})
# Shown only in a later round (a paytable kept from the round before, a draw
# repeated after a no roll), only as a reply that never comes, only when the
# controller's own draw allows (a fourth Lucky Number, a Lucky zero) or only
# over many rounds (the Lucky draw's fit): bench run finds them
# (tests/bench/test_mutation_score.py, tests/oracle/test_lucky_draw.py).
NOT_IN_ONE_ROUND = {"stale-lucky-after-no-roll", "stale-lucky-after-lucky-win", "lucky-after-result",
                    "lucky-repeat-after-no-roll", "lucky-positions-repeat-after-no-roll", "lucky-beyond-third-at-base",
                    "lucky-zero-at-29-to-1", "sicbo-reshake-on-noroll",
                    "lucky-odds-49-or-99", "total-18-never-lucky", "always-two-lucky-numbers"}


def test_every_misbehaviour_has_a_case():
    """Each on one game at least; every game of each: tests/bench/test_mutation_score.py."""
    covered = {case.partition("@")[0] for case in CASES}
    assert covered | NOT_IN_ONE_ROUND == set(MISBEHAVIOURS)
    for case, (game, _, _) in CASES.items():
        assert game in MISBEHAVIOURS[case.partition("@")[0]].games, case


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_oracle_names_the_clause_each_misbehaviour_breaks(case):
    name = case.partition("@")[0]
    game, rounds, clause = CASES[case]
    oracle = judge_session(game, rounds, misbehave=name)
    assert oracle.violations, f"{name}: the oracle found nothing"
    assert all(v.clause.startswith(clause) for v in oracle.violations), oracle.violations
    assert all(v.frame is not None for v in oracle.violations)
    # Round 1 exposes the breach. The next round's opening may be judged too
    # (in protocol version 2 it arrives in the same write as the last round's
    # end): a breach there, of the same clause, is the same misbehaviour again.
    rounds_flagged = {v.round for v in oracle.violations}
    assert 1 in rounds_flagged and rounds_flagged <= {1, len(rounds) + 1}
    assert oracle.incomplete_rounds == []


# Several rounds per game, each with its own exposure: the compliant controller passes them all.
COMPLIANT = {
    LD: [([("w1", "total:11", 100), ("w2", "low", 250), ("w3", "any-double", 40)], [dice(5, 5, 1)], ()),
         ([("w1", "total:11", 100), ("w2", "high", 30)], [dice(5, 5, 1, flat=(True, False, True))], ()),
         ([("w1", "any-triple", 10), ("w2", "low", 20)], [dice(2, 2, 2)], [("late", "high", 10)])],
    SB: [([("w1", "small", 100), ("w2", "single:4", 300), ("w3", "combo:1-4", 50)],
          [dice(1, 4, 6, flat=(True, False, True)), dice(4, 4, 1)], ()),
         ([("w1", "small", 100), ("w2", "single:3", 100), ("w3", "triple:3", 10)], [dice(3, 3, 3)], ()),
         ([("w1", "big", 100), ("w2", "total:17", 10), ("w3", "double:6", 10)], [dice(6, 6, 5)],
          [("late", "small", 10)])],
    LR: [([(f"s{n}", f"straight:{n}", 10) for n in range(37)] + [("w1", "red", 200), ("w2", "dozen:2", 30)],
          not_lucky_pocket, ()),
         ([("w1", "straight:0", 10), ("w2", "corner:0-1-2-3", 10), ("w3", "odd", 10)], [dict(pocket=0)], ()),
         ([("w1", "split:17-20", 10), ("w2", "column:2", 10)], [dict(pocket=17)], [("late", "red", 10)])],
    DO: [([("w1", "little-ones", 100), ("w2", "big-ones", 100), ("w3", "boom-or-bust", 10)],
          rolls((1, 1), (1, 2), (2, 2), (2, 3), (3, 3), (6, 6, False), (6, 6), (3, 4)), ()),
         ([("w1", "little-ones", 100)], rolls((3, 4)), ()),
         ([("w1", "big-ones", 100)], rolls((4, 4), (4, 5), (5, 5), (5, 6), (6, 6), (1, 1)),
          [("late", "little-ones", 10)])],
}


@pytest.mark.parametrize("game", sorted(COMPLIANT))
def test_the_compliant_emulator_passes_several_rounds_of_each_game(game):
    oracle = judge_session(game, COMPLIANT[game])
    assert oracle.violations == []
    assert [s.round for s in oracle.rounds] == [1, 2, 3] and oracle.incomplete_rounds == []
    assert all(s.returned == s.expected and s.wagers >= 1 for s in oracle.rounds)
    assert any(s.returned > 0 for s in oracle.rounds)
    if game == LD:
        assert [s.no_roll for s in oracle.rounds] == [False, True, False]


def test_duplicated_frames_on_the_link_are_not_judged_twice():
    oracle = judge_session(LD, COMPLIANT[LD], faults=["duplicate=0.5"])
    assert oracle.violations == [] and len(oracle.rounds) == 3


def test_a_controller_reset_mid_round_voids_the_round_without_a_violation():
    oracle = judge_session(LD, COMPLIANT[LD][:2], faults=["reset=1"])
    assert oracle.violations == []
    assert oracle.voided_rounds == [1] and [s.round for s in oracle.rounds] == [2]


def test_slow_replies_break_the_response_deadline():
    oracle = judge_session(SB, COMPLIANT[SB][:1], faults=["delay=1:0.12"], response_timeout=0.05)
    assert oracle.violations and all("no reply" in v.message for v in oracle.violations)
    assert {"625a.5(c)", "625a.5"} <= {v.clause for v in oracle.violations}
