"""Which adapters there are: the bench's own protocol, and every adapter an
installed distribution declares under the entry point group
``tablebench.adapters`` (tablebench declares its example adapter there too).

An entry point names an ``Adapter`` subclass, an instance, or a callable
returning one:

    [project.entry-points."tablebench.adapters"]
    acme-wheel = "acme_tablebench:AcmeWheelAdapter"

A third party's package is code the bench does not control, and importing it
runs that code: it may raise, call sys.exit, end the process or hang. So:

* ``--adapter NAME`` (``get_adapter``) touches the one entry point called
  NAME and no other: a broken package cannot stop a session through another
  adapter, the shipped ones included.
* A third party's entry point is first loaded in a child process with a
  bound on its time (``bench.adapters.probe``; the verdict kept per installed
  version, ``bench.adapters.verdicts``), and taken into the bench only if it
  loaded there. Even then every way out of loading it, sys.exit included, is
  caught: an adapter that cannot be used is refused (AdapterError, exit
  status 2), never the end of a run that verified nothing.
* ``bench adapters`` (``found``) lists every entry point from the children's
  verdicts without importing any third party's code itself; a broken one is
  listed as broken, with why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import metadata

from bench.adapters.api import Adapter
from bench.adapters.loading import Phase, failure, load
from bench.adapters.native import Native
from bench.adapters.probe import Verdict, probe
from bench.adapters.verdicts import Verdicts, key
from bench.errors import BenchError

GROUP = "tablebench.adapters"
DEFAULT = Native.name
OWN_DISTRIBUTION = "tablebench"     # its adapters are the bench's own code: loaded without a child's trial


class AdapterError(BenchError):
    """An adapter that is not installed, or cannot be used."""


class AdapterBroken(AdapterError):
    """An adapter that is installed but cannot be used: ``problem`` says why."""

    def __init__(self, name: str, package: str, problem: str):
        super().__init__(f"--adapter {name}: the adapter from {package} cannot be used: {problem}")
        self.name, self.package, self.problem = name, package, problem


@dataclass(frozen=True)
class Found:
    """One adapter as the registry found it: usable (``version``, ``summary``)
    or broken (``problem``)."""
    name: str
    source: str                 # the distribution that declares it ("tablebench (built in)" for the native one)
    version: str | None = None  # the adapter's own version
    summary: str = ""
    problem: str | None = None


@dataclass(frozen=True)
class _Declared:
    """One name in the entry point group, nothing of its package imported."""
    name: str
    source: str                 # the distribution's name
    package: str                # its name and version, as an error names it
    entry: metadata.EntryPoint | None = None
    problem: str | None = None  # broken before loading: two packages declare the name

    @property
    def own(self) -> bool:
        return _normal(self.source) == OWN_DISTRIBUTION


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared() -> dict[str, _Declared]:
    """Every name the installed distributions declare, from their metadata alone."""
    out: dict[str, _Declared] = {}
    for entry in metadata.entry_points(group=GROUP):
        if entry.name == DEFAULT:
            continue            # the bench's own protocol cannot be replaced
        dist = entry.dist       # its metadata may lack a name or a version: the entry is still listed
        source = (dist.name if dist is not None else None) or "unknown distribution"
        version = dist.version if dist is not None else None
        package = f"{source} {version}" if version else source
        if entry.name in out:   # two packages, one name: neither is taken for the other
            first = out[entry.name]
            out[entry.name] = _Declared(entry.name, f"{first.source} and {source}", f"{first.package} and {package}",
                                        problem=f"declared by two packages, {first.package} and {package}; "
                                                "uninstall one")
            continue
        out[entry.name] = _Declared(entry.name, source, package, entry)
    return out


def _take_in(item: _Declared) -> Adapter:
    """Load ``item`` in this process. A package that loaded in a child may
    still fail here (it does something else the second time): every way out
    but the user's ^C is its problem, a SystemExit included."""
    assert item.entry is not None
    phase = Phase()
    try:
        return load(item.entry, phase)
    except KeyboardInterrupt:
        raise
    except BaseException as err:
        raise AdapterBroken(item.name, item.package, failure(err, phase)) from None


def _verdicts(items: list[_Declared]) -> list[Verdict]:
    """The child's verdict on each third party's entry point: kept ones as
    they are, the others tried all at once."""
    kept = Verdicts()
    keys = [key(item.entry) for item in items if item.entry is not None]
    out: list[Verdict | None] = [kept.get(k) for k in keys]
    missing = [i for i, verdict in enumerate(out) if verdict is None]
    if missing:
        tried = probe([(items[i].name, items[i].entry.value) for i in missing])   # type: ignore[union-attr]
        for i, verdict in zip(missing, tried):
            out[i] = verdict
            kept.put(keys[i], verdict)
        kept.save()
    return [verdict for verdict in out if verdict is not None]


def found() -> list[Found]:
    """Every adapter, the bench's own first, the others by name."""
    native = Native()
    out = [Found(DEFAULT, "tablebench (built in)", native.version, native.summary)]
    declared = sorted(_declared().values(), key=lambda item: item.name)
    third = [item for item in declared if item.problem is None and not item.own]
    verdicts = dict(zip((item.name for item in third), _verdicts(third)))
    for item in declared:
        if item.problem is not None:
            out.append(Found(item.name, item.source, problem=item.problem))
        elif item.own:
            try:
                adapter = _take_in(item)
            except AdapterBroken as err:
                out.append(Found(item.name, item.source, problem=err.problem))
            else:
                out.append(Found(item.name, item.source, adapter.version, adapter.summary))
        else:
            verdict = verdicts[item.name]
            out.append(Found(item.name, item.source, verdict.version, verdict.summary, verdict.problem))
    return out


def is_native(adapter: Adapter | None) -> bool:
    """Is this the bench's own protocol (or no adapter at all)?"""
    return adapter is None or adapter.name == DEFAULT


def adapter_args(adapter: Adapter) -> tuple[str, ...]:
    """``bench emulate`` options that make the emulated controller speak ``adapter``."""
    return () if adapter.name == DEFAULT else ("--adapter", adapter.name)


def source_of(name: str) -> str:
    """The distribution that declares the adapter ``name``."""
    if name == DEFAULT:
        return "tablebench (built in)"
    item = _declared().get(name)
    return item.source if item is not None else "unknown distribution"


def get_adapter(name: str | None) -> Adapter:
    """The adapter called ``name`` (None: the bench's own protocol). Raises
    AdapterError naming what is installed, or AdapterBroken naming the
    package and why it cannot be used. Only the entry point called ``name``
    is looked at."""
    if name is None or name == DEFAULT:
        return Native()
    declared = _declared()
    item = declared.get(name)
    if item is None:
        installed = ", ".join([DEFAULT] + sorted(declared))
        raise AdapterError(f"--adapter {name}: no such adapter is installed (installed: {installed}; bench adapters "
                           "lists them)")
    if item.problem is not None:
        raise AdapterBroken(name, item.package, item.problem)
    if not item.own:
        [verdict] = _verdicts([item])
        if verdict.problem is not None:
            raise AdapterBroken(name, item.package, verdict.problem)
    return _take_in(item)
