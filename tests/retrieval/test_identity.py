"""Document identity: names derived by rule from real documents, and a question naming a document ranks it first."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from right_rag_dagster.errors import ConfigError
from right_rag_dagster.retrieval import build_search_index, search
from right_rag_dagster.retrieval.searching.doc_names import document_names, name_tokens
from right_rag_dagster.retrieval.searching.identity import (
    identify,
    named_documents,
    store_names,
)
from right_rag_dagster.retrieval.searching.snapshot import clear_cache
from right_rag_dagster.store import Store
from tests.retrieval.store_builder import REPO_ROOT, index_documents, sample_spec_store

HELDOUT = REPO_ROOT / "tests" / "fixtures" / "heldout" / "documents"
LICENCES = [HELDOUT / "GPL-2.txt", HELDOUT / "LGPL-2.1.txt", HELDOUT / "MPL-1.1.txt", HELDOUT / "apt.copyright",
            *(REPO_ROOT / "data" / "documents" / name for name in ("GPL-3.0.txt", "LGPL-3.0.txt", "MPL-2.0.txt"))]


def names_of(path: Path) -> set[str]:
    return {" ".join(name) for name in document_names(path.name, path.read_text(encoding="utf-8")).names}


@pytest.mark.parametrize("written", ["GPL version 2", "GPLv2", "GPL-2.0+", "GPL 2", "gpl v2.0", "the GPL V. 2"])
def test_ways_of_writing_a_name_and_version_are_one_name(written: str) -> None:
    assert name_tokens(written) == ("gpl", "2")


def test_names_come_from_the_file_name_and_the_title_line() -> None:
    gpl2 = names_of(HELDOUT / "GPL-2.txt")
    assert {"gpl", "gpl 2", "gnu general public license 2", "general public license"} <= gpl2
    assert not any(name.endswith(" 3") for name in gpl2)
    lgpl = names_of(HELDOUT / "LGPL-2.1.txt")
    assert {"lgpl 2.1", "lesser general public license 2.1"} <= lgpl and "gpl" not in lgpl
    assert {"mozilla public license 1.1", "mpl 1.1", "mpl"} <= names_of(HELDOUT / "MPL-1.1.txt")
    assert "public license" not in names_of(HELDOUT / "MPL-1.1.txt")  # too generic once "Mozilla" is gone


def test_a_record_file_has_no_title_and_a_package_name_alone_names_nothing() -> None:
    apt = document_names("apt.copyright", (HELDOUT / "apt.copyright").read_text(encoding="utf-8"))
    assert apt.title == "" and {" ".join(n) for n in apt.names} == {"apt copyright", "apt s"}
    assert named_documents("Which version of apt is needed?", [apt]) == {}       # a package name alone: a word
    assert named_documents("Which files of apt’s source are under GPL-2+?", [apt]) == {"apt.copyright": "apt s"}
    dash = document_names("dash.copyright", (HELDOUT / "dash.copyright").read_text(encoding="utf-8"))
    said = identify("Why is dash's src/mksignames.c under GPL-2+ considered acceptable?", [dash])
    assert said.named == {"dash.copyright": "dash s"} and said.lexical.startswith("Why is   src/mksignames.c")


def test_a_possessive_inside_a_name_is_read_through() -> None:
    """"util-linux's parse_date" says the name ``util linux parse date`` (the file util-linux-parse-date.txt), with
    the possessive between its words; a possessive name ("dash's") and a name said without one are unchanged."""
    parse_date = document_names("util-linux-parse-date.txt", "")
    question = "In the date input formats that util-linux's parse_date accepts, why is there no word for 2?"
    assert named_documents(question, [parse_date]) == {"util-linux-parse-date.txt": "util linux s parse date"}
    assert named_documents("What does util-linux parse_date accept?", [parse_date]) == {
        "util-linux-parse-date.txt": "util linux parse date"}
    assert named_documents("Is util-linux's date parser strict?", [parse_date]) == {}
    said = identify(question, [parse_date])
    assert "parse_date" not in said.lexical and "date input formats" in said.lexical


def test_a_possessive_after_a_determiner_is_a_common_nouns() -> None:
    """system(3) is named ``system s`` like dash's copyright file, yet "my system's gamma" (a heldout8 question
    about libpng) is about the reader's computer: after "my", "the", "a" and the like a possessive names nothing."""
    system = document_names("system.3.txt", "SYSTEM(3)\n\nNAME\n       system - execute a shell command\n")
    assert ("system", "s") in system.names
    assert named_documents("What does system's return value mean when no shell ran?", [system]) == {
        "system.3.txt": "system s"}
    for question in ("What display gamma should I assume if I don't know my system's gamma?",
                     "Is the system's clock kept in UTC?", "How does a system's init start getty?",
                     "Which of your system's users may run it?"):
        assert named_documents(question, [system]) == {}, question
    for question in ("Is it true that system's return value is -1 when no shell ran?",  # "that" as a conjunction
                     "What licence says what system's callers may do?"):  # "what" asks
        assert named_documents(question, [system]) == {"system.3.txt": "system s"}, question
    dash = document_names("dash.copyright", (HELDOUT / "dash.copyright").read_text(encoding="utf-8"))
    assert named_documents("Under which licence is the dash's mksignames.c?", [dash]) == {}
    assert named_documents("Why is dash's mksignames.c under GPL-2+?", [dash]) == {"dash.copyright": "dash s"}


