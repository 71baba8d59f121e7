"""Copyright stanzas ordered by their file patterns (``retrieval.searching.file_patterns``)."""

from __future__ import annotations

import pytest

from right_rag_dagster.retrieval import search
from right_rag_dagster.retrieval.searching.file_patterns import field_terms, pattern_terms, reorder
from right_rag_dagster.store import Store
from tests.retrieval.store_builder import REPO_ROOT, sample_spec_store

HELDOUT8 = REPO_ROOT / "tests" / "fixtures" / "heldout8" / "documents"


def _stanza(files: list[str]) -> dict:
    return {"unit_type": "files_stanza", "files": files}


def _rank(question: str, items: list[tuple[str, dict | None]], name: str | None = None) -> list[str]:
    """Items are (label, attributes or None for a passage that is no stanza), all of one document, best first."""
    scored = [(label, attributes, 10.0 - i) for i, (label, attributes) in enumerate(items)]
    out = reorder(scored, question, lambda _: "pkg.copyright",
                  lambda item: pattern_terms(item[1]) if item[1] else None, lambda item: item[2],
                  lambda item, score: (item[0], item[1], score), lambda _: name,
                  lambda item: field_terms(item[1]) if item[1] else None)
    return [label for label, _, _ in out]


def test_a_question_about_the_package_gets_the_stanza_for_every_file() -> None:
    items = [("tests", _stanza(["debian/tests/readogg.c"])), ("header", None), ("all", _stanza(["*"]))]
    assert _rank("What licence is libogg released under?", items, "libogg") == ["all", "tests", "header"]


def test_the_stanza_whose_patterns_the_question_covers_best_wins() -> None:
    items = [("one file", _stanza(["src/ALAC/shift.h"])), ("directory", _stanza(["src/ALAC/*"])),
             ("all", _stanza(["*"]))]
    assert _rank("Who owns the copyright of libsndfile's ALAC code?", items)[0] == "directory"
    gsm = [("gsm", _stanza(["src/GSM610/*"])), ("all", _stanza(["*"]))]
    assert _rank("On what condition may I use the GSM 6.10 code bundled in libsndfile?", gsm)[0] == "gsm"
    waf = [("waf", _stanza(["third_party/waf/waflib/Tools/clang.py"])), ("tools", _stanza(["tools/*"]))]
    assert _rank("Which licence covers the source of tdb's command-line tools?", waf)[0] == "tools"


def test_nothing_moves_when_the_first_candidate_is_no_stanza_or_already_fits() -> None:
    items = [("licence text", None), ("all", _stanza(["*"]))]
    assert _rank("What does the BSD licence require?", items) == ["licence text", "all"]
    exact = [("signames", _stanza(["src/mksignames.c"])), ("all", _stanza(["*"]))]
    assert _rank("Why is dash's src/mksignames.c under GPL-2+?", exact) == ["signames", "all"]


def test_the_word_files_names_no_pattern() -> None:
    # libtalloc2.copyright (tests/fixtures/heldout2): "files" met the pattern word of stale_files.py
    items = [("debian", _stanza(["debian/*"])),
             ("waf", _stanza(["buildtools/bin/waf", "buildtools/wafsamba/stale_files.py", "third_party/waf/*"])),
             ("all", _stanza(["*"]))]
    question = "Who holds the copyright on talloc's files and under which licence are they?"
    assert _rank(question, items, "talloc s") == ["all", "debian", "waf"]


def test_a_header_stanza_gives_way_to_the_files_stanza_for_the_field_it_lacks() -> None:
    """zutty.copyright (tests/fixtures/heldout8): its header stanza says "zutty" three times and "waf" in its
    Comment, and outranked ``Files: waf waflib/* wscript`` for a licence question. A question about what the header
    says keeps it first."""
    header = {"fields": ["Format", "Upstream-Name", "Source", "Comment"]}
    items = [("header", header), ("all", {"fields": ["Files", "Copyright", "License"], "files": ["*"]}),
             ("waf", {"fields": ["Files", "Copyright", "License"], "files": ["waf", "waflib/*", "wscript"]})]
    assert _rank("Which licence covers the waf build system files in zutty?", items, "zutty")[0] == "waf"
    assert _rank("Who holds the copyright on zutty?", items, "zutty")[0] == "all"
    assert _rank("Where can I download zutty's source?", items, "zutty")[0] == "header"  # the Source field
    assert _rank("Why was zutty's tarball repackaged?", items, "zutty")[0] == "header"  # no field asked


@pytest.fixture(scope="module")
def copyright_files(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """Two DEP-5 copyright files whose header stanzas name their package, one in the old draft's format
    (``Format-Specification:``, ``Maintainer:``), cut by the sample project's parsers and domain chunker."""
    return sample_spec_store(tmp_path_factory, "copyright-files", (
        HELDOUT8 / "zutty.copyright", HELDOUT8 / "libregexp-ipv6-perl.copyright", HELDOUT8 / "libcolord2.copyright"))


@pytest.mark.parametrize("question, stanza", [
    ("Which licence covers the waf build system files in zutty?", "Files: waf waflib/* wscript"),
    ("Who holds the copyright of the Debian packaging of Regexp-IPv6?", "Files: debian/*"),
    ("Under which licence is the Perl module Regexp-IPv6 distributed?", "Files: *"),
])
def test_a_licence_question_ranks_the_files_stanza_above_the_header(copyright_files: Store, question: str,
                                                                    stanza: str) -> None:
    first = search(copyright_files, question, chunker="domain", k=3)[0]
    assert stanza in first.text, first.text
