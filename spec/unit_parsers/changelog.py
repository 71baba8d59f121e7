"""Change logs: policy change logs in reStructuredText-style text (Debian's upgrading-checklist.txt and the like)
and Debian package change logs and news (``debian/changelog``, ``NEWS.Debian``, deb-changelog(5)).

Accepts a plain-text document with at least three underlined headings naming a version (``10.2. Version 4.6.2``
over a line of ``=``) that make at least half of its underlined headings (a manual whose last chapter is a
change log, as policy.txt, belongs to the text-manual parser). Tree: introductory sections, then one ``version``
unit per release (with its release date) holding one ``change`` unit per entry: a line of referenced policy
sections (``2.3, 4.5 & 12.5``) or a topic (``perl``) followed by the indented rule change, or a ``*`` bullet in old
releases.

Also accepts a text that opens with a Debian change-log entry (``openssh (1:9.2p1-1) unstable; urgency=medium``)
and signs at least one with a `` -- Name <address>  date`` line: one ``version`` unit per entry (version,
distribution, urgency, date), holding a ``change`` unit per ``*`` item (its indented continuation paragraphs
included) and per paragraph outside items.

Also accepts release notes as GNU-style ``NEWS`` files write them: a text whose first lines include a release header
(``Changes in version 2.7.6:``, ``Noteworthy changes in release 9.1 (2022-04-15)``, ``Version 0.21 - July 2020``),
with at least three such headers, each an unindented line followed by a blank line (or by its first ``*`` item where
other headers open with the same words): one ``version`` unit per header holding a ``section`` per outline
sub-heading (``** Bug fixes``) and a ``change`` per ``*`` item and per paragraph, as in a Debian change log.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from right_rag_dagster.core.interfaces import UnitParser
from right_rag_dagster.core.model import Document, ParsedUnit
from right_rag_dagster.core.registry import load_helper
from right_rag_dagster.errors import DocumentRejected

H = load_helper(__file__, "_shared.py")

MIN_VERSIONS = 3
_UNDERLINE = re.compile(r"^([=*\-~^#])\1{2,}[ \t]*$")
_NUMBERING = re.compile(r"^(?P<num>\d+(?:\.\d+)*)\.?\s+(?P<title>.+)$")
_RELEASED = re.compile(r"^Released\s+(?P<date>.+?)\.?\s*$")
_RELEASED_IN_HEADING = re.compile(r",\s*released\s+(?P<date>.+?)\.?\s*$", re.I)
_BULLET = re.compile(r"^[*\-+]\s+")
_SECTION_REF = re.compile(r"\b\d+(?:\.\d+)+\b|\b\d+\b")


@dataclass(frozen=True)
class _Heading:
    """An underlined heading: where it starts, where its underline ends, its text and underline character."""

    start: int
    end: int
    text: str
    mark: str


class ChangelogParser(UnitParser):
    """Version-by-version change logs with underlined headings; rejects logs without version headings."""

    @property
    def parser_name(self) -> str:
        return "policy-changelog"

    def parser_can_handle_document(self, document: Document) -> bool:
        name = Path(document.id).name.lower()
        if document.page_starts or document.metadata.get("format", "text") != "text" or "copyright" in name:
            return False
        if H.is_pod(document.text, document.id):
            return False  # Perl POD (a module's Changes as POD included): pod.py reads its commands
        if H.is_vim_help(document.text):
            return False  # a Vim help file (version5.txt lists changes too): vim_help.py reads it
        if _debian_entries(document.text):
            return True
        return _underlined_log(_headings(document.text)) or bool(H.release_headers(document.text))

    def parse_document(self, document: Document) -> Iterable[ParsedUnit]:
        text = document.text
        if entries := _debian_entries(text):
            return _debian_log(document, entries, self.parser_name)
        headings = _headings(text)
        if not _underlined_log(headings) and (releases := H.release_headers(text)):
            return _release_notes(document, releases, self.parser_name)
        versions = [h for h in headings if H.RELEASE_HEADING.search(h.text)]
        if len(versions) < MIN_VERSIONS:
            raise DocumentRejected(document.id, f"change log with {len(versions)} underlined 'Version X.Y' headings "
                                                f"(need {MIN_VERSIONS}); no release structure to parse")
        title_heading = headings[0] if headings[0].mark != versions[0].mark else None
        title = _strip_numbering(title_heading.text) if title_heading else Path(document.id).stem
        info = H.DocumentInfo(title=title, label=title, parser=self.parser_name)
        nodes = []
        if title_heading:
            start, end = H.trim(text, title_heading.start, title_heading.end)
            nodes.append(H.Node("title", title, start, end, "title", role="notice", attributes={"heading": title}))
        sections = [h for h in headings if h is not title_heading]
        ends = [h.start for h in sections[1:]] + [len(text)]
        seen: dict[str, int] = {}
        ranks = {mark: rank for rank, mark in enumerate(dict.fromkeys(h.mark for h in sections))}
        release, parts = None, {}  # the release the headings below belong to, and its parts' keys
        for heading, end in zip(sections, ends):
            if release is not None and ranks[heading.mark] > ranks[versions[0].mark] and not (
                    H.RELEASE_HEADING.search(heading.text)):
                _add_part(text, release, heading, end, parts)
                continue
            node = _section(text, heading, end, title, seen)
            nodes.append(node)
            release, parts = (node, {}) if node.unit_type == "version" else (None, {})
        return [H.to_parsed(document, info, node) for node in nodes]


def _underlined_log(headings: list[_Heading]) -> bool:
    """At least ``MIN_VERSIONS`` underlined headings name a version, and they are at least half of them (else a manual
    with a change-log part, as policy.txt)."""
    versions = sum(1 for h in headings if H.RELEASE_HEADING.search(h.text))
    return versions >= MIN_VERSIONS and versions * 2 >= len(headings)


def _headings(text: str) -> list[_Heading]:
    """Lines underlined by a run of one punctuation character at least as long as the text."""
    lines = H.line_spans(text)
    found = []
    for (start, end), (u_start, u_end) in zip(lines, lines[1:]):
        line, underline = text[start:end].strip(), text[u_start:u_end].strip()
        if line and _UNDERLINE.match(underline) and len(underline) >= len(line) - 2 and not _UNDERLINE.match(line):
            found.append(_Heading(start, u_end, line, underline[0]))
    return found


def _strip_numbering(heading: str) -> str:
    match = _NUMBERING.match(heading)
    return match.group("title").strip() if match else heading


def _section(text: str, heading: _Heading, region_end: int, title: str, seen: dict[str, int]):
    """A version section with its change entries, or a plain section (a leaf)."""
    numbering = _NUMBERING.match(heading.text)
    version = H.RELEASE_HEADING.search(heading.text)
    start, end = H.trim(text, heading.start, region_end)
    attributes = {"heading": text[heading.start:heading.end].strip()}
    if numbering:
        attributes["numbering"] = numbering.group("num")
    name = _strip_numbering(heading.text)
    if not version:
        key = H.unique_key(numbering.group("num") if numbering else name, seen)
        role = H.heading_role(name) or H.text_role(text[heading.end:end], legal=False)
        return H.Node(key, name, start, end, "section", role=role, attributes=attributes)
    release = version.group("v")
    first_line = text[heading.end:end].strip().split("\n", 1)[0]
    released = _RELEASED_IN_HEADING.search(heading.text) or _RELEASED.match(first_line)
    attributes.update(version=release, **({"released": released.group("date")} if released else {}))
    temporal = f"{title} {release}" + (f" (released {released.group('date')})" if released else "")
    node = H.Node(H.unique_key(release, seen), f"Version {release}", start, end, "version",
                  attributes=attributes, temporal=temporal)
    node.children = _entries(text, heading.end, end, temporal)
    return node


def _add_part(text: str, release, heading: _Heading, region_end: int, seen: dict[str, int]) -> None:
    """A heading underlined with a mark of a lower level than the releases' (giflib's "Code Fixes" over ``----``
    under "Version 5.1.5" over ``====``) is a ``section`` of the release above it, holding its entries."""
    start, end = H.trim(text, heading.start, region_end)
    name = _strip_numbering(heading.text)
    part = H.Node(H.unique_key(name, seen), name, start, end, "section", temporal=release.temporal,
                  attributes={"heading": text[heading.start:heading.end].strip()})
    part.children = _entries(text, heading.end, end, release.temporal)
    release.children.append(part)
    release.end = end


def _entries(text: str, start: int, end: int, temporal: str) -> list:
    """Entries: a non-indented line (section references or topic) with its indented body, or a bullet item."""
    groups: list[list[tuple[int, int]]] = []
    for line_start, line_end in H.line_spans(text, start, end):
        line = text[line_start:line_end]
        if not line.strip():
            continue
        indented = line[:1] in (" ", "\t")
        if _RELEASED.match(line) and not groups:
            continue
        continues_paragraph = groups and not indented and not _BULLET.match(line) and _plain_paragraph(text, groups[-1])
        if indented and groups or continues_paragraph:
            groups[-1].append((line_start, line_end))
        else:
            groups.append([(line_start, line_end)])
    children, seen, items = [], {}, 0
    for group in groups:
        head = text[slice(*group[0])].strip()
        g_start, g_end = H.trim(text, group[0][0], group[-1][1])
        body = text[g_start:g_end]
        role = H.text_role(body, legal=False)
        if _BULLET.match(head):
            items += 1
            key, topic, attributes = f"item {items}", f"Item {items}", {}
        else:
            refs = _SECTION_REF.findall(head) if re.fullmatch(r"[\d.,&\s]+(and)?[\d.,&\s]*", head) else []
            key = head if len(head) <= 60 else head[:57] + "..."
            topic = f"§ {head}" if refs else key
            attributes = {"policy_sections": refs} if refs else {"topic": head}
        children.append(H.Node(H.unique_key(key, seen), topic, g_start, g_end, "change", role=role,
                               attributes=attributes, temporal=f"{temporal}, {topic}"))
    return children


def _plain_paragraph(text: str, group: list[tuple[int, int]]) -> bool:
    """True while an entry is an unindented paragraph (no indented body yet): its next line continues it."""
    unindented = all(text[s:s + 1] not in (" ", "\t") for s, _ in group)
    return unindented and len(text[slice(*group[-1])]) > 50


_DEBIAN_ENTRY = re.compile(r"^(?P<package>[a-z0-9][a-z0-9+.-]+) \((?P<version>[^()\s]+)\) (?P<dists>[^;\n]+);"
                           r"[^\n]*\burgency=(?P<urgency>\w+)[^\n]*$", re.M)
_DEBIAN_TRAILER = re.compile(r"^ -- (?P<maintainer>[^\n<]*<[^\n>]*>)  (?P<date>[^\n]+?)\s*$", re.M)
_ITEM = re.compile(r"^(?P<indent>[ \t]*)[*+-][ \t]+\S")
_AUTHOR = re.compile(r"^[ \t]*\[ ?([^\]\n]+?) ?\][ \t]*$")
_SUBHEADING = re.compile(r"^\*{2,}[ \t]+(?P<title>\S[^\n]{0,78}?)(?<![.!?])[ \t]*$", re.M)
"""An outline sub-heading of a release (``** Bug fixes``): two or more stars at the start of a line that ends in no
full stop (gzip's "** 'gzip -f foo.gz' now creates a file foo.gz.gz instead of complaining." is a change);
``***`` headings stay beside ``**`` ones."""
_CAPITALS_SUBHEADING = re.compile(r"^[ \t]{0,4}(?P<title>[A-Z][A-Z &/-]{2,39}?):?[ \t]*\n(?=[ \t]*[*+-][ \t])", re.M)
"""A release's sub-heading in capitals over its first item (GMP's ``  BUGS FIXED`` over ``  * A possible
overflow ...``; also ``FEATURES``, ``SPEEDUPS``, ``MISC``), after a blank line or the release's header: an item's
wrapped last word ("denied, as on" over "  NFS") is none."""
_TO_VERSION = re.compile(r"\bfrom[ \t]+v?\d+(?:\.\d+)*[\w~+-]*[ \t]+to[ \t]+v?(\d+(?:\.\d+)+[\w~+-]*?)"
                         r"(?=[.:]?(?:[ \t(]|$))", re.I)
"""A header naming a span of releases ("Major changes from 1.2 to 1.2.1", "CHANGES FROM 3.3 TO 3.3a"): the last."""
_SENTENCE_END = re.compile(r"[^\W\d_][\"')]?[.!?](?=\s)")


def _debian_entries(text: str) -> list[re.Match[str]]:
    """The entry headers of a Debian change log or news file: it opens with one and signs one; else []. Every
    document routed is asked, so anything else is declined on its first line, not after a scan of all its text."""
    if not _DEBIAN_ENTRY.match(text, len(text) - len(text.lstrip())) or not _DEBIAN_TRAILER.search(text):
        return []
    return list(_DEBIAN_ENTRY.finditer(text))


def _debian_log(document: Document, entries: list[re.Match[str]], parser: str) -> list[ParsedUnit]:
    """One ``version`` unit per entry, named by the package and the file ("openssh Debian NEWS")."""
    text, package = document.text, entries[0].group("package")
    kind = "NEWS" if "news" in Path(document.id).name.lower() else "changelog"
    title = f"{package} Debian {kind}"
    info = H.DocumentInfo(title=title, label=title, parser=parser)
    seen: dict[str, int] = {}
    ends = [entry.start() for entry in entries[1:]] + [len(text)]
    units = []
    for entry, region_end in zip(entries, ends):
        start, end = H.trim(text, entry.start(), region_end)
        trailer = _DEBIAN_TRAILER.search(text, entry.end(), end)
        body_end = trailer.start() if trailer else end
        version = entry.group("version")
        attributes = {"heading": entry.group(0).strip(), "version": version, "distribution": entry.group("dists"),
                      "urgency": entry.group("urgency")}
        if trailer:
            attributes.update(released=trailer.group("date"), maintainer=trailer.group("maintainer").strip())
        temporal = f"{package} {version}" + (f" (released {trailer.group('date')})" if trailer else "")
        node = H.Node(H.unique_key(version, seen), f"Version {version}", start, end, "version",
                      attributes=attributes, temporal=temporal)
        node.children = _debian_changes(text, entry.end(), body_end, temporal)
        units.append(H.to_parsed(document, info, node))
    return units


def _debian_changes(text: str, start: int, end: int, temporal: str) -> list:
    """A ``change`` per ``*`` item with the lines and paragraphs indented under it (sub-items included), and per
    other paragraph."""
    groups: list[list] = []  # [start, end, the item's text column (None: a paragraph), its author]
    blank, author = True, None
    for line_start, line_end in H.line_spans(text, start, end):
        line = text[line_start:line_end]
        if not line.strip():
            blank = True
            continue
        indent = len(line) - len(line.lstrip())
        item = _ITEM.match(line)
        current = groups[-1] if groups else None
        inside = current is not None and current[2] is not None and indent >= current[2]
        if not inside and (credit := _AUTHOR.match(line)):  # "[ Michael Biebl ]": the items below are theirs
            author, blank = credit.group(1), True
            continue
        if inside or (current is not None and current[2] is None and not blank and not item):
            current[1] = line_end
        else:
            groups.append([line_start + indent, line_end, len(item.group(0)) - 1 if item else None, author])
        blank = False
    children, seen, items = [], {}, 0
    for g_start, g_end, column, by in groups:
        body = text[g_start:g_end]
        words = " ".join((_BULLET.sub("", body, count=1) if column is not None else body).split())
        sentence = next((m for m in _SENTENCE_END.finditer(words) if not H.abbreviation_at(words, m.end())), None)
        topic = words[:sentence.end()] if sentence else words
        topic = H.shortened(topic)
        if column is not None:
            items += 1
            key = f"item {items}"
        else:
            key = f"Note {len(children) - items + 1}"
            topic = topic if re.search(r"[^\W_]", topic) else key  # a rule (``====``) says nothing
        children.append(H.Node(H.unique_key(key, seen), topic, g_start, g_end, "change",
                               role=H.text_role(body, legal=False), temporal=temporal,
                               attributes={"author": by} if by else {}))
    return children


def _release_notes(document: Document, headers: list[re.Match[str]], parser: str) -> list[ParsedUnit]:
    """A title or introduction before the first header, then one ``version`` unit per release header."""
    text = document.text
    front = text[:headers[0].start()]
    title = _news_title(document, front)
    info = H.DocumentInfo(title=title, label=title, parser=parser)
    seen: dict[str, int] = {}
    units = []
    if front.strip():
        start, end = H.trim(text, 0, len(front))
        units.append(H.to_parsed(document, info, H.Node("front matter", "Front matter", start, end, "front_matter",
                                                        role="notice")))
    ends = [header.start() for header in headers[1:]] + [len(text)]
    for header, region_end in zip(headers, ends):
        start, end = H.trim(text, header.start(), region_end)
        heading = header.group(0).strip()
        to = _TO_VERSION.search(heading)  # "Major changes from 1.2 to 1.2.1" is release 1.2.1
        version = to.group(1) if to else header.group("version")
        topic = heading.lstrip("* ").rstrip(":.")
        temporal = f"{title}, {topic}"
        node = H.Node(H.unique_key(version, seen), topic, start, end, "version",
                      attributes={"heading": heading, "version": version}, temporal=temporal)
        node.children = _grouped_changes(text, header.end(), end, temporal)
        units.append(H.to_parsed(document, info, node))
    return units


def _grouped_changes(text: str, start: int, end: int, temporal: str) -> list:
    """A release's changes, under its sub-headings when it has them (``** Bug fixes``, ``** New features`` in GNU
    NEWS files, ``BUGS FIXED`` in GMP's): one ``section`` per sub-heading holding the changes below it."""
    capitals = [match for match in _CAPITALS_SUBHEADING.finditer(text, start, end)
                if not text[start:match.start()].strip() or re.search(r"\n[ \t]*\n$", text[start:match.start()])]
    headings = sorted([*_SUBHEADING.finditer(text, start, end), *capitals], key=lambda heading: heading.start())
    if not headings:
        return _debian_changes(text, start, end, temporal)
    children = _debian_changes(text, start, headings[0].start(), temporal)
    seen: dict[str, int] = {}
    for heading, region_end in zip(headings, [h.start() for h in headings[1:]] + [end]):
        g_start, g_end = H.trim(text, heading.start(), region_end)
        name = heading.group("title").strip().rstrip(":")
        group = H.Node(H.unique_key(name, seen), name, g_start, g_end, "section", temporal=temporal)
        group.children = _debian_changes(text, heading.end(), g_end, temporal)
        children.append(group)
    return children


def _news_title(document: Document, front: str) -> str:
    """The first line before the releases when it is short and names no release ("GNU grep NEWS"), else the file's
    name ("patch NEWS")."""
    line = next((ln.strip() for ln in front.splitlines() if ln.strip()), "")
    line = re.sub(r"\s*-\*-.*?-\*-.*$", "", line).strip()  # an Emacs mode line: "-*- outline -*-"
    if line and len(line) <= 60 and not line.endswith((".", ",")) and not re.search(r"\d\.\d", line):
        return line
    stem = H.file_title(document.id)
    return stem if re.search(r"news|change", stem, re.I) else f"{stem} NEWS"
