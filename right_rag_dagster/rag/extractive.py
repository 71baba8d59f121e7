"""Which sentences an extractive answer quotes: from the best-ranked passage that answers, sentence by sentence.

Retrieval's order is the strongest evidence there is, so the passages are read best rank first: the answer comes from
the first passage whose best sentence covers nearly as much of the question as the best sentence anywhere
(``RANK_TOLERANCE``), not from whichever sentence of the top hits shares most words. Within that passage it is one
contiguous run of sentences (the best one and the sentence after it, which so often holds the detail the best one
announces ("GetCursorImage returns the image of the current cursor. The cursor image itself is returned as ... 32 bits
per pixel"), widened by neighbours that also match, that cover question terms it lacks, or, for the next sentence, that
open by referring back to it, "Instead, they ...", or follow a heading, and, for the previous sentence, the one the
quote opens by referring back to, "For this reason, ..."; a sentence of the passage that covers nearly as much as the
best one, ``TIE_SHARE``, joins with the sentences between them when the run stays short), so the quote is a span of the
unit. A second passage whose best sentence covers as much as the quote's (``SECOND_SHARE``) is quoted after it
(``second_quote``): when two passages answer equally well, rank alone cannot say which holds the evidence. The words
that say what kind of answer is asked for ("In what *pixel format* does ...", "What *error* does ...": ``focus_terms``)
weigh ``FOCUS_WEIGHT`` times as much, and a heading line inside the passage (a request's name over its description)
counts for ``UNDER_WEIGHT`` towards the sentences under it; so do the question sentences of a FAQ entry
("Q: ... A: ...") towards its answer. A record (a copyright stanza) is read as one sentence. A question term counts
by its BM25 weight (a licence's every passage says "License"; few say "modified files"), and when passages are
compared a passage's section path counts for half (a sentence under "3.18 /tmp: Temporary files" is about /tmp). The
words that name the passage's document ("double-conversion", "libogg") and the words of a web address do not count
towards a sentence's own coverage: they say which document answers, not which sentence (the header stanza that names
the package and links the format's "packaging-manuals" is not who did the Debian packaging).
Rows of a table, dot leaders and other lines without prose (code, reST directives) are never quoted (a sentence that
holds one keeps its prose lines), a label line over an indented body (a man page's option or field name) is a heading
of its own, and a "sentence" longer than ``MAX_SENTENCE`` (a long clause, a list without punctuation) is read in
pieces of whole lines up to ``PIECE`` characters. When the semantic reranker's model has read the passages, a
sentence's closeness in meaning to the question counts too (``Sentence.meaning``, ``MEANING_WEIGHT``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..core.faq import ANSWER_LINE, OPENING_QUESTION, QUESTION
from ..retrieval.searching.doc_names import DocumentNames
from ..retrieval.searching.identity import store_names
from ..retrieval.searching.per_store import per_store_version
from ..store import Store
from .evidence import content_terms, passage_terms, sentences, term_weights

RANK_TOLERANCE = 0.5
"""A lower-ranked passage is quoted only when its best sentence covers more than 1 / this x the higher one's."""
NEIGHBOUR_SHARE = 0.5
"""A neighbouring sentence joins the quote when it covers at least this share of the best sentence's terms."""
MAX_SENTENCE = 600
PIECE = 300
HEADING_WEIGHT = 0.5
MIN_GAIN = 0.05
"""A neighbour that adds question terms the quote lacks joins when they weigh at least this share of the question."""
TIE_SHARE = 0.9
"""A sentence of the quoted passage covering at least this share of the best sentence's coverage joins the quote
(with the sentences between) when the run fits in ``max_chars``."""
SECOND_SHARE = 0.85
"""Another passage is quoted too when its best sentence covers at least this share of the quote's best coverage
(0.95 until the tenth round: 0.85 quoted the evidence for 2 more of 297 tuning questions, none fewer, for 22 more
characters an answer on average)."""
FOCUS_WEIGHT = 2.0
"""How much more a focus term (``focus_terms``) weighs than its BM25 weight when sentences are compared."""
UNDER_WEIGHT = 0.75
"""The share of a heading line's question terms (within the passage) that counts for each sentence under it."""
MEANING_WEIGHT = 1.0
"""How much a sentence's cosine with the question (0 without a model) counts beside its share of the question's
terms when the best sentence of a passage is picked."""