def test_a_man_pages_header_line_names_the_page_not_its_manual() -> None:
    """"epoll(7)  Miscellaneous Information Manual  epoll(7)" made epoll(7) the "MIME" (the acronym of the manual's
    name and the page's): questions on MIME types ranked it first. The page is named by its name."""
    epoll = document_names("epoll.7.txt", "epoll(7)\t       Miscellaneous Information Manual\t\t      epoll(7)\n\n"
                                          "NAME\n       epoll - I/O event notification facility\n")
    assert epoll.title == "epoll" and {" ".join(name) for name in epoll.names} == {"epoll 7", "epoll s"}
    assert named_documents("What is the default weight of a glob pattern for a MIME type?", [epoll]) == {}


def test_a_titles_acronym_names_its_document_only_in_capitals() -> None:
    """A title's acronym can be a word: NumPy's "A guide to masked arrays in NumPy" is the "MAN", Temurin's
    "Notices for Eclipse Temurin" the "NET". Said in lower case ("man-db", "the .net runtime") it names nothing; an
    acronym the file name says (``GPL-2.txt``) is a name however it is written."""
    guide = document_names("numpy-ma-README.rst", "A guide to masked arrays in NumPy\n=================\n")
    assert "man" in guide.capitals
    assert named_documents("Why does man-db store formatted manual pages on disk?", [guide]) == {}
    assert named_documents("What does the MAN guide say of fill values?", [guide]) == {"numpy-ma-README.rst": "man"}
    gpl2 = document_names("GPL-2.txt", (HELDOUT / "GPL-2.txt").read_text(encoding="utf-8"))
    assert "gpl" not in gpl2.capitals
    assert named_documents("what does gpl v2 say about patents?", [gpl2]) == {"GPL-2.txt": "gpl 2"}


def test_a_name_three_documents_share_names_none_of_them() -> None:
    """Three FAQs titled "Frequently asked questions" are each the "FAQ": "Git's FAQ says ..." names none of them,
    and the word counts in every document as any word does (not only in theirs, as a licence's versions' name)."""
    faqs = [document_names(f"{name}-faq.rst", "Frequently asked questions\n==========================\n")
            for name in ("chardet", "charset-normalizer", "xz")]
    said = identify("Git's FAQ says raising http.postBuffer rarely helps. What does it cost?", faqs)
    assert said.named == {} and said.versions == {} and "FAQ" in said.lexical
    assert named_documents("What does the chardet FAQ say of speed?", faqs) == {"chardet-faq.rst": "chardet faq"}
    assert set(named_documents("What does the FAQ say?", faqs[:2])) == {"chardet-faq.rst", "charset-normalizer-faq.rst"}
    # copies of one document (the same names) count once: three packages' GPL-2.txt are still the GPL version 2
    text = (HELDOUT / "GPL-2.txt").read_text(encoding="utf-8")
    copies = [document_names(f"pkg{i}/GPL-2.txt", text) for i in range(3)]
    assert set(named_documents("What does GPL version 2 say about patents?", copies)) == {
        "pkg0/GPL-2.txt", "pkg1/GPL-2.txt", "pkg2/GPL-2.txt"}


