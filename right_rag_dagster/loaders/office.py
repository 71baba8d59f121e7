"""DOCX, HTML, Markdown, PPTX and XLSX through Docling, exported to Markdown (no torch needed)."""

from __future__ import annotations

import importlib.abc
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from io import BytesIO
from pathlib import Path
from typing import TypeVar

from ..core.markdown import fenced_spans, inside, opens_fence
from ..errors import DocumentRejected

DOCLING_SUFFIXES = {".docx", ".html", ".htm", ".xhtml", ".md", ".markdown", ".pptx", ".xlsx"}
HTML_SUFFIXES = {".html", ".htm", ".xhtml"}
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
TABLE_PARTS = ("thead", "tbody", "tfoot", "tr", "td", "th", "caption")
_TABLE_TAG = re.compile(rb"<table\b", re.IGNORECASE)
_HEADING_TAG = re.compile(rb"<h[1-6]\b", re.IGNORECASE)
UNNEEDED_AT_IMPORT = ("torch", "transformers")
"""Optional libraries Docling probes while it is imported (Apple's MPS for speech models, a VLM stopping-criteria
class): with torch installed (the local-embeddings extra) they cost 5-7 s per process, and the formats converted
here use neither, so Docling is imported as its slim install would be (it handles their absence)."""


class _Hidden(importlib.abc.MetaPathFinder):
    """Fails the import of ``names`` (and their submodules) for the thread that installed it; other threads import
    them as usual, so a model loading beside a Docling import is not refused torch."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.thread = threading.get_ident()

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        if threading.get_ident() == self.thread and fullname.split(".")[0] in self.names:
            raise ModuleNotFoundError(f"{fullname} is not imported here", name=fullname)
        return None


@contextmanager
def hidden_modules(names: tuple[str, ...]) -> Iterator[None]:
    """Make ``import name`` fail in this thread for each of ``names`` not yet imported, for the duration of the
    block (a module another thread has imported meanwhile is found in ``sys.modules`` and imports)."""
    finder = _Hidden(tuple(name for name in names if name not in sys.modules))
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


@lru_cache(maxsize=1)
def _converter():
    try:
        with hidden_modules(UNNEEDED_AT_IMPORT):
            from docling.datamodel.base_models import InputFormat
            from docling.document_converter import DocumentConverter
    except ImportError as exc:  # pragma: no cover - docling-slim is a dependency
        raise DocumentRejected("docling", "Docling is not installed: pip install "
                                          "'docling-slim[office,web,markdown]==2.142.1'") from exc
    formats = [InputFormat.DOCX, InputFormat.HTML, InputFormat.MD, InputFormat.PPTX, InputFormat.XLSX]
    return DocumentConverter(allowed_formats=formats)


def read_with_docling(path: Path, document_id: str) -> str:
    """Markdown export of the document, its characters as they are (``--mode=<heap|copy>``, ``DEB_BUILD_OPTIONS``;
    Docling's default export writes ``&lt;``, ``&amp;`` and ``\\_``, which answers then quoted and BM25 split
    into words of their own); rejects files Docling cannot convert."""
    if path.stat().st_size == 0:
        raise DocumentRejected(document_id, "file is empty")
    try:
        result = _converter().convert(_source(path), raises_on_error=True)
    except DocumentRejected:
        raise
    except Exception as exc:
        raise DocumentRejected(document_id, f"Docling could not convert it: {type(exc).__name__}: {exc}") from exc
    return unglue_fences(result.document.export_to_markdown(escape_html=False, escape_underscores=False))


_FENCE_LINE = re.compile(r"^(?P<indent>[ \t]{0,3})(?P<fence>`{3,}|~{3,})(?P<rest>.*)$")


def unglue_fences(markdown: str) -> str:
    """``markdown`` with each code fence that Docling glued to the text after it (a code block in a list item:
    "```Python2 still depends upon the `chardet` module.") closed on a line of its own. Left glued, the fence never
    closes (no closing fence carries text), and every heading after it was read as code: Requests' history lost its
    last 130 releases' headings."""
    lines = markdown.split("\n")
    opening: re.Match[str] | None = None
    for index, line in enumerate(lines):
        fence = _FENCE_LINE.match(line)
        if fence is None:
            continue
        if opening is None:
            opening = fence if opens_fence(fence.group("rest")) else None
        elif (fence.group("fence")[0] == opening.group("fence")[0]
              and len(fence.group("fence")) >= len(opening.group("fence"))):
            rest = fence.group("rest")
            if rest.strip():
                lines[index] = f"{fence.group('indent')}{fence.group('fence')}\n{rest.lstrip()}"
            opening = None
    return "\n".join(lines)