_AUXILIARY = frozenset("does do did is are was were can could may might must shall should will would has have had"
                       .split())
_ASKS_FOR = re.compile(r"\b(?:what|which|whose|how\s+many|how\s+much)\s+((?:[\w.\-/']+\s+){1,3})", re.IGNORECASE)

_CONTINUES = re.compile(r"^(?:instead|however|otherwise|therefore|thus|hence|then|also|in (?:that|this|such) case|"
                        r"for\s+(?:this|that|these|those)\s+reasons?|as\s+a\s+result|consequently|because\s+of\s+(?:this|that)|"
                        r"to\s+(?:do|avoid|prevent|fix|solve|achieve|accomplish|work\s+around|enable|disable)\s+(?:so|this|that|it)\b|"
                        r"to\s+[a-z]+(?:\s+(?:around|out\s+of))?\s+(?:this|that|these|those)(?:\s+[a-z]+)?(?=\s*,)|"
                        r"(?:doing|having\s+done)\s+(?:so|this|that)|in\s+(?:this|that)\s+(?:way|event|situation)|the\s+(?:latter|former)|"
                        r"(?:if|unless)\s+(?:so|not)\b|(?:if|when|unless|once|while)\s+(?:it|they|this|these|those|that)\b"
                        r"(?!\s+(?:is|are)\s+(?:possible|necessary|needed|required|recommended|advisable|important|useful|"
                        r"desirable|likely|unlikely|common|easy|hard|difficult|better|best|safe)\b)|"
                        r"(?:it|they|this|these|those|such|that)\b(?!\s+(?:is|are)\s+(?:a|an|the)\b))\b", re.I)
"""How a sentence that continues the previous one opens (it refers back to it, or qualifies it)."""

_DEFINES = re.compile(r"^\W*(?:(?:an?|the)\s+)?(?P<term>[^\s.,;:()]+(?:\s+[^\s.,;:()]+){0,4}?)\W*\s+"
                      r"(?:is|are|means|refers\s+to)\b", re.IGNORECASE)
"""A sentence that opens by saying what a term is ("An independent module is a module which ...", "Shareable files
are those that ...")."""
DEFINING_SHARE = 0.25
"""For a question that asks what a term means, a sentence that opens by defining a term made only of question words,
weighing at least this share of the question, is the passage's best sentence."""

_WHY = re.compile(r"\bwhy\b|\bfor what reason\b|\bwhat is the reason\b", re.IGNORECASE)
_HOW_MUCH = re.compile(r"\bhow\s+(?:much|many|long|often|fast|slow|big|large|far)\b|"
                       r"\bwhat\s+(?:is|are|was|were)\s+(?:the|its|their)\s+(?:smallest|largest|lowest|highest|minimum|"
                       r"maximum|fewest|least|most)\b|\bwhat\s+(?:size|number|percentage|amount|proportion)\b",
                       re.IGNORECASE)
_REASON = re.compile(r"\b(?:because|since|so\s+that|in\s+order\s+to|due\s+to|the\s+reason|thus|hence|therefore|"
                     r"as\s+a\s+result|to\s+(?:avoid|prevent|ensure|allow|make\s+sure|keep))\b", re.IGNORECASE)
_AMOUNT = re.compile(r"\d|\b(?:half|halves|twice|double|doubles|triple|order\s+of|several|many\s+times)\b",
                     re.IGNORECASE)
_WHEN = re.compile(r"^\W*(?:\w+\s+){0,4}?when\s+(?:is|are|was|were|do|does|did|will|must|should|can|may|has|have)\b|"
                   r"\bhow\s+soon\b|\bat\s+what\s+(?:time|point)\b", re.IGNORECASE)
_TIME = re.compile(r"\b(?:after|before|until|till|once|as\s+soon\s+as|as\s+of|at\s+(?:boot|startup|start|the\s+end|"
                   r"the\s+time)|during|within|immediately|whenever|when|upon|on\s+(?:boot|exit|startup))\b|\d",
                   re.IGNORECASE)
