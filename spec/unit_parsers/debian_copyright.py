"""Debian copyright files (``debian/copyright``, ``/usr/share/doc/<package>/copyright``).

Accepts documents named ``copyright`` / ``*.copyright`` and any document whose first stanza has a ``Format:``
field naming the machine-readable format (copyright-format 1.0 / DEP-5). Machine-readable files (and files
written in stanzas without the ``Format:`` line) become one unit per stanza (``header_stanza``,
``files_stanza``, ``license_stanza``) with their fields as attributes: file patterns, copyright holders,
licence short names. Free-form files become what their prose shows: the packaging note ("This package was
debianized by ..."), then one ``copyright_notice`` per copyright statement with the licence text that follows it,
and ``labelled_section``s (``Upstream Author:``, ``License:``), each split into its paragraphs.
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

MAX_FILE_PATTERNS = 100
"""File patterns of a Files stanza kept as an attribute (all of them stay in the unit's text)."""

H = load_helper(__file__, "_shared.py")

_FORMAT_SPEC = re.compile(r"copyright-format|dep-?5", re.I)
_FIELD = re.compile(r"^(?P<name>[!-9;-~]+):[ \t]*(?P<value>.*)$")
_SEPARATOR = re.compile(r"\n(?:[ \t]*\n)+")
_LICENSE_SPLIT = re.compile(r"\s*(?:\bor\b|\band\b|,)\s*", re.I)
_STATEMENT = re.compile(r"^[ \t]*(?:Copyright\b|\(C\)|©)", re.I)
_LABEL = re.compile(r"^(?P<label>[A-Z][\w ()/',-]{1,50}):[ \t]*$")
_RULE = re.compile(r"^[ \t]*[-=*_#]{5,}[ \t]*$")
_PATH = r"[\w.*?{}\[\]+-]*(?:/|\*|\.\w{1,4}\b)[\w./*?{}\[\]+-]*"
_FILES_LABEL = re.compile(rf"^(?P<label>{_PATH}(?:,?[ \t]+{_PATH})*):[ \t]*$")
"""A line naming files before their notice in a free-form file (``cairo/*.c:``, ``examples/gtk/hangman.py:``)."""
_COMMON_LICENSES = re.compile(r"/usr/share/common-licenses/(?P<name>[\w.+-]*\w)")
_NAMED_LICENCES = [(re.compile(p, re.I), name) for p, name in [
    (r"GNU (?:Lesser|Library) General Public License", "LGPL"), (r"GNU General Public License", "GPL"),
    (r"GNU Free Documentation License", "GFDL"), (r"Apache License", "Apache"), (r"Artistic License", "Artistic"),
    (r"Mozilla Public License", "MPL"), (r"Permission is hereby granted, free of charge", "Expat"),
    (r"Redistribution and use in source and binary forms", "BSD"), (r"public domain", "public-domain")]]


@dataclass(frozen=True)
class _Stanza:
    """One stanza: its span, fields (name -> raw value with continuation lines) and unparsable lines."""

    start: int
    end: int
    fields: dict[str, str]
    bad_lines: int


class DebianCopyrightParser(UnitParser):
    """Machine-readable Debian copyright files, one unit per stanza; free-form ones are rejected with a reason."""

    @property
    def parser_name(self) -> str:
        return "debian-copyright"

    def parser_can_handle_document(self, document: Document) -> bool:
        if document.page_starts:
            return False
        name = Path(document.id).name.lower()
        return name == "copyright" or name.endswith(".copyright") or _format_field(document.text) is not None

    def parse_document(self, document: Document) -> Iterable[ParsedUnit]:
        text = document.text
        stanzas = _stanzas(text)
        format_value = _format_field(text)
        if format_value is None and not _in_stanzas(stanzas):
            return _free_form(document, self.parser_name)
        bad = sum(s.bad_lines for s in stanzas if any(k.lower() == "format" for k in s.fields) or s.fields)
        if bad > max(3, sum(len(text[s.start:s.end].splitlines()) for s in stanzas) // 10):
            raise DocumentRejected(document.id, f"{bad} lines are neither 'Field: value' nor continuation lines; "
                                                "the file claims the machine-readable format but does not follow it")
        header = next((i for i, s in enumerate(stanzas) if any(k.lower() == "format" for k in s.fields)), 0)
        upstream = " ".join(stanzas[header].fields.get("Upstream-Name", "").split()) or Path(document.id).stem
        info = H.DocumentInfo(title=f"Debian copyright file of {upstream}", label=f"{upstream} copyright",
                              parser=self.parser_name)
        seen: dict[str, int] = {}
        nodes = [_node(text, stanza, index == header, seen) for index, stanza in enumerate(stanzas) if index >= header]
        if header:
            start, end = stanzas[0].start, stanzas[header - 1].end
            nodes.insert(0, H.Node("free text", "Free-form text before the header stanza", start, end, "free_text",
                                   attributes={"conforming": False}))
        return [H.to_parsed(document, info, node) for node in nodes]


def _format_field(text: str) -> str | None:
    """The Format value of the header stanza (the first stanza, or one of the first three after prose), else None."""
    body = re.sub(r"\A(?:[ \t]*\n|#.*\n)*", "", text[:8000])
    for stanza in _SEPARATOR.split(body, 3)[:3]:
        for line in stanza.splitlines():
            match = _FIELD.match(line)
            if match and match.group("name").lower() == "format" and _FORMAT_SPEC.search(match.group("value")):
                return match.group("value").strip()
    return None


def _stanzas(text: str) -> list[_Stanza]:
    stanzas = []
    for start, end in H.paragraphs(text, 0, len(text), _SEPARATOR):
        fields: dict[str, str] = {}
        current, bad = None, 0
        for line in text[start:end].split("\n"):
            match = _FIELD.match(line)
            if line.startswith("#"):
                continue
            if match and not line[:1].isspace():
                current = match.group("name")
                fields[current] = fields.get(current, "") + match.group("value")
            elif line[:1] in (" ", "\t") and current:
                fields[current] += "\n" + line.strip()
            else:
                bad += 1
        stanzas.append(_Stanza(start, end, fields, bad))
    return stanzas


def _lines(value: str) -> list[str]:
    return [line.strip() for line in value.split("\n") if line.strip() and line.strip() != "."]


def _node(text: str, stanza: _Stanza, first: bool, seen: dict[str, int]):
    fields = {name.lower(): value for name, value in stanza.fields.items()}
    synopsis = fields.get("license", "").split("\n", 1)[0].strip()
    attributes: dict = {"fields": list(stanza.fields)}
    if synopsis:
        attributes.update(license=synopsis, license_names=[n for n in _LICENSE_SPLIT.split(synopsis) if n])
    if "copyright" in fields:
        attributes["copyright_holders"] = _lines(fields["copyright"])
    if stanza.bad_lines:
        attributes["unparsed_lines"] = stanza.bad_lines
    if first and "files" not in fields and {"format", "upstream-name", "source"} & set(fields):
        attributes.update(format=fields.get("format", "").strip(), conforming="format" in fields,
                          upstream_name=fields.get("upstream-name", "").strip(),
                          upstream_contact=_lines(fields.get("upstream-contact", "")),
                          source=" ".join(fields.get("source", "").split()))
        return H.Node("header", "Header stanza", stanza.start, stanza.end, "header_stanza", role="notice",
                      attributes=attributes)
    if "files" in fields:
        patterns = fields["files"].split()
        # The patterns are in the stanza's text too; a stanza listing thousands (Boost's) keeps the first ones.
        attributes["files"] = patterns[:MAX_FILE_PATTERNS]
        if len(patterns) > MAX_FILE_PATTERNS:
            attributes["files_count"] = len(patterns)
        topic = "Files: " + " ".join(patterns)
        topic = topic if len(topic) <= 80 else topic[:77] + "..."
        return H.Node(H.unique_key(topic, seen), topic, stanza.start, stanza.end, "files_stanza", role="notice",
                      attributes=attributes, temporal=_files_meaning(patterns))
    if synopsis:
        topic = f"License: {synopsis}"[:80]
        return H.Node(H.unique_key(topic, seen), topic, stanza.start, stanza.end, "license_stanza",
                      role="licence_terms", attributes=attributes)
    topic = "Stanza: " + (", ".join(stanza.fields) or "no fields")[:60]
    return H.Node(H.unique_key(topic, seen), topic, stanza.start, stanza.end, "stanza", attributes=attributes)


def _files_meaning(patterns: list[str]) -> str:
    """What the format says a ``Files`` stanza covers, in a user's words, for the two every file has: ``*`` is the
    upstream work as a whole, ``debian/*`` the Debian packaging. A question asks "who packaged it for Debian",
    not for ``debian/*`` (empty for other stanzas: their patterns name what they cover)."""
    if patterns == ["*"]:
        return "the upstream work as a whole: its authors' copyright and licence"
    if patterns and all(p == "debian" or p.startswith("debian/") for p in patterns):
        return "the Debian packaging: who packaged it for Debian, the package maintainers' copyright"
    return ""


def _in_stanzas(stanzas: list[_Stanza]) -> bool:
    """A file written in the format's stanzas without its ``Format:`` line: Files stanzas and few other lines."""
    files = sum(1 for s in stanzas if "Files" in s.fields)
    lines = sum(s.bad_lines for s in stanzas)
    return files >= 1 and lines <= max(2, sum(len(s.fields) for s in stanzas) // 10)


def _free_form(document: Document, parser: str) -> list[ParsedUnit]:
    """Prose copyright files: a packaging note, then copyright notices and labelled sections, each by paragraph."""
    text = document.text
    package = Path(document.id).name.removesuffix(".copyright")
    info = H.DocumentInfo(title=f"Debian copyright file of {package}", label=f"{package} copyright", parser=parser)
    groups: list[list[tuple[int, int]]] = []
    in_files = False  # inside a files_section, its copyright statements are part of it
    for block in _blocks(text):
        first_line = text[block[0]:text.find("\n", block[0]) if "\n" in text[block[0]:block[1]] else block[1]]
        files = _files_label(first_line)
        statement = _STATEMENT.match(first_line) and not in_files
        starts = files or statement or _LABEL.match(first_line.strip()) or _RULE.match(first_line)
        after_label = groups and len(groups[-1]) == 1 and _LABEL.match(text[slice(*groups[-1][0])])  # 'Copyright:'
        if (starts and (files or not after_label)) or not groups:
            groups.append([block])
            in_files = bool(files)
        else:
            groups[-1].append(block)
    seen: dict[str, int] = {}
    nodes = [_group_node(text, group, index, seen) for index, group in enumerate(groups)]
    return [H.to_parsed(document, info, node) for node in nodes]


def _files_label(line: str) -> re.Match[str] | None:
    """``line`` names files (``src/*.c:``); a capitalised label that merely has a slash ("Copyright/License:") does not."""
    line = line.strip()
    return None if _LABEL.match(line) else _FILES_LABEL.match(line)


def _blocks(text: str) -> list[tuple[int, int]]:
    """Blank-line separated blocks, each also cut before a line naming files (which opens a section of its own)."""
    blocks = []
    for start, end in H.paragraphs(text, 0, len(text)):
        cut, position = start, start
        for line in text[start:end].split("\n"):
            if position > cut and _files_label(line):
                blocks.append(H.trim(text, cut, position))
                cut = position
            position += len(line) + 1
        blocks.append(H.trim(text, cut, end))
    return blocks


def _group_node(text: str, group: list[tuple[int, int]], index: int, seen: dict[str, int]):
    start, end = group[0][0], group[-1][1]
    body = text[start:end]
    first_line = body.split("\n", 1)[0].strip()
    label = _LABEL.match(first_line)
    holders = [" ".join(line.split()) for line in body.split("\n")
               if _STATEMENT.match(line) and not _LABEL.match(line.strip())]
    attributes: dict = {"conforming": False}
    names = _licence_names(body)
    if names:
        attributes["license_names"] = names
    if holders:
        attributes["copyright_holders"] = holders[:50]
    files = _files_label(first_line)
    if files:
        unit_type, topic = "files_section", files.group("label")
        attributes["files"] = files.group("label").replace(",", " ").split()[:MAX_FILE_PATTERNS]
    elif label:
        unit_type, topic = "labelled_section", label.group("label")
    elif index == 0 and not _STATEMENT.match(first_line):
        unit_type, topic = "packaging_note", "Packaging note"
    elif _STATEMENT.match(first_line):
        unit_type, topic = "copyright_notice", " ".join(first_line.split())[:80]
    else:
        unit_type, topic = "free_text", first_line[:60] or "Text"
    node = H.Node(H.unique_key(topic, seen), topic, start, end, unit_type,
                  role="notice" if unit_type != "labelled_section" else H.heading_role(topic) or "notice",
                  attributes=attributes)
    if len(group) > 1:
        node.children = [_paragraph_node(text, block, ordinal) for ordinal, block in enumerate(group, start=1)]
    return node


def _paragraph_node(text: str, block: tuple[int, int], ordinal: int):
    body = text[block[0]:block[1]]
    statements = all(_STATEMENT.match(line) or not line.strip() for line in body.split("\n"))
    unit_type = "copyright_statement" if statements else "license_text" if _licence_names(body) else "paragraph"
    role = "notice" if statements else H.text_role(body, legal=True)
    return H.Node(f"¶{ordinal}", f"¶{ordinal}", block[0], block[1], unit_type, role=role)


def _licence_names(body: str) -> list[str]:
    """Licences a prose notice names: ``/usr/share/common-licenses/GPL-2`` references, then well-known phrases."""
    names = [m.group("name") for m in _COMMON_LICENSES.finditer(body)]
    names += [name for pattern, name in _NAMED_LICENCES if pattern.search(body)]
    return list(dict.fromkeys(names))
