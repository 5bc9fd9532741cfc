"""The oracle on hand-built message streams: a compliant round of each game
passes clean, and each rule it enforces is broken once, in one stream, and
named with its clause. Amounts in the compliant rounds are worked out by
hand from the paytables (comments give the arithmetic), never by bench.rules."""

from __future__ import annotations

import pytest

from bench.protocol.messages import Message, make
from bench.rules import Lucky
from bench.rules.submission import default_rules
from bench.oracle import Oracle, Violation

FLAT3 = (True, True, True)
PAYTABLE = {"sic-bo": "A", "dice-ology": "1"}


def tx(type_, **fields):
    return ("tx", make(type_, **fields))


def rx(type_, **fields):
    return ("rx", make(type_, **fields))


def hello():
    return [tx("HELLO", proto=1, role="bench", sw="t", game="x"), rx("HELLO", proto=1, role="controller", sw="c", game="x")]


def bets(r, wagers):
    out = []
    for wager_id, bet, stake in wagers:
        out += [tx("WAGER", round=r, id=wager_id, bet=bet, stake=stake), rx("ACCEPT", round=r, id=wager_id)]
    return out


def settles(r, returns):
    out = [rx("SETTLE", round=r, id=wager_id, returned=amount) for wager_id, amount in returns]
    return out + [rx("SETTLED", round=r, wagers=len(returns), returned=sum(a for _, a in returns)),
                  rx("CLEARED", round=r)]


LD_LUCKY = (Lucky("total:11", 49), Lucky("total:4", 99))   # (g)(3): 4—49 and 49—499


def lightning_dice(r=1, lucky=LD_LUCKY):
    return ([rx("OPEN", round=r)]
            + bets(r, [("w1", "total:11", 100), ("w2", "low", 250), ("w3", "any-double", 40)])
            + [tx("CLOSE", round=r), rx("NOMORE", round=r), rx("LUCKY", round=r, lucky=lucky),
               tx("TRIGGER", round=r), rx("RELEASE", round=r),
               tx("SENSOR", round=r, dice=(5, 5, 1), flat=FLAT3), rx("RESULT", round=r, dice=(5, 5, 1))]
            # total 11 is Lucky at 49 to 1: 100 * 50; low (4-10) loses; a pair of fives: 40 * 2
            + settles(r, [("w1", 5000), ("w2", 0), ("w3", 80)]))


def lightning_dice_no_roll(r=1):
    return ([rx("OPEN", round=r)] + bets(r, [("w1", "total:11", 100), ("w2", "high", 30)])
            + [tx("CLOSE", round=r), rx("NOMORE", round=r), rx("LUCKY", round=r, lucky=LD_LUCKY),
               tx("TRIGGER", round=r), rx("RELEASE", round=r),
               tx("SENSOR", round=r, dice=(5, 5, 1), flat=(True, False, True)), rx("NOROLL", round=r)]
            + settles(r, [("w1", 100), ("w2", 30)]))          # (d)(5): every wager returned


def sic_bo(r=1):
    return ([rx("OPEN", round=r)]
            + bets(r, [("w1", "small", 100), ("w2", "single:4", 300), ("w3", "combo:1-4", 50)])
            + [tx("CLOSE", round=r), rx("NOMORE", round=r), tx("TRIGGER", round=r), rx("RELEASE", round=r),
               # a cocked die: no outcome, the shaker goes again with the wagers kept
               tx("SENSOR", round=r, dice=(1, 4, 6), flat=(True, False, True)), rx("NOROLL", round=r),
               rx("RELEASE", round=r), tx("SENSOR", round=r, dice=(4, 4, 1), flat=FLAT3),
               rx("RESULT", round=r, dice=(4, 4, 1))]
            # paytable A: small (total 9) 1 to 1; two fours 2 to 1; combo 1-4 5 to 1
            + settles(r, [("w1", 200), ("w2", 900), ("w3", 300)]))


LR_LUCKY = (Lucky("straight:17", 499), Lucky("straight:5", 49))


