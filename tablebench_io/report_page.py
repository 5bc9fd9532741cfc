"""The frame of a self-contained HTML report: one file that can be mailed
alone, read offline and printed. Every picture is inside the page as a
``data:`` URI (SVG charts, PNG pictures, GIF animations), the style is in the
page, nothing is fetched.

Every report a lab files is written in it (``report_page``): the session
report (``bench run``, ``bench replay --report``), ``twin validate --report``,
``twin edge --report``, ``bench conformance --report`` and a pytest run's
``--controller-report``; so a regulator finds the same blocks in the same
place on each: a short heading, the verdict box (``Verdict``: pass, fail,
caution or info, its key figures and reasons), then the provenance
(``Provenance``: date, software, each input with its digest, seeds, engine,
the command that repeats it), then the page's own sections. The style holds
at a phone's width: the verdict is in the first screen at 420 px, wide tables
scroll inside themselves, the provenance stacks.
"""

from __future__ import annotations

import base64
import html
import io
import platform
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import metadata
from typing import Iterable, Sequence
from xml.etree import ElementTree

from PIL import Image

STYLE = """
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;max-width:1080px;margin:1.2em auto;
 padding:0 1em;color:#1d1d1d;line-height:1.4;overflow-wrap:break-word}
header.top{margin:0 0 .5em}header.top .kind{margin:0;font-size:.82em;letter-spacing:.04em;text-transform:uppercase;color:#555}
h1{font-size:1.5em;margin:.1em 0 .3em}
h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc;padding-bottom:.15em}
h3{font-size:1.02em;margin:1.2em 0 .3em}
table{border-collapse:collapse;font-size:.9em;margin:.4em 0;display:block;max-width:100%;overflow-x:auto}
td,th{border:1px solid #c8c8c8;padding:3px 7px;vertical-align:top;text-align:left}
th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.pass{color:#17632a;font-weight:bold}.fail{color:#b3261e;font-weight:bold}.caution{color:#7a4f00;font-weight:bold}
.info{color:#555}
.verdict{border-radius:7px;padding:.55em .9em .6em;margin:.2em 0 1em;border:2px solid;border-left-width:9px}
.verdict .headline{font-size:1.42em;font-weight:bold;margin:0;line-height:1.25}
.verdict ul.reasons{margin:.35em 0 0;padding-left:1.2em}.verdict ul.reasons li{margin:.1em 0}
.verdict dl.figures{display:flex;flex-wrap:wrap;gap:.3em 1.6em;margin:.45em 0 0}
.verdict dl.figures div{min-width:9em}.verdict dt{font-size:.8em;color:inherit;opacity:.85}
.verdict dd{margin:0;font-weight:bold;font-variant-numeric:tabular-nums}
.vpass{background:#e3f4e6;color:#0f4d1f;border-color:#2e7d32}
.vfail{background:#fbe3df;color:#7f1710;border-color:#b3261e}
.vcaution{background:#fff3d4;color:#5c3c00;border-color:#c98a00}
.vinfo{background:#e8eef8;color:#1b365d;border-color:#3f6fb5}
table.provenance{font-size:.86em}table.provenance th{white-space:nowrap;color:#333;font-weight:normal;width:11em}
table.provenance pre{margin:0}
code,.mono,pre{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:.88em}
code{overflow-wrap:anywhere}pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;padding:.35em .6em}
blockquote{margin:.4em 0 .6em;padding:.3em .8em;border-left:4px solid #8aa4c8;background:#f4f7fb;white-space:pre-line}
blockquote cite{display:block;font-size:.85em;color:#555;font-style:normal;margin-top:.2em}
figure{margin:.6em 0;break-inside:avoid;page-break-inside:avoid}figure img{max-width:100%;height:auto}
figcaption{font-size:.88em;color:#333;max-width:900px}
.pictures{display:flex;flex-wrap:wrap;gap:1em}.pictures figure{flex:0 1 auto;max-width:520px}
details{margin:.3em 0}summary{cursor:pointer}
.card{border:1px solid #e3b4ae;border-radius:5px;padding:.3em .8em;margin:.6em 0;break-inside:avoid}
.card.ok{border-color:#b7d7bd}.card .count{font-weight:bold;color:#7f1710}
footer{margin-top:2em;font-size:.8em;color:#666;border-top:1px solid #ddd;padding-top:.4em}
@media (max-width:640px){body{margin:.5em auto;padding:0 .55em;font-size:15px}h1{font-size:1.22em}
 .verdict{padding:.45em .6em;border-left-width:7px}.verdict .headline{font-size:1.15em}
 table.provenance,table.provenance tbody,table.provenance tr,table.provenance th,table.provenance td{display:block;width:auto}
 table.provenance tr{border-top:1px solid #c8c8c8}table.provenance th,table.provenance td{border:none;padding:1px 4px}
 table.provenance th{background:none;font-size:.85em;color:#555;padding-top:4px}}
@media print{body{max-width:none;margin:0}details{display:block}details>summary{display:none}
 a{color:inherit;text-decoration:none}h2{break-after:avoid}table{display:table;overflow:visible}}
"""


