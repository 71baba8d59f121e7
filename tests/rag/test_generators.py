"""Generators: extractive quotes that slice back to the document, and LLM generators over real HTTP servers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from right_rag_dagster.errors import ConfigError
from right_rag_dagster.rag import (
    NOT_FOUND,
    ExtractiveGenerator,
    FunctionLLM,
    LLMGenerator,
    OllamaLLM,
    OpenAICompatibleLLM,
    make_generator,
    query,
)
from right_rag_dagster.rag.evidence import content_terms, coverage, passage_terms, weighted_coverage
from right_rag_dagster.rag.prompts import SYSTEM, build_messages, cited_numbers
from right_rag_dagster.retrieval import ServiceError, search
from right_rag_dagster.store import Store
from right_rag_dagster.store.texts import read_texts
from tests.conftest import REPO_ROOT
from tests.rag.llm_server import running_server


@pytest.fixture(scope="module")
def server() -> Iterator:
    with running_server() as server:
        yield server


def _document_text(store: Store, document_id: str) -> str:
    with store.read() as con:
        return read_texts(con, [document_id])[document_id]


@pytest.mark.parametrize("question", [
    "How long must a written offer for the source stay valid?",
    "What must debian/rules do when DEB_BUILD_OPTIONS contains nostrip?",
    "พระราชบัญญัตินี้ใช้บังคับเมื่อใด",
])
def test_extractive_citations_slice_back_to_the_cited_text(built_store: Store, question: str) -> None:
    answer = query(built_store, question, chunker="default", k=5)
    assert answer.found and answer.citations
    for citation in answer.citations:
        assert f"[{citation.number}]" in answer.text and citation.quote in answer.text
        assert citation.hit is answer.hits[citation.number - 1]
        text = _document_text(built_store, citation.hit.document_id)
        quoted = text[citation.quote_start:citation.quote_end]
        assert " ".join(quoted.split()) == citation.quote  # the exact span, whitespace collapsed
        assert citation.hit.source_start <= citation.quote_start < citation.quote_end <= citation.hit.source_end
        if citation.hit.joined:  # two neighbouring chunks: each one's span slices back to its text
            assert all(text[start:end] in citation.hit.text for _, _, start, end in citation.hit.joined)
            # the quote lies inside the chunk it names
            (start, end), = [(s, e) for c, _, s, e in citation.hit.joined if c == citation.chunk_id]
            assert start <= citation.quote_start < citation.quote_end <= end
        else:
            assert text[citation.hit.source_start:citation.hit.source_end] == citation.hit.text


def test_extractive_answer_quotes_the_evidence(built_store: Store) -> None:
    answer = query(built_store, "How long must a written offer for the source stay valid?", chunker="default")
    assert "three years" in answer.text


def test_extractive_says_not_found_without_evidence(built_store: Store) -> None:
    answer = query(built_store, "How many moons does Jupiter have?", chunker="default")
    assert not answer.found and answer.text == NOT_FOUND and answer.citations == ()
    assert ExtractiveGenerator().generate("anything at all", []).text == NOT_FOUND


def test_the_answer_gate_weighs_rare_terms(built_store: Store) -> None:
    """A passage that holds the question's common words but none of its rare ones covers little of it (each term
    weighs its BM25 IDF), though it holds most of the question's terms: at a gate of 1/3 it is no answer."""
    question = "May I distribute copies of the program under this licence to my zygomorphic hamster on Jupiter?"
    hits = search(built_store, question, chunker="default", k=5)
    terms = content_terms(question)
    answer = ExtractiveGenerator(built_store, min_coverage=1 / 3).generate(question, hits)
    assert coverage(terms, passage_terms(hits[0].text)) > 0.5  # the share of plain terms would answer
    assert not answer.found and answer.details["best_coverage"] < 1 / 3
    # without its off-corpus words the question is answered from the same licence
    plain = "May I distribute copies of the program under this licence?"
    assert ExtractiveGenerator(built_store, min_coverage=1 / 3).generate(plain, hits).found


def test_weighted_coverage_is_the_share_of_term_weight() -> None:
    weights = {"sighup": 3.0, "output": 0.5, "run": 0.5}
    assert weighted_coverage(weights, {"sighup", "wget"}) == pytest.approx(0.75)
    assert weighted_coverage(weights, {"output", "run"}) == pytest.approx(0.25)
    assert weighted_coverage({}, {"x"}) == 0.0


def test_prompt_asks_for_grounded_cited_answers(built_store: Store) -> None:
    hits = search(built_store, "DEB_BUILD_OPTIONS nostrip", chunker="default", k=2)
    system, user = build_messages("What is nostrip?", hits)
    assert system["content"] == SYSTEM and "only" in SYSTEM and "[1]" in SYSTEM and NOT_FOUND in SYSTEM
    assert user["content"].startswith("Excerpts:\n\n[1] (debian-policy.pdf, p. ")
    assert "\n\n[2] (" in user["content"] and user["content"].rstrip().endswith("Answer with [n] citations:")
    assert cited_numbers("x [2] y [1, 3][9] z [2]", 3) == [2, 1, 3]


@pytest.mark.parametrize("make, path", [
    (lambda url: OllamaLLM("llama3.2", url), "/api/chat"),
    (lambda url: OpenAICompatibleLLM("gpt-test", url + "/v1", api_key="sk-1"), "/v1/chat/completions"),
])
def test_llm_generators_over_http(built_store: Store, server, make, path) -> None:  # noqa: ANN001
    server.requests.clear()
    answer = query(built_store, "What must debian/rules do with DEB_BUILD_OPTIONS?", chunker="default", k=3,
                   generator=LLMGenerator(make(server.url)))
    assert answer.found and [c.number for c in answer.citations] == [1, 2]
    assert answer.text.endswith("[1][2]") and answer.citations[0].hit.rank == 1
    request = server.requests[-1]
    assert request["path"] == path and request["body"]["messages"][0]["content"] == SYSTEM
    assert "DEB_BUILD_OPTIONS" in request["body"]["messages"][1]["content"]
    assert request["body"].get("temperature", request["body"].get("options", {}).get("temperature")) == 0
    missing = query(built_store, "How many moons does Jupiter have?", chunker="default",
                    generator=LLMGenerator(make(server.url)))
    assert not missing.found and missing.text == NOT_FOUND and missing.citations == ()