def lightning_roulette(r=1):
    return ([rx("OPEN", round=r)]
            + bets(r, [("w1", "straight:17", 100), ("w2", "red", 200), ("w3", "dozen:2", 30)])
            + [tx("CLOSE", round=r), rx("NOMORE", round=r), rx("LUCKY", round=r, lucky=LR_LUCKY),
               tx("TRIGGER", round=r), rx("SPIN", round=r), tx("SENSOR", round=r, pocket=17),
               rx("RESULT", round=r, pocket=17)]
            # 17 Lucky at 499 to 1; 17 is black; second dozen 2 to 1
            + settles(r, [("w1", 50000), ("w2", 0), ("w3", 90)]))


def craps_roll(r, k, dice, still_open, flat=(True, True)):
    return [rx("ROLL", round=r, roll=k), tx("SENSOR", round=r, roll=k, dice=dice, flat=flat),
            rx("RESULT", round=r, roll=k, dice=dice, open=still_open)]


def dice_ology(r=1):
    events = ([rx("OPEN", round=r)]
              + bets(r, [("w1", "little-ones", 100), ("w2", "big-ones", 100), ("w3", "boom-or-bust", 10)])
              + [tx("CLOSE", round=r), rx("NOMORE", round=r), tx("TRIGGER", round=r)])
    for k, dice in enumerate([(1, 1), (1, 2), (2, 2), (2, 3)], start=1):
        events += craps_roll(r, k, dice, 3) + [tx("TRIGGER", round=r)]
    # roll 5 completes the little numbers 2..6: Little Ones pays 34 to 1 (Pay Table 1). The bench
    # triggers the next roll on RESULT, before the controller's SETTLE reaches it.
    events += craps_roll(r, 5, (3, 3), 2) + [tx("TRIGGER", round=r), rx("SETTLE", round=r, id="w1", returned=3500)]
    # a cocked die is no roll and is thrown again; then a seven takes the other two down
    events += [rx("ROLL", round=r, roll=6), tx("SENSOR", round=r, roll=6, dice=(3, 4), flat=(False, True)),
               rx("NOROLL", round=r)]
    events += craps_roll(r, 6, (3, 4), 0)
    return events + [rx("SETTLE", round=r, id="w2", returned=0), rx("SETTLE", round=r, id="w3", returned=0),
                     rx("SETTLED", round=r, wagers=3, returned=3500), rx("CLEARED", round=r)]


COMPLIANT = {"lightning-dice": lightning_dice, "sic-bo": sic_bo, "lightning-roulette": lightning_roulette,
             "dice-ology": dice_ology}


def run(game, events, *, step=0.01, timeout=2.0, finish=True) -> Oracle:
    oracle = Oracle(game, default_rules(game, PAYTABLE.get(game)), response_timeout=timeout)
    mono = 0.0
    for direction, message in events:
        mono += step
        oracle.observe(direction, message, mono)
    if finish:
        oracle.finish(mono)
    return oracle


def clauses(oracle: Oracle) -> list[str]:
    return [v.clause for v in oracle.violations]


def only(oracle: Oracle) -> Violation:
    assert len(oracle.violations) == 1, oracle.violations
    return oracle.violations[0]


def replace(events, index_of, new):
    i = index_of(events)
    return events[:i] + new + events[i + 1:]


def find(type_, **fields):
    def index_of(events):
        return next(i for i, (_, m) in enumerate(events)
                    if m.type == type_ and all(m.get(k) == v for k, v in fields.items()))
    return index_of


def drop(events, type_, **fields):
    return replace(events, find(type_, **fields), [])


# -- compliant rounds ------------------------------------------------------------------

@pytest.mark.parametrize("game", sorted(COMPLIANT))
def test_a_compliant_round_of_each_game_has_no_violation_and_is_summarised(game):
    events = hello() + COMPLIANT[game](1) + COMPLIANT[game](2) + [rx("OPEN", round=3)]
    oracle = run(game, events)
    assert oracle.violations == []
    assert oracle.incomplete_rounds == [] and oracle.voided_rounds == []
    assert [s.round for s in oracle.rounds] == [1, 2]
    summary = oracle.rounds[0]
    assert summary.wagers == 3 and summary.returned == summary.expected
    settled = [m for _, m in COMPLIANT[game](1) if m.type == "SETTLED"][0]
    assert summary.returned == settled["returned"]