def _source(path: Path):  # noqa: ANN202 (a path, or Docling's DocumentStream)
    """What Docling converts: the file, an HTML page cut to its main content with its ``<pre>`` blocks made plain text,
    its layout tables unwrapped and its page furniture dropped (``without_page_furniture``), or a Markdown file with
    its HTML ``<pre>`` blocks made code fences and its front matter a fenced block (``with_front_matter_title``)."""
    suffix = path.suffix.lower()
    if suffix in MARKDOWN_SUFFIXES:
        original = path.read_text(encoding="utf-8", errors="replace")
        # the <pre> blocks first: a "# line" in one is code, no level-one heading beside the front matter's title
        markdown = _rewritten(original, (fence_pre_blocks, with_front_matter_title))
        return str(path) if markdown is original else _stream(path, markdown.encode("utf-8"))
    if suffix not in HTML_SUFFIXES:
        return str(path)
    original = path.read_bytes()
    page = _rewritten(original, (main_content, plain_pre_blocks, unwrap_layout_tables, without_page_furniture))
    return str(path) if page is original else _stream(path, page)


_Text = TypeVar("_Text", str, bytes)


def _rewritten(source: _Text, rewrites: Iterable[Callable[[_Text], _Text | None]]) -> _Text:
    """``source`` through each rewrite in turn; a rewrite that returns None leaves it as it was (the same object
    when none applies, so the caller can hand Docling the file itself)."""
    for rewrite in rewrites:
        rewritten = rewrite(source)
        source = source if rewritten is None else rewritten
    return source


_MAIN_TAG = re.compile(rb"<main\b|\brole\s*=\s*[\"']?main\b", re.IGNORECASE)


def main_content(html: bytes) -> bytes | None:
    """The page with its body cut to its one shown ``<main>`` element (else its one shown element whose ARIA role is
    ``main``), as UTF-8; None when it has none, several, one without text, or no ``<body>``: then it is read whole.

    A documentation site's page wraps its text in a template: a navigation tree, a theme picker, a keyboard-shortcut
    help box that a script shows (mdBook), each rendered by Docling as text of the page, parsed as its front matter
    and ranked for the words of the site's name. HTML marks the page's own text as its main content. A hidden one
    (``hidden``, ``aria-hidden``, inside ``<noscript>`` or ``<template>``) is not the page Docling shows."""
    if not _MAIN_TAG.search(html):
        return None
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    found = [tag for tag in soup.find_all("main") if _shown(tag)] or [
        tag for tag in soup.find_all(attrs={"role": _main_role}) if _shown(tag)]
    if len(found) != 1 or soup.body is None or not found[0].get_text(strip=True):
        return None
    main = found[0].extract()
    soup.body.clear()
    soup.body.append(main)
    return _utf8(soup)


def _main_role(role: str | None) -> bool:
    """Whether an element's ``role`` names ``main`` first (ARIA reads the first role it knows of a list)."""
    return bool(role) and role.lower().split()[:1] == ["main"]


def _shown(tag) -> bool:  # noqa: ANN001 (a bs4 Tag)
    """Whether ``tag`` is text a reader sees: not hidden, not inside a ``<noscript>`` or ``<template>``."""
    hidden = tag.has_attr("hidden") or str(tag.get("aria-hidden", "")).lower() == "true"
    return not hidden and tag.find_parent(("noscript", "template")) is None