def test_generators_from_settings_strings(server) -> None:  # noqa: ANN001
    assert make_generator(None).generator_name == "extractive"
    assert make_generator("ollama:llama3.2", url=server.url).generator_name == "llm:ollama:llama3.2"
    assert make_generator("openai:gpt", url=server.url).generator_name == "llm:openai:gpt"
    with pytest.raises(ConfigError, match="unknown LLM"):
        make_generator("claude")
    with pytest.raises(ServiceError, match="HTTP 500"):
        OllamaLLM("broken", server.url).chat([{"role": "user", "content": "hi"}])


def test_function_llm_sees_the_prompt(built_store: Store) -> None:
    seen = []

    def reply(messages: list[dict[str, str]]) -> str:
        seen.append(messages)
        return "It is described in excerpt [2]."

    answer = query(built_store, "What is the GPL?", chunker="default", k=3, generator=reply)
    assert [c.number for c in answer.citations] == [2] and answer.settings["generator"] == "llm:function:reply"
    assert len(seen) == 1 and seen[0][1]["content"].count("\n\n[") == 3  # excerpts [1] [2] [3]
    assert FunctionLLM(reply).model == "function:reply"


@pytest.mark.parametrize("question, evidence", [
    ("How long must a written offer for the source stay valid?",
     "valid for at least three years and valid for as long as you offer spare parts"),
    ("Do I have to accept the GPL just to receive or run a copy of the program?",
     "You are not required to accept this License in order to receive or run a copy of the Program."),
])
def test_extractive_answers_quote_the_evidence_from_the_best_ranked_passage(built_store: Store, question: str,
                                                                             evidence: str) -> None:
    answer = query(built_store, question, chunker="default", k=5)
    assert answer.found and len(answer.citations) == 1
    assert " ".join(evidence.split()) in answer.text
    assert len(answer.text) <= 700  # a run of sentences, not a passage dump


def test_extractive_answers_never_quote_a_table_of_contents(built_store: Store) -> None:
    answer = query(built_store, "Which section describes the Standards-Version field?", chunker="default", k=5)
    assert answer.found and ". . . ." not in answer.text and "....." not in answer.text


def test_extractive_quote_takes_the_sentence_that_continues_or_completes_the_best_one() -> None:
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    text = ("Byte-compiled modules (foo.pyc files) must not ship in the package. Instead, they should be generated "
            "in the post-install script. Unrelated remarks follow here.")
    weights = {"pyc": 2.0, "ship": 1.0, "packag": 0.5}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 3, weights)
    assert text[quote.start:quote.end].endswith("post-install script.")      # "Instead, they ..." continues it
    text = ("The optional X-Python3-Version field specifies the versions supported. When not specified, it defaults "
            "to all currently supported versions. Other fields exist.")
    weights = {"x-python3-vers": 3.0, "field": 0.5, "default": 1.0, "specifi": 0.5}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 3, weights)
    assert "defaults to all currently supported versions" in text[quote.start:quote.end]   # adds "default"
    assert "Other fields" not in text[quote.start:quote.end]


@pytest.mark.parametrize("opening", ["To avoid this, we", "To do so, we", "Doing so, we", "In this way, we",
                                     "To break this cycle, we", "To get around that, we"])
def test_extractive_quote_takes_the_sentence_that_says_what_to_do_about_the_last_one(opening: str) -> None:
    """nghttp2's documentation README: the sentence that opens "To avoid this, ..." is the answer the two before it
    lead up to."""
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    text = ("In Sphinx doc, usually the function argument is formatted like *this*. But in C, * is used for "
            f"dereferencing a pointer and we must escape * with a back slash. {opening} write the argument in "
            "bold. The script requires strict rules.")
    weights = {"sphinx": 3.0, "function": 1.0, "argument": 1.0, "format": 0.5}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 5, weights)
    assert text[quote.start:quote.end].endswith("argument in bold.")


def test_extractive_quotes_a_copyright_stanza_whole_and_never_a_heading_alone() -> None:
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    stanza = "Files: compile depcomp missing\nCopyright: 1999-2020 Free Software Foundation, Inc.\nLicense: GPL-2+\n"
    weights = {"compil": 3.0, "depcomp": 3.0, "licens": 0.2}
    quote = choose_quote(score_passages(weights, [(stanza, "")]), 600, 3, weights)
    assert stanza[quote.start:quote.end].endswith("License: GPL-2+")
    text = "Upstream-Contact\n\nThe preferred address(es) to reach the upstream project. May be free-form text.\n"
    weights = {"upstream-contact": 4.0, "upstream": 1.0, "contact": 1.0}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 3, weights)
    assert "preferred address(es)" in text[quote.start:quote.end]


def test_extractive_reads_a_label_line_apart_from_the_body_it_heads() -> None:
    """A man page's entry label (``Build-Profiles: restriction-formula`` over an indented body) is a heading, not
    part of the first sentence: its words no longer make that sentence outweigh the one that answers."""
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    text = ("Build-Profiles: restriction-formula\n"
            "       This field specifies the conditions for which this binary package\n"
            "       does or does not build.  To express that condition, the same\n"
            "       restriction formula syntax is used.\n"
            "       If a binary package stanza does not contain this field, then it\n"
            "       implicitly means that it builds with all build profiles.\n")
    weights = {"build-profil": 3.0, "profil": 2.4, "build": 0.9, "binari": 0.9, "stanza": 1.8, "field": 0.9}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 5, weights)
    assert text[quote.start:quote.end].startswith("If a binary package stanza does not contain this field")


