"""A session that starts against a controller in any state (docs/protocol.md
section 5): what the controller still says for the round it had in flight
is the earlier session's, journalled and never judged as a breach of this
session's rules; anything else between its HELLO and its OPEN is a
protocol finding, and so is a round number used again."""

from __future__ import annotations

from bench.oracle import Oracle
from bench.protocol.messages import Message, make
from bench.rules import Lucky
from bench.rules.submission import default_rules

from tests.oracle.test_oracle_streams import lightning_dice, rx, tx

GAME = "lightning-dice"


def judge(events) -> Oracle:
    oracle = Oracle(GAME, default_rules(GAME))
    for i, (direction, message) in enumerate(events):
        oracle.observe(direction, message, float(i) * 0.01)
    oracle.finish(len(events) * 0.01)
    return oracle


def bench_hello():
    return tx("HELLO", proto=1, role="bench", sw="t", game=GAME)


def controller_hello():
    return rx("HELLO", proto=1, role="controller", sw="c", game=GAME)


def earlier_void(round_no: int, stakes=()):
    """The void of an earlier session's round: a SETTLE per wager still up, SETTLED void=1, CLEARED."""
    settles = [rx("SETTLE", round=round_no, id=f"old{i}", returned=s) for i, s in enumerate(stakes)]
    return settles + [rx("SETTLED", round=round_no, wagers=len(stakes), returned=sum(stakes), void=True),
                      rx("CLEARED", round=round_no)]


def renumbered(events, offset):
    """A compliant round's stream with every round number moved by ``offset``."""
    out = []
    for direction, m in events:
        fields = dict(m.fields)
        if "round" in fields:
            fields["round"] += offset
        out.append((direction, make(m.type, **fields)))
    return out


def test_a_controller_left_on_voids_its_earlier_round_and_nothing_is_judged_a_breach():
    # The report: 625b.2(d)(6) "SETTLED for round 6 while no round is open" on the second run.
    events = ([bench_hello(), controller_hello()] + earlier_void(6, stakes=(300, 100))
              + renumbered(lightning_dice(), 6))
    oracle = judge(events)
    assert oracle.violations == []
    assert oracle.earlier_rounds == [6] and [r.round for r in oracle.rounds] == [7]


def test_frames_still_in_flight_before_the_controllers_hello_are_the_earlier_sessions():
    in_flight = [rx("SETTLE", round=6, id="w9", returned=123456), rx("OPEN", round=7),
                 rx("RESULT", round=6, dice=(1, 2, 3))]
    events = ([bench_hello()] + in_flight + [controller_hello()] + earlier_void(7)
              + renumbered(lightning_dice(), 7))
    oracle = judge(events)
    assert oracle.violations == []
    assert oracle.earlier_frames == 3 and oracle.earlier_rounds == [7]


def test_after_its_hello_a_controller_may_only_void_the_round_it_had_in_flight():
    events = ([bench_hello(), controller_hello(), rx("RESULT", round=6, dice=(1, 2, 3))]
              + earlier_void(6) + renumbered(lightning_dice(), 6))
    [v] = judge(events).violations
    assert v.clause == "protocol" and "RESULT for round 6" in v.message and "bench docs protocol 5" in v.message
    # Out of the void's order: CLEARED before SETTLED.
    events = ([bench_hello(), controller_hello(), rx("CLEARED", round=6),
               rx("SETTLED", round=6, wagers=0, returned=0, void=True)] + renumbered(lightning_dice(), 6))
    assert [v.clause for v in judge(events).violations] == ["protocol"]
    # A SETTLED without void=1.
    events = ([bench_hello(), controller_hello(), rx("SETTLED", round=6, wagers=0, returned=0), rx("CLEARED", round=6)]
              + renumbered(lightning_dice(), 6))
    [v] = judge(events).violations
    assert "without void=1" in v.message


def test_a_round_number_used_again_after_the_void_is_found():
    events = [bench_hello(), controller_hello()] + earlier_void(6) + renumbered(lightning_dice(), 5)  # OPEN round=6 again
    [v] = judge(events).violations
    assert v.clause == "protocol" and "never reused" in v.message and v.round == 6


