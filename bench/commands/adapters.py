"""``bench adapters``: the wire formats the bench speaks (docs/adapters.md):
one line each, name first; one adapter in full; or the template of a new one."""

from __future__ import annotations

import sys

from tablebench_io.commandline import Exit

TEMPLATE_FILES = ("pyproject.toml", "tablebench_json_lines.py", "README.md")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "adapters", help="list the protocol adapters (the controllers' wire formats) the bench can speak",
        description="List the adapters: the bench's own protocol and every adapter an installed package declares "
                    "under the entry point group tablebench.adapters, one a line: name, version, the package it "
                    "comes from, what it speaks. With NAME: that adapter in full (its timeouts, its link checks "
                    "for bench conformance, its link misbehaviours for bench emulate). With --template DIR: write "
                    "a working template adapter package to start a new one from (docs/adapters.md).")
    p.add_argument("name", nargs="?", metavar="NAME", help="show this adapter in full")
    p.add_argument("--template", metavar="DIR", help="write the template adapter package into DIR (a new folder)")
    p.set_defaults(func=run)


def run(args) -> int:
    from bench.adapters.registry import AdapterError, found, get_adapter, source_of

    if args.template:
        return _template(args.template)
    if args.name:
        try:
            adapter = get_adapter(args.name)
            _describe(adapter, source_of(adapter.name))
        except AdapterError as err:
            print(f"bench adapters: {err}", file=sys.stderr)
            return Exit.BAD_INPUT
        return Exit.OK
    # Third parties' adapters are tried in child processes under one bound
    # (bench.adapters.probe): a broken one is a BROKEN line, not this
    # command's end, and the listing is never held up longer than the bound.
    items = found()
    width = max(len(item.name) for item in items)
    for item in items:
        if item.problem is None:
            print(f"{item.name:<{width}}  {item.version:<8}  {item.source:<24}  {item.summary}")
        else:
            print(f"{item.name:<{width}}  {'-':<8}  {item.source:<24}  BROKEN: {item.problem}")
    return Exit.OK


def _describe(adapter, source: str) -> None:
    from bench.adapters.loading import one_line
    from bench.adapters.registry import AdapterBroken

    try:
        t = adapter.timeouts
        checks = adapter.conformance_checks()
        misbehaviours = adapter.link_misbehaviours()
    except Exception as err:        # a third party's code: its failure is the adapter's, in one line
        raise AdapterBroken(adapter.name, source, one_line(f"{type(err).__name__}: {err}")) from None
    print(f"{adapter.name} {adapter.version} (from {source})")
    print(f"  {adapter.summary}")
    if adapter.document:
        print(f"  specification: {adapter.document}")
    print(f"  timeouts: byte {t.byte} s, frame {t.frame} s, response {t.response} s, {t.retries} retries")
    print(f"  its own link checks (bench conformance --adapter {adapter.name}): "
          + (", ".join(c.name for c in checks) or "none"))
    print(f"  link misbehaviours (bench emulate --adapter {adapter.name} --misbehave-link NAME): "
          + (", ".join(sorted(misbehaviours)) or "none"))


def _template(folder: str) -> int:
    from importlib import resources
    from pathlib import Path

    target = Path(folder)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        print(f"bench adapters: --template {folder}: not a new or empty folder", file=sys.stderr)
        return Exit.BAD_INPUT
    source = resources.files("bench.adapters") / "template"
    try:
        target.mkdir(parents=True, exist_ok=True)
        for name in TEMPLATE_FILES:
            (target / name).write_text((source / name).read_text(encoding="utf-8"), encoding="utf-8")
    except OSError as err:
        print(f"bench adapters: --template {folder}: {err.strerror or err}", file=sys.stderr)
        return Exit.BAD_INPUT
    print(f"wrote the template adapter json-lines to {target}/ ({', '.join(TEMPLATE_FILES)}); "
          f"pip install {target} and it is listed here")
    return Exit.OK