def test_extractive_keeps_the_prose_lines_of_a_sentence_that_holds_a_synopsis_line() -> None:
    """A table row or a synopsis line (``deb|udeb|type``) inside a sentence drops that line, not the sentence."""
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    text = "The format is\n    deb|udeb|type\nwhere deb is the default value, assumed if the field is absent.\n"
    weights = {"default": 1.0, "absent": 3.0, "field": 0.5}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 5, weights)
    assert quote is not None and "assumed if the field is absent" in text[quote.start:quote.end]
    assert "deb|udeb" not in text[quote.start:quote.end]


def test_extractive_quote_takes_the_sentences_a_back_reference_points_to() -> None:
    """"For this reason, ..." and "Hence ..." refer back: the sentences before them join the quote (the reason a
    "why" question asks for is stated there)."""
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    text = ("It appears that the arithmetic coding option is covered by patents. Hence it cannot legally be used "
            "without a licence. For this\nreason, support for arithmetic coding has been removed from the free "
            "software. The decoder is unchanged. Other remarks follow.")
    weights = {"arithmet": 3.2, "code": 1.1, "remov": 1.2, "free": 1.3, "softwar": 1.1}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 5, weights)
    assert text[quote.start:quote.end].startswith("It appears that the arithmetic coding option is covered by patents")
    assert text[quote.start:quote.end].endswith("The decoder is unchanged.")  # the sentence after the best one
    assert "Other remarks" not in text[quote.start:quote.end]


def test_extractive_quote_takes_what_a_sentence_ending_in_a_colon_introduces() -> None:
    """A sentence that ends with a colon ("... runs its post-installation script as:") says what follows it: the
    next sentence joins the quote even when it shares no word with the question."""
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    text = ("When a package has triggers pending, the package manager runs its post-installation script as:\n\n"
            "   postinst triggered \"<trigger-name> <trigger-name> ...\"\n\n"
            "by passing a space-separated list of names as the second argument.\n\n"
            "Each relevant package is processed once.\n")
    weights = {"pend": 2.0, "trigger": 2.0, "packag": 0.5, "script": 1.0}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 5, weights)
    assert text[quote.start:quote.end].endswith("as the second argument.")
    assert "processed once" not in text[quote.start:quote.end]


def test_extractive_quote_takes_the_how_that_a_sentence_announces() -> None:
    """"Fortunately, this can be solved using a configuration-time option (for GCC)." says the fix follows: the
    sentence that gives it joins the quote though it shares no word with the question (Helgrind's manual)."""
    from right_rag_dagster.rag.extractive import _introduces, choose_quote, score_passages

    text = ("The GNU OpenMP runtime library constructs its own synchronisation primitives using atomic instructions "
            "and the futex syscall, which causes total chaos in the thread error checker. Fortunately, this can be "
            "solved using a configuration-time option (for GCC). Rebuild GCC from source, and configure using "
            "--disable-linux-futex. Other remarks follow. More remarks follow.")
    weights = {"openmp": 3.0, "chao": 2.0, "thread": 1.0, "error": 1.0, "checker": 1.0, "usabl": 1.0}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 5, weights)
    assert text[quote.start:quote.end].endswith("configure using --disable-linux-futex.")
    assert "remarks" not in text[quote.start:quote.end]
    assert not _introduces("This can be fixed by setting the variable.")  # says how itself
    assert not _introduces("The options are listed in the manual.")


def test_extractive_answers_a_definition_question_with_the_sentence_that_defines_the_term() -> None:
    """"What is an independent module?": the sentence that opens by saying what an independent module is answers,
    though another sentence of the passage says more of the question's words."""
    from right_rag_dagster.rag.evidence import content_terms
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    text = ("As a special exception, the copyright holders of this library give you permission to link this library "
            "with independent modules to produce an executable, regardless of the license terms of these independent "
            "modules. An independent module is a module which is not derived from or based on this library. "
            "If you modify this library, you may extend this exception to your version of the library.")
    weights = dict.fromkeys(content_terms("In the GPL with the Classpath exception, what is an independent module?"),
                            1.0)
    quote = choose_quote(score_passages(weights, [(text, "")], definition=True), 600, 1, weights)
    assert text[quote.start:quote.end] == ("An independent module is a module which is not derived from or based on "
                                           "this library.")
    # a question that asks for no definition keeps the sentence that covers most of it
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 1, weights)
    assert text[quote.start:quote.end].startswith("As a special exception")


def test_extractive_quotes_what_a_passage_says_not_the_heading_that_names_it() -> None:
    """A heading ("### PC/SC Lite License") says the document's name, which the question says too: it outweighed
    the sentence that answers ("The name of the author may not be used to endorse or promote ...") and the answer
    quoted the heading and the licence's first clause."""
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    text = ("### PC/SC Lite License\n\n```\nRedistribution and use in source and binary forms, with or without\n"
            "modification, are permitted provided that the following conditions are met:\n\n"
            "1. Redistributions of source code must retain the above copyright notice.\n"
            "2. The name of the author may not be used to endorse or promote products\n"
            "   derived from this software without specific prior written permission.\n```\n")
    weights = {"us": 2.9, "pc/sc": 2.9, "pc": 2.9, "sc": 2.9, "lite": 2.9, "author": 1.2, "name": 0.8, "promot": 2.3,
               "product": 2.0, "deriv": 1.6}
    quote = choose_quote(score_passages(weights, [(text, "PC/SC Lite License PC/SC Lite")]), 600, 1, weights)
    assert text[quote.start:quote.end].startswith("The name of the author may not be used to endorse")
    # a passage of headings alone still answers with its best one
    headings = "### PC/SC Lite License\n\n### Other notices\n"
    quote = choose_quote(score_passages(weights, [(headings, "")]), 600, 1, weights)
    assert headings[quote.start:quote.end] == "### PC/SC Lite License"


