"""The command-line conventions shared by the ``twin`` and ``bench`` console
scripts: sub-command discovery, ``--version``, ``--progress`` (on the
commands that draw a bar: ``add_progress_option``), ``--json``'s closing
verdict, and one table of exit statuses.

Each module in a commands package defines ``register(subparsers)``, which adds
its sub-parser and sets ``func`` (a callable taking the parsed args and
returning the exit status). Adding a command is adding a module: no central
list to edit. (``bench`` may import this module; ``twin`` never imports ``bench``.)

Exit statuses (``Exit``), the same for every command of both scripts:

    0  pass: every round compliant, every check passed, the work done
    1  a violation: a rule broken, tampering found, a design that fails its tests
    2  bad input or set-up: arguments, a file, a folder, a port that cannot be used
    3  the controller or its link failed: it died, went silent, or sent only garbage
    4  interrupted (Ctrl-C, SIGTERM); a session's journal ends with the round in flight
    5  an internal error (a bug in tablebench): one line here, the traceback in a file
    6  the disk is full (or the quota spent): what could be written is, and one line says what is missing
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import pkgutil
import platform
import signal
import sys
import tempfile
import threading
import traceback
from contextlib import ExitStack, contextmanager
from enum import IntEnum
from types import ModuleType
from typing import Iterator, Protocol, Sequence

from tablebench_io import __version__, portable_math, progress
from tablebench_io.extras import missing_extra


class Exit(IntEnum):
    OK = 0
    VIOLATION = 1
    BAD_INPUT = 2
    LINK = 3
    INTERRUPTED = 4
    INTERNAL = 5
    DISK_FULL = 6


DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})


def is_disk_full(err: BaseException) -> bool:
    """No space left on the device, or the user's quota spent: not a bug of
    the command, not bad input; the machine's (``Exit.DISK_FULL``)."""
    return isinstance(err, OSError) and err.errno in DISK_FULL_ERRNOS


def doc_ref(name: str, section: int | str | None = None) -> str:
    """How a message names a shipped document (``bench docs``, which prints
    it wherever tablebench is installed): ``bench docs protocol 17``."""
    return f"bench docs {name}" + (f" {section}" if section is not None else "")


def version_line(prog: str) -> str:
    return f"{prog} (tablebench) {__version__}, Python {platform.python_version()}"


def build_parser(commands: ModuleType, prog: str, description: str,
                 argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The script's parser. Given the arguments it will parse, only the command they
    name is registered (each command is a module of ``commands`` of its own name):
    every other command's module is then never imported, a tenth of a second or more
    of a process's start-up (issue 42.5) that the emulated controller's own process
    paid too. With no arguments given, or no command named in them (``--help``, a
    misspelling), every one is, so that the usage lists them all."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--version", action="version", version=version_line(prog))
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    names = sorted(info.name for info in pkgutil.iter_modules(commands.__path__) if not info.name.startswith("_"))
    named = None if argv is None else _command_named(argv)
    for name in [named] if named in names else names:
        importlib.import_module(f"{commands.__name__}.{name}").register(subparsers)
    return parser


