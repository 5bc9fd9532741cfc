"""The steps of a plan in order, each in a folder of its own, resumable.

A step runs in ``steps/NAME.partial/``; when its commands are over and its
outcome is read, ``step.json`` is written there (flushed to the disk) and the
folder renamed to ``steps/NAME/`` in one rename: a step is finished exactly
when its folder has its final name. Started again after an interruption or a
power cut, a finished step is not run again and a ``.partial`` one is removed
and run from the start; so is one that could not do its job (status
``error``: a verdict was never reached). The dossier's folder is locked while it is worked on
(two runs into one folder would interleave their steps), and it remembers the
plan it was started with: a changed plan is refused rather than mixed in.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from bench.certify.plan import Plan, PlanError
from bench.certify.step_records import Evidence, Outcome, Step, argument
from bench.journal.ending import fsync_folder
from tablebench_io import progress
from tablebench_io.locking import try_lock

STEPS, PARTIAL, STEP_FILE, LOCK_FILE, PLAN_COPY = "steps", ".partial", "step.json", ".certify.lock", "plan.yaml"
STOP_GRACE_S = 10.0            # a step's command given this long to write its files after SIGTERM
PR_SET_PDEATHSIG = 1           # prctl(2): a command dies with the bench, even under SIGKILL


@dataclass
class Finished:
    """A step as its ``step.json`` records it."""
    name: str
    title: str
    outcome: Outcome
    statuses: list[int]
    commands: list[str]
    started: float
    seconds: float
    ran_now: bool


def _die_with_parent() -> None:      # pragma: no cover - runs in the child, between fork and exec
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):    # not Linux: the session's own SIGTERM handling still applies
        pass


def write_atomically(path: Path, text: str) -> None:
    """``path`` holds all of ``text`` or its old contents, even after a power cut."""
    partial = path.with_name(path.name + ".tmp")
    with open(partial, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, path)
    fsync_folder(path.parent)


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if not try_lock(fd):
            raise PlanError("another bench certify is working in this folder (it holds .certify.lock); wait "
                            "for it or choose another --out", file=str(folder))
        yield
    finally:
        os.close(fd)


def prepare(out: Path, plan: Plan) -> None:
    """The dossier's folder, made or resumed; refused if it was started with another plan."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / STEPS).mkdir(exist_ok=True)
    except OSError as err:
        raise PlanError(f"cannot make the dossier's folder: {err.strerror}", file=str(out)) from None
    copy = out / PLAN_COPY
    data = Path(plan.path).read_bytes()
    if copy.exists():
        if copy.read_bytes() != data:
            raise PlanError(f"holds a dossier started with another plan ({copy}); a changed plan is a new "
                            "dossier: choose another --out", file=str(out))
    else:
        write_atomically(copy, data.decode("utf-8"))


def _record(step: Step, outcome: Outcome, statuses: list[int], started: float) -> dict[str, Any]:
    return {"step": step.name, "title": step.title, "status": outcome.status, "summary": outcome.summary,
            "exit_statuses": statuses, "commands": step.repeat(), "started": started,
            "seconds": round(time.time() - started, 3), "stop": outcome.stop,
            "evidence": [e.to_json() for e in outcome.evidence], "pages": outcome.pages,
            "journals": outcome.journals, "seeds": outcome.seeds}


def read_finished(folder: Path, ran_now: bool = False) -> Finished:
    data = json.loads((folder / STEP_FILE).read_text(encoding="utf-8"))
    outcome = Outcome(data["status"], data["summary"], [Evidence(**e) for e in data.get("evidence", ())],
                      data.get("pages", []), data.get("journals", []), data.get("seeds", {}), data.get("stop", False))
    return Finished(data["step"], data["title"], outcome, data["exit_statuses"], data["commands"],
                    data["started"], data["seconds"], ran_now)


def _finished(folder: Path) -> Finished | None:
    """The step in ``folder`` if it finished (its step.json whole), else None: to be run again."""
    try:
        return read_finished(folder)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _run_command(argv: list[str], folder: Path, stdout_name: str | None, timeout_s: float) -> int:
    argv = [argument(a, folder) for a in argv]
    with open(folder / (stdout_name or "stdout.txt"), "ab") as out, open(folder / "stderr.txt", "ab") as err:
        err.write(("$ " + " ".join(argv) + "\n").encode())
        err.flush()
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        child = subprocess.Popen(argv, cwd=folder, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env,
                                 start_new_session=True, preexec_fn=_die_with_parent)
        try:
            return child.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _stop(child)
            err.write(f"\nbench certify: stopped after {timeout_s:g} s (--step-timeout)\n".encode())
            return -1
        except BaseException:          # SIGTERM or Ctrl-C: the command writes its files, then we go
            _stop(child)
            raise


def _stop(child: subprocess.Popen) -> None:
    """SIGTERM to the command's whole group (an emulator it started, its workers), then SIGKILL."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGTERM)
    try:
        child.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)
        child.wait(timeout=STOP_GRACE_S)


def run_step(step: Step, steps_dir: Path, timeout_s: float) -> Finished:
    final, partial = steps_dir / step.name, steps_dir / (step.name + PARTIAL)
    if partial.exists():
        shutil.rmtree(partial)              # half-written by a run that was stopped: redone from the start
    partial.mkdir()
    started = time.time()
    statuses: list[int] = []
    for argv, stdout_name in step.commands:
        status = _run_command(argv, partial, stdout_name, timeout_s)
        statuses.append(status)
        if status not in step.ok_statuses:
            break                           # what follows needs what this one failed to make
    try:
        outcome = step.judge(partial, statuses + [statuses[-1]] * (len(step.commands) - len(statuses)),
                             f"{STEPS}/{step.name}")
    except (OSError, ValueError, KeyError, TypeError) as err:
        outcome = Outcome("error", f"its files could not be read: {type(err).__name__}: {err}")
    if len(statuses) < len(step.commands) and outcome.status != "error":
        outcome = Outcome("error", f"{outcome.summary}; a command exited {statuses[-1]} (see stderr.txt)",
                          outcome.evidence, outcome.pages, outcome.journals, outcome.seeds, outcome.stop)
    write_atomically(partial / STEP_FILE, json.dumps(_record(step, outcome, statuses, started), indent=1))
    os.rename(partial, final)
    fsync_folder(steps_dir)
    return read_finished(final, ran_now=True)


def run_plan(steps: list[Step], out: Path, timeout_s: float, on_step=None) -> list[Finished]:
    """Every step not finished yet, in order; stops after a step that says so (a link that fails)."""
    steps_dir = out / STEPS
    finished: list[Finished] = []
    with progress.bar(total=len(steps), desc="certify", unit="step") as bar:
        for step in steps:
            done = steps_dir / step.name
            bar.set_postfix_str(step.name)
            record = _finished(done)
            if record is not None and record.outcome.status == "error":
                record = None               # it could not do its job (a link not opened, a disk full): tried again
            if record is None:
                if done.exists():           # a step folder without a whole step.json, or one that erred
                    shutil.rmtree(done)
                record = run_step(step, steps_dir, timeout_s)
            finished.append(record)
            bar.update()
            if on_step is not None:
                on_step(record)
            if record.outcome.stop:
                break
    return finished