def test_a_record_file_is_also_named_by_its_upstream_name() -> None:
    talloc = document_names("libtalloc2.copyright", "Format: https://www.debian.org/doc/packaging-manuals/copyright-"
                            "format/1.0/\nUpstream-Name: talloc\nSource: http://talloc.samba.org/\n\nFiles: *\n")
    assert ("talloc", "s") in talloc.names
    assert named_documents("Who holds the copyright on talloc's files?", [talloc]) == {"libtalloc2.copyright": "talloc s"}
    assert named_documents("Is talloc fast?", [talloc]) == {}      # one word alone is a word, as for file names
    prose = document_names("notes.txt", "Some notes\n\nName: not a record, the text opened with a title\n")
    assert not any("record" in name for name in prose.names)


def test_a_title_is_also_named_by_its_leading_words_and_the_acronym_of_the_rest() -> None:
    lgpl2 = names_of(REPO_ROOT / "tests" / "fixtures" / "heldout2" / "documents" / "LGPL-2.txt")
    assert {"library gpl", "library gpl 2", "gnu lgpl 2"} <= lgpl2
    assert {"lesser gpl", "lesser gpl 2.1"} <= names_of(HELDOUT / "LGPL-2.1.txt")
    assert not any(name.startswith("mozilla p") and len(name.split()) == 2 for name in names_of(HELDOUT / "MPL-1.1.txt"))


def test_titles_from_markdown_and_pdf_text_with_their_versions() -> None:
    fhs = document_names("fhs-3.0.pdf", "Filesystem Hierarchy Standard\nLSB Workgroup, The Linux Foundation\n"
                                        "Filesystem Hierarchy Standard\nVersion 3.0\n")
    assert {("fhs",), ("fhs", "3"), ("filesystem", "hierarchy", "standard", "3")} <= fhs.names
    spec = document_names("spec.html", "## Machine-readable debian/copyright file\n\n### *Version 1.0*\n")
    assert spec.title == "Machine-readable debian/copyright file" and ("copyright", "file", "1") not in spec.names
    assert ("machine", "readable", "debian", "copyright", "file", "1") in spec.names


@pytest.fixture(scope="module")
def licences(tmp_path_factory: pytest.TempPathFactory) -> Store:
    documents = tmp_path_factory.mktemp("licences")
    for path in LICENCES:
        shutil.copy(path, documents / path.name)
    store = Store(tmp_path_factory.mktemp("store") / "right_rag.duckdb")
    index_documents(documents, store)
    build_search_index(store, "default")
    return store


def test_the_longest_name_wins(licences: Store) -> None:
    names = store_names(licences)
    assert set(named_documents("Under GPL version 2, may I sell copies?", names)) == {"GPL-2.txt"}
    assert set(named_documents("What does the LGPL 2.1 say?", names)) == {"LGPL-2.1.txt"}
    assert set(named_documents("Is the GPL compatible with the MPL 2.0?", names)) == {"MPL-2.0.txt"}
    assert named_documents("How long must a written offer stay valid?", names) == {}


def test_a_licence_said_without_a_version_names_none_of_its_versions(licences: Store) -> None:
    """"The GPL" fits GPL-2 and GPL-3 and says neither: a question says it of something else's terms. Nothing is
    boosted, and the name's words count only in those versions, so the package's own stanza ranks first (before,
    both GPL texts were boosted above it); a question about the licence itself still finds the licence."""
    names = store_names(licences)
    question = "Which files of the package manager's sources are under the GPL?"
    found = identify(question, names)
    assert found.named == {} and found.versions == {"GPL-2.txt": "gpl", "GPL-3.0.txt": "gpl"}
    assert found.lexical == "Which files of the package manager's sources are under the  ?"
    assert named_documents("Can I relicense an LGPL 2.1 library under the GNU GPL?", names) == {
        "LGPL-2.1.txt": "lgpl 2.1"}
    assert search(licences, question, chunker="default", k=1)[0].document_id == "apt.copyright"
    hits = search(licences, "What does the GPL say about patents?", chunker="default", k=2)
    assert {hit.document_id for hit in hits} <= {"GPL-2.txt", "GPL-3.0.txt"}