def test_summary_of_lightning_dice_names_outcome_lucky_and_money():
    (summary,) = run("lightning-dice", lightning_dice()).rounds
    assert summary.outcome == (5, 5, 1) and summary.lucky == LD_LUCKY and not summary.no_roll
    assert (summary.staked, summary.returned) == (390, 5080)


def test_a_lawful_no_roll_returning_every_wager_passes():
    oracle = run("lightning-dice", lightning_dice_no_roll())
    assert oracle.violations == [] and oracle.rounds[0].no_roll


# -- phase order -------------------------------------------------------------------------

def test_a_release_without_the_dealers_trigger_breaks_625b_2_d_3():
    v = only(run("lightning-dice", drop(lightning_dice(), "TRIGGER")))
    assert v.clause == "625b.2(d)(3)" and "TRIGGER" in v.message and v.round == 1


def test_the_frame_index_names_the_offending_frame():
    events = drop(lightning_dice(), "TRIGGER")
    v = only(run("lightning-dice", events))
    assert events[v.frame][1].type == "RELEASE"


def test_lucky_numbers_before_no_more_bets_break_625b_2_g_1():
    events = lightning_dice()
    lucky = events[find("LUCKY")(events)]
    events = replace(events, find("LUCKY"), [])
    events = events[:1] + [lucky] + events[1:]
    assert clauses(run("lightning-dice", events)) == ["625b.2(g)(1)"]


def test_lucky_numbers_before_no_more_bets_in_roulette_break_617c_3_d():
    events = lightning_roulette()
    lucky = events[find("LUCKY")(events)]
    events = events[:1] + [lucky] + replace(events, find("LUCKY"), [])[1:]
    assert clauses(run("lightning-roulette", events)) == ["617c.3(d)"]


def test_a_drop_with_no_lucky_numbers_revealed_breaks_625b_2_d_2():
    events = drop(lightning_dice(), "LUCKY")
    # without Lucky Numbers the total pays its base 4 to 1 (f)
    events = replace(events, find("SETTLE", id="w1"), [rx("SETTLE", round=1, id="w1", returned=500)])
    events = replace(events, find("SETTLED"), [rx("SETTLED", round=1, wagers=3, returned=580)])
    assert clauses(run("lightning-dice", events)) == ["625b.2(d)(2)"]


@pytest.mark.parametrize("game, clause", [("lightning-dice", "625b.2(d)(2)"), ("lightning-roulette", "617c.3(d)")])
def test_lucky_numbers_held_back_until_the_bench_gives_up_are_counted_under_their_clause(game, clause):
    """Issue 45: a controller holding its LUCKY until after the SENSOR never
    gets a TRIGGER (the bench waits for the Lucky Numbers first), so nothing
    was "before the drop": 30 rounds failed naming 625b.2(d)(2) and the
    oracle's ``violations_by_clause`` was empty. The Lucky Numbers are due
    within the reply deadline of no more bets (docs/protocol.md 11)."""
    played = COMPLIANT[game]()
    nomore = find("NOMORE")(played)
    stakes = {m["id"]: m["stake"] for _, m in played if m.type == "WAGER"}
    void = [rx("SETTLE", round=1, id=wager_id, returned=stake) for wager_id, stake in stakes.items()]
    void += [rx("SETTLED", round=1, wagers=len(stakes), returned=sum(stakes.values()), void=True),
             rx("CLEARED", round=1)]
    after = [tx("RESET", reason="bench-timeout", round=1), rx("RESET", reason="requested", round=1),
             rx("HELLO", proto=1, role="controller", sw="c", game=game)] + void + [rx("OPEN", round=2)]
    oracle = Oracle(game, default_rules(game), response_timeout=0.5)
    mono = 0.0
    for i, (direction, message) in enumerate(played[:nomore + 1] + after):
        mono += 0.6 if i == nomore + 1 else 0.01          # the bench's RESET 0.6 s after NOMORE, no LUCKY
        oracle.observe(direction, message, mono)
    v = only(oracle)
    assert v.clause == clause and v.round == 1 and "no Lucky Numbers within 0.5 s of no more bets" in v.message
    assert oracle.violations_by_clause == {clause: 1}
    # In time (0.4 s after NOMORE) it is no finding.
    in_time = Oracle(game, default_rules(game), response_timeout=0.5)
    mono = 0.0
    for direction, message in played:
        mono += 0.4 if message.type == "LUCKY" else 0.01
        in_time.observe(direction, message, mono)
    assert in_time.violations == []