_WHERE = re.compile(r"^\W*(?:\w+\s+){0,4}?where\b", re.IGNORECASE)
_PLACE = re.compile(r"(?:^|[\s`'\"(])/\w|\b(?:directory|folder|file|path|in\s+the|under|placed|stored|located|installed)\b",
                    re.IGNORECASE)
CUE_SHARE = 0.3
"""What a sentence that has the kind of answer a question asks for adds to its coverage (of a question that asks
"why", a sentence that gives a reason; of "how much/many/long", one with a number; of "when does ...", one that
says when: after, before, until, within, a number; of "where", one with a path or a place: a directory, a file,
"in the", "under"), when it covers any term."""


def answer_cue(question: str) -> re.Pattern[str] | None:
    """The pattern of a sentence giving the kind of answer ``question`` asks for: a reason for "why", an amount for
    "how much", a time for "when does ...", a place for "where" (the question words themselves are stop words, so
    coverage alone never sees what is asked). "When I ..., how ...?" states a condition and asks no time."""
    if _WHY.search(question):
        return _REASON
    if _HOW_MUCH.search(question):
        return _AMOUNT
    if _WHEN.search(question):
        return _TIME
    if _WHERE.search(question):
        return _PLACE
    return None


_URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+", re.IGNORECASE)
"""An address in a sentence: its words (``debian.org/doc/packaging-manuals/copyright-format``) are no part of what
the sentence says, so they do not count towards its coverage of the question."""
_TABLE_LINE = re.compile(r"\|.*\||\.{4,}|(?:\. ){4,}|(?:\S+ {3,}){3,}")
_COLUMN_GAP = re.compile(r"(?<=\S) {4,}(?=\S)")
"""A gap between two columns of a line whose tabs are expanded (two of them make a row of a tab-separated table)."""
_TAB_RUN = re.compile(r"\S\t\t")
"""Two tabs after a word: a column more than a tab stop away (``height:\t\t\tCARD16``, ``pcm STR\t\t# Slave PCM
name``); but a tag and its one-line description (``all\t\tTrace all system calls.``) are prose (``_tagged``)."""
_CODE = re.compile(r"\$[({]|[+:?]=|==|&&|\|\||[{};]\s*$|^\s*(?:if|ifeq|ifneq|endif|fi|export|#!)\b|"
                   r"^\s*\.\.[ \t]+(?:[\w-]+::?(?:\s|$)|[_|])|^\s*:[\w-]+:(?:\s|$)", re.MULTILINE)
"""Lines of code, and reST's explicit markup (``.. only:: html``, ``.. _target:``, a directive's ``:maxdepth: 2``;
a wrapped line of prose that opens with an ellipsis, ``.. to the maximum``, is no markup)."""


@dataclass(frozen=True)
class Sentence:
    """A sentence of passage ``number`` (from 1): its span in the passage text and its coverage of the question."""

    number: int
    start: int
    end: int
    share: float
    grounded: float
    terms: frozenset[str] = frozenset()
    continues: bool = False
    heading: bool = False
    introduces: bool = False
    defines: float = 0.0
    under: float = 0.0
    meaning: float = 0.0
    """The cosine of the sentence with the question, when a model read them (``semantic.sentence_meanings``)."""

    @property
    def rank_share(self) -> float:
        """What the sentence covers, the in-passage heading it sits under counting for ``UNDER_WEIGHT`` and its
        closeness in meaning to the question for ``MEANING_WEIGHT``."""
        return self.share + UNDER_WEIGHT * self.under + MEANING_WEIGHT * self.meaning


@dataclass(frozen=True)
class Quote:
    """The run of sentences quoted from passage ``number``: its span in the passage text."""

    number: int
    start: int
    end: int
    share: float