def test_extractive_quote_takes_the_detail_the_best_sentence_announces() -> None:
    """The sentence after the best one joins the quote: the answer to "why" is in "The reason is that ..." (zlib's
    usage example), which shares no word with the question."""
    from right_rag_dagster.rag.evidence import content_terms
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    text = ("We need to use feof() to check for end-of-file as opposed to seeing if fewer than CHUNK bytes have been "
            "read. The reason is that if the input file length is an exact multiple of CHUNK, we will miss the fact "
            "that we got to the end-of-file, and not know to tell deflate() to finish up the compressed stream. If "
            "we are at the end of file, then flush is set to the zlib constant Z_FINISH.")
    weights = dict.fromkeys(content_terms("Why does zpipe.c check feof() instead of whether fewer than CHUNK bytes "
                                          "were read?"), 1.0)
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 5, weights)
    assert text[quote.start:quote.end].startswith("We need to use feof()")
    assert text[quote.start:quote.end].endswith("finish up the compressed stream.")


def test_extractive_quote_spans_the_sentences_that_match_the_question_alike() -> None:
    """Of two sentences of a passage that cover the question nearly alike, the later one answers it: zlib's
    algorithm.txt, "What limits does deflate put on match distances and lengths?" (the terms' BM25 weights)."""
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    text = (REPO_ROOT / "tests" / "fixtures" / "heldout7" / "documents" / "zlib-algorithm.txt").read_text()
    text = text[:text.index("The trees are stored")]
    weights = {"limit": 1.31, "deflat": 2.44, "put": 1.73, "match": 1.45, "distanc": 2.72, "length": 1.9}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 5, weights)
    quoted = " ".join(text[quote.start:quote.end].split())
    assert "Distances are limited to 32K bytes, and lengths are limited to 258 bytes." in quoted
    assert quoted.endswith("match distances are compressed with another tree.") and len(quoted) <= 600


def test_extractive_quotes_a_second_passage_that_answers_as_well_as_the_first() -> None:
    """Two passages of the PAM MiniPolicy both say "common-session or common-session-noninteractive"; the second
    says when to use which. Rank alone cannot tell them apart: both are quoted. An unrelated passage is not."""
    from right_rag_dagster.rag.evidence import content_terms
    from right_rag_dagster.rag.extractive import choose_quote, score_passages, second_quote

    policy = REPO_ROOT / "tests" / "fixtures" / "heldout6" / "documents" / "pam-minipolicy.txt"
    lines = policy.read_text().splitlines()
    first, second = "\n".join(lines[22:29]), "\n".join(lines[30:34])
    weights = dict.fromkeys(content_terms("When should a PAM service include common-session-noninteractive instead "
                                          "of common-session?"), 1.0)
    passages = score_passages(weights, [(first, ""), (second, "")])
    quote = choose_quote(passages, 600, 5, weights)
    assert quote is not None and quote.number == 1
    other = second_quote(passages, quote, 600, 5, weights)
    assert other is not None and other.number == 2
    assert "non-interactive session" in second[other.start:other.end]
    unrelated = score_passages(weights, [(first, ""), ("Each module is loaded from /lib/security.", "")])
    assert second_quote(unrelated, choose_quote(unrelated, 600, 5, weights), 600, 5, weights) is None


def test_focus_terms_are_the_words_that_say_what_kind_of_answer_is_asked_for() -> None:
    from right_rag_dagster.rag.extractive import focus_terms

    assert focus_terms("In what pixel format does GetCursorImage return the cursor image?") == ["pixel", "format"]
    assert focus_terms("What error does ShowCursor generate?") == ["error"]
    assert focus_terms("How many collaborators must approve a pull request?") == ["collabor"]
    # no verb after them (a verb of the question itself), or no such word at all
    assert focus_terms("What happens when BC_LINE_LENGTH is set to zero?") == []
    assert focus_terms("What does the nocheck flag mean?") == []
    assert focus_terms("Why must the UID 65535 never be used?") == []


def test_answer_cue_is_the_kind_of_sentence_a_why_or_how_much_question_asks_for() -> None:
    from right_rag_dagster.rag.extractive import answer_cue

    why = answer_cue("On an IBM Z mainframe, what turns that off for reproducible builds, and why?")
    assert why is not None and why.search("disabled, because its output may not be reproducible")
    assert not why.search("The liblzma compression library retained its name.")
    amount = answer_cue("How much does --track-origins=yes slow Memcheck down?")
    assert amount is not None and amount.search("It halves Memcheck's speed") and amount.search("by 100MB")
    when = answer_cue("When does Debian create a new PostgreSQL package instead of upgrading the existing one?")
    assert when is not None and when.search("after a new major version is released")
    assert answer_cue("When I convey object code inside a physical product, how long must the offer stay valid?") \
        is answer_cue("How long must it stay valid?")  # a condition, then "how long": an amount, not a time
    where = answer_cue("Where does Ninja keep the log of the commands used to build each file?")
    assert where is not None and where.search("stored in the .ninja_log file") and where.search("in /var/lib/dpkg")
    assert answer_cue("How do I make wget ignore robots.txt?") is None
    assert answer_cue("What does the nocheck flag mean?") is None
    # the least or most of something is an amount too ("PollIntervalMinSec= defaults to 32 seconds and must not be
    # smaller than 16 seconds"); a default, by itself, need not be
    assert answer_cue("What is the smallest minimum polling interval I may configure, and what is its default?") \
        is amount
    assert answer_cue("What size may a stream have at most?") is amount
    assert answer_cue("What is the default editor?") is None


