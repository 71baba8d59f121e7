"""One document's work, as a plain function from a ``DocumentJob`` to a ``DocumentOutcome``.

This is what runs in the worker processes (``pipeline.workers``): load (unless the stored text is current),
route, parse (unless the owner's units are current), chunk with every chunker whose input or version changed,
validate what the plugins returned, and measure coverage. It reads no store and writes nothing, so a worker can
be stopped at any moment without harm; the main process applies the outcome in one short transaction.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from ..core.coverage import Coverage
from ..core.hashing import stable_hash
from ..core.model import Chunk, Document, Unit
from ..core.routing import FAILED, Rejection, route_document
from ..core.steps import COVERAGE, COVERAGE_VERSION, RAW_TEXT, UNITS
from ..core.units import unit_paths, units_fingerprint, walk_units
from ..errors import ParserOutputError
from .plugins import PluginSet, Selected
from .scan import DocumentFile
from .steps import (
    chunk_units,
    document_coverage,
    load_document,
    parse_with,
    units_by_type,
)
from .validate import check_chunks, check_units

"""The coverage step's code version (it has no plugin): change it with how coverage is measured."""

State = tuple[str, "str | None", "str | None"]
"""A step's stored state: (cache key, data version, owner)."""


def chunks_step(chunker: str) -> str:
    return f"chunks:{chunker}"


def raw_key(file: DocumentFile, plugins: PluginSet) -> str:
    return stable_hash([RAW_TEXT, file.content_hash, [(s.name, s.version) for s in plugins.loaders]])[:16]


def units_key(raw_version: str, owner: Selected) -> str:
    return stable_hash([UNITS, raw_version, owner.name, owner.version])[:16]


def chunks_key(units_version: str, chunker: Selected) -> str:
    return stable_hash([chunks_step(chunker.name), units_version, chunker.version])[:16]


def coverage_key(units_version: str, text_length: int) -> str:
    return stable_hash([COVERAGE, COVERAGE_VERSION, units_version, text_length])[:16]


@dataclass(frozen=True)
class DocumentJob:
    """What a worker needs for one document: the file, its stored step states, and the stored text and units
    when they may be reused (so a parser edit does not reload every PDF, nor a chunker edit re-parse)."""

    file: DocumentFile
    states: Mapping[str, State] = field(default_factory=dict)
    document: Document | None = None
    units: tuple[Unit, ...] | None = None

    @property
    def had_content(self) -> bool:
        """Whether an earlier version of the document was parsed into units (and so still serves)."""
        return UNITS in self.states


@dataclass(frozen=True)
class Failure:
    """Why this version of a document could not be indexed: the stage and the rejection."""

    stage: str  # load | route | parse | chunk | limit | hold
    rejection: Rejection


@dataclass(frozen=True)
class RawText:
    key: str
    version: str
    loader: str | None
    loader_version: str | None
    fresh: bool  # loaded now (False: the stored text was current)


@dataclass(frozen=True)
class UnitsResult:
    key: str
    version: str
    owner: str
    owner_version: str
    units: tuple[Unit, ...]
    fresh: bool  # parsed now (False: the stored units were current)


@dataclass(frozen=True)
class ChunkSet:
    chunker: str
    chunker_version: str
    key: str
    version: str
    chunks: tuple[Chunk, ...]
    terms: tuple[tuple[str, int], ...] = ()  # per chunk: BM25 terms and token count (``retrieval.build.terms``)


@dataclass(frozen=True)
class CoverageResult:
    key: str
    coverage: Coverage
    by_type: dict[str, int]


@dataclass(frozen=True)
class DocumentOutcome:
    """What became of one document: the steps that did work, or the failure that stopped it.

    ``document`` is set when the text was loaded now (the job carries it otherwise). A failure may come with a
    ``raw`` result: a new document whose text loaded but that no parser took keeps its text for later runs."""

    file: DocumentFile
    raw: RawText | None = None
    document: Document | None = None
    units: UnitsResult | None = None
    chunks: tuple[ChunkSet, ...] = ()
    coverage: CoverageResult | None = None
    failure: Failure | None = None
    accepted: tuple[str, ...] = ()  # parsers that accepted the document
    raised: tuple[str, ...] = ()  # parsers that raised on it (acceptance or parsing)
    seconds: float = 0.0

    size_bytes: int = 0  # about what applying the outcome writes (see ``measure``): bounds a write batch


def measure(outcome: DocumentOutcome) -> int:
    """About how many bytes applying ``outcome`` writes: new text, and the units' and chunks' text, attributes
    and metadata as JSON (a plugin's attributes can outweigh the text many times)."""
    size = len(outcome.document.text) if outcome.document is not None else 0
    records: list = []
    if outcome.units is not None and outcome.units.fresh:
        records.extend(walk_units(outcome.units.units))
    for chunk_set in outcome.chunks:
        records.extend(chunk_set.chunks)
    for record in records:
        size += 200 + len(record.fulltext) + len(json.dumps(record.attributes, default=str))
        size += len(json.dumps(record.metadata, default=str)) if record.metadata else 0
    return size


Report = Callable[[str, "str | None"], None]
"""Told what is about to run and with which plugin ("parsing", "licence"), so a stopped worker can say where."""


def _silent(stage: str, plugin: str | None) -> None:
    pass


def compute(job: DocumentJob, plugins: PluginSet, report: Report = _silent) -> DocumentOutcome:
    """Bring one document's steps up to date in memory; any plugin error becomes the outcome's failure."""
    started = time.perf_counter()
    outcome = _compute(job, plugins, report)
    return replace(outcome, seconds=round(time.perf_counter() - started, 4), size_bytes=measure(outcome))


