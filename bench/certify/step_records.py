"""What a certification step is and what it comes to: the verdicts
(``PASS``, ``FAIL``, ``CAUTION``), a clause as a step exercised it
(``Evidence``), a step's result (``Outcome``), the step itself (``Step``:
its commands and its judge) and its commands' arguments as run and as shown
to a lab; with the names a step's files and designs go by in the dossier.

Apart from the steps (``bench.certify.steps``) and their judges
(``bench.certify.judge_*``) because the runner, the matrix and the dossier
read these records too, and none of them needs a step's commands.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

PASS, FAIL, CAUTION = "pass", "fail", "caution"
# An argument read from a file an earlier command of the step wrote (a journal's
# head, known only once its session is over): "$(cat FILE)" in the command shown.
CONTENTS_OF = "\0contents-of:"


@dataclass
class Evidence:
    """One clause as one step exercised it."""
    clause: str
    what: str                    # "bench run, session seed 1: the oracle judged every frame"
    amount: str                  # "30 rounds", "66 scenarios", "2,000 drops"
    verdict: str                 # PASS, FAIL or CAUTION
    page: str | None = None      # relative to the dossier
    journal: str | None = None
    lines: list[int] = field(default_factory=list)      # journal lines that show it (1-based)
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in (None, "", [])}


@dataclass
class Outcome:
    """What a step's commands came to."""
    status: str                  # PASS, FAIL, CAUTION, or "error" (a command could not do its job)
    summary: str
    evidence: list[Evidence] = field(default_factory=list)
    pages: list[str] = field(default_factory=list)
    journals: list[str] = field(default_factory=list)
    seeds: dict[str, Any] = field(default_factory=dict)
    stop: bool = False           # the steps after it are not run (a link that fails)


@dataclass
class Step:
    name: str                    # the folder under steps/, and the order
    title: str
    commands: list[tuple[list[str], str | None]]    # (argv, the file its stdout goes to); run in the step's folder
    judge: Callable[[Path, list[int], str], Outcome]   # (the step's folder, exit statuses, its path in the dossier)
    ok_statuses: tuple[int, ...] = (0, 1)            # exit statuses that are a verdict, not a failure to run

    def repeat(self) -> list[str]:
        return [" ".join(_shown(a) for a in argv) for argv, _ in self.commands]


def argument(arg: str, folder: Path) -> str:
    """``arg`` as the command gets it, a file's contents read in."""
    if arg.startswith(CONTENTS_OF):
        try:
            return (folder / arg[len(CONTENTS_OF):]).read_text(encoding="utf-8").strip()
        except OSError:
            return ""
    return arg


def _shown(arg: str) -> str:
    if arg.startswith(CONTENTS_OF):
        return f'"$(cat {arg[len(CONTENTS_OF):]})"'
    if arg == sys.executable:
        return "python"
    return arg if re.fullmatch(r"[\w@%+=:,./-]+", arg) else "'" + arg.replace("'", "'\\''") + "'"


def _rel(base: str, name: str) -> str:
    return f"{base}/{name}"


def _design_label(path: str) -> str:
    return Path(path).stem


def row_state(states: set[str]) -> str:
    """A clause's state from its evidence, as the matrix reads a row (bench.certify.matrix.build)."""
    return FAIL if FAIL in states else PASS if PASS in states else CAUTION