def test_extractive_answer_to_why_quotes_the_passage_that_gives_the_reason() -> None:
    """"Why is the compression library of XZ Utils still called liblzma?": the first passage names liblzma three
    times and gives no reason; the second says "because". Without the cue only the first is quoted (the terms' BM25
    weights in heldout12's store)."""
    from right_rag_dagster.rag.extractive import answer_cue, choose_quote, score_passages, second_quote

    lines = (REPO_ROOT / "tests" / "fixtures" / "heldout12" / "documents" / "xz-history.txt").read_text().splitlines()
    passages = [("\n".join(lines[132:135]), ""), ("\n".join(lines[136:141]), "")]
    question = "Why is the compression library of XZ Utils still called liblzma?"
    weights = {"compress": 1.59, "librari": 1.0, "xz": 2.29, "util": 1.68, "still": 4.06, "call": 1.08, "liblzma": 3.36}
    for cue, quoted in ((None, False), (answer_cue(question), True)):
        scored = score_passages(weights, passages, cue=cue)
        first = choose_quote(scored, 600, 5, weights)
        assert first is not None and first.number == 1
        second = second_quote(scored, first, 600, 5, weights)
        assert (second is not None and "because changing it" in passages[1][0][second.start:second.end]) is quoted


def test_extractive_quote_weighs_the_focus_of_the_question() -> None:
    """"In what pixel format does GetCursorImage return the cursor image?": the sentence that names GetCursorImage
    covers more of the question, the one that says "32 bits per pixel" answers it (XFIXES, the terms' BM25
    weights)."""
    from right_rag_dagster.rag.extractive import choose_quote, focus_weights, score_passages

    lines = (REPO_ROOT / "tests" / "fixtures" / "heldout7" / "documents" / "fixesproto.txt").read_text().splitlines()
    text = "\n".join(lines[194:220])
    question = "In what pixel format does GetCursorImage return the cursor image?"
    weights = {"pixel": 2.24, "format": 0.94, "getcursorimag": 2.83, "return": 1.71, "cursor": 2.24, "imag": 2.08}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 1, weights)
    assert text[quote.start:quote.end].startswith("GetCursorImage returns the image")  # without the focus
    focused = focus_weights(question, weights)
    quote = choose_quote(score_passages(focused, [(text, "")]), 600, 1, focused)
    assert text[quote.start:quote.end].startswith("The cursor image itself is returned as a single image at 32")


def test_extractive_sentences_count_the_heading_line_they_sit_under() -> None:
    """The OpenJDK licence's passage opens with the heading line '"CLASSPATH" EXCEPTION TO THE GPL': the clause under
    it that answers "do I have to keep the exception?" says neither word, the sentence that names them does not
    answer."""
    from right_rag_dagster.rag import extractive
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    lines = (REPO_ROOT / "tests" / "fixtures" / "heldout3" / "documents" / "openjdk-LICENSE.txt").read_text()
    text = "\n".join(lines.splitlines()[325:347])
    weights = {"modifi": 1.08, "librari": 0.95, "gpl": 1.44, "v2": 1.96, "classpath": 3.24, "except": 1.53,
               "keep": 2.76, "version": 0.28}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 1, weights)
    assert " ".join(text[quote.start:quote.end].split()).startswith("If you modify this library, you may extend")
    saved = extractive.UNDER_WEIGHT
    try:
        extractive.UNDER_WEIGHT = 0.0
        quote = choose_quote(score_passages(weights, [(text, "")]), 600, 1, weights)
    finally:
        extractive.UNDER_WEIGHT = saved
    assert text[quote.start:quote.end].startswith("Certain source files distributed by Oracle")


def test_extractive_quote_opens_with_the_sentence_a_therefore_follows_from() -> None:
    """The best sentence opens with "Therefore": the sentence before it joins first, even when the sentence after it
    matches more of the question and only two fit."""
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    text = ("The cache holds every reply for an hour. Therefore, a stale reply can be served for up to an hour. "
            "Stale replies are served only when the upstream server cannot be reached. Other remarks follow.")
    weights = {"stale": 2.0, "repli": 1.0, "serv": 1.5, "hour": 1.0}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 2, weights)
    assert text[quote.start:quote.end] == ("The cache holds every reply for an hour. Therefore, a stale reply can be "
                                           "served for up to an hour.")


def test_extractive_reads_a_faq_question_as_the_heading_of_its_answer() -> None:
    """xz-utils' FAQ (tests/fixtures/heldout13): the "Q:" sentences share the most words with a user's question and
    answer nothing; they count as a heading over the answer, whose sentences then outweigh them. Read as prose, the
    quote was the question and the answer's first sentence, and missed the sentence that answers."""
    from right_rag_dagster.rag.evidence import content_terms
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    faq = (REPO_ROOT / "tests" / "fixtures" / "heldout13" / "documents" / "xz-faq.txt").read_text()
    start = faq.index("Q:  I told xz to use many threads")
    text = faq[start:faq.index("\nQ:", start)].rstrip()
    weights = dict.fromkeys(content_terms("Why does xz use only one core on a small file when I ask for many "
                                          "threads?"), 1.0)
    scored = score_passages(weights, [(text, "")])
    asked = [s for s in scored[0] if s.start < text.index("A:  ")]  # "I told xz ...", "What is wrong?"
    assert len(asked) == 2 and all(s.heading for s in asked)
    quote = choose_quote(scored, 600, 5, weights)
    assert quote.start >= text.index("A:  ")
    assert "then many threads cannot be used" in " ".join(text[quote.start:quote.end].split())


def test_extractive_reads_a_question_line_as_the_heading_of_its_answer() -> None:
    """procps' FAQ (tests/fixtures/heldout15) asks on a line of its own, without "Q:": the question shares the
    user's words and answers nothing, so it is a heading over the answer, quoted only with it."""
    from right_rag_dagster.rag.evidence import content_terms
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    faq = (REPO_ROOT / "tests" / "fixtures" / "heldout15" / "documents" / "procps-FAQ.txt").read_text()
    start = faq.index("Why do long usernames get printed as numbers?")
    text = faq[start:faq.index("\nWhy is %CPU", start)].rstrip()
    weights = dict.fromkeys(content_terms("Why are long usernames printed as numbers?"), 1.0)
    scored = score_passages(weights, [(text, "")])
    assert scored[0][0].heading and scored[0][0].end <= text.index("\n")
    quote = choose_quote(scored, 600, 5, weights)
    assert quote.end > text.index("\n")
    assert "printed as decimal integers when there is not enough room" in " ".join(text[quote.start:quote.end].split())


