"""Spec plugins the reliability tests write into their projects: well-behaved ones, and faulty ones that
misbehave the way users' first plugins do (claim everything, raise, hang, eat memory, return bad chunks)."""

from __future__ import annotations

STANZAS = '''\
import os
import re
import time
from pathlib import Path

from right_rag_dagster.interfaces import UnitParser
from right_rag_dagster.model import ParsedUnit

BLOCK = re.compile(r"\\S(?:.*\\S)?(?:\\n[ \\t]*\\S.*)*")


class Stanzas(UnitParser):
    """One unit per blank-line-separated block. On a document whose name starts with "block", while the folder
    named by RELIABILITY_FLAGS holds a file BLOCK, it writes PARSING-<name> there and waits (a test's handle on
    "a worker is parsing now")."""

    @property
    def parser_name(self):
        return "stanzas"

    def parser_can_handle_document(self, document):
        return bool(document.text.strip())

    def parse_document(self, document):
        flags = os.environ.get("RELIABILITY_FLAGS")
        name = Path(document.id).name
        if flags and name.startswith("block"):
            Path(flags, "PARSING-" + name).touch()
            while Path(flags, "BLOCK").exists():
                time.sleep(0.05)
        for number, match in enumerate(BLOCK.finditer(document.text), 1):
            first = match.group(0).splitlines()[0].strip()
            yield ParsedUnit(topic=f"{number}. {first[:80]}", fulltext=match.group(0),
                             source_start=match.start(), source_end=match.end(),
                             attributes={"unit_type": "stanza"})
'''

GREEDY = '''\
from right_rag_dagster.interfaces import UnitParser
from right_rag_dagster.model import ParsedUnit


class Greedy(UnitParser):
    """A new user's first parser: it says yes to every document."""

    @property
    def parser_name(self):
        return "greedy"

    def parser_can_handle_document(self, document):
        return True

    def parse_document(self, document):
        yield ParsedUnit(topic="All", fulltext=document.text, source_start=0, source_end=len(document.text))
'''

RAISING = GREEDY.replace("return True", 'raise RuntimeError("cannot decide: " + document.id)').replace(
    "Greedy", "Raising").replace('"greedy"', '"raising"').replace("it says yes to every document",
                                                                  "it raises on every document")

RUNAWAY = '''\
import os
import time
from pathlib import Path

from right_rag_dagster.interfaces import UnitParser
from right_rag_dagster.model import ParsedUnit


class Runaway(UnitParser):
    """Owns the documents named "hang*" (never returns) and "hog*" (allocates memory until stopped, at most
    3 GB, then sleeps). It writes PARSING-<name> into RELIABILITY_FLAGS first."""

    @property
    def parser_name(self):
        return "runaway"

    def parser_can_handle_document(self, document):
        return Path(document.id).name.startswith(("hang", "hog"))

    def parse_document(self, document):
        name = Path(document.id).name
        flags = os.environ.get("RELIABILITY_FLAGS")
        if flags:
            Path(flags, "PARSING-" + name).touch()
        hoard = []
        while True:
            if name.startswith("hog") and len(hoard) < 150:
                hoard.append(bytearray(20 * 2**20))  # zero-filled: resident at once
                time.sleep(0.02)
            else:
                time.sleep(0.2)
        yield ParsedUnit(topic="never", fulltext="", source_start=0, source_end=0)
'''

NUMBERED = '''\
import re

from right_rag_dagster.interfaces import UnitParser
from right_rag_dagster.model import ParsedUnit

OVERLAP = False  # the faulty version returns overlapping sibling units for documents named "overlap*"


class Numbered(UnitParser):
    """One unit per numbered section ("1. Title")."""

    @property
    def parser_name(self):
        return "numbered"

    def parser_can_handle_document(self, document):
        return bool(re.search(r"(?m)^\\d+\\. ", document.text))

    def parse_document(self, document):
        starts = list(re.finditer(r"(?m)^(\\d+)\\. (.*)$", document.text))
        for i, match in enumerate(starts):
            end = starts[i + 1].start() if i + 1 < len(starts) else len(document.text)
            if OVERLAP and document.id.startswith("overlap") and i + 1 < len(starts):
                end = min(len(document.text), starts[i + 1].start() + 5)
            yield ParsedUnit(topic=f"{match.group(1)}. {match.group(2)}", fulltext=document.text[match.start():end],
                             source_start=match.start(), source_end=end, attributes={"unit_type": "section"})
'''

LINES = '''\
from right_rag_dagster.core.ids import chunk_id_for
from right_rag_dagster.interfaces import ChunkParser
from right_rag_dagster.model import Chunk

FAULTY = False  # the faulty version returns, for each document named after a fault, a chunk with that fault


class Lines(ChunkParser):
    """One chunk per unit (its whole text, with its span)."""

    @property
    def parser_name(self):
        return "lines"

    def parse_unit(self, unit):
        chunk = dict(id=chunk_id_for(unit.id, "lines", 1), document_id=unit.document_id, unit_id=unit.id,
                     topic=unit.topic, fulltext=unit.fulltext, source_start=unit.source_start,
                     source_end=unit.source_end)
        fault = unit.document_id.split("-")[0] if FAULTY else ""
        if fault == "empty":
            chunk["fulltext"] = "   "
        elif fault == "unit":
            chunk["unit_id"] = "not-a-unit"
        elif fault == "span":
            chunk["source_start"], chunk["source_end"] = -10, 10**9
        elif fault == "pages":
            chunk["page_start"], chunk["page_end"] = -3, 99999
        yield Chunk(**chunk)
        if fault == "duplicate":
            yield Chunk(**chunk)
'''

HELD_SAVER = '''\
import os
import time
from pathlib import Path

from right_rag_dagster.interfaces import ChunkSaver


class Held(ChunkSaver):
    """Saves nothing; while the folder named by RELIABILITY_FLAGS holds a file BLOCK, it writes SAVING-<name>
    there and waits (a test's handle on "the savers run now", after the document's write)."""

    @property
    def saver_name(self):
        return "held"

    def save_chunks(self, document_id, chunker, chunks, output_dir):
        flags = os.environ.get("RELIABILITY_FLAGS")
        if flags:
            Path(flags, "SAVING-" + Path(document_id).name).touch()
            while Path(flags, "BLOCK").exists():
                time.sleep(0.05)
'''
