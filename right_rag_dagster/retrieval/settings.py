"""``[right-rag.retrieval]`` settings of ``right_rag.toml`` and the defaults used when a setting is absent.

Example::

    [right-rag.retrieval]
    chunker = "domain"           # default: the first non-default chunker that has chunks, else "default"
    retriever = "hybrid"         # bm25 | dense | hybrid | a spec/retrievers plugin (default: DEFAULT_RETRIEVERS)
    k = 5
    embedder = "minilm"          # minilm | hashing[:dims] | ollama:<model> | openai:<model>
    generator = "extractive"     # extractive | ollama:<model> | openai:<model>
    generator_url = "http://127.0.0.1:8080/v1"
    flow = "simple"              # simple | adaptive
    reranker = "semantic"        # none | coverage | sentences | semantic: the flow's rerank step (rag/rerank.py;
                                 # default: DEFAULT_RERANKERS)
    weights = { bm25 = 1.0, dense = 0.5 }
    fusion = "rrf"               # rrf | documents: how hybrid ranks (FUSIONS)
    identity = "boost"           # none | boost | first | filter: how a document named in the question ranks
    neighbours = true            # neighbouring chunks among the five best join into one hit (searching/neighbours.py)
    within_document = true       # one document's passages ordered by its own statistics (searching/within_document.py)
    document_prior = 0.5         # BM25 passages weighed by their whole document's BM25 (searching/bm25.py; 0: off)
    answer_min_coverage = 0.25   # extractive answers: "Not found" below this share of the question's term weight
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError
from ..store import Store
from ..store.chunk_reads import chunker_names

if TYPE_CHECKING:
    from .embedders import Embedder

VARIANTS = ("none", "boost", "first", "filter")
DEFAULT_MIN_COVERAGE = 0.25
"""The share of a question's term weight (each content term weighing its BM25 IDF; not the words BM25 never indexes)
the extractive answer's passage (with its section path) must hold, else "Not found in the documents.". With the
twenty-third round's answer rules, 41 of 96 and 82 of 224 questions the corpus cannot answer still got an answer and
489 of 742 tuning questions a right one; the share of plain terms at 1/3 (the gate until that round) answered 44, 97
and 475 (docs/evaluation.md)."""
DEFAULT_IDENTITY = "boost"
"""How a document named in the question ranks (``searching/identity.py`` applies it)."""
FUSIONS = ("documents", "rrf")
"""How hybrid ranks (``fusion``): ``rrf``: by the reciprocal rank fusion of BM25 and dense alone, so dense has its
say in which documents hold the top places; ``documents``: BM25's ranking says which documents hold the top places
(and their scores), the fusion orders each document's chunks among its places (``searching/retrievers.py``)."""
DOCUMENT_PRIOR = 0.5
"""A chunk's BM25 score is multiplied by its document's BM25 score for the question over whole documents (each
document's chunks as one text), divided by the best document's, to this power; a document the question names keeps
a factor of 1. A question that describes a program's behaviour without naming it shares words with passages of many
documents; the document that answers tends to share them across its sections, where another's one passage holds a few
of the rarer ones. On the 48 tuning sets in one index (1,490 questions, bm25; rank 1 / top 5 / MRR@10): off 903 /
1,171 / 0.684, 0.5 923 / 1,205 / 0.702, hybrid 965 / 1,248 -> 978 / 1,266; a first version that weighed only the
first 100 candidates gave 921 / 1,196 at 0.25, 924 / 1,203 at 0.5 and 927 / 1,199 at 1 (docs/evaluation.md,
forty-seventh round). ``document_prior = 0`` in ``[right-rag.retrieval]`` (or the retriever option) turns it off."""


DEFAULT_FUSION = "rrf"
"""``documents`` was the default until the 17 tuning sets (518 questions over their 173 documents in one index)
showed ``rrf`` one question behind at rank 1 and six ahead in the top 5 (answers +2), and an unseen set the same
trade (-1 at rank 1, +2 in the top 5): docs/evaluation.md, "Hybrid: the fusion decides the documents"."""