# -- Lucky Numbers: count and ranges ---------------------------------------------------------

@pytest.mark.parametrize("game, lucky, clause", [
    ("lightning-dice", LD_LUCKY + (Lucky("total:5", 49), Lucky("total:6", 29), Lucky("total:7", 19)), "625b.2(d)(2)"),
    ("lightning-dice", (Lucky("total:11", 50), Lucky("total:4", 99)), "625b.2(g)(3)"),
    ("lightning-dice", (Lucky("total:11", 49),), "625b.2(d)(2)"),
    ("lightning-roulette", tuple(Lucky(f"straight:{n}", 49) for n in (17, 1, 2, 3, 4, 5)), "617c.3(d)"),
    ("lightning-roulette", (Lucky("straight:17", 500),), "617c.3(g)"),
])
def test_unlawful_lucky_numbers_are_named_by_their_clause(game, lucky, clause):
    events = COMPLIANT[game]()
    events = replace(events, find("LUCKY"), [rx("LUCKY", round=1, lucky=lucky)])
    assert clause in clauses(run(game, events))


def test_a_winning_wager_on_an_unlawful_lucky_set_is_judged_by_the_rest_of_the_rules():
    """Five Lucky Numbers (each lawful alone): the count is the violation; the
    wagers are still settled correctly, so nothing else is reported."""
    lucky = LD_LUCKY + (Lucky("total:5", 49), Lucky("total:6", 29), Lucky("total:7", 19))
    events = replace(lightning_dice(), find("LUCKY"), [rx("LUCKY", round=1, lucky=lucky)])
    assert clauses(run("lightning-dice", events)) == ["625b.2(d)(2)"]
    wrong = replace(events, find("SETTLE", id="w3"), [rx("SETTLE", round=1, id="w3", returned=120)])
    assert clauses(run("lightning-dice", wrong))[1:] == ["625b.2(f)", "625b.2(d)(6)"]


# -- the result against the plant; no rolls -----------------------------------------------------

def test_a_result_other_than_the_sensor_reading_breaks_625b_2_d_4():
    events = replace(lightning_dice(), find("RESULT"), [rx("RESULT", round=1, dice=(5, 5, 2))])
    v = only(run("lightning-dice", events))
    assert v.clause == "625b.2(d)(4)" and "[5, 5, 2]" in v.message and "[5, 5, 1]" in v.message


def test_settlements_follow_the_plant_not_the_controllers_result():
    """The controller claims 6-4-1 and pays w1 as a loss: the plant showed 5-5-1, so w1 was owed 5000."""
    events = replace(lightning_dice(), find("RESULT"), [rx("RESULT", round=1, dice=(6, 4, 1))])
    events = replace(events, find("SETTLE", id="w1"), [rx("SETTLE", round=1, id="w1", returned=0)])
    events = replace(events, find("SETTLED"), [rx("SETTLED", round=1, wagers=3, returned=80)])
    assert clauses(run("lightning-dice", events)) == ["625b.2(d)(4)", "625b.2(g)(3)"]


def test_a_no_roll_on_flat_dice_breaks_625b_2_d_5():
    events = replace(lightning_dice_no_roll(), find("SENSOR"), [tx("SENSOR", round=1, dice=(5, 5, 1), flat=FLAT3)])
    assert "625b.2(d)(5)" in clauses(run("lightning-dice", events))


def test_a_result_on_a_cocked_die_breaks_625b_2_d_5():
    events = replace(lightning_dice(), find("SENSOR"), [tx("SENSOR", round=1, dice=(5, 5, 1), flat=(True, True, False))])
    assert clauses(run("lightning-dice", events))[0] == "625b.2(d)(5)"