def focus_terms(question: str) -> list[str]:
    """The stems of the one or two words after "what", "which" or "how many" that say what kind of answer is asked
    for, when a verb follows them: "In what pixel format does ..." -> pixel, format; "What error does ..." -> error
    (none for "What does ... mean?" or "What happens when ...")."""
    match = _ASKS_FOR.search(question)
    if not match:
        return []
    words: list[str] = []
    for word in match.group(1).split():
        if word.lower() in _AUXILIARY:
            return content_terms(" ".join(words))
        words.append(word)
    return []


def focus_weights(question: str, weights: dict[str, float]) -> dict[str, float]:
    """``weights`` with the question's focus terms (``focus_terms``) weighing ``FOCUS_WEIGHT`` times as much: of two
    sentences about GetCursorImage, the one that says "32 bits per pixel" answers "In what pixel format ...?"."""
    focus = set(focus_terms(question))
    return {t: w * FOCUS_WEIGHT if t in focus else w for t, w in weights.items()}


def question_weights(question: str, store: Store | None, chunker: str) -> dict[str, float]:
    """The question's content terms weighed as sentences are compared: BM25's IDF over ``chunker``'s chunks in
    ``store`` (1 each without a store), focus terms ``FOCUS_WEIGHT`` times as much (``focus_weights``)."""
    terms = content_terms(question)
    weights = term_weights(store, chunker, terms) if store is not None else dict.fromkeys(terms, 1.0)
    return focus_weights(question, weights)


_FIELD = re.compile(r"^[A-Za-z][\w-]*:(?:\s|$)")


def prose_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans of ``text`` without table rows; an overlong "sentence" is split into its lines. A record
    (a copyright stanza: ``Files:``, ``Copyright:``, ``License:`` lines) is one "sentence": its fields answer
    together."""
    if _is_record(text) and not _faq_question_end(text):  # "Q:" and "A:" open lines as fields do
        pieces = [(0, len(text.rstrip()))] if len(text.strip()) <= MAX_SENTENCE else _lines(text, 0, len(text))
        return [(a + len(text[a:b]) - len(text[a:b].lstrip()), b) for a, b in pieces if text[a:b].strip()]
    out = []
    for start, end in sentences(text):
        for a0, b0 in _label_apart(text, start, end):
            pieces = [(a0, b0)] if b0 - a0 <= MAX_SENTENCE else _lines(text, a0, b0)
            for a, b in pieces:
                if not _tabular(text[a:b], _lead(text, a)):
                    out.append((a, b))
                elif "\n" in text[a:b]:
                    out.extend(_prose_lines(text, a, b))
    return out


def _label_apart(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A label line over an indented body (a man page's ``Build-Profiles: restriction-formula`` over "This field
    ...", ``(1) Default mode`` over its paragraph): the label apart, as a heading, so its words do not make the
    first body sentence outweigh the others. A label has at most six words, no final punctuation and no bullet,
    and the next line is indented at least two columns deeper than it (hard-wrapped prose and PDF text are not)."""
    newline = text.find("\n", start, end)
    if newline < 0:
        return [(start, end)]
    label = text[start:newline].rstrip()
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():
        return [(start, end)]
    label_indent = len(text[line_start:start].expandtabs())
    rest = text[newline + 1:end]
    body = rest.lstrip(" \t")
    body_indent = len(rest[:len(rest) - len(body)].expandtabs())
    if (not label or len(label.split()) > 6 or label.endswith((".", ",", ";", ":", "!", "?", "-"))
            or label[0] in "-*+•" or not body or body_indent < label_indent + 2):
        return [(start, end)]
    return [(start, start + len(label)), (newline + 1 + len(rest) - len(body), end)]