def test_a_record_whose_first_field_asks_stays_one_record() -> None:
    """A stanza whose first field ends in "?" ("Comment: Is this right?") is a record, not a question over an answer:
    its fields are quoted together."""
    from right_rag_dagster.rag.extractive import prose_sentences

    text = "Comment: Is this right?\nLicense: GPL-2\nFiles: *"
    assert prose_sentences(text) == [(0, len(text))]


def test_extractive_quote_takes_the_sentence_the_latter_refers_to() -> None:
    """Python's email architecture: "The latter is used to represent a multipart MIME message." says nothing without
    the sentence that names the two things."""
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    text = ("A payload can be one of two things: data, or a list of Message objects. The latter is used to represent "
            "a multipart MIME message. Headers are kept in order. Other remarks follow.")
    weights = {"multipart": 3.0, "mime": 2.0, "messag": 0.5, "repres": 1.0}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 2, weights)
    assert text[quote.start:quote.end] == ("A payload can be one of two things: data, or a list of Message objects. "
                                           "The latter is used to represent a multipart MIME message.")


def test_extractive_sentences_do_not_count_the_words_of_an_address() -> None:
    """A copyright file's header stanza links the format's "debian.org/doc/packaging-manuals": that is not who did
    the Debian packaging."""
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    text = ("The format is described at https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/ online. "
            "The Debian packaging was done by Jane Doe in 2012. Other remarks follow.")
    weights = {"debian": 1.0, "packag": 1.5}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 1, weights)
    assert text[quote.start:quote.end] == "The Debian packaging was done by Jane Doe in 2012."


def test_extractive_sentences_do_not_count_the_names_of_their_document() -> None:
    """Tcl's README: the question names the language ("Tcl"), which every sentence of its README names too; the
    sentence that says what may be done with it answers, not the one that says its name most."""
    from right_rag_dagster.rag.extractive import choose_quote, distinctive_name_terms, score_passages
    from right_rag_dagster.retrieval.searching.doc_names import document_names

    text = ("When paired with the Tk toolkit, Tcl provides the fastest way to create GUI applications. "
            "You can modify it and sell it in whole or in part. Other remarks follow.")
    weights = {"tcl": 3.0, "gui": 0.5, "modifi": 1.0, "sell": 1.0}
    quote = choose_quote(score_passages(weights, [(text, "")]), 600, 1, weights)
    assert text[quote.start:quote.end].startswith("When paired")  # without the names, "Tcl" decides
    names = (document_names("tcl-README.md", "# Tcl\n\nTcl is a scripting language."),
             document_names("xv-protocol.txt", "X Video Extension Protocol Specification\n"),
             document_names("recordproto.txt", "Record Extension Protocol Specification\n"),
             document_names("dpms.txt", "Display Power Management Signaling Extension Protocol Specification\n"))
    named = distinctive_name_terms(names)
    assert "tcl" in named["tcl-README.md"] and "record" in named["recordproto.txt"]
    assert not {"extens", "protocol"} & named["recordproto.txt"]  # three documents' names hold them: not a name
    quote = choose_quote(score_passages(weights, [(text, "")], known=[named["tcl-README.md"]]), 600, 1, weights)
    assert text[quote.start:quote.end] == "You can modify it and sell it in whole or in part."


def test_extractive_quote_takes_the_conditional_that_refers_back() -> None:
    """GDB's README on `--with-expat`: "If it is unavailable, some features ... will not be available" is what a
    build without Expat loses; it opens by referring to the sentence before it, as "It ..." would."""
    from right_rag_dagster.rag.extractive import choose_quote, score_passages

    readme = (REPO_ROOT / "tests" / "fixtures" / "heldout24" / "documents" / "gdb-README.txt").read_text()
    start = readme.index("`--with-system-zlib")  # the chunk BM25 ranks first
    text = readme[start:readme.index("`--with-python", start)]
    weights = {"lose": 2.76, "build": 1.21, "gdb": 1.94, "without": 4.25, "expat": 1.81, "xml": 1.67,
               "librari": 0.94}  # BM25's IDF in heldout24's index
    # "gdb" names the document (``name_terms``): it says which document, not which sentence, answers
    quote = choose_quote(score_passages(weights, [(text, "Installing GDB `configure' options")], known=[{"gdb"}]),
                         600, 5, weights)
    assert "If it is unavailable, some features" in " ".join(text[quote.start:quote.end].split())


def test_the_answer_gate_does_not_weigh_what_bm25_drops() -> None:
    """"without" is one of BM25's stopwords: never indexed, its document frequency of 0 is no rarity, so a passage
    that lacks it is not held to have missed the question's rarest word. "mean" is a stopword too, but "means"
    makes its stem, which the index holds: that weight is real. A question of stopwords alone keeps its weights."""
    from right_rag_dagster.rag.evidence import gate_weights

    weights = {"lose": 2.8, "gdb": 1.9, "without": 4.3, "expat": 1.8, "mean": 0.4}
    question = "What do I lose if I build GDB without Expat, and what does it mean?"
    assert gate_weights(weights, question, {"without"}) == {
        "lose": 2.8, "gdb": 1.9, "without": 0.0, "expat": 1.8, "mean": 0.4}
    assert weighted_coverage(gate_weights(weights, question, {"without"}), {"lose", "gdb", "expat", "mean"}) == 1.0
    assert gate_weights({"without": 4.3, "mean": 4.3}, "What does without mean?", {"without", "mean"}) == {
        "without": 4.3, "mean": 4.3}