def test_a_no_roll_that_pays_on_the_faces_breaks_625b_2_d_5():
    events = replace(lightning_dice_no_roll(), find("SETTLE", id="w1"), [rx("SETTLE", round=1, id="w1", returned=5000)])
    events = replace(events, find("SETTLED"), [rx("SETTLED", round=1, wagers=2, returned=5030)])
    v = only(run("lightning-dice", events))
    assert v.clause == "625b.2(d)(5)" and "5000" in v.message and "100" in v.message


def test_a_no_roll_that_keeps_a_wager_breaks_625b_2_d_5():
    events = drop(lightning_dice_no_roll(), "SETTLE", id="w2")
    events = replace(events, find("SETTLED"), [rx("SETTLED", round=1, wagers=1, returned=100)])
    assert "625b.2(d)(5)" in clauses(run("lightning-dice", events))


def test_sic_bo_result_on_a_cocked_die_instead_of_shaking_again_is_found():
    events = sic_bo()
    i = find("NOROLL")(events)
    events = events[:i] + [rx("RESULT", round=1, dice=(1, 4, 6))] + events[i + 1:]
    assert "625a.5" in clauses(run("sic-bo", events))


# -- settlements ---------------------------------------------------------------------------------

@pytest.mark.parametrize("game, wager_id, paid, clause", [
    ("lightning-dice", "w1", 500, "625b.2(g)(3)"),       # the Lucky total paid at its base odds
    ("sic-bo", "w2", 1300, "625a.6(b)(2)"),              # two of a kind paid 12 to 1
    ("lightning-roulette", "w2", 400, "617a.4"),         # red paid on black 17
    ("lightning-roulette", "w1", 3000, "617c.3(e)"),     # a Lucky 17 paid 29 to 1
])
def test_a_wrong_amount_cites_the_clause_the_rules_give_for_that_wager(game, wager_id, paid, clause):
    events = replace(COMPLIANT[game](), find("SETTLE", id=wager_id), [rx("SETTLE", round=1, id=wager_id, returned=paid)])
    settled = [m for _, m in events if m.type == "SETTLE"]
    events = replace(events, find("SETTLED"), [rx("SETTLED", round=1, wagers=3, returned=sum(m["returned"] for m in settled))])
    v = only(run(game, events))
    assert v.clause == clause and str(paid) in v.message


def test_small_paid_on_a_triple_breaks_625a_3_6():
    events = ([rx("OPEN", round=1)] + bets(1, [("w1", "small", 100)])
              + [tx("CLOSE", round=1), rx("NOMORE", round=1), tx("TRIGGER", round=1), rx("RELEASE", round=1),
                 tx("SENSOR", round=1, dice=(2, 2, 2), flat=FLAT3), rx("RESULT", round=1, dice=(2, 2, 2))]
              + settles(1, [("w1", 200)]))
    assert clauses(run("sic-bo", events)) == ["625a.3(6)"]


def test_a_wager_never_settled_breaks_625b_2_d_6():
    events = drop(lightning_dice(), "SETTLE", id="w3")
    events = replace(events, find("SETTLED"), [rx("SETTLED", round=1, wagers=2, returned=5000)])
    assert clauses(run("lightning-dice", events)) == ["625b.2(d)(6)", "625b.2(d)(6)"]   # at SETTLED, at CLEARED


def test_a_wager_settled_twice_or_never_accepted_is_found():
    events = lightning_dice()
    i = find("SETTLED")(events)
    twice = events[:i] + [rx("SETTLE", round=1, id="w1", returned=5000)] + events[i:]
    assert "settled a second time" in only(run("lightning-dice", twice)).message
    unknown = events[:i] + [rx("SETTLE", round=1, id="ghost", returned=10)] + events[i:]
    v = only(run("lightning-dice", unknown))
    assert v.clause == "625b.2(d)(6)" and "ghost" in v.message


def test_settled_totals_that_disagree_with_the_settlements_are_found():
    events = replace(lightning_dice(), find("SETTLED"), [rx("SETTLED", round=1, wagers=3, returned=5081)])
    v = only(run("lightning-dice", events))
    assert v.clause == "625b.2(d)(6)" and "5081" in v.message and "5080" in v.message


def test_clearing_before_settlement_breaks_625b_2_d_6():
    events = lightning_dice()
    cleared = events.pop(find("CLEARED")(events))
    i = find("SETTLE")(events)
    events = events[:i] + [cleared] + events[i:]
    v = only(run("lightning-dice", events))
    assert v.clause == "625b.2(d)(6)" and "w1, w2, w3" in v.message