def _prose_lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The runs of prose lines of a "sentence" that holds a table row or a line of code (a synopsis line
    ``Package-Type: deb|udeb|type`` over its description): each run a sentence, the tabular lines left out."""
    runs: list[tuple[int, int]] = []
    position, run = start, None
    for line in text[start:end].split("\n"):
        stripped = line.strip()
        a = position + (line.index(stripped[0]) if stripped else 0)
        b = a + len(stripped)
        if stripped and not _tabular(line, _lead(text, position)):
            run = (run[0], b) if run else (a, b)
        elif run:
            runs.append(run)
            run = None
        position += len(line) + 1
    if run:
        runs.append(run)
    return [(a, b) for run in runs for a, b in _label_apart(text, *run) if not _tabular(text[a:b], _lead(text, a))]


def _is_record(text: str) -> bool:
    """Two or more ``Field: value`` lines, and every unindented line is one."""
    lines = [line for line in text.splitlines() if line.strip() and not line[0].isspace()]
    fields = sum(bool(_FIELD.match(line)) for line in lines)
    return fields >= 2 and fields == len(lines)


def _lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Whole lines of ``text[start:end]`` packed into pieces of at most ``PIECE`` characters (a longer line alone)."""
    lines, position = [], start
    for line in text[start:end].split("\n"):
        stripped = line.strip()
        if stripped:
            lead = line.index(stripped[0])
            lines.append((position + lead, position + lead + len(stripped)))
        position += len(line) + 1
    pieces: list[tuple[int, int]] = []
    for a, b in lines:
        if pieces and b - pieces[-1][0] <= PIECE:
            pieces[-1] = (pieces[-1][0], b)
        else:
            pieces.append((a, b))
    return pieces


def _is_heading(sentence: str) -> bool:
    """A heading line quoted alone says nothing: a few words on one line without a final stop."""
    one_line = "\n" not in sentence.strip()
    return one_line and len(sentence.split()) <= 6 and not sentence.rstrip().endswith((".", "!", "?"))


def _tabular(sentence: str, lead: str = "") -> bool:
    """Whether ``sentence`` holds a table row, a line of code or too few letters to be prose; ``lead`` is the text of
    its first line before it (where its tabs expand from)."""
    letters = sum(ch.isalpha() for ch in sentence)
    return (bool(_TABLE_LINE.search(sentence) or _CODE.search(sentence)) or _tab_row(sentence, lead) or letters < 8
            or letters < 0.6 * len("".join(sentence.split())))


def _tagged(cells: list[str]) -> bool:
    """Whether a line's tab-separated ``cells`` are a tag and a sentence about it (a man page's or a Vim help file's
    definition list: ``save\t\tSave the buffer when it was modified.``): two cells with text, the second three words or
    more ending a sentence."""
    cells = [cell for cell in cells if cell.strip()]
    return len(cells) == 2 and len(cells[1].split()) >= 3 and cells[1].rstrip().endswith((".", "!", "?"))


def _lead(text: str, position: int) -> str:
    """The text of ``position``'s line before it."""
    return text[text.rfind("\n", 0, position) + 1:position]


def _tab_row(sentence: str, lead: str = "") -> bool:
    """Whether a line of ``sentence`` with tabs is a row of a tab-separated table: two tabs after a word
    (``_TAB_RUN``), three or more cells of one word each (``4\tCARD32\tpitch``), or, its tabs expanded as a terminal
    shows them (the first line from ``lead``'s columns on), two gaps of ``_COLUMN_GAP`` between its words. The tabs
    ``col -b`` leaves in a man page's indented, justified prose stand for the spaces ``man`` printed (one to three
    between words), so such a line is prose."""
    if "\t" not in sentence:  # most sentences: every sentence of every passage read for an answer comes here
        return False
    for number, line in enumerate(sentence.split("\n")):
        if "\t" not in line:
            continue
        cells = line.strip().split("\t")
        if _TAB_RUN.search(line) and not _tagged(cells) or len(cells) >= 3 and all(
                cell.strip() and " " not in cell.strip() for cell in cells):
            return True
        if number == 0 and lead:  # the columns before the sentence, its tabs kept as they expand
            pad = re.sub(r"[^\t]", " ", lead)
            expanded = (pad + line).expandtabs()[len(pad.expandtabs()):]
        else:
            expanded = line.expandtabs()
        if len(_COLUMN_GAP.findall(expanded.strip())) >= 2:
            return True
    return False


NAME_DOCUMENTS = 2
"""A term of a document's names counts as a name (``name_terms``) when the names of at most this many documents hold
it ("ninja", not "manual" or "extension")."""