def test_rest_explicit_markup_is_never_a_sentence_to_quote() -> None:
    """cmake-presets(7)'s title block in reST: ``.. only:: html`` and ``.. contents::`` under the title were
    "sentences" the answer quoted for a question naming the manual ("cmake-presets(7) **** .. only:: html ..
    contents::"); a directive, a target or a comment is markup, like a line of code."""
    from right_rag_dagster.rag.extractive import prose_sentences

    text = ("cmake-presets(7)\n****************\n\n.. only:: html\n\n   .. contents::\n      :local:\n\n"
            ".. _presets-intro:\n\nIntroduction\n============\n\n.. versionadded:: 3.19\n\n"
            "One problem CMake users face is sharing settings.\n\n.. to the maximum, as the device allows.")
    quoted = [text[a:b] for a, b in prose_sentences(text)]
    assert quoted == ["cmake-presets(7)", "Introduction", "One problem CMake users face is sharing settings.",
                      ".. to the maximum, as the device allows."]  # an ellipsis opening a line is prose


def test_man_page_prose_with_the_tabs_col_leaves_is_quoted_and_a_tab_separated_table_is_not() -> None:
    """``man | col -b`` writes tabs for the spaces of indented, justified prose: strace(1)'s ``-s`` entry ("Note that
    filenames are not considered strings ...") was read as table rows, so its answer quoted another option. The rows
    of a protocol's tab-separated request layout stay out."""
    from right_rag_dagster.rag.extractive import prose_sentences

    fixtures = Path(__file__).resolve().parents[1] / "fixtures"
    strace = (fixtures / "heldout36" / "documents" / "strace.1.txt").read_text(encoding="utf-8")
    start = strace.index("-s strsize")
    entry = strace[start:strace.index("are always printed in full.", start) + len("are always printed in full.")]
    assert "\t" in entry
    quoted = [" ".join(entry[a:b].split()) for a, b in prose_sentences(entry)]
    assert quoted[-1] == "Note that filenames are not considered strings and are always printed in full."
    layout = (fixtures / "heldout21" / "documents" / "dri2proto.txt").read_text(encoding="utf-8")
    rows = layout[layout.index("\t4\tCARD32\t\t\tinterval") - 40:layout.index("\t4\tCARD32\t\t\tinterval") + 30]
    assert not any("CARD32" in rows[a:b] for a, b in prose_sentences(rows))
    from right_rag_dagster.rag.extractive import _tab_row

    for row in ("\t4\tCARD32\tpitch", "\t\tx:\t\t\tINT16", "Name\tVersion\tStatus"):  # narrow cells: gaps under 4
        assert _tab_row(row), row
    for tagged in ("\t\t   all\t\tTrace all system calls.", "save\t\tSave the buffer when it was modified."):
        assert not _tab_row(tagged), tagged  # strace(1)'s and Vim's definition lists: a tag and its sentence
    assert _tab_row("pcm STR\t\t# Slave PCM name")  # a configuration line and its comment


def test_a_sentence_that_opens_mid_line_expands_its_tabs_from_its_own_column() -> None:
    """Expanded from the margin, "ab<tab>cd<tab>ef gh" has two wide gaps; from the column where its line puts it, one
    space and one gap: prose."""
    from right_rag_dagster.rag.extractive import _tab_row

    assert _tab_row("ab\tcd\tef gh") and not _tab_row("ab\tcd\tef gh", lead="\txxxxx")
    from right_rag_dagster.rag.extractive import prose_sentences

    nsswitch = (Path(__file__).resolve().parents[1] / "fixtures" / "heldout13" / "documents" / "nsswitch.conf.5.txt"
                ).read_text(encoding="utf-8")
    start = nsswitch.index("\t   tryagain    The")  # the tag opens the line 11 columns in
    entry = nsswitch[start:nsswitch.index("\n\n", start)]
    assert "tryagain The service is temporarily unavailable." in [
        " ".join(entry[a:b].split()) for a, b in prose_sentences(entry)]


def test_an_answer_shows_the_words_man_hyphenated_at_line_ends_whole() -> None:
    """nsswitch.conf(5) breaks "applica‐" over "tions": the answer reads "applications" (the citation's span, with a
    store, is still the document's own text)."""
    from right_rag_dagster.retrieval.hits import Hit

    text = ("The GNU C Library ignores databases with unknown names.  Some applica\u2010\n       tions use this to "
            "implement special handling for their own databases.")
    hit = Hit(1, "c1", "domain", "nsswitch.conf.5.txt", "u1", text, 9.0, 0, len(text), None, None, None, None,
              ("DESCRIPTION",))
    answer = ExtractiveGenerator().generate("Which applications implement special handling for databases?", [hit])
    assert "Some applications use this to implement special handling" in answer.text


def test_a_quote_that_ends_on_a_lead_in_goes_on_into_the_next_chunk() -> None:
    """CC BY 4.0's 6(b) ends "..., it reinstates:" and what reinstates them is the list in the next chunk
    (tests/fixtures/heldout4): when both are parts of one joined hit, the answer quotes the list's opening too,
    a lead-in alone answers nothing. Not when the next chunk opens with a heading (another section), when text the
    sentences leave out lies between (a table after the lead-in, a list of names, a heading between the chunks),
    when the opening does not fit in what is left of the answer's length, or when there is no next chunk."""
    from right_rag_dagster.rag.extractive import choose_quote, continuation, score_passages

    lead = ("a. This Public License applies for the term of the Copyright.\n\n"
            "b. Where Your right to use the Licensed Material has terminated under\n"
            "     Section 6(a), it reinstates:")
    items = ("1. automatically as of the date the violation is cured, provided\n"
             "          it is cured within 30 days of Your discovery of the\n          violation; or\n\n"
             "       2. upon express reinstatement by the Licensor.")
    weights = dict.fromkeys(content_terms("When are my terminated rights reinstated?"), 1.0)

    def follows(first: str, second: str, between: str = "\n\n", max_chars: int = 600):  # noqa: ANN202
        passages = score_passages(weights, [(first, ""), (second, "")])
        quote = choose_quote(passages, max_chars, 5, weights)
        assert quote is not None
        return quote, continuation(passages, [first, second], quote, 2, between, max_chars, 5)

    quote, following = follows(lead, items)
    assert lead[quote.start:quote.end].endswith("it reinstates:")
    assert following is not None and following.number == 2
    assert items[following.start:following.end].startswith("1. automatically")
    assert items[following.start:following.end].endswith("by the Licensor.")
    assert follows(lead, "### Other Terms\n\nThe Licensor shall not be bound.")[1] is None
    assert follows(lead + "\n\n| when | how |\n|---|---|", items)[1] is None
    assert follows(lead, "- gzip\n- bzip2\n\nOther formats are refused.")[1] is None
    assert follows(lead, items, between="\n\nSection 7\n\n")[1] is None
    assert follows(lead, items, max_chars=len(lead) - lead.index("b. Where") + 40)[1] is None
    passages = score_passages(weights, [(lead, ""), (items, "")])
    assert continuation(passages, [lead, items], choose_quote(passages, 600, 5, weights), None, "", 600, 5) is None