def _command_named(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names: its first word that is not an option (the
    script's own options, --help and --version, take no value)."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def add_progress_option(parser: argparse.ArgumentParser) -> None:
    """``--progress/--no-progress`` for a command that draws a progress bar:
    offered only where one can be drawn, so that the flag never promises
    what a command does not do (issue 41)."""
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="draw progress bars on stderr (default: only when stderr is a terminal "
                             "and the output is not --json)")


class _LastLine:
    """Stands in for stderr and keeps the last line written to it: the
    reason a ``--json`` run's closing verdict gives when the command wrote
    none itself (bad input, an interruption, an internal error)."""

    def __init__(self, stream):
        self.stream = stream
        self.last = ""

    def write(self, text: str) -> int:
        stripped = text.strip()
        if stripped:
            self.last = stripped.splitlines()[-1][:500]
        return self.stream.write(text)

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


def _closing_verdict(args: argparse.Namespace, status: int, said: str, written_before: int) -> None:
    """A ``--json`` run whose command wrote no verdict (it stopped at bad
    input, was interrupted, or failed) still ends with one, so that a
    consumer reading lines knows how it ended (docs/json.md)."""
    from tablebench_io import json_lines
    if not getattr(args, "json", False) or not getattr(args, "json_kind", None):
        return
    if json_lines.verdicts_written() > written_before:
        return
    try:
        json_lines.JsonLines(args.json_kind).verdict(passed=False if status else True, status=status,
                                                     **({"error": said} if status and said else {}))
    except OSError:        # stdout gone (a closed pipe, a full disk): the status still says it
        pass


class _ListShipped(argparse.Action):
    """``--list``: print the shipped files a command can take by name, and exit."""

    def __init__(self, option_strings, dest, kinds=(), **kwargs):
        self.kinds = kinds
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        import tablebench_fixtures
        print(tablebench_fixtures.listing(*self.kinds))
        parser.exit(Exit.OK)


def number_between(low: float, high: float, *, unit: str = "", below_high: bool = False):
    """An argparse ``type``: a number from ``low`` to ``high`` (``below_high``:
    ``high`` itself not allowed), said in one line otherwise (exit status 2)."""
    said = f" {unit}" if unit else ""

    def number(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number{' of ' + unit if unit else ''}, got {text!r}") from None
        if not (low <= value < high if below_high else low <= value <= high):
            top = f"below {high:g}" if below_high else f"{high:g}"
            raise argparse.ArgumentTypeError(f"must be from {low:g} to {top}{said}, got {text}")
        return value
    return number


def add_list_option(parser: argparse.ArgumentParser, *kinds: str) -> None:
    """Give a command ``--list``: the shipped designs (or submissions) it
    takes by name instead of a path."""
    parser.add_argument("--list", action=_ListShipped, kinds=kinds,
                        help=f"list the shipped {' and '.join(k + 's' for k in kinds)} (usable by name) and exit")


def _flush_c_stdio() -> None:
    try:
        import ctypes
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):     # no C library to reach: nothing buffered we can flush
        pass


@contextmanager
def stdout_for_result():
    """Keep stdout for a command's result (its text or JSON) alone: while the
    physics runs, whatever a C library or a worker process writes on file
    descriptor 1 goes to stderr instead. Yields ``emit(text)``, which writes
    the result to the real stdout."""
    sys.stdout.flush()
    result_fd = os.dup(1)
    os.dup2(2, 1)

    def emit(text: str) -> None:
        with os.fdopen(os.dup(result_fd), "w", encoding="utf-8") as out:
            out.write(text + "\n")
    try:
        yield emit
    finally:
        sys.stdout.flush()
        _flush_c_stdio()          # C's buffered output goes to stderr now, not at exit
        os.dup2(result_fd, 1)
        os.close(result_fd)


@contextmanager
def terminate_as_interrupt():
    """SIGTERM (a service manager, ``kill``, a CI runner's timeout) stops a
    command as Ctrl-C does: a ``KeyboardInterrupt`` naming the signal, so
    that a session writes its files and every command exits 4 with a line."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)
    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:          # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


_holding = False     # a signals_held section is open (in the main thread)


@contextmanager
def signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM held back while this lasts and raised again when it
    ends. Their Python handlers are swapped for one that notes them (a signal
    mask would not do: the kernel hands a signal to any thread that does not
    mask it, the plant's included, and Python runs the handler all the same).
    Handlers are Python's to swap in the main thread only; elsewhere nothing
    is held."""
    global _holding
    if _holding or threading.current_thread() is not threading.main_thread():
        yield               # (held already, by the section this one is inside: swapping costs 5 us a handler)
        return
    caught: list[int] = []
    _holding = True
    try:
        # Each handler's way back is registered before it is swapped, and the ExitStack runs
        # every way back even if one is cut short: a signal between two swaps, or between two
        # restores, raised by a handler not yet swapped (or already put back), used to leave
        # the other signal noted by the lambda for good (Ctrl-C silently lost).
        with ExitStack() as restore:
            for number in (signal.SIGINT, signal.SIGTERM):
                handler = signal.getsignal(number)
                if handler is None:            # set outside Python, which cannot be put back
                    continue
                restore.callback(signal.signal, number, handler)
                signal.signal(number, lambda signum, frame: caught.append(signum))
            yield
    finally:
        _holding = False
        if caught:
            signal.raise_signal(caught[0])     # to the handler put back: as if it came now


def interrupt_name(err: KeyboardInterrupt) -> str:
    """The signal that stopped a command: a ``KeyboardInterrupt`` of
    ``terminate_as_interrupt`` carries its name; Ctrl-C's carries nothing."""
    return str(err) or "SIGINT"


def _internal_error(prog: str, err: BaseException) -> int:
    """One line for the person; the traceback in a file for the bug report."""
    try:
        with tempfile.NamedTemporaryFile("w", prefix=f"{prog}-error-", suffix=".txt", delete=False) as out:
            traceback.print_exception(err, file=out)
        where = f" (traceback in {out.name})"
    except OSError:
        where = ""
    print(f"{prog}: internal error: {type(err).__name__}: {err}{where}", file=sys.stderr)
    return Exit.INTERNAL


class ConsoleMain(Protocol):
    """What ``make_main`` returns: called with no arguments (the console
    script), it reads the process's own; a Callable type cannot say that
    ``argv`` may be left out."""

    def __call__(self, argv: Sequence[str] | None = None) -> int: ...


def make_main(commands: ModuleType, prog: str, description: str,
              user_errors: tuple[type[BaseException], ...] = ()) -> ConsoleMain:
    """The console script's ``main``. ``user_errors``: the error classes whose
    message is meant for a person (bad input: exit 2, one line), beside the
    twin's own."""

    def main(argv: Sequence[str] | None = None) -> int:
        if argv is None and portable_math.started_as(prog):
            portable_math.restart_pinned()      # the same libm on every machine (docs/reproducibility.md)
        # From here, not only around the command: a SIGTERM while the commands' modules import
        # (most of a second) or the arguments are read killed the process with no line and no
        # status of ours.
        try:
            with terminate_as_interrupt():
                from tablebench_io import json_lines
                parser = build_parser(commands, prog, description, sys.argv[1:] if argv is None else argv)
                args = parser.parse_args(argv)
        except KeyboardInterrupt as err:
            print(f"{prog}: interrupted ({interrupt_name(err)}) before the command started", file=sys.stderr)
            return Exit.INTERRUPTED
        forced = getattr(args, "progress", None)
        progress.configure(forced if forced is not None else
                           (None if not getattr(args, "json", False) else False))
        before, stderr = json_lines.verdicts_written(), sys.stderr
        watched = sys.stderr = _LastLine(stderr)
        try:
            status = _run(prog, args, user_errors)
        finally:
            sys.stderr = stderr
        _closing_verdict(args, status, watched.last, before)
        return status
    return main


def _run(prog: str, args: argparse.Namespace, user_errors: tuple[type[BaseException], ...]) -> int:
    """The command's exit status, whatever it raised (``Exit``)."""
    try:
        with terminate_as_interrupt():
            return int(args.func(args) or 0)
    except KeyboardInterrupt as err:
        print(f"{prog} {args.command}: interrupted ({interrupt_name(err)})", file=sys.stderr)
        return Exit.INTERRUPTED
    except BrokenPipeError:
        return Exit.OK
    except user_errors as err:
        print(f"{prog} {args.command}: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    except ImportError as err:
        needs = missing_extra(err)
        if needs is None:
            return _internal_error(prog, err)
        print(f"{prog} {args.command}: {needs}", file=sys.stderr)      # an optional part not installed
        return Exit.BAD_INPUT
    except OSError as err:
        if not is_disk_full(err):
            return _internal_error(prog, err)
        where = f" ({err.filename})" if err.filename else ""
        print(f"{prog} {args.command}: the disk is full{where}: {err.strerror}", file=sys.stderr)
        return Exit.DISK_FULL
    except RecursionError as err:           # input nested past what can be read
        print(f"{prog} {args.command}: input nested too deeply to read: {err}", file=sys.stderr)
        return Exit.BAD_INPUT
    except Exception as err:  # noqa: BLE001 — the last guard: never a traceback on the terminal
        return _internal_error(prog, err)