def test_a_settlement_before_the_outcome_is_found():
    events = lightning_dice()
    i, j = find("SENSOR")(events), find("SETTLE", id="w2")(events)
    events = events[:i] + [events[j]] + events[i:j] + events[j + 1:]
    assert "settled before the outcome" in run("lightning-dice", events).violations[0].message


# -- betting --------------------------------------------------------------------------------------

@pytest.mark.parametrize("game, clause", [("lightning-dice", "625b.2(d)(1)"), ("sic-bo", "625a.5(c)"),
                                          ("lightning-roulette", "617c.3(c)"), ("dice-ology", "20:18:33:14(1)(d)")])
def test_a_wager_accepted_after_no_more_bets_is_found(game, clause):
    events = COMPLIANT[game]()
    i = find("CLOSE")(events) + 1
    bet = {"lightning-dice": "high", "sic-bo": "big", "lightning-roulette": "black", "dice-ology": "big-ones"}[game]
    # the late wager goes out before the controller's NOMORE arrives: it is still late
    events = events[:i] + [tx("WAGER", round=1, id="late", bet=bet, stake=10), rx("ACCEPT", round=1, id="late")] + events[i:]
    found = run(game, events).violations
    assert found[0].clause == clause and "late" in found[0].message


def test_a_late_wager_refused_is_no_finding_and_an_early_lawful_one_refused_is():
    events = lightning_dice()
    i = find("CLOSE")(events) + 1
    late = events[:i] + [tx("WAGER", round=1, id="late", bet="high", stake=10),
                         rx("REFUSE", round=1, id="late", reason="betting-closed")] + events[i:]
    assert run("lightning-dice", late).violations == []
    early = events[:1] + [tx("WAGER", round=1, id="w9", bet="total:7", stake=10),
                          rx("REFUSE", round=1, id="w9", reason="busy")] + events[1:]
    v = only(run("lightning-dice", early))
    assert v.clause == "625b.2(d)(1)" and "w9" in v.message


def test_refusing_a_bet_the_game_does_not_offer_is_right_and_accepting_it_is_not():
    events = lightning_dice()
    refused = events[:1] + [tx("WAGER", round=1, id="x", bet="combo:1-2", stake=10),
                            rx("REFUSE", round=1, id="x", reason="unknown-bet")] + events[1:]
    assert run("lightning-dice", refused).violations == []
    accepted = events[:1] + [tx("WAGER", round=1, id="x", bet="total:19", stake=10),
                             rx("ACCEPT", round=1, id="x")] + events[1:]
    assert clauses(run("lightning-dice", accepted))[0] == "625b.2(e)(5)"


def test_an_answer_to_a_wager_never_placed_is_found():
    events = lightning_dice()
    events = events[:1] + [rx("ACCEPT", round=1, id="nobody")] + events[1:]
    assert "never placed" in only(run("lightning-dice", events)).message


# -- response deadlines ---------------------------------------------------------------------------

def test_a_reply_later_than_the_response_timeout_is_found():
    events = lightning_dice()
    oracle = Oracle("lightning-dice", default_rules("lightning-dice"), response_timeout=0.5)
    mono = 0.0
    for direction, message in events:
        mono += 0.6 if message.type == "NOMORE" else 0.01     # NOMORE 0.6 s after CLOSE
        oracle.observe(direction, message, mono)
    v = only(oracle)
    assert v.clause == "625b.2(d)(1)" and "CLOSE" in v.message and events[v.frame][1].type == "NOMORE"


def test_a_reply_that_never_comes_is_found_at_the_end_of_the_stream():
    events = lightning_dice()
    events = events[:find("RELEASE")(events)]
    oracle = run("lightning-dice", events, finish=False)
    assert oracle.violations == []
    assert [v.clause for v in oracle.finish(mono=100.0)] == ["625b.2(d)(3)"]
    assert oracle.incomplete_rounds == [1]