def test_an_answer_quotes_what_its_lead_in_announces_from_the_next_chunk(tmp_path: Path) -> None:
    """Through the generator and a store: a joined hit of two chunks, the first ending on the lead-in; the answer
    holds both, each citation an exact span of the document."""
    from right_rag_dagster.retrieval.hits import Hit
    from tests.retrieval.store_builder import index_documents

    text = ("Section 6 -- Term and Termination.\n\n"
            "b. Where Your right to use the Licensed Material has terminated under\n"
            "     Section 6(a), it reinstates:\n\n"
            "       1. automatically as of the date the violation is cured, provided\n"
            "          it is cured within 30 days of Your discovery of the violation; or\n\n"
            "       2. upon express reinstatement by the Licensor.\n")
    (tmp_path / "documents").mkdir()
    (tmp_path / "documents" / "cc-by.txt").write_text(text, encoding="utf-8")
    store = Store(tmp_path / "right_rag.duckdb")
    index_documents(tmp_path / "documents", store)
    document = _document_text(store, "cc-by.txt")
    lead = (document.index("b. Where"), document.index("reinstates:") + len("reinstates:"))
    items = (document.index("1. automatically"), document.index("Licensor.") + len("Licensor."))
    hit = Hit(1, "c1", "default", "cc-by.txt", "u1", document[lead[0]:items[1]], 1.0, lead[0], items[1], None, None,
              None, None, ("Section 6",), joined=(("c1", "u1", *lead), ("c2", "u2", *items)))
    answer = ExtractiveGenerator(store).generate("When are my terminated rights reinstated?", [hit])
    assert answer.found and "reinstates:" in answer.text and "within 30 days" in answer.text
    for citation in answer.citations:
        assert " ".join(document[citation.quote_start:citation.quote_end].split()) == citation.quote


def test_the_next_part_of_a_joined_hit_is_the_next_in_the_document() -> None:
    """A joined hit's parts are read best ranked first; the one that follows a part is the nearest after it in the
    document, of the same hit."""
    from right_rag_dagster.rag.generators import _next_part
    from right_rag_dagster.retrieval.hits import Hit

    def part(number: int, start: int, end: int) -> tuple[int, Hit]:
        return number, Hit(1, f"c{start}", "domain", "d.txt", "u", "", 1.0, start, end, None, None, None, None, ())

    numbered = [part(1, 100, 200), part(1, 300, 400), part(1, 202, 298), part(2, 201, 250)]
    assert _next_part(numbered, 1) == 3 and _next_part(numbered, 3) == 2
    assert _next_part(numbered, 2) is None and _next_part(numbered, 4) is None


def test_an_answer_leaves_out_the_underlined_heading_it_opens_with() -> None:
    """A quote that opens with a reST or setext heading ("Database Locking" over a line of ``-``, debconf's
    specification in tests/fixtures/heldout6) quoted the underline too; the citation names the section, so the
    quote starts after it. A rule under a sentence is no underline, and a heading alone stays."""
    from right_rag_dagster.rag.extractive import Quote, without_underline
    from right_rag_dagster.retrieval.hits import Hit

    text = ("Database Locking\n----------------\n\nAny frontend needing to make sure no other frontend writes to the "
            "database at the same time must lock it first.\n")
    hit = Hit(1, "c1", "domain", "debconf.txt", "u1", text, 1.0, None, None, None, None, None, None,
              ("Database Locking",))
    answer = ExtractiveGenerator().generate("How does a frontend lock the database?", [hit])
    assert answer.found and answer.text.startswith("Any frontend needing to make sure")
    rule = "The paragraph ends here.\n-----\nNext part."
    assert without_underline(rule, Quote(1, 0, len(rule), 1.0)).start == 0
    assert without_underline("Title\n=====\n", Quote(1, 0, 12, 1.0)).start == 0


def test_an_answer_reads_a_camel_case_name_of_the_question_by_its_words() -> None:
    """BM25 finds "FakeInput" in ``XTestFakeInput`` by its words when no passage holds it whole; the answer reads the
    question's name by its words too when its passages lack it whole, else the passage covered none of it: "Not
    found". A name they hold whole is read as written ("PostgreSQL" is no question about every "SQL")."""
    from right_rag_dagster.retrieval.hits import Hit

    text = "XTestFakeInput\n\nThe request sends one synthetic event to the server, as if a device had.\n"
    hit = Hit(1, "c1", "domain", "xtest.txt", "u1", text, 1.0, None, None, None, None, None, None, ("XTest",))
    answer = ExtractiveGenerator().generate("What is FakeInput for?", [hit])
    assert answer.found and "synthetic event" in answer.text
    assert content_terms("Does PostgreSQL encrypt?", {"postgresql", "sql"}) == ["postgresql", "encrypt"]
    assert content_terms("What is FakeInput for?", {"xtestfakeinput"}) == ["fakeinput", "fake", "input"]