def check_variant(variant: str) -> str:
    """``variant`` when it is one of ``VARIANTS``, else a ``ConfigError`` naming them."""
    if variant not in VARIANTS:
        raise ConfigError(f"unknown identity variant {variant!r}; use one of {', '.join(VARIANTS)} "
                          "([right-rag.retrieval] identity)")
    return variant


DEFAULT_RETRIEVERS = {"embedder": "hybrid", "none": "bm25"}
"""The retriever when ``retriever`` is not set: ``hybrid`` when the project names an ``embedder`` (its vectors are
built, so they are used; ``rag.query`` answers with ``bm25`` while they are not built yet), else ``bm25``. Measured
at the twenty-sixth round's start: on the 28 tuning sets (870 questions) hybrid 634 / 770 / 0.794 (hit@1, hit@5 in
questions; MRR@10) against bm25's 629 / 750 / 0.782; on the 13 held-out sets measured unseen with both (heldout16-28)
its MRR@10 was the higher on 9 (by up to 0.146) and the lower on 4 (by 0.006-0.024), 0.665 against 0.629 on average:
docs/evaluation.md, "twenty-sixth round"."""


MODEL_RETRIEVERS = ("dense", "hybrid")
"""The built-in retrievers that load the embedder's model for a query."""
DEFAULT_RERANKERS = {"minilm": "semantic", "other": "none"}
"""The reranker when ``reranker`` is not set: ``semantic`` when the project's embedder is the offline MiniLM (the model
the reranker reads meaning with, loaded by every query anyway; ``rag/semantic.py``), else ``none`` (no model, or
another one whose cosines its weights were not fit on); a query that ranks without the model (``--retriever bm25``,
or before ``right-rag index`` built the vectors), with another embedder, or with a flow that has no rerank step
reranks with ``none`` and loads no model for it (``rag.query``). Measured at
the twenty-seventh round (docs/evaluation.md): hybrid with it on the 29 tuning sets 676 / 801 / 0.809, answers 591,
against hybrid alone's 655 / 794 / 0.790, 575 (hit@1, hit@5 and answers in questions; MRR@10; its weights saw 27 of
the sets' bm25 hits: on 28 of them, weights fit on the other sets' hybrid hits gained 15 of its 21 at rank 1); on
the three sets measured unseen with both (heldout27-29) its MRR@10 was the higher on all three (+0.031, +0.010,
+0.005). Its weights were refit on bm25 hits in the thirty-fourth round and not measured again under hybrid on the
tuning sets; on that round's unseen heldout36 hybrid with it scored 0.44 / 0.72 / 0.542, alone 0.47 / 0.66 / 0.546."""