def distinctive_name_terms(names: Sequence[DocumentNames], most: int = NAME_DOCUMENTS) -> dict[str, set[str]]:
    """Document id -> the terms of its names that the names of at most ``most`` documents hold: every passage of a
    document is about them, so they say which document answers, not which of its sentences (``score_passages``'
    ``known``)."""
    terms = {d.document_id: passage_terms(" ".join(" ".join(name) for name in d.names)) for d in names}
    counts = Counter(t for found in terms.values() for t in found)
    return {doc: {t for t in found if counts[t] <= most} for doc, found in terms.items()}


@per_store_version
def name_terms(store: Store) -> dict[str, set[str]]:
    """``distinctive_name_terms`` of the store's documents, derived once per version of the store."""
    return distinctive_name_terms(store_names(store))


def score_passages(weights: dict[str, float], passages: Sequence[tuple[str, str]],
                   definition: bool = False, cue: re.Pattern[str] | None = None,
                   known: Sequence[set[str]] = ()) -> list[list[Sentence]]:
    """The prose sentences of each ``(text, section path)`` passage with their coverage of the question's terms
    (``weights``: term -> weight); ``grounded`` also counts the passage's section path, for half; ``under`` is what
    the last heading line above a sentence in the passage adds to its coverage ("ShowCursor" over "If the client has
    made no outstanding HideCursor requests a BadMatch error is generated"). With
    ``definition`` (the question asks what a term means), ``defines`` is the share of the question a sentence's
    opening term weighs when the sentence defines it (``_DEFINES``) and every word of the term is a question word.
    ``known`` (per passage) are terms a sentence's own coverage leaves out: its document's names (``name_terms``);
    the words of an address in a sentence never count (``_URL``)."""
    total = sum(weights.values())

    def share(words: set[str]) -> float:
        return sum(w for t, w in weights.items() if t in words) / total if total else 0.0

    scored = []
    for number, (text, heading) in enumerate(passages, start=1):
        heading_terms = passage_terms(heading)
        names = known[number - 1] if number <= len(known) else set()
        sentences_ = []
        above: set[str] = set()
        asked = _faq_question_end(text)
        for start, end in prose_sentences(text):
            words = passage_terms(_URL.sub(" ", text[start:end]))
            own = share(words - names)
            if cue is not None and own > 0 and cue.search(text[start:end]):
                own += CUE_SHARE
            heading_line = _is_heading(text[start:end]) or start < asked
            grounded = (1 - HEADING_WEIGHT) * own + HEADING_WEIGHT * share(words | heading_terms)
            sentences_.append(Sentence(number, start, end, own, grounded, frozenset(t for t in weights if t in words),
                                       bool(_CONTINUES.match(text[start:end])), heading_line,
                                       _introduces(text[start:end]),
                                       _defines(text[start:end], weights, total) if definition else 0.0,
                                       0.0 if heading_line else share((words | above) - names) - own))
            if heading_line:
                above = words
        scored.append(sentences_)
    return scored


_ANNOUNCES = re.compile(r"\b(?:as\s+follows|the\s+following|(?:is|are)\s+(?:described|explained|shown)\s+below|"
                        r"can\s+be\s+(?:solved|fixed|avoided|worked\s+around|remedied|overcome)\b(?![^.]*\bby\b))"
                        r"[^.]*\.?\s*$", re.I)
"""How a sentence that announces the next ends: it says a problem can be solved, or that the how follows."""


def _introduces(sentence: str) -> bool:
    """A sentence the next one completes: a lead-in ending in a colon, or one that announces it (``_ANNOUNCES``:
    "Fortunately, this can be solved using a configuration-time option (for GCC).", then how)."""
    return sentence.rstrip().endswith(":") or bool(_ANNOUNCES.search(sentence))


def _faq_question_end(text: str) -> int:
    """Where the answer of a FAQ entry ("Q: ... A: ...", or a question on the first line over its answer) opens, 0
    for other text: the sentences before it are the question, which shares the most words with a user's question
    and answers nothing, so they count as a heading over the answer (``under``) and are quoted only with it."""
    if not QUESTION.match(text, len(text) - len(text.lstrip())):
        opening = OPENING_QUESTION.match(text)
        return opening.end() if opening else 0
    answer = ANSWER_LINE.search(text)
    return answer.start() if answer else 0


