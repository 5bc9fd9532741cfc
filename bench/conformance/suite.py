"""Running the conformance checks against a controller: one fresh connection
and one time budget per check, the versions the controller speaks, a result
per check and version, and the JUnit file of them.

``--controller emulated[:OPTIONS]`` starts ``bench emulate`` for the run:
OPTIONS, comma-separated, are ``protocol=N``, ``seed=N``, ``fault=NAME=VALUE``
(repeatable), ``link=NAME`` (a link-level misbehaviour) and a bare name (a
game-level misbehaviour, as ``pytest --controller emulated:NAME``); with a
baud rate it sits behind a serial line of that speed, as ``bench run --baud``
puts it. The line's speed travels in the URL (``DEVICE?baud=9600``): every
check's connection reads it from there (``bench.conformance.speed``).
"""

from __future__ import annotations

import socket
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from dataclasses import dataclass
from typing import Callable, Iterator
from xml.etree import ElementTree

from bench.adapters.registry import is_native
from bench.conformance.checks import CHECKS, SESSION, Check, Context
from bench.conformance import rng_exchange  # noqa: F401  registers the raw RNG exchange's checks (§18)
from bench.conformance.speed import CheckLine, with_baud
from bench.conformance.wire import CheckFailed, NotSupported, Wire, seq_of
from bench.errors import BenchError
from bench.protocol.line_speed import line_baud, split_url
from bench.protocol.link import BAUDRATE, Link, open_link
from bench.protocol import LinkError, Timeouts

EMULATED = "emulated"
CONNECT_TIMEOUT_S = 5.0
CHECK_BUDGET_S = 20.0       # the most one check may take, whatever the controller does
DETAIL_CHARS = 2000         # a verdict's detail (one line of the report) is cut past this
PASS, FAIL, SKIP = "pass", "fail", "skip"
PROBES = ("hello-version-1", "hello-version-2")   # which versions the controller speaks


@dataclass
class Result:
    check: Check
    version: int
    status: str             # pass, fail, skip
    detail: str
    seconds: float
    wire_log: str = ""
    hello: dict | None = None    # the controller's HELLO, if it answered one (the report's provenance)

    @property
    def id(self) -> str:
        return self.check.id(self.version)

    @property
    def counts(self) -> bool:
        """Does this result decide the exit status? (An optional feature's failure does not.)"""
        return self.status == FAIL and not self.check.optional


def emulator_args(spec: str, game: str, timeouts: Timeouts = Timeouts(), adapter=None) -> list[str]:
    """``bench emulate`` arguments for ``emulated[:OPTIONS]``, with the
    timeouts the checks expect and the wire format; BenchError naming a bad option."""
    from bench.adapters.registry import adapter_args
    args = ["--game", game, "--byte-timeout", str(timeouts.byte), "--frame-timeout", str(timeouts.frame),
            "--response-timeout", str(timeouts.response), "--retries", str(timeouts.retries)]
    if adapter is not None:
        args += list(adapter_args(adapter))     # (nothing for the bench's own protocol)
    options = spec.partition(":")[2]
    seed = "7"
    for option in filter(None, options.split(",")):
        name, eq, value = option.partition("=")
        if not eq:
            _known_misbehaviour(spec, name)
            args += ["--misbehave", name]
        elif name in ("protocol", "fault", "link"):
            if name == "link":
                _known_misbehaviour(spec, value, link=True, adapter=adapter)
            args += [{"link": "--misbehave-link"}.get(name, f"--{name}"), value]
        elif name == "seed":
            seed = value
        else:
            raise BenchError(f"--controller {spec}: unknown option {name!r} (protocol=N, seed=N, "
                             "fault=NAME=VALUE, link=NAME, or a misbehaviour's name)")
    return args + ["--seed", seed]


def _known_misbehaviour(spec: str, name: str, *, link: bool = False, adapter=None) -> None:
    """A misbehaviour the emulator has, of the kind the option names (else
    the emulator would exit with its whole usage); an adapter's wire format
    brings its own link-level misbehaviours."""
    from bench.emulator.link_misbehaviours import LINK_MISBEHAVIOURS
    from bench.emulator.misbehaviours import every_misbehaviour
    game_level = every_misbehaviour()
    if link and adapter is not None and name in adapter.link_misbehaviours():
        return
    if name in (LINK_MISBEHAVIOURS if link else game_level):
        return
    if not link and name in LINK_MISBEHAVIOURS:
        raise BenchError(f"--controller {spec}: {name!r} is a link-level misbehaviour: say "
                         f"{spec.replace(name, 'link=' + name, 1)}")
    if link and name in game_level:
        raise BenchError(f"--controller {spec}: {name!r} is a game-level misbehaviour: say {EMULATED}:{name}")
    raise BenchError(f"--controller {spec}: the emulated controller has no {'link-level ' * link}misbehaviour "
                     f"{name!r} (bench emulate --help lists them)")


