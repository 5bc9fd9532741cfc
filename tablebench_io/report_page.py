"""The frame of a self-contained HTML report: one file that can be mailed
alone, read offline and printed. Every picture is inside the page as a
``data:`` URI (SVG charts, PNG pictures, GIF animations), the style is in the
page, nothing is fetched.

Both reports use it: ``twin validate --report`` and the bench's session
report (``bench run``, ``bench replay --report``), so that a regulator finds
the verdict and the provenance in the same place on both: the verdict first,
then a table of where the figures come from (date, software versions,
digests, seeds).
"""

from __future__ import annotations

import base64
import html
import io
import platform
import re
from dataclasses import dataclass
from importlib import metadata
from typing import Iterable, Sequence
from xml.etree import ElementTree

from PIL import Image

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;max-width:1080px;margin:1.5em auto;
 padding:0 1em;color:#1d1d1d;line-height:1.4}
h1{font-size:1.55em;margin:.2em 0 .4em}
h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc;padding-bottom:.15em}
h3{font-size:1.02em;margin:1.2em 0 .3em}
table{border-collapse:collapse;font-size:.9em;margin:.4em 0}
td,th{border:1px solid #c8c8c8;padding:3px 7px;vertical-align:top;text-align:left}
th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.pass{color:#17632a;font-weight:bold}.fail{color:#b3261e;font-weight:bold}.info{color:#666}
.verdict{font-size:1.5em;font-weight:bold;padding:.45em .9em;border-radius:6px;margin:.3em 0 .6em;display:inline-block}
.vpass{background:#dff3e3;color:#0f4d1f;border:2px solid #2e7d32}
.vfail{background:#fbe0dc;color:#7f1710;border:2px solid #b3261e}
.reasons{margin:.2em 0 .8em}
table.provenance td:first-child{white-space:nowrap;color:#444;width:13em}
code,.mono{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:.88em;overflow-wrap:anywhere}
blockquote{margin:.4em 0 .6em;padding:.3em .8em;border-left:4px solid #8aa4c8;background:#f4f7fb;white-space:pre-line}
blockquote cite{display:block;font-size:.85em;color:#555;font-style:normal;margin-top:.2em}
figure{margin:.6em 0;break-inside:avoid;page-break-inside:avoid}figure img{max-width:100%;height:auto}
figcaption{font-size:.88em;color:#333;max-width:900px}
.pictures{display:flex;flex-wrap:wrap;gap:1em}.pictures figure{flex:0 1 auto;max-width:520px}
details{margin:.3em 0}summary{cursor:pointer}
.violation{border:1px solid #e3b4ae;border-radius:5px;padding:.3em .8em;margin:.6em 0;break-inside:avoid}
@media print{body{max-width:none;margin:0}details{display:block}details>summary{display:none}
 a{color:inherit;text-decoration:none}h2{break-after:avoid}}
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


def verdict_box(passed: bool, text: str, reasons: Sequence[str] = ()) -> str:
    reasons_html = ("<ul class=\"reasons\">" + "".join(f"<li>{esc(r)}</li>" for r in reasons) + "</ul>"
                    if reasons else "")
    return (f'<p class="verdict {"vpass" if passed else "vfail"}" id="verdict" '
            f'data-verdict="{"pass" if passed else "fail"}">{esc(text)}</p>{reasons_html}')


def provenance_table(rows: Sequence[tuple[str, str]]) -> str:
    """Where the report's figures come from: (what, value) rows, the values
    already HTML (digests in ``<code>``)."""
    body = "".join(f"<tr><td>{esc(name)}</td><td>{value}</td></tr>" for name, value in rows)
    return f'<table class="provenance" id="provenance">{body}</table>'


def code(value) -> str:
    return f"<code>{esc(value)}</code>"


def page(title: str, body: str) -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>\n{body}\n</body></html>\n")


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