def test_the_void_of_a_round_this_session_played_returns_every_stake_still_up():
    played = lightning_dice()
    cut = next(i for i, (_, m) in enumerate(played) if m.type == "TRIGGER")
    # w1 100, w2 250, w3 40 accepted; a resynchronising HELLO before the drop: each stake comes back.
    void = [rx("SETTLE", round=1, id="w1", returned=100), rx("SETTLE", round=1, id="w2", returned=250),
            rx("SETTLE", round=1, id="w3", returned=40), rx("SETTLED", round=1, wagers=3, returned=390, void=True),
            rx("CLEARED", round=1)]
    # The next round draws its Lucky Numbers afresh (repeating a voided round's is a breach of its own, 625b.2(d)(2)).
    fresh = renumbered(lightning_dice(lucky=(Lucky("total:11", 49), Lucky("total:17", 99))), 1)
    clean = judge(played[:cut] + [bench_hello(), controller_hello()] + void + fresh)
    assert clean.violations == [] and clean.voided_rounds == [1] and clean.earlier_rounds == []
    short = list(void)
    short[1] = rx("SETTLE", round=1, id="w2", returned=25)
    short[3] = rx("SETTLED", round=1, wagers=3, returned=165, void=True)
    [v] = judge(played[:cut] + [bench_hello(), controller_hello()] + short + fresh).violations
    assert v.clause == "protocol" and "returns 25 for wager w2; its stake 250 is due" in v.message


def test_the_void_may_return_a_wager_whose_accept_the_bench_never_saw():
    """A link lost mid-betting loses the controller's ACCEPT on the way: the
    void that follows the new HELLO returns that wager's stake, lawfully; a
    wager the bench never placed is another matter."""
    opened = renumbered(lightning_dice(), 6)[:1]
    placed = [tx("WAGER", round=7, id="w1", bet="low", stake=250), tx("WAGER", round=7, id="w2", bet="high", stake=40)]
    void = [rx("SETTLE", round=7, id="w1", returned=250), rx("SETTLE", round=7, id="w2", returned=40),
            rx("SETTLED", round=7, wagers=2, returned=290, void=True), rx("CLEARED", round=7)]
    after = [bench_hello(), controller_hello()]
    assert judge(opened + placed + after + void + renumbered(lightning_dice(), 7)).violations == []
    stranger = list(void)
    stranger[1] = rx("SETTLE", round=7, id="w9", returned=40)
    [v] = judge(opened + placed + after + stranger + renumbered(lightning_dice(), 7)).violations
    assert "settles wager w9, which was never placed" in v.message


# -- what may come before the controller's answer (issue 45, item 3) ---------------------------

def test_settles_sent_before_the_answer_to_a_reset_are_judged_as_this_sessions_round():
    """The bench gives up waiting for SETTLED and sends RESET; the
    controller, still settling, sends one more SETTLE before its answer.
    That SETTLE names this session's round: it is that round's, held to its
    amount (before: counted as "the controller's earlier session", unjudged)."""
    played = lightning_dice()
    cut = next(i for i, (_, m) in enumerate(played) if m.type == "SETTLE" and m["id"] == "w2")
    # w1 5000 crossed in time; then the bench's RESET; then w2 paid 250 (low lost on 5-5-1: 0 is due).
    late = [tx("RESET", reason="bench-timeout", round=1), rx("SETTLE", round=1, id="w2", returned=250),
            rx("RESET", reason="requested", round=1), controller_hello(),
            rx("SETTLE", round=1, id="w3", returned=40), rx("SETTLED", round=1, wagers=3, returned=5290, void=True),
            rx("CLEARED", round=1)]
    fresh = renumbered(lightning_dice(lucky=(Lucky("total:11", 49), Lucky("total:17", 99))), 1)
    oracle = judge(played[:cut] + late + fresh)
    [v] = oracle.violations
    assert v.clause == "625b.2(e)(1)" and "w2" in v.message and "returned 250" in v.message     # low: the small bet
    assert oracle.earlier_frames == 0 and oracle.earlier_rounds == []
    # Paid right, the same stream is clean: the void settles only what was still up, and SETTLED counts the round.
    late[1] = rx("SETTLE", round=1, id="w2", returned=0)
    late[5] = rx("SETTLED", round=1, wagers=3, returned=5040, void=True)
    assert judge(played[:cut] + late + fresh).violations == []


def test_the_next_round_opened_before_the_answer_is_this_sessions_and_its_void_too():
    """Between rounds the controller opens round 2 as the bench's HELLO is on
    its way: round 2 is this session's (void at the answer), not an earlier
    session's round, and the next OPEN must come after it."""
    events = [bench_hello(), controller_hello()] + lightning_dice() + [
        bench_hello(), rx("OPEN", round=2), controller_hello(),
        rx("SETTLED", round=2, wagers=0, returned=0, void=True), rx("CLEARED", round=2)]
    fresh = renumbered(lightning_dice(lucky=(Lucky("total:11", 49), Lucky("total:17", 99))), 2)
    oracle = judge(events + fresh)
    assert oracle.violations == [] and oracle.earlier_rounds == [] and oracle.earlier_frames == 0
    reused = judge(events + renumbered(lightning_dice(), 1))          # OPEN round=2 again
    assert [v.clause for v in reused.violations] == ["protocol"] and "never reused" in reused.violations[0].message