def version_of(distribution: str, fallback: str = "not installed") -> str:
    """An installed distribution's version, without importing it (PyBullet
    prints a banner on import)."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return fallback


def tablebench_version() -> str:
    from tablebench_io import __version__
    return version_of("tablebench", __version__)


def software_row() -> str:
    """The software that writes a report, in one line."""
    return (f"tablebench {tablebench_version()}, PyBullet {version_of('pybullet')}, "
            f"matplotlib {version_of('matplotlib')}, Python {platform.python_version()}")


def utc(epoch: float | None) -> str:
    """A moment (seconds since the epoch) as every report writes it: "2026-12-01 15:39:53 UTC"."""
    if epoch is None:
        return "unknown"
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


def esc(value) -> str:
    return html.escape("" if value is None else str(value))


@dataclass(frozen=True)
class Picture:
    """An image as it goes into the page: its bytes, their type, and what it shows."""
    data: bytes
    mime: str                 # image/svg+xml, image/png, image/gif
    caption: str
    alt: str = ""

    @property
    def uri(self) -> str:
        return f"data:{self.mime};base64,{base64.b64encode(self.data).decode('ascii')}"


def picture_of(image, caption: str, alt: str = "") -> Picture:
    """A ``Picture`` from SVG text (a chart), PNG/GIF bytes, or a PIL image."""
    if isinstance(image, Picture):
        return image
    if isinstance(image, str):
        return Picture(image.encode("utf-8"), "image/svg+xml", caption, alt)
    if isinstance(image, bytes):
        mime = "image/gif" if image[:4] == b"GIF8" else "image/png"
        return Picture(image, mime, caption, alt)
    buffer = io.BytesIO()       # a PIL image
    image.save(buffer, format="PNG")
    return Picture(buffer.getvalue(), "image/png", caption, alt)


def figure(picture: Picture, width: int | None = None) -> str:
    size = f' width="{width}"' if width else ""
    return (f'<figure><img src="{picture.uri}" alt="{esc(picture.alt or picture.caption)}"{size}>'
            f"<figcaption>{esc(picture.caption)}</figcaption></figure>")


def figures(pictures: Iterable[Picture]) -> str:
    return '<div class="pictures">' + "".join(figure(p) for p in pictures) + "</div>"


# The states of a verdict. A caution is a pass that stands on less than it
# should (a journal nothing kept apart vouches for) or a measurement too thin
# to judge; info is a measurement with nothing to judge it against.
PASS, FAIL, CAUTION, INFO = "pass", "fail", "caution", "info"
STATES = (PASS, FAIL, CAUTION, INFO)


@dataclass(frozen=True)
class Verdict:
    """The box at the top of every report: one headline, the key figures
    (name, value: plain text) and the reasons behind a verdict that is not
    a plain pass."""
    state: str
    headline: str
    reasons: Sequence[str] = ()
    figures: Sequence[tuple[str, str]] = ()

    def __post_init__(self):
        if self.state not in STATES:
            raise ValueError(f"a verdict is one of {', '.join(STATES)}, not {self.state!r}")


REASONS_IN_BOX = 4      # more would push the box past a phone's first screen; the page lists them all


def verdict_box(verdict: Verdict) -> str:
    """The box, with at most ``REASONS_IN_BOX`` reasons (the rest counted:
    the page's own sections list every one)."""
    shown = list(verdict.reasons[:REASONS_IN_BOX])
    if len(verdict.reasons) > REASONS_IN_BOX:
        shown.append(f"… and {len(verdict.reasons) - REASONS_IN_BOX} more, below")
    figures = ("<dl class=\"figures\">" + "".join(f"<div><dt>{esc(name)}</dt><dd>{esc(value)}</dd></div>"
                                                   for name, value in verdict.figures) + "</dl>"
               if verdict.figures else "")
    reasons = ("<ul class=\"reasons\">" + "".join(f"<li>{esc(r)}</li>" for r in shown) + "</ul>"
               if shown else "")
    return (f'<section class="verdict v{verdict.state}" id="verdict" data-verdict="{verdict.state}" '
            f'aria-label="verdict"><p class="headline">{esc(verdict.headline)}</p>{figures}{reasons}</section>')


@dataclass(frozen=True)
class Input:
    """A file a report's figures come from, by name and digest: the same bytes
    give the same digest (``sha256sum``), whatever the file is called."""
    what: str                      # "design", "submission", "journal"
    name: str                      # a path, or "standard (shipped)"
    digest: str | None = None      # hex
    digest_kind: str = "SHA-256"   # or "head hash" (a journal's chain)
    note: str = ""                 # HTML after it


@dataclass(frozen=True)
class Provenance:
    """Where a report's figures come from, in the same rows on every page:
    the date, the software, each input with its digest, the seeds, the engine
    that ran it and the command that repeats it; then the page's own rows
    (``more``: (what, HTML))."""
    date: str                                  # plain text
    inputs: Sequence[Input]
    seeds: str                                 # HTML
    engine: str                                # HTML
    repeat: str                                # the command line, plain text
    more: Sequence[tuple[str, str]] = ()
    software: str = ""                         # plain text; default software_row()


# The rows every report's provenance has, by their ``data-row`` (a test reads them).
PROVENANCE_ROWS = ("date", "software", "input", "seeds", "engine", "repeat")


def file_input(what: str, path, sha256: str | None, *kinds: str) -> Input:
    """An input file as a report names it: a shipped design or submission
    (``tablebench_fixtures``, found by its bytes' digest) by its name,
    "standard (shipped)", not the path it was installed at; any other by
    its path."""
    import tablebench_fixtures
    shipped = tablebench_fixtures.identify(sha256, *kinds)
    return Input(what, f"{shipped[1]} (shipped)" if shipped else str(path), sha256)


def _input_html(item: Input) -> str:
    if not item.digest:          # no file: "none: judged by the regulation's defaults"
        return esc(item.name) + ((' ' + item.note) if item.note else '')
    return f"{code(item.name)}<br>{esc(item.digest_kind)} {code(item.digest)}{(' ' + item.note) if item.note else ''}"


def provenance_table(provenance: Provenance) -> str:
    rows = [("date", "date", esc(provenance.date)),
            ("software", "software", esc(provenance.software or software_row()))]
    rows += [("input", item.what, _input_html(item)) for item in provenance.inputs]
    rows += [("seeds", "seeds", provenance.seeds), ("engine", "engine", provenance.engine)]
    rows += [("more", name, value) for name, value in provenance.more]
    rows.append(("repeat", "repeat it", f"<pre>{esc(provenance.repeat)}</pre>"))
    body = "".join(f'<tr data-row="{key}"><th scope="row">{esc(name)}</th><td>{value}</td></tr>'
                   for key, name, value in rows)
    return f'<table class="provenance" id="provenance">{body}</table>'


def code(value) -> str:
    return f"<code>{esc(value)}</code>"


def page(title: str, body: str) -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="generator" content="tablebench {esc(tablebench_version())}">'
            f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>\n{body}\n</body></html>\n")


def report_page(*, kind: str, title: str, heading: str, verdict: Verdict, provenance: Provenance,
                sections: Iterable[str]) -> str:
    """A whole report in the shared frame: what kind of report it is and its
    heading, the verdict box, the provenance, then the page's own sections
    (empty ones left out). The heading is kept short so that the verdict is
    in the first screen even on a phone."""
    body = "\n".join([
        f'<header class="top"><p class="kind">tablebench &middot; {esc(kind)}</p><h1>{esc(heading)}</h1></header>',
        verdict_box(verdict),
        provenance_table(provenance),
        *(s for s in sections if s),
        f"<footer>{esc(kind)} written by tablebench {esc(tablebench_version())}; one self-contained page: "
        "every chart and picture is inside it, nothing is fetched.</footer>",
    ])
    return page(title, f'<main data-report="{esc(kind)}">\n{body}\n</main>')


_IMAGE_SOURCE = re.compile(r'<img\b[^>]*?\bsrc="([^"]*)"', re.IGNORECASE)
_REFERENCE = re.compile(r'\b(?:src|href|poster|data)="([^"]*)"|url\(\s*["\']?([^"\')]*)', re.IGNORECASE)


def inline_images(page_html: str) -> list[tuple[str, bytes]]:
    """(MIME type, bytes) of every ``<img>`` in a page whose source is a
    base64 ``data:`` URI; an image from anywhere else raises ValueError."""
    found = []
    for source in _IMAGE_SOURCE.findall(page_html):
        match = re.fullmatch(r"data:([\w/+.-]+);base64,([A-Za-z0-9+/=]*)", html.unescape(source))
        if not match:
            raise ValueError(f"an image not inside the page: {source[:80]}")
        found.append((match.group(1), base64.b64decode(match.group(2), validate=True)))
    return found


def outside_references(page_html: str) -> list[str]:
    """Every address a page would fetch or link outside itself (none in a
    self-contained page: in-page anchors and ``data:`` URIs are inside)."""
    refs = [a or b for a, b in _REFERENCE.findall(page_html)]
    return [r for r in refs if r and not r.startswith(("data:", "#"))]


def checked_images(page_html: str) -> list[tuple[str, bytes]]:
    """``inline_images`` of a page that must stand alone (a report a
    regulator files): ValueError if it refers to anything outside itself or
    an image does not decode (SVG as XML, the others by Pillow)."""
    outside = outside_references(page_html)
    if outside:
        raise ValueError(f"the page refers outside itself: {outside[:3]}")
    images = inline_images(page_html)
    for index, (mime, data) in enumerate(images):
        try:
            if mime == "image/svg+xml":
                if not ElementTree.fromstring(data).tag.endswith("svg"):
                    raise ValueError("not an <svg> document")
            else:
                Image.open(io.BytesIO(data)).verify()
        except Exception as err:     # noqa: BLE001 (any decoder's error: the image is broken)
            raise ValueError(f"image {index + 1} ({mime}) does not decode: {err}") from None
    return images
