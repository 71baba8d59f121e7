"""Example parsers from right-rag's README: Thai organic acts (มาตรา), Thai orders (ข้อ), English acts (Section N).

They show the pattern on a small scale and are tested on fixtures in ``tests/spec/fixtures/``. Acceptance is
narrow on purpose: an organic act needs its title word (พระราชบัญญัติประกอบรัฐธรรมนูญ) near the top and
มาตรา lines; an order needs คำสั่ง near the top, ข้อ lines and no organic-act title; an English act needs a title
line naming an Act with a year and at least two ``Section N`` lines. Trees: preamble, chapters (หมวด / Part /
Chapter, and บทเฉพาะกาล transitory provisions), sections, and their numbered clauses or definitions.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Iterable
from typing import ClassVar

from right_rag_dagster.core.interfaces import UnitParser
from right_rag_dagster.core.model import Document, ParsedUnit
from right_rag_dagster.core.registry import load_helper
from right_rag_dagster.errors import DocumentRejected

H = load_helper(__file__, "_shared.py")

_THAI_DIGITS = str.maketrans("๐๑๒๓๔๕๖๗๘๙", "0123456789")
_NUM = r"[0-9๐-๙]+(?:/[0-9๐-๙]+)?"
_THAI_ROLES = [("หมายความว่า", "definition"), ("ต้องระวางโทษ", "penalty"), ("ห้าม", "prohibition"),
               ("ใช้บังคับ", "commencement"), ("ต้อง", "duty"), ("ให้", "duty"), ("อาจ", "permission")]
_ENGLISH_ROLES = [(re.compile(r"\bmeans\b"), "definition"),
                  (re.compile(r"commits an offence|liable\b.*\b(fine|imprisonment)", re.S), "penalty"),
                  (re.compile(r"comes? into force"), "commencement")]


class _SectionedLawParser(UnitParser):
    """Shared shape of the example parsers: preamble, chapters, sections, clauses (abstract: not registered)."""

    chapter_pattern: ClassVar[re.Pattern[str]]
    section_pattern: ClassVar[re.Pattern[str]]
    clause_pattern: ClassVar[re.Pattern[str]]
    words: ClassVar[tuple[str, str, str]]  # topic words for chapter, section, clause
    marker: ClassVar[str]

    @abstractmethod
    def role(self, text: str) -> str | None:
        """The role the text shows (definition, penalty, duty, ...)."""

    def parse_document(self, document: Document) -> Iterable[ParsedUnit]:
        text = document.text
        sections = list(self.section_pattern.finditer(text))
        if not sections:
            raise DocumentRejected(document.id, f"no {self.marker} markers at the start of a line")
        chapters = list(self.chapter_pattern.finditer(text))
        title = " ".join(text[: min([sections[0].start()] + [c.start() for c in chapters])].split()[:12])
        info = H.DocumentInfo(title=title or document.id, label=title, parser=self.parser_name)
        marks = sorted([(m.start(), "chapter", m) for m in chapters] + [(m.start(), "section", m) for m in sections])
        nodes, chapter, seen, keys = [], None, {}, {}
        start, end = H.trim(text, 0, marks[0][0])
        if end > start:
            nodes.append(H.Node("preamble", "Preamble", start, end, "preamble", role="preamble"))
        for (position, kind, match), nxt in zip(marks, [m[0] for m in marks[1:]] + [len(text)]):
            start, end = H.trim(text, position, nxt)
            number = (match.group("num") or "").strip()
            if kind == "chapter":
                topic = f"{self.words[0]} {number}".strip() if number else match.group(0).strip()
                chapter = H.Node(H.unique_key(topic, seen), topic, start, end, "chapter",
                                 role=self.role(match.group(0)), attributes=_numbering(number))
                nodes.append(chapter)
                continue
            section = self._section(text, number, start, end)
            section.key = H.unique_key(section.key, keys.setdefault(id(chapter), seen if chapter is None else {}))
            (chapter.children if chapter else nodes).append(section)
            if chapter:
                chapter.end = section.end
        return [H.to_parsed(document, info, node) for node in nodes]

    def _section(self, text: str, number: str, start: int, end: int):
        topic = f"{self.words[1]} {number}"
        node = H.Node(number, topic, start, end, "section", role=self.role(text[start:end]),
                      attributes=_numbering(number))
        clauses = list(self.clause_pattern.finditer(text, start, end))
        seen: dict[str, int] = {}
        for clause, nxt in zip(clauses, [c.start() for c in clauses[1:]] + [end]):
            c_start, c_end = H.trim(text, clause.start(), nxt)
            term = clause.groupdict().get("term")
            label = term or (clause.group("num") or "").strip()
            kind = "definition" if term else "clause"
            child_topic = f'{topic} "{term}"' if term else f"{topic}({label})"
            attributes = {"defined_term": term} if term else _numbering(label)
            node.children.append(H.Node(H.unique_key(label, seen), child_topic, c_start, c_end, kind,
                                        role="definition" if term else self.role(text[c_start:c_end]),
                                        attributes=attributes))
        if node.children:
            node.role = "definition" if any(c.unit_type == "definition" for c in node.children) else node.role
        return node


def _numbering(number: str) -> dict:
    return {"numbering": number, "numbering_arabic": number.translate(_THAI_DIGITS)} if number else {}


def _thai_role(text: str) -> str | None:
    return next((role for word, role in _THAI_ROLES if word in text), None)


class ThaiOrganicActParser(_SectionedLawParser):
    """Thai organic acts: หมวด (chapters) and บทเฉพาะกาล, มาตรา (sections), (๑) clauses and definitions."""

    chapter_pattern = re.compile(rf"^[ \t]*(?:หมวด[ \t]+(?P<num>{_NUM})\b.*|บทเฉพาะกาล)[ \t]*$", re.M)
    section_pattern = re.compile(rf"^[ \t]*มาตรา[ \t]+(?P<num>{_NUM})", re.M)
    clause_pattern = re.compile(rf"^[ \t]*(?:\((?P<num>{_NUM})\)|[\"“](?P<term>[^\"”\n]+)[\"”][ \t]*หมายความว่า)", re.M)
    words = ("หมวด", "มาตรา", "อนุมาตรา")
    marker = "มาตรา"

    @property
    def parser_name(self) -> str:
        return "thai-organic-act"

    def parser_can_handle_document(self, document: Document) -> bool:
        head = document.text[:4000]
        return "พระราชบัญญัติประกอบรัฐธรรมนูญ" in head and self.section_pattern.search(document.text) is not None

    def role(self, text: str) -> str | None:
        return "transitory_provision" if text.strip().startswith("บทเฉพาะกาล") else _thai_role(text)


class ThaiOrderParser(_SectionedLawParser):
    """Thai orders (คำสั่ง): ข้อ clauses with (๑) items; never an organic act."""

    chapter_pattern = re.compile(rf"^[ \t]*หมวด[ \t]+(?P<num>{_NUM})\b.*$", re.M)
    section_pattern = re.compile(rf"^[ \t]*ข้อ[ \t]+(?P<num>{_NUM})", re.M)
    clause_pattern = re.compile(rf"^[ \t]*\((?P<num>{_NUM})\)", re.M)
    words = ("หมวด", "ข้อ", "อนุข้อ")
    marker = "ข้อ"

    @property
    def parser_name(self) -> str:
        return "thai-order"

    def parser_can_handle_document(self, document: Document) -> bool:
        head = document.text[:4000]
        return ("คำสั่ง" in head and "พระราชบัญญัติประกอบรัฐธรรมนูญ" not in head
                and self.section_pattern.search(document.text) is not None)

    def role(self, text: str) -> str | None:
        return _thai_role(text)


class EnglishActParser(_SectionedLawParser):
    """English-language acts: Part/Chapter headings, 'Section N' sections, (1) subsections and definitions."""

    chapter_pattern = re.compile(r"^[ \t]*(?:Part|PART|Chapter|CHAPTER)[ \t]+(?P<num>[0-9IVXLC]+)\b.*$", re.M)
    section_pattern = re.compile(r"^[ \t]*Section[ \t]+(?P<num>\d+[A-Z]?)\b", re.M)
    clause_pattern = re.compile(r"^[ \t]*(?:\((?P<num>\d+|[a-z])\)|[\"“](?P<term>[^\"”\n]+)[\"”][ \t]+means\b)", re.M)
    words = ("Part", "Section", "Subsection")
    marker = "'Section N'"

    @property
    def parser_name(self) -> str:
        return "english-act"

    def parser_can_handle_document(self, document: Document) -> bool:
        lines = [line.strip() for line in document.text[:2000].splitlines() if line.strip()][:5]
        titled = any(re.search(r"\bAct\b.*\b(1[6-9]\d\d|20\d\d)\b", line) for line in lines)
        return titled and len(self.section_pattern.findall(document.text)) >= 2

    def role(self, text: str) -> str | None:
        found = next((role for pattern, role in _ENGLISH_ROLES if pattern.search(text)), None)
        return found or H.text_role(text, legal=True)