def test_a_retransmission_restarts_the_clock_and_is_not_counted_twice():
    events = lightning_dice()
    oracle = Oracle("lightning-dice", default_rules("lightning-dice"), response_timeout=0.5)
    mono = 0.0
    for direction, message in events:
        message = Message(message.type, message.fields, seq=int(mono * 100) % 10000)
        mono += 0.01
        oracle.observe(direction, message, mono)
        if message.type in ("TRIGGER", "SETTLE"):          # sent again / received again, same seq
            mono += 0.4
            oracle.observe(direction, message, mono)
    assert oracle.violations == []


def test_the_oldest_unanswered_ask_is_late_whatever_was_answered_after_it():
    """Two wagers await their replies; the second is answered, the first (sent
    again once, which restarts its clock) is not: only the first is late, and
    only once its restarted clock has run out."""
    oracle = Oracle("lightning-dice", default_rules("lightning-dice"), response_timeout=0.5)
    first = Message("WAGER", {"round": 1, "id": "w1", "bet": "low", "stake": 10}, seq=1)
    second = Message("WAGER", {"round": 1, "id": "w2", "bet": "high", "stake": 10}, seq=2)
    steps = [("rx", make("OPEN", round=1), 0.0), ("tx", first, 0.1), ("tx", first, 0.3),   # w1 sent again
             ("tx", second, 0.4), ("rx", make("ACCEPT", round=1, id="w2"), 0.45),
             ("rx", make("NOMORE", round=1), 0.75)]                                        # w1 in time (0.45 s)
    for direction, message, mono in steps:
        oracle.observe(direction, message, mono)
    assert oracle.violations == []
    oracle.observe("rx", make("LUCKY", round=1, lucky=LD_LUCKY), 0.85)                      # w1 0.55 s: late
    v = only(oracle)
    assert "WAGER w1" in v.message and v.clause == "625b.2(d)(1)"


# -- Dice-Ology over the rolls -----------------------------------------------------------------------

def test_a_bet_kept_open_after_a_seven_breaks_20_18_33_14_1_b():
    r = 1
    events = ([rx("OPEN", round=r)] + bets(r, [("w1", "little-ones", 100)])
              + [tx("CLOSE", round=r), rx("NOMORE", round=r), tx("TRIGGER", round=r)]
              + craps_roll(r, 1, (3, 4), 1) + [tx("TRIGGER", round=r)]          # a seven, yet "1 open"
              + craps_roll(r, 2, (1, 1), 1)
              + craps_roll(r, 3, (2, 2), 0) + settles(r, [("w1", 0)]))
    v = run("dice-ology", events).violations[0]
    assert v.clause == "20:18:33:14(1)(b)" and "w1" in v.message and events[v.frame][1].type == "RESULT"


def test_big_ones_settled_while_still_open_is_found():
    r = 1
    events = ([rx("OPEN", round=r)] + bets(r, [("w1", "big-ones", 100)])
              + [tx("CLOSE", round=r), rx("NOMORE", round=r), tx("TRIGGER", round=r)]
              + craps_roll(r, 1, (6, 6), 0) + settles(r, [("w1", 3500)]))
    assert "20:18:33:14(2)(b)" in clauses(run("dice-ology", events))


def test_a_wrong_dice_ology_payout_cites_the_pay_table_win_clause():
    events = replace(dice_ology(), find("SETTLE", id="w1"), [rx("SETTLE", round=1, id="w1", returned=3100)])
    events = replace(events, find("SETTLED"), [rx("SETTLED", round=1, wagers=3, returned=3100)])
    assert clauses(run("dice-ology", events)) == ["20:18:33:14(1)(c)"]


# -- resets, odd frames, the end of the stream ---------------------------------------------------------

@pytest.mark.parametrize("interrupt", [[rx("RESET", reason="fault", round=1), rx("HELLO", proto=1, role="c", sw="c", game="x")],
                                       [tx("HELLO", proto=1, role="b", sw="b", game="x"),
                                        rx("HELLO", proto=1, role="c", sw="c", game="x")]])
