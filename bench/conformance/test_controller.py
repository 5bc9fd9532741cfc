"""The conformance checks as pytest tests, one per check and protocol version,
for a vendor who runs everything in pytest (docs/protocol.md, section 16):

    pytest --pyargs bench.conformance.test_controller -m conformance \\
           --controller socket://10.0.0.7:7001 --controller-game lightning-dice

``--controller``, ``--controller-game``, ``--controller-submission``,
``--controller-paytable`` and ``--controller-adapter`` are the options of
``bench.scenarios.plugin`` (which an installed tablebench registers with
pytest); through an adapter the session-layer checks and the adapter's own
run (``bench.conformance.suite.checks_for``). ``--controller emulated[:OPTIONS]``
(the default) runs the checks against ``bench emulate``. A check of a
version the controller does not speak is skipped; a failed optional check
is an expected failure; a failed required check fails with its section and
the wire log.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass

import pytest

from bench.conformance.checks import CHECKS
from bench.conformance.suite import EMULATED, FAIL, PASS, PROBES, SKIP, checks_for, controller_url, run_one
from bench.errors import BenchError
from bench.protocol import Timeouts

pytestmark = pytest.mark.conformance

LOWEST = 0      # the parameter of a check run once, in the lowest version the controller speaks


@dataclass
class Controller:
    url: str
    game: str
    rules: object
    speaks: tuple[int, ...]
    timeouts: Timeouts = Timeouts()
    adapter: object = None


def _option(config, name: str, default=None):
    try:
        return config.getoption(name)
    except ValueError:          # bench.scenarios.plugin not loaded
        return default


@pytest.fixture(scope="module")
def controller(request):
    from bench.rules import DEFAULT_GAME, describe
    from bench.rules.submission import default_rules, load_submission

    config = request.config
    spec = _option(config, "--controller", EMULATED)
    adapter = _adapter(config)
    submission = _option(config, "--controller-submission")
    try:
        if submission:
            rules = load_submission(submission)
        else:
            game = _option(config, "--controller-game") or DEFAULT_GAME
            paytable = _option(config, "--controller-paytable") or describe(game).default_paytable
            rules = default_rules(game, paytable)
    except BenchError as err:
        raise pytest.UsageError(f"--controller {spec}: {err}") from None
    timeouts = adapter.timeouts if adapter is not None else Timeouts()
    with ExitStack() as stack:
        try:
            url = stack.enter_context(controller_url(spec, rules.game, timeouts, adapter))
        except BenchError as err:
            raise pytest.UsageError(f"--controller {spec}: {err}") from None
        if adapter is not None:
            yield Controller(url, rules.game, rules, (1,), timeouts, adapter)     # an adapter carries version 1
            return
        probes = [c for c in CHECKS if c.name in PROBES]
        answered = [run_one(p, p.versions[0], url, game=rules.game, rules=rules, timeouts=Timeouts())
                    for p in probes]
        speaks = tuple(r.version for r in answered if r.status == PASS) or (1,)
        yield Controller(url, rules.game, rules, speaks)


def _adapter(config):
    """The adapter of ``--controller-adapter``; None for the bench's own protocol."""
    from bench.adapters.registry import get_adapter, is_native
    try:
        adapter = get_adapter(_option(config, "--controller-adapter"))
    except BenchError as err:
        raise pytest.UsageError(f"--controller-adapter: {err}") from None
    return None if is_native(adapter) else adapter


def _cases(adapter=None):
    for check in checks_for(adapter):
        versions = (check.versions or (LOWEST,)) if adapter is None else (LOWEST,)
        for version in versions:
            yield pytest.param(check, version, id=f"{check.name}-v{version}" if version else check.name)


def pytest_generate_tests(metafunc):
    if "check" in metafunc.fixturenames:
        metafunc.parametrize("check, version", list(_cases(_adapter(metafunc.config))))


def test_conformance(controller: Controller, check, version):
    version = version or controller.speaks[0]
    if version not in controller.speaks:
        pytest.skip(f"the controller does not speak version {version} (an optional feature)")
    result = run_one(check, version, controller.url, game=controller.game, rules=controller.rules,
                     timeouts=controller.timeouts, adapter=controller.adapter)
    if result.status == SKIP:
        pytest.skip(result.detail)
    if result.status == FAIL:
        message = f"{check.section}: {result.detail}\nwire log:\n{result.wire_log}"
        if check.optional:
            pytest.xfail(f"optional feature: {message}")
        pytest.fail(message, pytrace=False)
