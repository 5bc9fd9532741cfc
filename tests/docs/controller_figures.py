"""The figures of docs/controller-testing.md, made from the runs
tests/bench/test_pytest_controller.py already makes (the regulation
scenarios played on the compliant emulated controller, and on a sample of
misbehaving ones) and checked there (``tests.docs.checked_blocks``).
"""

from __future__ import annotations

import re
from collections import Counter
from xml.etree.ElementTree import Element

from bench.emulator.misbehaviours import MISBEHAVIOURS
from bench.rules import describe

DOC = "docs/controller-testing.md"
SUMMARY = re.compile(r"^(\d+) scenario\(s\) selected to play on the controller; (\d+) deselected", re.M)
REASON = re.compile(r"^ +(\d+)  (.+)$", re.M)


def _module_words(module: str) -> str:
    """A feature module's scenarios by what they test: a game's name, or the round order."""
    found = re.fullmatch(r"test_(.+)_on_controller", module)
    name = found.group(1).replace("_", "-") if found else module
    try:
        return describe(name).display_name
    except Exception:      # noqa: BLE001 (not a game: test_round_order_on_controller)
        return name.replace("-", " ")


def scenarios_block(stdout: str, cases: list[Element]) -> str:
    """What runs against the emulated controllers and what is deselected, with why."""
    summary = SUMMARY.search(stdout)
    assert summary, stdout[-2000:]
    selected, deselected = int(summary.group(1)), int(summary.group(2))
    assert selected == len(cases), (selected, len(cases))
    by_module = Counter(case.get("classname", "").split(".")[-1] for case in cases)
    tail = stdout[summary.end():]
    reasons = REASON.findall(tail.split("\nwire logs:", 1)[0])
    assert sum(int(n) for n, _ in reasons) == deselected, reasons
    parts = ", ".join(f"{_module_words(m)} {n}" for m, n in sorted(by_module.items(), key=lambda kv: -kv[1]))
    rows = "\n".join(f"| {n} | {why} |" for n, why in reasons)
    return (f"With the emulated controllers (`pytest features/`): **{selected} of {selected + deselected} "
            f"scenario cases run** ({parts}), and pass. Deselected, with the reason in the terminal summary "
            "(pytest-deselected, never skipped):\n\n"
            f"| cases | reason |\n| --- | --- |\n{rows}\n")


def misbehaviour_row(name: str, cases: list[Element]) -> str:
    """A misbehaviour's row: the cases that fail (a call's failure; a teardown's error apart) of those
    run, and the clauses it breaks, game by game."""
    failed = sum(1 for case in cases if case.find("failure") is not None)
    teardown = sum(1 for case in cases if case.find("failure") is None and case.find("error") is not None)
    misbehaviour = MISBEHAVIOURS[name]
    clauses: list[str] = []
    for game in sorted(misbehaviour.games):
        clauses += [c for c in misbehaviour.expected_clauses(game) if c not in clauses]
    count = f"{failed}" + (f" + {teardown} teardown" if teardown else "") + f" of {len(cases)}"
    return f"| `{name}` | {count} | {', '.join(clauses)} |"