@dataclass(frozen=True)
class RetrievalSettings:
    """Query defaults; every field may be overridden per call."""

    chunker: str | None = None
    retriever: str | None = None  # None: DEFAULT_RETRIEVERS (resolved when the settings are made)
    k: int = 5
    embedder: str | None = None
    embedder_url: str | None = None
    generator: str = "extractive"
    generator_url: str | None = None
    flow: str = "simple"
    reranker: str | None = None  # None: DEFAULT_RERANKERS (resolved when the settings are made)
    expand: bool = False
    weights: dict[str, float] = field(default_factory=dict)
    fusion: str = DEFAULT_FUSION
    identity: str = DEFAULT_IDENTITY
    neighbours: bool = True
    within_document: bool = True
    document_prior: float = DOCUMENT_PRIOR
    answer_min_coverage: float = DEFAULT_MIN_COVERAGE
    retriever_defaulted: bool = field(default=False, init=False)
    """Whether ``retriever`` is ``DEFAULT_RETRIEVERS``' choice rather than the project's."""
    reranker_defaulted: bool = field(default=False, init=False)
    """Whether ``reranker`` is ``DEFAULT_RERANKERS``' choice rather than the project's."""

    def __post_init__(self) -> None:
        if self.retriever is None:
            object.__setattr__(self, "retriever", DEFAULT_RETRIEVERS["embedder" if self.embedder else "none"])
            object.__setattr__(self, "retriever_defaulted", True)
        if self.reranker is None:
            minilm = False
            if self.embedder is not None:  # no embedder: no need to import the embedders (a no-change index)
                from .embedders import names_minilm  # lazily, as embedder_for_project does

                minilm = names_minilm(self.embedder)
            object.__setattr__(self, "reranker", DEFAULT_RERANKERS["minilm" if minilm else "other"])
            object.__setattr__(self, "reranker_defaulted", True)

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> RetrievalSettings:
        values = dict(values or {})
        known = {f.name for f in fields(cls) if f.init}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ConfigError(f"unknown keys in [right-rag.retrieval]: {unknown}; known: {sorted(known)}")
        if "k" in values and (not isinstance(values["k"], int) or values["k"] < 1):
            raise ConfigError(f"[right-rag.retrieval] k must be a positive integer, got {values['k']!r}")
        for key in ("expand", "neighbours", "within_document"):
            if key in values and not isinstance(values[key], bool):
                raise ConfigError(f"[right-rag.retrieval] {key} must be true or false, got {values[key]!r}")
        check_variant(values.get("identity", DEFAULT_IDENTITY))
        if values.get("fusion", DEFAULT_FUSION) not in FUSIONS:
            raise ConfigError(f"unknown hybrid fusion {values['fusion']!r} in [right-rag.retrieval] fusion; use one of "
                              f"{', '.join(FUSIONS)}")
        prior = values.get("document_prior", DOCUMENT_PRIOR)
        if isinstance(prior, bool) or not isinstance(prior, int | float) or not 0 <= prior <= 4:
            raise ConfigError("[right-rag.retrieval] document_prior must be a number from 0 (off) to 4 (the power of "
                              f"a document's share of the best document's BM25 score), got {prior!r}")
        coverage = values.get("answer_min_coverage", DEFAULT_MIN_COVERAGE)
        if isinstance(coverage, bool) or not isinstance(coverage, int | float) or not 0 <= coverage <= 1:
            raise ConfigError("[right-rag.retrieval] answer_min_coverage must be a number from 0 to 1 (the share of "
                              f"a question's term weight an extractive answer must cover), got {coverage!r}")
        return cls(**values)

    def reranker_for(self, retriever: str, embedder: Any, requested: str | None = None) -> str:
        """The reranker a query ranked by ``retriever`` with ``embedder`` uses: ``requested``, else the settings';
        ``none`` when the default would read meaning with a model the query does not rank with (``DEFAULT_RERANKERS``).
        ``right-rag query`` and ``right-rag evaluate`` both call it, so the scores describe the answers."""
        from .embedders import is_minilm  # lazily, as embedder_for_project does

        if requested:
            return requested
        if self.reranker_defaulted and (retriever not in MODEL_RETRIEVERS or not is_minilm(embedder)):
            return "none"
        return self.reranker

    def retriever_options(self) -> dict[str, Any]:
        """What ``search`` passes to the retriever from these settings: hybrid's weights and fusion,
        ``within_document`` when it is turned off and ``document_prior`` when it is not the default."""
        options: dict[str, Any] = {"fusion": self.fusion}
        if self.weights:
            options["weights"] = self.weights
        if not self.within_document:
            options["within_document"] = False
        if self.document_prior != DOCUMENT_PRIOR:
            options["document_prior"] = float(self.document_prior)
        return options


def default_chunker(store: Store) -> str:
    """The first chunker (by name) other than ``default`` that has chunks in the store, else ``default``."""
    with store.read() as con:
        return preferred_chunker(chunker_names(con))


def preferred_chunker(names: Iterable[str]) -> str:
    """Of chunker ``names`` (sorted), the first other than ``default``, else ``default``: what a query searches when
    no chunker is set."""
    return next((name for name in names if name != "default"), "default")


def embedder_for_project(project: Any) -> Embedder | None:
    """The embedder named by a project's ``[right-rag.retrieval]`` settings (None: BM25 only)."""
    from .embedders import make_embedder  # lazily: it imports the HTTP client, which most readers never use

    settings = RetrievalSettings.from_dict(getattr(project, "retrieval", {}))
    return make_embedder(settings.embedder, url=settings.embedder_url)