QUESTION = "How does the LGPL 2.1 define a work that uses the Library?"


def test_a_question_naming_a_document_ranks_it_first(licences: Store) -> None:
    plain = search(licences, QUESTION, chunker="default", k=3, identity="none")
    assert plain[0].document_id == "LGPL-3.0.txt"  # without names, the other version wins
    for variant in ("boost", "first", "filter"):
        hits = search(licences, QUESTION, chunker="default", k=3, identity=variant)
        assert hits[0].document_id == "LGPL-2.1.txt" and hits[0].details.get("named") == "lgpl 2.1", variant
        assert [h.rank for h in hits] == [1, 2, 3]
    assert search(licences, QUESTION, chunker="default", k=3)[0].document_id == "LGPL-2.1.txt"  # the default


def test_an_unknown_variant_is_a_config_error(licences: Store) -> None:
    with pytest.raises(ConfigError, match="none, boost, first, filter"):
        search(licences, QUESTION, chunker="default", identity="rerank")


def test_the_name_a_question_says_is_taken_out_of_its_words(licences: Store) -> None:
    names = store_names(licences)
    said = identify("Under GPL version 2, may I sell copies?", names)
    assert said.named == {"GPL-2.txt": "gpl 2"} and said.lexical == "Under  , may I sell copies?"
    assert identify("Does GPLv2 allow linking?", names).lexical == "Does   allow linking?"
    assert identify("In the LGPL-2.1, what is a work that uses the Library?", names).lexical == \
        "In the  , what is a work that uses the Library?"
    for kept in ("What is the GPLv2?",                              # nothing but the name would be left
                 "Is the GPL compatible with the MPL 2.0?",         # two names: one is asked about in the other
                 "How long must a written offer stay valid?"):      # no name
        assert identify(kept, names).lexical == kept


