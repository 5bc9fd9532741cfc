"""Which adapters there are: the bench's own protocol, and every adapter an
installed distribution declares under the entry point group
``tablebench.adapters`` (tablebench declares its example adapter there too).

An entry point names an ``Adapter`` subclass, an instance, or a callable
returning one:

    [project.entry-points."tablebench.adapters"]
    acme-wheel = "acme_tablebench:AcmeWheelAdapter"

An entry point that cannot be loaded, or loads something that is not an
adapter, does not stop the others: ``bench adapters`` lists it as broken,
with why, and ``--adapter`` naming it is refused with the same words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import metadata

from bench.adapters.api import Adapter
from bench.adapters.native import Native
from bench.errors import BenchError

GROUP = "tablebench.adapters"
DEFAULT = Native.name
_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")


class AdapterError(BenchError):
    """An adapter that is not installed, or cannot be used."""


@dataclass(frozen=True)
class Found:
    """One adapter as the registry found it: usable (``adapter``) or broken (``problem``)."""
    name: str
    source: str                 # the distribution that declares it ("tablebench (built in)" for the native one)
    adapter: Adapter | None = None
    problem: str | None = None


def _load(entry: metadata.EntryPoint) -> Adapter:
    loaded = entry.load()
    adapter = loaded() if callable(loaded) and not isinstance(loaded, Adapter) else loaded
    if not isinstance(adapter, Adapter):
        raise TypeError(f"{entry.value} gives a {type(adapter).__name__}, not a bench.adapters.api.Adapter")
    if not _NAME.fullmatch(str(getattr(adapter, "name", ""))):
        raise TypeError(f"{entry.value}: name {getattr(adapter, 'name', None)!r} is not 1-40 lower-case "
                        "letters, digits and '-'")
    if adapter.name != entry.name:
        raise TypeError(f"{entry.value} calls itself {adapter.name!r}; the entry point calls it {entry.name!r}")
    if not str(getattr(adapter, "version", "")):
        raise TypeError(f"{entry.value} has no version")
    return adapter


def found() -> list[Found]:
    """Every adapter, the bench's own first, the others by name."""
    out = {DEFAULT: Found(DEFAULT, "tablebench (built in)", Native())}
    for entry in metadata.entry_points(group=GROUP):
        source = entry.dist.name if entry.dist is not None else "unknown distribution"
        if entry.name == DEFAULT:
            continue            # the bench's own protocol cannot be replaced
        if entry.name in out:   # two packages, one name: neither is taken for the other
            first = out[entry.name].source
            out[entry.name] = Found(entry.name, f"{first} and {source}",
                                    problem=f"declared by two packages, {first} and {source}; uninstall one")
            continue
        try:
            out[entry.name] = Found(entry.name, source, _load(entry))
        except Exception as err:        # a third party's import error or wrong object: reported, not raised
            out[entry.name] = Found(entry.name, source, problem=f"{type(err).__name__}: {err}")
    return [out[DEFAULT]] + [out[name] for name in sorted(out) if name != DEFAULT]


def is_native(adapter: Adapter | None) -> bool:
    """Is this the bench's own protocol (or no adapter at all)?"""
    return adapter is None or adapter.name == DEFAULT


def adapter_args(adapter: Adapter) -> tuple[str, ...]:
    """``bench emulate`` options that make the emulated controller speak ``adapter``."""
    return () if adapter.name == DEFAULT else ("--adapter", adapter.name)


def get_adapter(name: str | None) -> Adapter:
    """The adapter called ``name`` (None: the bench's own protocol). Raises
    AdapterError naming what is installed."""
    if name is None or name == DEFAULT:
        return Native()
    everything = found()
    for item in everything:
        if item.name == name:
            if item.adapter is None:
                raise AdapterError(f"--adapter {name}: the adapter from {item.source} cannot be used: {item.problem}")
            return item.adapter
    usable = ", ".join(item.name for item in everything if item.adapter is not None)
    raise AdapterError(f"--adapter {name}: no such adapter is installed (installed: {usable}; bench adapters "
                       "lists them)")