def _compute(job: DocumentJob, plugins: PluginSet, report: Report) -> DocumentOutcome:
    file = job.file
    document, raw, failure = _raw_text(job, plugins, report)
    if failure is not None:
        return DocumentOutcome(file, raw, None, failure=failure)
    assert document is not None and raw is not None
    fresh_document = document if raw.fresh else None
    report("routing", None)
    fallback = plugins.fallback
    route = route_document(document, [s.plugin for s in plugins.unit_parsers], fallback and fallback.plugin)
    if route.parser is None:
        assert route.rejection is not None
        return DocumentOutcome(file, raw, fresh_document, failure=Failure("route", route.rejection),
                               accepted=route.accepted, raised=route.raised)
    owner = plugins.unit_parser(route.parser.parser_name)
    units, failure = _units(job, document, raw, owner, plugins, report)
    if failure is not None:
        return DocumentOutcome(file, raw, fresh_document, failure=failure, accepted=route.accepted,
                               raised=(owner.name,) if failure.rejection.status == FAILED else ())
    assert units is not None
    chunk_sets: list[ChunkSet] = []
    paths: dict[str, tuple[str, ...]] | None = None  # section paths, made when a chunker runs
    for chunker in plugins.chunkers:
        key = chunks_key(units.version, chunker)
        known = job.states.get(chunks_step(chunker.name))
        if known and known[0] == key:
            continue
        report("chunking", chunker.name)
        try:
            chunks = chunk_units(document, units.units, chunker.plugin)
            check_chunks(document, units.units, chunks, chunker.name)
        except ParserOutputError as exc:
            rejection = Rejection(document.id, FAILED, str(exc), (chunker.name,))
            return DocumentOutcome(file, raw, fresh_document, units, failure=Failure("chunk", rejection),
                                   accepted=route.accepted, raised=(chunker.name,))
        version = stable_hash([[c.id, c.fulltext, c.source_start, c.source_end] for c in chunks])[:16]
        paths = paths if paths is not None else unit_paths(units.units)
        from ..retrieval.build.terms import chunk_terms  # the tokenizer's patterns compile only where chunks are cut

        terms = tuple(chunk_terms(paths.get(c.unit_id, ()), c.fulltext) for c in chunks)
        chunk_sets.append(ChunkSet(chunker.name, chunker.version, key, version, tuple(chunks), terms))
    coverage = None
    key = coverage_key(units.version, len(document.text))
    known = job.states.get(COVERAGE)
    if not known or known[0] != key:
        coverage = CoverageResult(key, document_coverage(document, units.units), units_by_type(units.units))
    return DocumentOutcome(file, raw, fresh_document, units, tuple(chunk_sets), coverage,
                           accepted=route.accepted)


def _raw_text(job: DocumentJob, plugins: PluginSet, report: Report
              ) -> tuple[Document | None, RawText | None, Failure | None]:
    file = job.file
    key = raw_key(file, plugins)
    known = job.states.get(RAW_TEXT)
    if job.document is not None and known and known[0] == key and known[1]:
        return job.document, RawText(key, known[1], None, None, fresh=False), None
    report("loading", None)
    outcome = load_document(file.path, file.document_id, [s.plugin for s in plugins.loaders])
    loader = plugins.loader(outcome.loader) if outcome.loader else None
    loader_version = loader.version if loader else None
    raw = RawText(key, stable_hash([file.content_hash, loader_version])[:16], outcome.loader, loader_version,
                  fresh=True)
    if outcome.rejection is not None:
        return None, raw, Failure("load", outcome.rejection)
    return outcome.document, raw, None


def _units(job: DocumentJob, document: Document, raw: RawText, owner: Selected, plugins: PluginSet,
           report: Report) -> tuple[UnitsResult | None, Failure | None]:
    """The owner's units: the stored ones when current (empty when nothing downstream reads them), else parsed."""
    key = units_key(raw.version, owner)
    known = job.states.get(UNITS)
    if known and known[0] == key and known[2] == owner.name and known[1]:
        if job.units is not None:
            return UnitsResult(key, known[1], owner.name, owner.version, job.units, fresh=False), None
        if not needs_units(job.states, known[1], len(document.text), plugins):
            return UnitsResult(key, known[1], owner.name, owner.version, (), fresh=False), None
    report("parsing", owner.name)
    parsed = parse_with(document, owner.plugin)
    if parsed.rejection is not None:
        return None, Failure("parse", parsed.rejection)
    try:
        check_units(document, parsed.units, owner.name)
    except ParserOutputError as exc:
        return None, Failure("parse", Rejection(document.id, FAILED, str(exc), (owner.name,)))
    units = tuple(parsed.units)
    return UnitsResult(key, units_fingerprint(units), owner.name, owner.version, units, fresh=True), None


def needs_units(job_states: Mapping[str, State], units_version: str, text_length: int, plugins: PluginSet) -> bool:
    """Whether current units would be read again: some chunker's or the coverage's input or version changed."""
    if any((job_states.get(chunks_step(c.name)) or ("",))[0] != chunks_key(units_version, c) for c in plugins.chunkers):
        return True
    return (job_states.get(COVERAGE) or ("",))[0] != coverage_key(units_version, text_length)


def failed(file: DocumentFile, stage: str, status: str, reason: str, names: tuple[str, ...] = ()) -> DocumentOutcome:
    """An outcome for a document that never reached (or never came back from) the plugins."""
    return DocumentOutcome(file, failure=Failure(stage, Rejection(file.document_id, status, reason, names)))
