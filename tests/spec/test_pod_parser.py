"""The POD parser: Perl's documentation read as text becomes one unit per ``=head1``-``=head4`` heading, nested by
level, with one unit per ``=item`` of a section's list; other text parsers leave POD to it."""

from __future__ import annotations

from right_rag_dagster.core.coverage import compute_coverage
from right_rag_dagster.core.model import Document
from right_rag_dagster.core.routing import route_document
from right_rag_dagster.core.units import walk_units

from .conftest import REPO_ROOT
from .invariants import check_tree

FAQ = REPO_ROOT / "tests" / "fixtures" / "heldout29" / "documents" / "IO-Compress-FAQ.pod"


def test_questions_nest_under_their_groups_and_topics_read_without_markup(parse) -> None:
    document, units = parse("pod", FAQ)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent > 99
    assert units[0].attributes["document_title"] == "IO::Compress::FAQ -- Frequently Asked Questions about IO::Compress"
    by_topic = {u.topic: u for u in walk_units(units)}
    question = by_topic["Dealing with concatenated gzip files"]
    assert question.attributes["hierarchy"] == ["GZIP", "Dealing with concatenated gzip files"]
    assert question.attributes["unit_type"] == "subsection" and by_topic["GZIP"].attributes["unit_type"] == "section"
    assert question.raw_text.startswith("=head2 Dealing with concatenated gzip files\n\nIf the gunzip program")
    assert "=head2 Reading bgzip" not in question.raw_text  # the next question is its sibling
    # C<...> is read as its text in the topic; the unit keeps the file's own text
    embedded = by_topic["Using InputLength to uncompress data embedded in a larger file/buffer."]
    assert embedded.raw_text.startswith("=head2 Using C<InputLength>")


def test_the_title_is_the_name_sections_first_paragraph(parse) -> None:
    """File::FcntlLock's NAME section goes on with a sentence and an ``=over`` list of sub-packages after its name
    line: the title (in every passage's header) was all of it, markup included (heldout41)."""
    document, units = parse("pod", REPO_ROOT / "tests" / "fixtures" / "heldout41" / "documents" / "File-FcntlLock.pod")
    check_tree(document, units)
    assert units[0].attributes["document_title"] == "File::FcntlLock - File locking with fcntl(2)"
    assert "sub-packages" in units[0].raw_text  # still the NAME section's text


def test_list_items_are_units_and_nested_lists_stay_in_their_item(parse) -> None:
    _, units = parse("pod", FAQ)
    by_topic = {u.topic: u for u in walk_units(units)}
    methods = by_topic["What Compression Types do IO::Compress::Zip & IO::Uncompress::Unzip support?"]
    assert [u.topic for u in methods.subunits] == ["Paragraph", "Store (method 0)", "Deflate (method 8)",
                                                   "Bzip2 (method 12)", "Lzma (method 14)"]
    assert all(u.attributes["unit_type"] == "list_item" for u in methods.subunits[1:])
    # the text before the list has no heading of its own: its chunks are headed by its section's path
    assert methods.subunits[0].attributes["hierarchy"] == methods.attributes["hierarchy"]
    assert methods.subunits[2].raw_text.startswith("=item * Deflate (method 8)\n\nThis is the default compression")
    # a numbered item with no label of its own is titled by its paragraph's first words
    revisited = by_topic["Apache::GZip Revisited"]
    assert revisited.subunits[1].topic == "The gzip support in Compress::Zlib version 1.x can"


def test_only_pod_is_accepted_and_the_other_text_parsers_leave_it(spec_registry, load_document) -> None:
    parsers = spec_registry.resolve("unit_parsers", None)
    faq = load_document(FAQ)
    assert route_document(faq, parsers).parser.parser_name == "pod"
    pod = spec_registry.create("unit_parsers", "pod")
    # a POD licence with numbered sections: the licence parser would take it by its NAME line, POD keeps it
    licence = Document("perlartistic.pod", "=head1 NAME\n\nperlartistic - the Perl Artistic License\n\n=head1 "
                       "SYNOPSIS\n\n You can refer to this document in Pod via \"L<perlartistic>\"\n\n=head1 "
                       "The \"Artistic License\"\n\n" + "".join(f"{n}. You may do thing {n}.\n\n" for n in range(1, 6)))
    assert [p.parser_name for p in parsers if p.parser_can_handle_document(licence)] == ["pod"]
    one_heading = Document("short.pod", "=head1 NAME\n\nshort - one heading\n")
    assert not pod.parser_can_handle_document(one_heading)
    assert not pod.parser_can_handle_document(Document("notes.txt", "Notes\n\nThe =head1 command opens a section.\n"))


def test_formatting_codes_nest_and_escapes_never_fail_a_document(spec_registry) -> None:
    """Topics render nested codes (``B<C<foo>>``), ``C<< ... >>`` with ``>`` inside, and ``E<...>`` escapes by name or
    number (decimal, ``0x`` hex, ``0`` octal); an escape that names nothing stays as written."""
    from right_rag_dagster.core.registry import load_helper

    pod = load_helper(str(REPO_ROOT / "spec" / "unit_parsers" / "licence.py"), "pod.py")
    assert pod.plain("B<C<foo>> options") == "foo options"
    assert pod.plain("C<$obj-E<gt>new>") == "$obj->new" and pod.plain("C<< $a->b >>") == "$a->b"
    assert pod.plain("C<< $obj->new(I<args>) >>") == "$obj->new(args)"
    assert pod.plain("E<075> E<0x41> E<66> E<eacute> E<9999999999> E<bogus>") == "= A B é E<9999999999> E<bogus>"
    assert pod.plain("L<perlfunc/open> L<the FAQ|perlfaq> L<https://www.gzip.org>") == \
        "perlfunc open the FAQ https://www.gzip.org"


def test_sibling_keys_stay_unique_where_an_item_and_a_heading_share_a_name(spec_registry) -> None:
    """A METHODS summary list (``=item verbose``) before one ``=head2`` per method (``=head2 verbose``), and a
    ``=head1`` named like the front matter, parse (a repeated sibling key failed the whole document)."""
    from right_rag_dagster.core.units import build_units

    text = ("=pod\n\nLead.\n\n=head1 NAME\n\nx - y\n\n=head1 Preamble\n\nText.\n\n=head1 METHODS\n\n=over\n\n"
            "=item verbose\n\nSummary.\n\n=back\n\n=head2 verbose\n\nDetails.\n")
    document = Document("x.pod", text)
    units = build_units(document, spec_registry.create("unit_parsers", "pod").parse_document(document), "pod")
    check_tree(document, units)
    methods = next(u for u in units if u.topic == "METHODS")
    assert [u.topic for u in methods.subunits] == ["verbose", "verbose"]
    assert methods.subunits[0].raw_text == "=item verbose\n\nSummary."  # the =back line is no part of it