@contextmanager
def controller_url(spec: str, game: str, timeouts: Timeouts = Timeouts(), adapter=None,
                   baud: int | None = None) -> Iterator[str]:
    """The URL to connect to: ``spec`` itself (naming ``baud`` if given), or
    that of an emulator started for the run, behind a serial line of
    ``baud`` if given (``DEVICE?baud=N``). LineError if ``baud`` and the
    URL's disagree."""
    if spec != EMULATED and not spec.startswith(EMULATED + ":"):
        yield with_baud(spec, baud)
        return
    from bench.emulator.process import emulator_process
    if baud is None:
        with emulator_process(emulator_args(spec, game, timeouts, adapter), listen="127.0.0.1:0") as url:
            yield url
        return
    from bench.emulator.line import SerialLine
    with tempfile.TemporaryDirectory(prefix="bench-conformance-") as folder:
        with SerialLine(Path(folder) / "ttyUSB0", baud) as cable:
            with emulator_process(emulator_args(spec, game, timeouts, adapter), listen=cable.controller_path):
                yield with_baud(str(cable.device), baud)


def connect(url: str) -> Link:
    """The link to the controller. A ``socket://`` URL is opened as a plain
    socket: pyserial's socket close sleeps 0.3 s, and the suite opens one
    connection per check."""
    device, baud = split_url(url)           # a serial line's speed: /dev/ttyUSB0?baud=9600
    host_port = device[len("socket://"):] if device.startswith("socket://") else None
    if host_port and ":" in host_port:
        host, _, port = host_port.rpartition(":")
        try:
            sock = socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S)
        except (OSError, ValueError) as err:
            raise LinkError(f"cannot open link {url!r}: {err}") from None
        return Link.from_socket(sock, url)
    return open_link(device, baudrate=line_baud(device, baud) or BAUDRATE)


def run_one(check: Check, version: int, url: str, *, game: str, rules, timeouts: Timeouts,
            budget_s: float = CHECK_BUDGET_S, adapter=None) -> Result:
    started = time.monotonic()
    line = CheckLine.of(url, timeouts)      # the speed the URL names: what the check may put in flight
    try:
        link = connect(url)
    except LinkError as err:
        return Result(check, version, FAIL, str(err), 0.0)
    wire = Wire(link, game, timeouts, budget_s=budget_s, adapter=adapter)
    try:
        note = check.run(Context(wire, version, game, rules, timeouts, adapter, line))
        status, detail = PASS, note or "passed"
        if not any(a.message is not None for a in wire.arrivals):
            # Every check starts with a HELLO the controller must answer: a check
            # that saw no frame of the controller's has judged nothing.
            status, detail = FAIL, f"no message from the controller in this check ({detail})"
    except NotSupported as err:
        status, detail = SKIP, f"{err} (an optional feature)"
    except CheckFailed as err:
        status, detail = FAIL, str(err)
    except LinkError as err:
        status, detail = FAIL, f"the link failed: {err}"
    except Exception as err:     # a controller's bytes must never crash the suite: report, go on
        status, detail = FAIL, f"the check could not go on: {type(err).__name__}: {err}"
    try:
        _leave_quiet(wire, line)
    except (CheckFailed, LinkError):
        pass
    finally:
        link.close()
    if len(detail) > DETAIL_CHARS:
        detail = f"{detail[:DETAIL_CHARS]}… ({len(detail)} characters in all)"
    hello = next((a.message.as_dict() for a in wire.arrivals if a.message is not None and a.message.type == "HELLO"),
                 None)
    return Result(check, version, status, detail, time.monotonic() - started,
                  wire.wire_log() if status == FAIL else "", hello)


QUIET_AT_MOST_S = 3.0      # a controller still talking after this is not settling: the next check's HELLO resets it