def test_frames_of_the_earlier_session_cannot_name_a_round_this_session_opens():
    in_flight = [rx("SETTLE", round=9, id="w9", returned=123)]          # round 9: then this session opens 7
    events = [bench_hello()] + in_flight + [controller_hello()] + earlier_void(6) + renumbered(lightning_dice(), 6)
    [v] = judge(events).violations
    assert v.clause == "protocol" and "OPEN round=7 after round 9" in v.message


def test_nothing_naming_a_round_comes_between_the_controllers_reset_and_its_hello():
    played = lightning_dice()
    cut = next(i for i, (_, m) in enumerate(played) if m.type == "TRIGGER")
    void = [rx("SETTLE", round=1, id=w, returned=s) for w, s in (("w1", 100), ("w2", 250), ("w3", 40))]
    void += [rx("SETTLED", round=1, wagers=3, returned=390, void=True), rx("CLEARED", round=1)]
    fresh = renumbered(lightning_dice(lucky=(Lucky("total:11", 49), Lucky("total:17", 99))), 1)
    between = [tx("RESET", reason="operator", round=1), rx("RESET", reason="requested", round=1),
               rx("NOMORE", round=1), controller_hello()]
    [v] = judge(played[:cut] + between + void + fresh).violations
    assert v.clause == "protocol" and "after the controller's RESET and before its HELLO" in v.message


# -- a link that loses the controller's messages (issue 45, item 7) -----------------------------

def numbered(events, *, lost_after=None, lost=0):
    """``events`` as the link numbers them, each direction from 0000; the
    controller's ``lost`` messages after the one at ``lost_after`` (an index
    in ``events``) never crossed: its numbering skips them."""
    seq = {"tx": 0, "rx": 0}
    out = []
    for i, (direction, m) in enumerate(events):
        out.append((direction, Message(m.type, m.fields, seq[direction])))
        seq[direction] += 1
        if i == lost_after:
            seq["rx"] += lost
    return out


def played_then_unplugged(gap: int):
    """Round 1 up to the SENSOR; the device goes away with the RESULT and
    two SETTLEs on the line, the bench comes back 3.2 s later with a new
    HELLO; the controller voids what it had not settled (w3) and counts the
    round's three SETTLEs. ``gap``: how many of its messages its numbering
    says never crossed (3; 0 for a controller that never sent them)."""
    played = [bench_hello(), controller_hello()] + lightning_dice()
    sensor = next(i for i, (_, m) in enumerate(played) if m.type == "SENSOR")
    void = [rx("SETTLE", round=1, id="w3", returned=40), rx("SETTLED", round=1, wagers=3, returned=5080, void=True),
            rx("CLEARED", round=1)]
    fresh = renumbered(lightning_dice(lucky=(Lucky("total:11", 49), Lucky("total:17", 99))), 1)
    events = numbered(played[:sensor + 1] + [bench_hello(), controller_hello()] + void + fresh,
                      lost_after=sensor, lost=gap)
    oracle = Oracle(GAME, default_rules(GAME))
    mono = 0.0
    for i, (direction, message) in enumerate(events):
        mono += 3.2 if i == sensor + 1 else 0.01        # the bench's HELLO, 3.2 s after its SENSOR
        oracle.observe(direction, message, mono)
    oracle.finish(mono)
    return oracle


def test_messages_lost_with_the_device_are_the_links_not_the_controllers():
    """Issue 45: after an unplug just after a round's first SETTLE, the oracle
    blamed the controller for the reply to SENSOR and the SETTLEs lost with
    the device. The controller's numbering says three of its messages never
    crossed: the overdue reply and the wagers no SETTLE that crossed settled
    are the link's; the round is judged on what crossed."""
    oracle = played_then_unplugged(gap=3)
    assert oracle.violations == []
    assert oracle.voided_rounds == [1] and oracle.link_losses == [(1, 3, ("w1", "w2"))]


def test_with_no_message_lost_the_missing_reply_and_settlements_are_the_controllers():
    oracle = played_then_unplugged(gap=0)
    assert {v.clause for v in oracle.violations} == {"625b.2(d)(4)", "protocol"}
    late, = [v for v in oracle.violations if v.clause == "625b.2(d)(4)"]
    assert "no reply from the controller to SENSOR" in late.message and late.round == 1
    never, = [v for v in oracle.violations if v.clause == "protocol"]
    assert "w1, w2 never returned" in never.message and oracle.link_losses == []