def _defines(sentence: str, weights: dict[str, float], total: float) -> float:
    match = _DEFINES.match(sentence)
    if not match or not total:
        return 0.0
    term = set(content_terms(match.group("term")))
    if not term or not term <= weights.keys():
        return 0.0
    share = sum(weights[t] for t in term) / total
    return share if share >= DEFINING_SHARE else 0.0


def choose_quote(passages: Sequence[list[Sentence]], max_chars: int, max_sentences: int,
                 weights: dict[str, float] | None = None) -> Quote | None:
    """The run of sentences to quote: from the best-ranked passage that answers almost as well as any (passages
    compared with their section paths), its best sentence (``_best``), widened (``_widen``) and stretched over
    the sentences that match nearly as well (``_with_ties``)."""
    best = max((s.grounded for sentences_ in passages for s in sentences_), default=0.0)
    if best <= 0:
        return None
    for sentences_ in passages:
        if sentences_ and max(s.grounded for s in sentences_) >= RANK_TOLERANCE * best:
            top = _best(sentences_)
            quote = _widen(sentences_, sentences_.index(top), max_chars, max_sentences, weights or {})
            return _with_ties(sentences_, top, quote, max_chars, max_sentences)
    return None


def second_quote(passages: Sequence[list[Sentence]], first: Quote, max_chars: int, max_sentences: int,
                 weights: dict[str, float] | None = None) -> Quote | None:
    """The run to quote after ``first`` from the best-ranked other passage whose best sentence covers at least
    ``SECOND_SHARE`` of what ``first``'s best sentence covers, if any."""
    quoted = [s.share for s in passages[first.number - 1] if first.start <= s.start and s.end <= first.end]
    top = max(quoted, default=0.0)
    if top <= 0:
        return None
    for sentences_ in passages:
        if not sentences_ or sentences_[0].number == first.number:
            continue
        best = _best(sentences_)
        if not best.heading and best.share >= SECOND_SHARE * top:
            return _widen(sentences_, sentences_.index(best), max_chars, max_sentences, weights or {})
    return None


def continuation(passages: Sequence[list[Sentence]], texts: Sequence[str], quote: Quote, following: int | None,
                 between: str, max_chars: int, max_sentences: int) -> Quote | None:
    """The opening of passage ``following`` (the chunk that comes next in the document, a part of the same joined
    hit; ``between``: the document's text between the two) when ``quote`` ends its passage on a sentence that
    introduces the next ("..., it reinstates:" over the list of when): a lead-in alone answers nothing. Only when
    nothing but blanks lies between the quote's end and the opening's first sentence (a table or a heading the
    sentences leave out would be skipped), that sentence is no heading, and it fits in what is left of
    ``max_chars``; the opening then runs on while the whole answer keeps within ``max_chars`` and
    ``max_sentences`` (one sentence at least)."""
    if following is None or not ends_on_lead_in(passages, quote):
        return None
    sentences_ = passages[quote.number - 1]
    opening = passages[following - 1]
    if (not opening or opening[0].heading or texts[quote.number - 1][quote.end:].strip() or between.strip()
            or texts[following - 1][:opening[0].start].strip()):
        return None
    room = max_chars - (quote.end - quote.start)
    if opening[0].end - opening[0].start > room:
        return None
    quoted = sum(quote.start <= sentence.start and sentence.end <= quote.end for sentence in sentences_)
    last = 0
    while (last + 1 < len(opening) and last + 2 + quoted <= max(max_sentences, quoted + 1)
           and opening[last + 1].end - opening[0].start <= room):
        last += 1
    return Quote(following, opening[0].start, opening[last].end, max(sentence.grounded for sentence in opening[:last + 1]))


def ends_on_lead_in(passages: Sequence[list[Sentence]], quote: Quote) -> bool:
    """Whether ``quote`` ends with its passage's last sentence and that sentence introduces the next."""
    sentences_ = passages[quote.number - 1]
    return bool(sentences_) and sentences_[-1].introduces and quote.end >= sentences_[-1].end