@pytest.fixture(scope="module")
def quoting(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """GPL-2 and GPL-3 beside texts that quote licence names (Debian copyright files, the copyright-format
    specification, whose list of short names says "GPL-2.0+" and "any later version"), cut by the sample
    project's domain chunker."""
    return sample_spec_store(tmp_path_factory, "quoting", (
        HELDOUT / "GPL-2.txt", HELDOUT / "apt.copyright", HELDOUT / "curl.copyright",
        REPO_ROOT / "data" / "documents" / "GPL-3.0.txt",
        REPO_ROOT / "data" / "documents" / "copyright-format-1.0.html"))


def test_a_passage_that_quotes_a_name_earns_nothing_for_it(quoting: Store) -> None:
    """Before, "GPL-2.0+" and "version" scored the copyright-format specification's short-name list (or a copyright
    file's ``License: GPL-2+`` stanza) above every passage of GPL-2 even with the boost; now the name's words count
    only in the document it names."""
    question = "Under GPL-2.0+, can I use a later version?"
    plain = search(quoting, question, chunker="domain", k=3, identity="none")
    quoting_names = {"copyright-format-1.0.html", "apt.copyright", "curl.copyright"}
    assert plain[0].document_id in quoting_names  # the name's words, quoted there, win alone
    for variant in ("boost", "first", "filter"):
        clear_cache()
        for _ in range(2):  # the first search of a process and the in-memory snapshot rank alike
            hits = search(quoting, question, chunker="domain", k=3, identity=variant)
            assert hits[0].document_id == "GPL-2.txt" and hits[0].details.get("named") == "gpl 2", variant
    quoted = {h.chunk_id: h.score for h in plain if h.document_id in quoting_names}
    everything = search(quoting, question, chunker="domain", k=50, identity="boost")
    assert quoted and all(h.score < quoted[h.chunk_id] for h in everything if h.chunk_id in quoted)


NVIDIA = REPO_ROOT / "tests" / "fixtures" / "heldout7" / "documents" / "libxnvctrl0.copyright"
TWO_NAMES = "Under which licence is most of nvidia-settings, which libxnvctrl0 is built from?"
_SEARCH = """
import sys
from right_rag_dagster.retrieval import search
from right_rag_dagster.store import Store
hit = search(Store(sys.argv[1]), sys.argv[2], chunker="domain", k=1)[0]
print(hit.chunk_id, hit.details.get("named"), hit.attributes.get("files"))
"""


def test_a_question_that_writes_two_names_of_one_document_ranks_alike_in_every_process(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """"nvidia-settings" and "libxnvctrl0" both name libxnvctrl0.copyright. Which one named it was the first found
    in a set of names, so it changed with the process's hash seed, and with it the stanza ranked first: the one for
    every file, or ``src/libXNVCtrl/*``, whose pattern the name left in the question's words. Now the first said of
    equally long names is the name, and every name said is left out of the words a stanza's patterns must fit."""
    names = [document_names(NVIDIA.name, NVIDIA.read_text(encoding="utf-8"))]
    found = identify(TWO_NAMES, names)
    assert found.named == {NVIDIA.name: "nvidia settings"}
    assert found.said == {NVIDIA.name: "nvidia settings libxnvctrl 0"}
    store = sample_spec_store(tmp_path_factory, "nvidia", [NVIDIA])
    seen = set()
    for seed in ("0", "1", "2", "3"):
        done = subprocess.run([sys.executable, "-c", _SEARCH, str(store.path), TWO_NAMES], capture_output=True,
                              text=True, env={**os.environ, "PYTHONHASHSEED": seed}, timeout=120, check=True)
        seen.add(done.stdout.strip())
    assert len(seen) == 1, seen
    assert seen.pop().endswith("nvidia settings ['*']")


def test_an_html_page_is_also_named_by_its_title_tag(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Underscore.js's manual opens, as Markdown, with "v1.13.4 Downloads" and a table: the ``<title>`` its loader
    recorded names it, so "In Underscore.js, ..." names the page (it named nothing before)."""
    page = REPO_ROOT / "tests" / "fixtures" / "heldout29" / "documents" / "underscore-index.html"
    store = sample_spec_store(tmp_path_factory, "titled", [page, HELDOUT / "GPL-2.txt"])
    names = {n.document_id: {" ".join(name) for name in n.names} for n in store_names(store)}
    assert "underscore js" in names["underscore-index.html"] and "underscore js" not in names["GPL-2.txt"]
    question = "In Underscore.js, how do I stop an _.each loop early?"
    assert named_documents(question, store_names(store)) == {"underscore-index.html": "underscore js"}
    untitled = {" ".join(name) for name in document_names("underscore-index.html", "## v1.13.4 Downloads\n").names}
    assert "underscore js" not in untitled  # without the recorded title the page's own text names no "Underscore.js"


def test_a_text_that_opens_with_a_sentence_is_titled_by_a_line_that_shares_the_file_names_words() -> None:
    head = ("The HTML version of the Debian Python Policy can be found in the python3-dev package\n\n\n"
            "Navigation\n\n* Debian_Python_Policy_0.12.0.0_documentation »\n\nAbstract¶\n")
    assert document_names("python-policy.txt", head).title == "Debian Python Policy 0.12.0.0 documentation"
    assert document_names("notes.txt", head).title == "Navigation"     # no line shares a word: the first title-like


def test_the_names_an_answer_is_grounded_on_include_a_possessive_name_without_its_s(monkeypatch) -> None:
    """``libtdb1.copyright`` is tdb's (its Upstream-Name): "tdb" is a word of what the document is about, so an
    extractive answer to "Which licence covers tdb's tools?" counts it as covered."""
    from right_rag_dagster.retrieval.searching import identity

    path = REPO_ROOT / "tests" / "fixtures" / "heldout3" / "documents" / "libtdb1.copyright"
    names = document_names(path.name, path.read_text(encoding="utf-8"))
    monkeypatch.setattr(identity, "_names_by_document", lambda store: {names.document_id: names})
    assert "tdb" in identity.document_names_of(None, path.name).split()