def _leave_quiet(wire: Wire, line: CheckLine) -> None:
    """Acknowledge the last message the controller sent (in version 2 that
    covers every earlier one; in version 1 it is the one it waits for), and
    whatever it still says until it has been quiet for ``line.quiet_s``: a
    controller whose state outlives the connection must not go on resending
    into the next check. In version 1 each ACK lets out the next message
    (a round's SETTLED, CLEARED, OPEN), one crossing of the line later."""
    said = [a.message for a in wire.arrivals if a.message is not None and a.message.type not in ("ACK", "NAK")]
    if said:
        wire.ack(seq_of(said[-1]))
    wire.settle_quiet(line.quiet_s, QUIET_AT_MOST_S)




def checks_for(adapter=None) -> list[Check]:
    """The checks that apply: all of them for the bench's own protocol;
    through an adapter, the session layer's and the adapter's own link checks
    (the frames and delivery of docs/protocol.md are not its format's)."""
    if is_native(adapter):
        return list(CHECKS)
    return [c for c in CHECKS if c.layer == SESSION] + list(adapter.conformance_checks())


def run_suite(url: str, *, game: str, rules, timeouts: Timeouts = Timeouts(), versions: tuple[int, ...] | None = None,
              only: Callable[[Check], bool] = lambda check: True,
              on_result: Callable[[Result], None] = lambda result: None, adapter=None) -> list[Result]:
    """Every selected check in every version it applies to. Without ``versions``
    the controller is asked: version 2 is tested if it answers a version-2 HELLO.
    Through an adapter (``bench.adapters``), the checks of ``checks_for`` in
    version 1 of the bench's messages, the one an adapter carries."""
    results: list[Result] = []

    def record(result: Result) -> None:
        results.append(result)
        on_result(result)

    if not is_native(adapter):
        for check in checks_for(adapter):
            if only(check):
                record(run_one(check, 1, url, game=game, rules=rules, timeouts=timeouts, adapter=adapter))
        return results

    probes = [c for c in CHECKS if c.name in PROBES]
    speaks = versions
    if speaks is None:
        # Which versions the controller speaks: its answer to a HELLO in each.
        answered = [run_one(probe, probe.versions[0], url, game=game, rules=rules, timeouts=timeouts)
                    for probe in probes]
        speaks = tuple(r.version for r in answered if r.status == PASS) or (1,)
        for result in answered:
            if only(result.check):
                record(result)
    for check in CHECKS:
        if not only(check) or (versions is None and check in probes):
            continue
        for version in check.versions or speaks[:1]:
            if version not in speaks:
                if versions is not None:
                    continue            # not asked for
                record(Result(check, version, SKIP, f"the controller does not speak version {version} "
                                                    "(an optional feature)", 0.0))
                continue
            record(run_one(check, version, url, game=game, rules=rules, timeouts=timeouts))
    return results


def junit(results: list[Result], path: str, *, suite: str = "bench conformance",
          properties: dict[str, str] | None = None, timestamp: str | None = None) -> None:
    """``properties``: the suite's provenance (tool version, controller, its
    HELLO, time: ``bench.conformance.report.ConformanceRun.junit_properties``)."""
    failures = sum(1 for r in results if r.status == FAIL)
    skipped = sum(1 for r in results if r.status == SKIP)
    root = ElementTree.Element("testsuite", name=suite, tests=str(len(results)), failures=str(failures),
                               skipped=str(skipped), time=f"{sum(r.seconds for r in results):.3f}")
    if timestamp:
        root.set("timestamp", timestamp)
    if properties:
        listed = ElementTree.SubElement(root, "properties")
        for name, value in properties.items():
            ElementTree.SubElement(listed, "property", name=name, value=str(value))
    for r in results:
        case = ElementTree.SubElement(root, "testcase", classname=f"conformance.v{r.version}", name=r.id,
                                      time=f"{r.seconds:.3f}")
        ElementTree.SubElement(ElementTree.SubElement(case, "properties"), "property", name="section",
                               value=r.check.section)
        if r.status == FAIL:
            kind = "optional feature" if r.check.optional else "required"
            element = ElementTree.SubElement(case, "failure", message=f"{r.check.section}: {r.detail}",
                                             type=kind)
            element.text = r.wire_log
        elif r.status == SKIP:
            ElementTree.SubElement(case, "skipped", message=r.detail)
    ElementTree.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def line(result: Result) -> str:
    """One line of the report: status, check, section, what happened."""
    status = {PASS: "PASS", FAIL: "FAIL" if not result.check.optional else "FAIL (optional)",
              SKIP: "SKIP"}[result.status]
    return f"{status:<15} {result.id:<42} {result.seconds:5.2f}s {result.check.section}: {result.detail}"
