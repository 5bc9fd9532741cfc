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
