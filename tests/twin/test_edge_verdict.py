"""The edge page's verdict box reads the estimate's own verdict line: the
latest safe call of each payout table, its interval where the estimate gives
one, and a call time judged (``--call-time-s``): shown safe passes, not shown
fails, too few spins to show any call is a caution, not a verdict."""

from types import SimpleNamespace

from twin.edge.payouts import straight_payouts
from twin.edge.report import wheel_verdict


def outcome(**verdict):
    payouts = [straight_payouts(2.7, 110.25)[k] for k in ("lightning", "classic")]
    return SimpleNamespace(payouts=payouts, runs=16000, verdict_json=lambda: dict(verdict))


def test_each_tables_call_and_its_interval_are_in_the_box():
    v = wheel_verdict(outcome(latest_safe_call_s={"lightning": 1.25, "classic": 0.5},
                              latest_safe_call_interval_s={"lightning": [0.75, 1.5], "classic": [0.0, 0.75]}))
    assert v.state == "info" and "0.5 s after the launch" in v.headline and "classic" in v.headline
    figures = dict(v.figures)
    assert figures["Lightning, 29 to 1 (617c.3(f))"] == "1.25 s after the launch; interval 0.75 to 1.5 s"


def test_a_call_time_is_judged_shown_safe_or_not():
    safe = wheel_verdict(outcome(latest_safe_call_s={"lightning": 1.25, "classic": 0.75}, call_time_s=0.5))
    assert safe.state == "pass" and "0.5 s is shown safe" in safe.headline
    late = wheel_verdict(outcome(latest_safe_call_s={"lightning": 1.25, "classic": 0.75}, call_time_s=1))
    assert late.state == "fail" and "classic, 35 to 1" in late.headline
    told = wheel_verdict(outcome(latest_safe_call_s={"lightning": 1.25, "classic": 0.75}, call_time_s=1,
                                 call_time_safe=True))            # the estimate's own word stands
    assert told.state == "pass"


def test_too_few_spins_is_a_caution_and_not_shown_safe_fails_a_call_time():
    thin = wheel_verdict(outcome(latest_safe_call_s={"lightning": None, "classic": None}))
    assert thin.state == "caution" and "too few spins" in thin.headline
    judged = wheel_verdict(outcome(latest_safe_call_s={"lightning": None, "classic": None}, call_time_s=0))
    assert judged.state == "fail"


def test_the_estimates_own_verdict_line_the_main_tables_interval_and_judgement():
    # what twin edge --json ends with: the main payout's call and interval, every table's point figure
    line = dict(latest_safe_call_s=1.25, latest_safe_call_interval_s=[0.75, 1.5], payout="lightning",
                resamples=100, spins=16000, latest_safe_call_by_payout_s={"lightning": 1.25, "classic": 0.5})
    v = wheel_verdict(outcome(**line))
    figures = dict(v.figures)
    assert figures["Lightning, 29 to 1 (617c.3(f))"] == "1.25 s after the launch; interval 0.75 to 1.5 s"
    assert figures["classic, 35 to 1 (617a.4)"] == "0.5 s after the launch"
    # the exit status judges the main table; the page says the same
    shown = wheel_verdict(outcome(**line, call_time_s=0.75, call_time_shown_safe=True))
    assert shown.state == "pass" and "the table judged" in shown.headline
    not_shown = wheel_verdict(outcome(**line, call_time_s=1.25, call_time_shown_safe=False))
    assert not_shown.state == "fail" and "Lightning" in not_shown.headline


def test_the_calls_interval_is_not_dragged_early_by_spins_drawn_twice():
    """Spins that tell nothing (offsets uniform, 4% informed, as at half a second
    on a level wheel) must be shown safe at every rung in nearly every resample.
    A bootstrap draw repeats spins, and a class of a few dozen, some drawn three
    or four times, passed the player's skip test: 9 of 40 draws ended the call
    early (at 16,000 real spins, 15 of 100 put the interval's low end at the
    launch). Halvings without replacement repeat none: 2 of 40 here."""
    import numpy as np

    from twin.edge.bets import Spins
    from twin.edge.verdict import resampled_calls
    from twin.edge.wheel import Ladder

    rng = np.random.default_rng(5)

    def nothing_to_see(n):
        return Spins(rng.integers(0, 37, n), rng.random(n) < 0.04, rng.integers(0, 3, n), rng.integers(0, 3, n))

    cutoffs = [0.0, 0.5, 1.0, 1.5]
    ladder = Ladder(cutoffs, [nothing_to_see(8000) for _ in cutoffs], [nothing_to_see(8000) for _ in cutoffs])
    calls = resampled_calls(ladder, straight_payouts()["lightning"], 0.99, resamples=40)
    early = [c for c in calls if c != cutoffs[-1]]
    assert len(early) <= 4, calls