def test_a_reset_or_hello_mid_round_voids_it_without_a_violation(interrupt):
    events = lightning_dice()[:find("TRIGGER")(lightning_dice())]
    void = [rx("SETTLE", round=1, id=w, returned=s) for w, s in (("w1", 100), ("w2", 250), ("w3", 40))]
    void += [rx("SETTLED", round=1, wagers=3, returned=390, void=True), rx("CLEARED", round=1)]
    fresh = (Lucky("total:11", 49), Lucky("total:5", 49))       # a new draw for the round after the void
    oracle = run("lightning-dice", events + interrupt + void + lightning_dice(2, lucky=fresh))
    assert oracle.violations == []
    assert oracle.voided_rounds == [1] and [s.round for s in oracle.rounds] == [2]
    # The voided round's draw again: the RNG was not activated afresh (625b.2(d)(2)), flagged at once.
    again = run("lightning-dice", events + interrupt + void + lightning_dice(2)).violations
    assert [(v.round, v.clause) for v in again] == [(2, "625b.2(d)(2)")] and "void" in again[0].message


def test_odd_frames_never_raise():
    oracle = Oracle("sic-bo", default_rules("sic-bo", "A"))
    odd = [("rx", None), ("rx", make("BOGUS", x=1)), ("sideways", make("OPEN", round=1)),
           ("rx", make("SETTLE", round=1)), ("rx", make("SETTLE", id="a", returned=1)),
           ("tx", make("WAGER", round=1)), ("rx", make("RESULT", round=1, dice=[1, 2, 3])),
           ("tx", make("SENSOR", round=1)), ("rx", make("LUCKY", round=1, lucky="nonsense")),
           ("rx", make("OPEN")), ("rx", make("CLEARED", round=None)), ("rx", "not a message")]
    for direction, message in odd:
        assert isinstance(oracle.observe(direction, message, 1.0), list)
    assert isinstance(oracle.finish(2.0), list)
    assert oracle.frames == len(odd)


def test_the_next_round_opening_over_an_unfinished_one_is_found():
    events = lightning_dice()[:find("SETTLE")(lightning_dice())] + lightning_dice(2)
    found = run("lightning-dice", events).violations
    assert {v.clause for v in found} == {"625b.2(d)(6)"} and all(v.round == 1 for v in found)
    assert len(found) == 4    # three wagers never settled, no SETTLED/CLEARED


def test_lucky_numbers_as_journal_json_are_judged_like_decoded_ones():
    as_json = [{"bet": x.bet, "pays": x.pays} for x in LD_LUCKY]
    events = replace(lightning_dice(), find("LUCKY"), [rx("LUCKY", round=1, lucky=as_json)])
    assert run("lightning-dice", events).violations == []
    as_json[0]["pays"] = 50
    events = replace(lightning_dice(), find("LUCKY"), [rx("LUCKY", round=1, lucky=as_json)])
    assert clauses(run("lightning-dice", events))[0] == "625b.2(g)(3)"


def test_a_wager_refused_between_rounds_is_no_finding_and_one_accepted_then_is():
    events = lightning_dice()
    between = [tx("WAGER", round=1, id="w7", bet="low", stake=10)]
    assert run("lightning-dice", events + between + [rx("REFUSE", round=1, id="w7", reason="betting-closed")]).violations == []
    v = only(run("lightning-dice", events + between + [rx("ACCEPT", round=1, id="w7")]))
    assert v.clause == "625b.2(d)(1)" and "after no more bets" in v.message


def test_the_documented_exchange_decoded_from_its_raw_frames_passes():
    """docs/protocol.md's example, frames decoded from their bytes as a journal
    replay would, ACKs included: lawful, and the round summarised as the text says."""
    import re
    from pathlib import Path

    from bench.protocol import Codec

    text = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    block = re.search(r"```exchange\n(.*?)```", text, re.S).group(1)
    codec = Codec("lightning-dice")
    oracle = Oracle("lightning-dice", default_rules("lightning-dice"))
    for mono, line in enumerate(block.splitlines()):
        message, _ = codec.decode_line(line[2:].encode("ascii"))   # the terminator is not part of a line
        oracle.observe("tx" if line[0] == ">" else "rx", message, mono * 0.01)
    oracle.finish()
    assert oracle.violations == [] and oracle.incomplete_rounds == []
    (summary,) = oracle.rounds
    assert (summary.wagers, summary.staked, summary.returned, summary.outcome) == (2, 700, 2500, (6, 4, 1))
