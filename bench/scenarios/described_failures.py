"""A scenario's failure on a controller, told as the controller's before
pytest makes its own report (``bench.scenarios.failure_report`` says what
the report holds): the plugin's half of it, apart from ``plugin.py``."""

from __future__ import annotations

import copy
import re

import pytest

from bench.scenarios.controller_scope import WIRE_LOGS, played_on_controller

FAILED_STEP = pytest.StashKey[str]()       # the step that failed, as pytest-bdd names it
DESCRIBED = pytest.StashKey[bool]()        # the failure was told as the controller's
CLAUSE_TAG = re.compile(r"^(?:sd\.)?\d")     # a feature tag naming a clause (625b.2.d.5, 20.18.33.14.1.b)


class DescribedFailures:
    """A failure of the controller's, reported as what the controller did
    (docs/controller-testing.md, "Failures"), not the plugin's traceback;
    the report is made before pytest's own, because pytest's formatting of
    that traceback (the source of every frame parsed again) was half of a
    failing run's time: 46 s of a misbehaving controller's whole suite. (A
    plugin object of its own: the plugin module's ``pytest_runtest_makereport``
    is the hook wrapper that adds the wire log's tail to other failures.)"""

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call) -> pytest.TestReport | None:
        if call.excinfo is None or not played_on_controller(item) or item.config.option.tbstyle != "auto":
            return None
        from bench.scenarios.failure_report import describe
        from bench.scenarios.clause_tags import clause_of_tag
        clauses = [clause_of_tag(mark.name) for mark in item.iter_markers() if CLAUSE_TAG.match(mark.name)]
        logs = item.stash.get(WIRE_LOGS, None)
        text = describe(call.excinfo.value, step=item.stash.get(FAILED_STEP, None), clauses=clauses,
                        logs=logs or ())
        if text is None:
            return None                 # a bug of the bench's own (or a skip) keeps pytest's report
        item.stash[DESCRIBED] = True
        told = copy.copy(call)          # (the call itself keeps its exception, for --pdb and the other hooks)
        told.excinfo = text             # (pytest reports an excinfo that is not an ExceptionInfo as given)
        return pytest.TestReport.from_item_and_call(item, told)
