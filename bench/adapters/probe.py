"""Trying third parties' adapters in a child process before the bench takes
them in (docs/adapters.md, "A broken adapter").

Importing a package runs its code. One that raises can be caught; one that
calls sys.exit ends the bench with its status (0 included: a run that
verified nothing would pass), one that calls os._exit or crashes ends it
outright, and one that hangs hangs every command that looks at adapters.
None of that can be contained inside the bench's own process, so each
third-party entry point is first loaded by a child of its own, all of them
at once under one deadline, and the child reports a verdict: the adapter's
name, version and summary, or why it cannot be used. A child that ends
without a verdict, or is still loading at the deadline, is itself the
verdict.

The child sees the distributions the bench sees (it is given the bench's
``sys.path``), reads nothing (stdin is /dev/null), and its output goes
nowhere: a package's prints must not become the bench's output. It writes
its verdict on a pipe of its own and ends with ``os._exit``, so that a thread
or an atexit hook the package left behind cannot keep it alive.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

from bench.adapters.loading import Phase, failure, load, one_line

TIMEOUT_ENV = "TABLEBENCH_ADAPTER_LOAD_TIMEOUT"
DEFAULT_TIMEOUT_S = 10.0        # a package that imports numpy and friends on a cold disk takes a few seconds
VERDICT_BYTES = 4096            # a verdict is a few hundred bytes; the pipe holds 64 KiB, so writing never blocks
KILL_WAIT_S = 5.0               # after SIGKILL a process is reaped at once; this only bounds the wait

# The child's first lines: the bench's sys.path before anything of the bench
# is imported, so that it finds the bench and the packages where the bench did.
_BOOT = ("import json, sys\n"
         "request = json.loads(sys.argv[1])\n"
         "sys.path[:] = request['path']\n"
         "from bench.adapters.probe import child\n"
         "child(request)\n")


@dataclass(frozen=True)
class Verdict:
    """How a probe went: usable (``version``, ``summary``) or not (``problem``).
    ``lasting``: would it come out the same next time? (A timeout or a kill
    may be the machine's load, not the package: it is not kept.)"""
    version: str | None = None
    summary: str = ""
    problem: str | None = None
    lasting: bool = True

    def as_json(self) -> dict:
        return ({"problem": self.problem} if self.problem is not None
                else {"version": self.version, "summary": self.summary})

    @classmethod
    def from_json(cls, data: object) -> Verdict | None:
        if isinstance(data, dict) and isinstance(data.get("problem"), str):
            return cls(problem=one_line(data["problem"]))
        if isinstance(data, dict) and isinstance(data.get("version"), str) and isinstance(data.get("summary"), str):
            return cls(version=data["version"], summary=one_line(data["summary"]))
        return None


def timeout_s() -> float:
    """The bound on loading one adapter (``TABLEBENCH_ADAPTER_LOAD_TIMEOUT``,
    seconds); an unreadable value is the default, not an error of a command
    that may not be about adapters at all."""
    try:
        value = float(os.environ.get(TIMEOUT_ENV, ""))
    except ValueError:
        return DEFAULT_TIMEOUT_S
    return value if 0 < value <= 3600 else DEFAULT_TIMEOUT_S


def probe(entries: list[tuple[str, str]], timeout: float | None = None) -> list[Verdict]:
    """A verdict for each ``(name, value)`` entry point, each loaded in a
    child process of its own, all at once; the whole takes at most about
    ``timeout`` seconds however many there are and whatever they do."""
    timeout = timeout_s() if timeout is None else timeout
    started: list[tuple[subprocess.Popen | None, int | None, str | None]] = []
    try:
        for name, value in entries:
            started.append(_start(name, value))
        deadline = time.monotonic() + timeout
        return [_finish(proc, fd, problem, deadline, timeout) for proc, fd, problem in started]
    finally:                    # interrupted (^C) or failed midway: no child outlives the bench
        for proc, fd, _ in started:
            if proc is not None and proc.poll() is None:
                _kill(proc)
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass


def _start(name: str, value: str) -> tuple[subprocess.Popen | None, int | None, str | None]:
    read, write = os.pipe()
    request = {"name": name, "value": value, "fd": write, "path": list(sys.path)}
    try:
        proc = subprocess.Popen([sys.executable, "-c", _BOOT, json.dumps(request)], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=(write,),
                                start_new_session=True)     # its own process group: a timeout kills what it started
    except OSError as err:
        os.close(read)
        return None, None, one_line(f"could not be tried in a child process: {err.strerror or err}")
    finally:
        os.close(write)         # the child holds the only write end: its exit is the pipe's end
    os.set_blocking(read, False)
    return proc, read, None


def _finish(proc: subprocess.Popen | None, fd: int | None, problem: str | None, deadline: float,
            timeout: float) -> Verdict:
    if proc is None or fd is None:
        return Verdict(problem=problem, lasting=False)
    try:
        proc.wait(timeout=max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        _kill(proc)
        return Verdict(problem=f"still loading after {timeout:g} s (it hangs at import, or is slower than "
                               f"{TIMEOUT_ENV} allows)", lasting=False)
    try:
        # Read what is there, never wait for the end of the pipe: a process the
        # package forked may hold its write end open.
        verdict = Verdict.from_json(json.loads(os.read(fd, VERDICT_BYTES)))
    except (OSError, ValueError):
        verdict = None
    if verdict is not None:
        return verdict
    status = proc.returncode
    if status < 0:
        try:
            how = signal.Signals(-status).name
        except ValueError:
            how = f"signal {-status}"
        return Verdict(problem=f"the process loading it was killed by {how}", lasting=False)
    # Not kept: the same ending comes from a bench that could not start the
    # child's first lines, which is no fault of the package's.
    return Verdict(problem=f"ends the process while loading (exit status {status}: os._exit, or a crash)",
                   lasting=False)


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)     # the child's own group (start_new_session), nothing else
    except OSError:
        pass
    try:
        proc.wait(timeout=KILL_WAIT_S)
    except subprocess.TimeoutExpired:
        pass


def child(request: dict) -> None:
    """In the child: load the entry point, write the verdict, end at once."""
    from importlib import metadata

    fd = request["fd"]
    phase = Phase()
    try:
        adapter = load(metadata.EntryPoint(request["name"], request["value"], "tablebench.adapters"), phase)
        verdict = Verdict(version=one_line(str(adapter.version)), summary=one_line(str(adapter.summary or "")))
    except BaseException as err:    # SystemExit and KeyboardInterrupt too: every way out is a verdict
        verdict = Verdict(problem=failure(err, phase))
    try:
        os.write(fd, json.dumps(verdict.as_json()).encode()[:VERDICT_BYTES])
    finally:
        os._exit(0)             # no atexit hook or thread of the package's may keep the child alive