def _utf8(soup) -> bytes:  # noqa: ANN001 (a bs4 BeautifulSoup)
    """``soup`` as UTF-8 bytes with its XML declaration dropped: bs4 rewrites a ``<meta>`` charset to the bytes'
    encoding but leaves ``<?xml ... encoding="iso-8859-1"?>``, which would make Docling read UTF-8 as Latin-1."""
    from bs4 import ProcessingInstruction

    for node in soup.find_all(string=lambda text: isinstance(text, ProcessingInstruction)):
        if node.lstrip().lower().startswith("xml"):
            node.extract()
    return soup.encode("utf-8")


def _stream(path: Path, data: bytes):  # noqa: ANN202 (Docling's DocumentStream)
    from docling.datamodel.base_models import DocumentStream

    return DocumentStream(name=path.name, stream=BytesIO(data))


MARKDOWN_SUFFIXES = {".md", ".markdown"}
_PRE_BLOCK = re.compile(r"^[ \t]{0,3}<pre\b[^>]*>(?P<body>.*?)</pre>[ \t]*$", re.IGNORECASE | re.DOTALL | re.MULTILINE)
_INLINE_TAG = re.compile(r"</?[A-Za-z][^>]*>")


def fence_pre_blocks(markdown: str) -> str | None:
    """``markdown`` with each HTML ``<pre>`` block (outside code fences) made a fenced code block of its text (tags
    dropped, entities decoded), or None when it has none. Docling passes such a block through as one paragraph, its
    line breaks collapsed: a licence notice set in ``<pre>`` (W3C's) became 7 KB of one paragraph, its numbered
    clauses and blank lines lost; as a fence its lines and paragraphs stay."""
    import html

    fences = fenced_spans(markdown)
    blocks = [m for m in _PRE_BLOCK.finditer(markdown) if not inside(fences, m.start())]
    if not blocks:
        return None
    out, position = [], 0
    for block in blocks:
        body = html.unescape(_INLINE_TAG.sub("", block.group("body"))).strip("\n")
        fence = _fence_for(body)
        out += [markdown[position:block.start()], f"{fence}\n{body}\n{fence}"]
        position = block.end()
    return "".join(out + [markdown[position:]])


_FRONT_MATTER = re.compile(r"\A(?:\ufeff)?---[ \t]*\n(?P<fields>(?:.*\n)*?)(?:---|\.\.\.)[ \t]*(?:\n|\Z)")
_LEVEL_ONE = re.compile(r"^[ \t]{0,3}#[ \t]+\S|^[ \t]{0,3}\S[^\n]*\n[ \t]{0,3}=+[ \t]*$", re.MULTILINE)
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def with_front_matter_title(markdown: str) -> str | None:
    """``markdown`` with its YAML front matter (Jekyll, Hugo, MkDocs: ``---``, ``title: Dependency Selectors``,
    ``---``) as a fenced block, under a ``#`` heading of its ``title`` when the page has no heading of that level (the
    title is the heading such sites render); None without front matter (fields that YAML reads as a mapping: a page
    that opens with a rule over its own text has none). Docling read the block as a setext heading ("## ", then the
    fields run together), so the page's first section ("### Description") was taken for its title."""
    import yaml

    block = _FRONT_MATTER.match(markdown)
    if block is None:
        return None
    fields, body = block.group("fields"), markdown[block.end():].lstrip("\n")
    try:
        data = yaml.safe_load(fields)
    except yaml.YAMLError:
        return None
    if not isinstance(data, dict) or not data:
        return None
    title = data.get("title")
    title = " ".join(title.split()) if isinstance(title, str) else ""
    shown = _HTML_COMMENT.sub("", body)
    fences = fenced_spans(shown)
    headed = any(not inside(fences, m.start()) for m in _LEVEL_ONE.finditer(shown))
    heading = f"# {title}\n\n" if title and not headed else ""
    fence = _fence_for(fields)
    return f"{heading}{fence}yaml\n{fields}{fence}\n\n{body}"


