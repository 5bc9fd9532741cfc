"""A scenario's failure on a controller, as a QA engineer reads it: what was
broken (the clause, or the protocol's section), in which round, the frame
that showed it (decoded and as it crossed the wire), and the last lines of
the scenario's wire log with the log's path. No traceback through the step
library and the plugin: that is the bench's code, not the controller's
behaviour (``pytest --tb=long`` still shows it).

``describe`` returns None for an exception that is not about the controller
(a bug of the bench keeps its traceback). As in pytest's own reports, the
lines that say what failed start with ``E``; what shows it is indented
beneath (a run report, ``--controller-report``, takes the ``E`` lines).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from bench.errors import BenchError, RulesError
from bench.protocol import LinkError
from bench.scenarios.controller_table import ControllerFailure, ControllerViolation

VERDICTS_SHOWN = 5       # verdicts printed with their frames; the rest are counted (all are in the wire log)
LOG_LINES = 8            # the wire log's last lines


def describe(error: BaseException, *, step: str | None, clauses: Iterable[str], logs: Iterable[Path]) -> str | None:
    if isinstance(error, ControllerViolation):
        lines = _violations(error)
    elif isinstance(error, ControllerFailure):
        lines = [f"E   the controller at {error.controller or 'the link'} did not play its part:", f"E     {error}"]
    elif isinstance(error, (RulesError, BenchError, LinkError)):
        lines = [f"E   {type(error).__name__}: {error}"]
    elif type(error) is AssertionError:          # a step's own expectation (bench.scenarios.steps)
        lines = ["E   the scenario's expectation was not met:"] + [f"E     {line}" for line in str(error).splitlines()[:12]]
    else:
        return None
    tagged = sorted(set(clauses))
    lines.append(f"step: {step}" if step else "at the scenario's end (the round brought to its end, judged)")
    if tagged:
        lines.append(f"scenario's clauses: {', '.join(tagged)}")
    for path in logs:
        lines += _log_tail(Path(path))
    lines.append("(pytest --tb=long shows the bench's traceback)")
    return "\n".join(lines)


def _violations(error: ControllerViolation) -> list[str]:
    found = error.violations
    clauses = sorted({v.clause for v in found})
    rounds = sorted({v.round for v in found if v.round is not None})
    where = f" in round{'s' if len(rounds) > 1 else ''} {', '.join(map(str, rounds))}" if rounds else ""
    lines = [f"E   {', '.join(clauses)} broken{where}: {len(found)} verdict(s) of the oracle on the controller at "
             f"{error.controller}"]
    for violation in found[:VERDICTS_SHOWN]:
        lines.append(f"E     [{violation.clause}] round {violation.round}: {violation.message}")
        event = error.frames.get(violation.frame)
        if event is not None:
            said = "controller -> bench" if event.direction == "rx" else "bench -> controller"
            lines.append(f"      frame {violation.frame} ({said}): {_decoded(event.message)}")
            lines.append(f"      raw: {event.raw.decode('ascii', errors='backslashreplace').rstrip()}")
    if len(found) > VERDICTS_SHOWN:
        lines.append(f"  ... and {len(found) - VERDICTS_SHOWN} more verdict(s), each in the wire log")
    return lines


def _decoded(message) -> str:
    """A message as the decoder read it: type, then each field by name."""
    if message is None:
        return "(not a message)"
    parts = [message.type]
    for name, value in message.fields.items():
        if isinstance(value, (tuple, list)):
            value = ",".join(f"{x.bet}@{x.pays}" if hasattr(x, "pays") else str(int(x) if isinstance(x, bool) else x)
                             for x in value)
        parts.append(f"{name}={value}")
    return " ".join(parts)


def _log_tail(path: Path) -> list[str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return [f"wire log: {path} (unreadable)"]
    return [f"wire log: {path} (last {min(LOG_LINES, len(lines))} lines)"] + [f"  {line}" for line in lines[-LOG_LINES:]]