_UNDERLINED = re.compile(r"(?P<heading>[^\n]*)\n[ \t]*([=\-^~*+#])\2{2,}[ \t]*\n\s*")
"""A line over an underline (reST, setext: "Database Locking" over a line of ``-``), and the blanks after."""


def without_underline(text: str, quote: Quote) -> Quote:
    """``quote`` (a span of ``text``) without the underlined heading it opens with: the citation names the section,
    and a line of ``----`` or ``^^^^`` is no text to quote. Unchanged when the heading is all it holds."""
    match = _UNDERLINED.match(text, quote.start, quote.end)
    if match is None or match.end() >= quote.end or not _titled(match["heading"]):
        return quote
    return replace(quote, start=match.end())


def _titled(line: str) -> bool:
    """A line that can be a heading: a few words (at most 12), not ending a sentence or a clause."""
    return 0 < len(line.split()) <= 12 and not line.rstrip().endswith((".", ",", ";", ":", "!", "?"))


def _best(sentences_: list[Sentence]) -> Sentence:
    """The sentence that covers most of the question (the first of equals), a heading only when no other covers
    any (a heading, "### PC/SC Lite License", says what the passage is about, which its section path and document
    names already weigh: the quote is what it says)."""
    return max(sentences_, key=lambda s: (s.defines, not s.heading, s.rank_share, s.share, s.grounded, -s.start))


def _with_ties(sentences_: list[Sentence], top: Sentence, quote: Quote, max_chars: int, max_sentences: int) -> Quote:
    """``quote`` stretched over the passage's other sentences that cover nearly as much as ``top`` (``TIE_SHARE``),
    each only while the whole run keeps within ``max_chars`` and ``max_sentences``: of two sentences that match the
    question alike, the later may be the one that answers it ("Literals or match lengths are compressed ..." and
    "Distances are limited to 32K bytes, and lengths are limited to 258 bytes"). A definition stands alone."""
    if top.defines or top.share <= 0:
        return quote
    start, end, share = quote.start, quote.end, quote.share
    for s in sentences_:
        if s is top or s.heading or s.share < TIE_SHARE * top.share:
            continue
        a, b = min(start, s.start), max(end, s.end)
        if b - a <= max_chars and sum(a <= t.start and t.end <= b for t in sentences_) <= max_sentences:
            start, end, share = a, b, max(share, s.grounded)
    return Quote(quote.number, start, end, share)


def _widen(sentences_: list[Sentence], index: int, max_chars: int, max_sentences: int,
           weights: dict[str, float]) -> Quote:
    """The best sentence (with the one before it when it opens by referring back to it, "Therefore, ..."), then the
    one after it and its neighbours that also match, add question terms it lacks, or (the next one) continue it,
    nearest first, while the quote stays short."""
    first = last = index
    best = sentences_[index]
    total = sum(weights.values())

    def joins(i: int, covered: frozenset[str]) -> bool:
        candidate = sentences_[i]
        if candidate.share >= NEIGHBOUR_SHARE * best.share:
            return True
        if i == last + 1 and (candidate.continues or sentences_[last].heading or sentences_[last].introduces):
            return True
        if i == first - 1 and sentences_[first].continues:
            return True
        if i == index + 1 and not candidate.heading:  # the detail the best sentence announces
            return True
        gain = sum(weights.get(t, 0.0) for t in candidate.terms - covered)
        return bool(total) and gain >= MIN_GAIN * total

    if best.continues and index > 0 and best.end - sentences_[index - 1].start <= max_chars:
        first = index - 1
    while last - first + 1 < max_sentences:
        covered = frozenset().union(*(s.terms for s in sentences_[first:last + 1]))
        options = [i for i in (first - 1, last + 1) if 0 <= i < len(sentences_) and joins(i, covered)
                   and max(sentences_[last].end, sentences_[i].end) - min(sentences_[first].start, sentences_[i].start)
                   <= max_chars]
        if not options:
            break
        pick = max(options, key=lambda i: (sentences_[i].share, -abs(i - index), i))
        first, last = min(first, pick), max(last, pick)
    return Quote(best.number, sentences_[first].start, sentences_[last].end,
                 max(s.grounded for s in sentences_[first:last + 1]))
