"""Debian copyright files (``debian/copyright``, ``/usr/share/doc/<package>/copyright``).

Accepts documents named ``copyright`` / ``*.copyright`` and any document whose first stanza has a ``Format:``
field naming the machine-readable format (copyright-format 1.0 / DEP-5). Machine-readable files become one unit
per stanza (``header_stanza``, ``files_stanza``, ``license_stanza``) with their fields as attributes: file
patterns, copyright holders, licence short names. Free-form copyright files are rejected with the reason: their
structure is prose, and guessing stanzas from it would invent structure.
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

_FORMAT_SPEC = re.compile(r"copyright-format|dep-?5", re.I)
_FIELD = re.compile(r"^(?P<name>[!-9;-~]+):[ \t]*(?P<value>.*)$")
_SEPARATOR = re.compile(r"\n(?:[ \t]*\n)+")
_LICENSE_SPLIT = re.compile(r"\s*(?:\bor\b|\band\b|,)\s*", re.I)


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
        format_value = _format_field(text)
        if format_value is None:
            opening = " ".join(text.strip().split("\n", 1)[0].split())[:60]
            reason = ("free-form copyright file: no 'Format:' field naming copyright-format 1.0 in its first "
                      f"stanzas (it starts with {opening!r})")
            raise DocumentRejected(document.id, reason)
        stanzas = _stanzas(text)
        bad = sum(s.bad_lines for s in stanzas if any(k.lower() == "format" for k in s.fields) or s.fields)
        if bad > max(3, sum(len(text[s.start:s.end].splitlines()) for s in stanzas) // 10):
            raise DocumentRejected(document.id, f"{bad} lines are neither 'Field: value' nor continuation lines; "
                                                "the file claims the machine-readable format but does not follow it")
        header = next(i for i, s in enumerate(stanzas) if any(k.lower() == "format" for k in s.fields))
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
    if first and "format" in fields:
        attributes.update(format=fields["format"].strip(), upstream_name=fields.get("upstream-name", "").strip(),
                          upstream_contact=_lines(fields.get("upstream-contact", "")),
                          source=" ".join(fields.get("source", "").split()))
        return H.Node("header", "Header stanza", stanza.start, stanza.end, "header_stanza", role="notice",
                      attributes=attributes)
    if "files" in fields:
        patterns = fields["files"].split()
        attributes["files"] = patterns
        topic = "Files: " + " ".join(patterns)
        topic = topic if len(topic) <= 80 else topic[:77] + "..."
        return H.Node(H.unique_key(topic, seen), topic, stanza.start, stanza.end, "files_stanza", role="notice",
                      attributes=attributes)
    if synopsis:
        topic = f"License: {synopsis}"[:80]
        return H.Node(H.unique_key(topic, seen), topic, stanza.start, stanza.end, "license_stanza",
                      role="licence_terms", attributes=attributes)
    topic = "Stanza: " + (", ".join(stanza.fields) or "no fields")[:60]
    return H.Node(H.unique_key(topic, seen), topic, stanza.start, stanza.end, "stanza", attributes=attributes)