def _fence_for(text: str) -> str:
    """A backquote fence that ``text`` cannot close: three, or one more than its longest run of backquotes."""
    return "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))


_TITLE_TAG = re.compile(rb"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
TITLE_BYTES = 65536
MAX_TITLE_CHARS = 200


def html_title(path: Path) -> str | None:
    """The page's ``<title>`` (entities decoded, whitespace collapsed), which Docling's Markdown leaves out: a manual
    whose first heading is "v1.13.4 Downloads" is titled "Underscore.js" there. None without one."""
    import html

    with open(path, "rb") as handle:
        match = _TITLE_TAG.search(handle.read(TITLE_BYTES))
    if match is None:
        return None
    try:
        raw = match.group(1).decode("utf-8")
    except UnicodeDecodeError:
        raw = match.group(1).decode("cp1252", "replace")  # an older page's Latin-1 / Windows-1252 title
    title = " ".join(html.unescape(re.sub(r"<[^>]*>", "", raw)).split())
    return title if 0 < len(title) <= MAX_TITLE_CHARS else None


_MARKED_UP_PRE = re.compile(rb"<pre\b[^>]*>(?:(?!</pre>).)*?<(?!/?code\b)(?!/pre\b)[a-z]", re.IGNORECASE | re.DOTALL)


def plain_pre_blocks(html: bytes) -> bytes | None:
    """The page with the markup inside each ``<pre>`` block dropped, its text kept (but a copy button's label), as
    UTF-8; None when no block holds markup other than ``<code>``.

    Docling reads a ``<pre>`` whose text sits in highlighting ``<span>``s (Sphinx's pages, Node.js's API pages), in a
    ``<b>`` (zlib's example) or beside a "copy" ``<button>`` as inline code: a console session became one backquoted
    paragraph with half its lines run together and the word `copy` after it. A plain ``<pre>`` is a code block."""
    if not _MARKED_UP_PRE.search(html):
        return None  # most pages: no parse
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    marked = [pre for pre in soup.find_all("pre") if pre.find(lambda tag: tag.name != "code")]
    if not marked:
        return None
    for pre in marked:
        for button in pre.find_all("button"):
            button.decompose()
        for br in pre.find_all("br"):
            br.replace_with("\n")  # get_text() would run the lines it breaks together
        code = pre.find("code")
        text = pre.get_text()
        pre.clear()
        if code is None:
            pre.string = text
        else:
            plain = soup.new_tag("code", attrs=dict(code.attrs))
            plain.string = text
            pre.append(plain)
    return _utf8(soup)


def unwrap_layout_tables(html: bytes) -> bytes | None:
    """The page with each table that holds a heading made plain blocks (UTF-8), or None when it has none.

    Old sites lay a whole page out in nested tables (libxslt's pages: menu, title and text in cells). Docling
    renders a table as a Markdown table, so such a page became one table row: its headings lost, its text one
    paragraph after the menu. A table of data holds no heading, and stays a table."""
    if not (_TABLE_TAG.search(html) and _HEADING_TAG.search(html)):
        return None  # most pages: no parse (bs4 takes 0.3 s for a 136 KB manual page)
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    layout = [table for table in soup.find_all("table") if table.find(HEADINGS)]
    if not layout:
        return None
    for table in layout:
        for part in table.find_all(TABLE_PARTS):
            if part.find_parent("table") is table:
                part.name = "div"
        table.name = "div"
    return _utf8(soup)


_HEADING_ANCHOR = re.compile(rb"<h[1-6]\b[^>]*>(?:(?!</h[1-6]).){0,4000}?<a\b[^>]*[\s\"']href\s*=\s*[\"']?#",
                             re.IGNORECASE | re.DOTALL)
_CONTROL_TAG = re.compile(rb"<(?:svg|button)\b", re.IGNORECASE)
_SELF_LINK_BLOCK = re.compile(
    rb"""<div\b[^>]{0,500}?\bid\s*=\s*["']([^"'>]{1,200})["'][^>]{0,500}>\s*<a\b[^>]{0,500}?\bhref\s*=\s*["']#\1["']""",
    re.IGNORECASE)
"""A ``<div>`` whose first content is a link to the div itself: maybe a marker block (the Rust Reference's rule names,
``<div class="rule" id="r-vis.intro"><a href="#r-vis.intro">[vis.intro]</a></div>``). Bounded: a page of ten
thousand ``id="..."`` attributes without a ``>`` must not make it quadratic."""


def without_page_furniture(html: bytes) -> bytes | None:
    """The page without the furniture of its headings and controls, as UTF-8; None when it has none (one parse).

    - Links to the page's own anchors inside a heading are unwrapped, a bare mark (``#``, ``¶``) beside the heading's
      text dropped: mdBook wraps each heading's text in one (Docling wrote "## [Atomics](#atomics)", the link's
      target part of a heading's title, citation path and indexed words), Node.js and Sphinx add a mark after it.
    - Drawings (``<svg>``) are dropped: their labels are a picture's, not the page's text (the Rust Reference's
      railroad diagrams became dozens of one-word paragraphs, "pub", "(", "crate").
    - A button that acts on the page ("Show Railroad", "Copy") is dropped; one inside a heading, or one that opens a
      panel or a tab (``aria-expanded``, ``aria-controls``, ``role="tab"``: an accordion's question), keeps its text.
    - A ``<div>`` that holds nothing but a link to itself is dropped: a permalink marker, such as the Rust Reference's
      rule names ("[vis.intro]" over each paragraph: the generic parser made each one a paragraph of its own). Other
      elements are kept: Cargo's command pages title each option with a ``<dt>`` that is only a link to itself
      ("--release"), and a table's cell or a list's item holds its place.
    """
    anchors, controls = _HEADING_ANCHOR.search(html), _CONTROL_TAG.search(html)
    markers = _SELF_LINK_BLOCK.search(html)
    if not (anchors or controls or markers):
        return None  # most pages: no parse
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    changed = False
    for heading in soup.find_all(HEADINGS) if anchors else ():
        for link in heading.find_all("a"):
            if not str(link.get("href", "")).startswith("#"):
                continue
            if not any(character.isalnum() for character in link.get_text()) and _has_words_beside(heading, link):
                link.extract()  # a mark after the heading's text
            else:
                link.unwrap()
            changed = True
    for control in soup.find_all(("svg", "button")) if controls else ():
        if control.decomposed:
            continue  # inside a control dropped before it (a theme button's icon, a button in a drawing)
        if control.name == "svg" or not (control.find_parent(HEADINGS) or _opens_a_panel(control)):
            control.decompose()
        else:
            control.unwrap()
        changed = True
    for link in soup.find_all("a", href=re.compile(r"^#.")) if markers else ():
        if link.decomposed:
            continue
        block, label = link.parent, link.get_text(strip=True)
        if (block is not None and block.name == "div" and block.get("id") == link["href"][1:]
                and label and block.get_text(strip=True) == label):
            block.decompose()
            changed = True
    return _utf8(soup) if changed else None


def _has_words_beside(heading, link) -> bool:  # noqa: ANN001 (bs4 Tags)
    """Whether ``heading`` has letters or digits outside ``link`` (a "#" after "Corepack"; not a heading of "?")."""
    inside = link.get_text()
    return any(character.isalnum() for character in heading.get_text().replace(inside, "", 1))


def _opens_a_panel(button) -> bool:  # noqa: ANN001 (a bs4 Tag)
    """A disclosure or tab button: its label names the panel it opens (an accordion's question, a tab's name)."""
    return (button.has_attr("aria-expanded") or button.has_attr("aria-controls")
            or str(button.get("role", "")).lower() == "tab")
