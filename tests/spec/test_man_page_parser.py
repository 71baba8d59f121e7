"""The man-page parser: man pages rendered to text or typeset to PDF become sections, subsections and entries."""

from __future__ import annotations

from right_rag_dagster.core.model import Document
from right_rag_dagster.core.units import build_units, unit_paths, walk_units
from right_rag_dagster.pipeline.validate import check_units

from .conftest import FIXTURES, REPO_ROOT

FAMILIES = FIXTURES / "families"


def _by_topic(units):
    return {u.topic: u for u in walk_units(units)}


def test_a_text_rendering_has_sections_subsections_and_options(parse) -> None:
    _, units = parse("man-page", FAMILIES / "adduser.8.txt")
    assert [u.topic for u in units][:4] == ["ADDUSER(8)", "NAME", "SYNOPSIS", "DESCRIPTION"]
    assert units[0].attributes["document_title"] == "adduser, addgroup - add or manipulate users or groups"
    topics = _by_topic(units)
    assert topics["Add a system user"].attributes["unit_type"] == "subsection"
    assert topics["Add a system user"].attributes["hierarchy"] == ["DESCRIPTION", "Add a system user"]
    option = topics["--no-create-home"]
    assert option.attributes["unit_type"] == "option" and "Do not create a home directory" in option.raw_text
    # two tags over one body make one entry
    assert "--disabled-password" in topics["--disabled-login"].raw_text


def test_tabs_in_the_indentation_and_long_headings_at_the_margin(parse) -> None:
    _, units = parse("man-page", FAMILIES / "git-rm.1.txt")
    assert "REMOVING FILES THAT HAVE DISAPPEARED FROM THE FILESYSTEM" in [u.topic for u in units]
    options = next(u for u in units if u.topic == "OPTIONS")
    assert [u.topic for u in options.subunits][:3] == ["<pathspec>...", "-f, --force", "-n, --dry-run"]
    cached = _by_topic(units)["--cached"]
    assert cached.raw_text.startswith("--cached") and "unstage and remove paths only from the index" in cached.raw_text


def test_a_typeset_page_finds_option_lines_without_indentation(parse) -> None:
    document, units = parse("man-page", FAMILIES / "ls.1.pdf")
    assert units[0].attributes["document_label"] == "LS(1) ls - list directory contents"
    description = next(u for u in units if u.topic == "DESCRIPTION")
    options = [u.topic for u in description.subunits]
    assert options[:3] == ["-a, --all", "-A, --almost-all", "--author"] and "-R, --recursive" in options
    assert {u.attributes["unit_type"] for u in description.subunits} == {"option"}


def test_declines_text_without_a_man_header(spec_registry) -> None:
    parser = spec_registry.create("unit_parsers", "man-page")
    body = "NAME\n       x - y\n\nSYNOPSIS\n       x\n\nDESCRIPTION\n       z\n"
    assert parser.parser_can_handle_document(Document("x.1.txt", "X(1)   User Commands   X(1)\n\n" + body))
    assert not parser.parser_can_handle_document(Document("x.txt", body))
    assert not parser.parser_can_handle_document(Document("x.txt", "X(1)   User Commands   X(1)\n\nIntro\n"))


def test_list_items_carry_the_sentence_that_introduces_them(parse) -> None:
    """tzfile(5) lists a header's fields under "The format begins with a 44-byte header containing the following
    fields:"; each item is a unit of its own, and was read (and chunked) without it. man's hyphenation at a line's
    end ("de‐ pend") is undone; a paragraph that leads in to nothing gives its items no lead-in."""
    _, units = parse("man-page", REPO_ROOT / "tests" / "fixtures" / "heldout22" / "documents" / "tzfile.5.txt")
    items = [u for u in walk_units(units) if u.attributes["unit_type"] == "list_item"]
    magic = next(u for u in items if u.topic.startswith("The magic four-byte ASCII sequence"))
    assert magic.attributes["lead_in"] == "The format begins with a 44-byte header containing the following fields:"
    counts = next(u for u in items if u.topic.startswith("tzh_timecnt four-byte signed"))
    assert counts.attributes["lead_in"].endswith("whose lengths depend on the contents of the header:")
    assert "lead_in" not in next(u for u in items if u.topic.startswith("Six four-byte integer values")).attributes


def test_the_header_line_is_no_chunk_and_paragraphs_are_named_by_their_section(parse, spec_registry) -> None:
    """tmpfs(5)'s header line ("tmpfs(5)  File Formats Manual  tmpfs(5)", 51 characters) was a chunk of its own that
    outranked the page's sections for a question naming the page; the paragraph after DESCRIPTION's list was cited
    as "DESCRIPTION > Paragraph"."""
    from right_rag_dagster.pipeline.steps import chunk_units

    document, units = parse("man-page", REPO_ROOT / "tests" / "fixtures" / "heldout44" / "documents" / "tmpfs.5.txt")
    assert units[0].attributes["role"] == "furniture" and units[0].raw_text.count("\n") == 0
    lost = next(u for u in walk_units(units) if u.raw_text.startswith("If a tmpfs filesystem is unmounted"))
    assert lost.topic == "Paragraph" and lost.attributes["hierarchy"] == ["DESCRIPTION"]
    chunks = chunk_units(document, units, spec_registry.create("chunk_parsers", "domain"))
    assert min(c.source_start for c in chunks) > units[0].source_end
    assert [c for c in chunks if c.unit_id == lost.id][0].fulltext.split("\n")[1] == "DESCRIPTION"
    assert unit_paths(units)[lost.id] == ("DESCRIPTION",)  # the section path citations show, as the header
    # a header over more than its line (a typeset page's) stays a notice, and is chunked
    _, typeset = parse("man-page", FAMILIES / "ls.1.pdf")
    assert typeset[0].attributes["unit_type"] == "front_matter"


def test_a_boxed_table_an_option_leads_in_to_is_the_options(parse, tmp_path) -> None:
    """rtcwake(8)'s ``--date`` says "Format of the timestamp can be any of the following:" over a table man draws
    with boxes at the tag's column: the table was a "Paragraph" between options, apart from its option. Body text
    after the table stays the option's too, and no line of the box is read as a tag over it (that made two
    overlapping entries, and the page was rejected)."""
    rtcwake = REPO_ROOT / "tests" / "fixtures" / "heldout45" / "documents" / "rtcwake.8.txt"
    _, units = parse("man-page", rtcwake)
    options = next(u for u in units if u.topic == "OPTIONS")
    date = next(u for u in options.subunits if u.topic == "--date timestamp")
    assert "any of the following:" in date.raw_text and date.raw_text.rstrip().endswith("┘")
    assert [u.topic for u in options.subunits].count("Paragraph") == 0
    assert next(u for u in options.subunits if u.topic == "-d, --device device").raw_text.startswith("-d, --device")

    lines = rtcwake.read_text(encoding="utf-8").split("\n")
    after_box = next(i for i, line in enumerate(lines) if line.strip().startswith("└")) + 1
    lines.insert(after_box, "\t   The time is read as local time unless --utc is given.")
    longer = tmp_path / "rtcwake.8.txt"
    longer.write_text("\n".join(lines), encoding="utf-8")
    document, units = parse("man-page", longer)
    check_units(document, units, "man-page")  # raised on the overlapping entries before
    options = next(u for u in units if u.topic == "OPTIONS")
    assert [u.topic for u in options.subunits][2:4] == ["--date timestamp", "-d, --device device"]
    assert options.subunits[2].raw_text.endswith("unless --utc is given.")


def test_title_case_headings_at_the_margin_are_sections(parse) -> None:
    """pyenv(1) has "How It Works", "Advanced Configuration" and "Command Reference" at the left margin, as groff
    sets every ``.SH``; read as capitals only, they were subsections of COMPARISON, and ``pyenv local`` sat under
    it. A footer's tab-separated fields ("PYENV    24 Apr 2023    PYENV(1)") are no heading."""
    _, units = parse("man-page", REPO_ROOT / "tests" / "fixtures" / "heldout30" / "documents" / "pyenv.1.txt")
    topics = [u.topic for u in units]
    assert topics[-6:] == ["How It Works", "Advanced Configuration", "Uninstalling Python Versions",
                           "Command Reference", "Environment variables", "License"]
    local = _by_topic(units)["pyenv local"]
    assert local.attributes["hierarchy"] == ["Command Reference", "pyenv local"]


def test_capitals_with_dots_colons_and_variables_at_the_margin_are_sections(parse) -> None:
    """sources.list(5)'s "THE DEB AND DEB-SRC TYPES: OPTIONS" held its options under the section before it, and
    kernel-install(8)'s "THE $BOOT PARTITION" was an entry of COMMANDS."""
    fixtures = REPO_ROOT / "tests" / "fixtures"
    _, units = parse("man-page", fixtures / "heldout6" / "documents" / "sources.list.5.txt")
    topics = [u.topic for u in units]
    assert topics[2:9] == ["DESCRIPTION", "SOURCES.LIST.D", "ONE-LINE-STYLE FORMAT", "DEB822-STYLE FORMAT",
                           "THE DEB AND DEB-SRC TYPES: GENERAL FORMAT", "THE DEB AND DEB-SRC TYPES: OPTIONS",
                           "URI SPECIFICATION"]
    options = units[topics.index("THE DEB AND DEB-SRC TYPES: OPTIONS")]
    assert options.subunits and "Architectures (arch)" in options.raw_text
    _, units = parse("man-page", fixtures / "heldout48" / "documents" / "kernel-install.8.txt")
    assert [u.topic for u in units][4:7] == ["COMMANDS", "THE $BOOT PARTITION", "OPTIONS"]


def test_a_question_that_wraps_over_its_answer_is_one_entry(parse) -> None:
    """gitfaq(7) sets each question at the margin over its indented answer; a question that wraps over two lines
    read as a paragraph over an indented example, so it and the answers after it were one "Paragraph" (all of
    MERGING AND REBASING had no entry). A paragraph over an example ends in a colon, not a question mark."""
    _, units = parse("man-page", REPO_ROOT / "tests" / "fixtures" / "heldout31" / "documents" / "gitfaq.7.txt")
    merging = next(u for u in units if u.topic == "MERGING AND REBASING")
    assert [u.attributes["unit_type"] for u in merging.subunits] == ["entry", "entry"]
    assert merging.subunits[1].topic.startswith("If I make a change on two branches but revert it on one, why")
    topics = _by_topic(units)
    undo = next(u for topic, u in topics.items() if topic.startswith("I’ve made a change with a bug"))
    assert undo.topic == "I’ve made a change with a bug and it’s been included in the main branch. How sho"
    assert "The usual way to deal with this is to use git revert." in undo.raw_text
    assert "How do I ignore changes to a tracked file?" not in undo.raw_text  # the next question is its own entry
    assert not any(topic.startswith("Paragraph") for topic in topics)


def test_an_example_programs_functions_are_not_entries(parse) -> None:
    """inotify(7)'s example program (heldout38) sets ``static void`` and ``int`` at the margin over ``{`` and an
    indented body: they read as tagged paragraphs, so its chunks were headed "Program source > int". A line that
    opens a block is code, not a tag."""
    _, units = parse("man-page", REPO_ROOT / "tests" / "fixtures" / "heldout38" / "documents" / "inotify.7.txt")
    source = next(u for u in walk_units(units) if u.topic == "Program source")
    main = next(u for u in source.subunits if "main(int argc, char* argv[])" in u.raw_text)
    assert main.attributes["unit_type"] == "paragraph" and "handle_events(int fd" in main.raw_text
    assert not any(u.topic in ("int", "static void") for u in walk_units(units))


def test_numbered_steps_are_list_items_at_the_margin_or_a_tab_past_it(parse) -> None:
    """daemon(7) (heldout39) numbers its steps 1-9 a tab in and 10-15 at the margin: only the last ones read as
    tags, and "It is recommended for new-style daemons to implement the following:" was one entry holding nine
    steps. Each step is a list item titled by its first sentence and led in by that sentence; a numbered list past
    the margin inside an entry's body stays in it (ctags-faq(7)'s "D. The presence of duplicate tags")."""
    _, units = parse("man-page", REPO_ROOT / "tests" / "fixtures" / "heldout39" / "documents" / "daemon.7.txt")
    sysv = _by_topic(units)["SysV Daemons"]
    steps = [u for u in sysv.subunits if u.attributes["unit_type"] == "list_item"]
    assert [u.topic.split(".")[0] for u in steps] == [str(n) for n in range(1, 16)]
    assert steps[4].topic == "5. Call fork(), to create a background process."
    assert steps[10].raw_text.endswith("blocks mount points from being unmounted.")
    new_style = [u for u in _by_topic(units)["New-Style Daemons"].subunits if u.attributes["unit_type"] == "list_item"]
    assert len(new_style) == 11 and new_style[0].topic.startswith("1. If SIGTERM is received")
    assert new_style[0].attributes["lead_in"] == "It is recommended for new-style daemons to implement the following:"
    _, units = parse("man-page", next(REPO_ROOT.glob("tests/fixtures/*/documents/ctags-universal-faq.7.txt")))
    duplicates = next(u for u in walk_units(units) if u.topic.startswith("D. The presence of duplicate tags"))
    assert "1. How common are duplicate tags in your project?" in duplicates.raw_text


def test_numbered_steps_follow_their_numbers_and_their_paragraphs(spec_registry) -> None:
    """Steps are numbered one after another with their text at one column and no paragraph between them; a list
    under a label ("a) regular use") is the label's body; a step wraps at its number's column too; its title stops at
    its first sentence, not at "e.g."."""
    parser = spec_registry.create("unit_parsers", "man-page")
    text = ("X(1)   User Commands   X(1)\n\nNAME\n       x - y\n\nSYNOPSIS\n       x\n\nDESCRIPTION\n"
            "       Two ways to work:\n\n       a) regular use\n\n\t1. finish a commit\n\n\t2. rebase it\n\n"
            "       The steps:\n\n       1. Use an editor, e.g. Vim. Then save\n       the file.\n\n"
            "       2. Quit.\n\n       Upgrade notes for release\n       3. Clients may stay.\n")
    document = Document("x.1.txt", text)
    units = {u.topic: u for u in walk_units(build_units(document, parser.parse_document(document), "man-page"))}
    regular = units["a) regular use"]
    assert regular.attributes["unit_type"] == "entry" and "2. rebase it" in regular.raw_text
    first = units["1. Use an editor, e.g. Vim."]
    assert first.attributes["unit_type"] == "list_item" and first.raw_text.endswith("the file.")
    assert first.attributes["lead_in"] == "The steps:"
    assert units["2. Quit."].attributes["unit_type"] == "list_item"
    assert not any(topic.startswith("3.") for topic in units)  # a wrapped line that opens with a number, no step


def test_a_line_of_prose_over_an_example_is_no_tag(parse) -> None:
    """git-bisect(1) (heldout40) sets its example commands under one-line paragraphs: "If that version is broken,
    type" and "To get a reminder of the currently used terms, use" read as tags over their commands, so "Alternate
    terms" was six units headed by half sentences. A tag's body follows it directly; one set apart by a blank line
    is a term of a word or two (limits.conf(5)'s "<domain>") or an enumerated label (ctags-faq(7)'s "A. ...")."""
    _, units = parse("man-page", REPO_ROOT / "tests" / "fixtures" / "heldout40" / "documents" / "git-bisect.1.txt")
    by_topic = _by_topic(units)
    assert "If that version is broken, type" not in by_topic and "For example:" not in by_topic
    terms = by_topic["Alternate terms"]
    assert terms.subunits == [] and "git bisect start --term-old fast --term-new slow" in terms.raw_text
    assert by_topic["--no-checkout"].attributes["unit_type"] == "option"
    _, units = parse("man-page", next(REPO_ROOT.glob("tests/fixtures/*/documents/limits.conf.5.txt")))
    assert _by_topic(units)["<domain>"].attributes["unit_type"] == "entry"
    _, units = parse("man-page", next(REPO_ROOT.glob("tests/fixtures/*/documents/ctags-universal-faq.7.txt")))
    assert any(topic.startswith("A. The ability of your editor") for topic in _by_topic(units))


def test_a_short_tag_beside_its_body_is_the_entry_title(parse) -> None:
    """ssh_config(5) sets a keyword's description on its line when the keyword is short ("Host    Restricts the
    following declarations"), at the column its next lines keep: the entry is titled by the keyword, not the line.
    An exit value stays with its line ("0 Success: ..."): "0" alone says nothing."""
    _, units = parse("man-page", REPO_ROOT / "tests" / "fixtures" / "heldout15" / "documents" / "ssh_config.5.txt")
    by_topic = _by_topic(units)
    assert by_topic["Host"].attributes["unit_type"] == "entry"
    assert by_topic["Host"].raw_text.startswith("Host    Restricts the following declarations")
    assert "MACs" in by_topic and not any(topic.startswith("Host Restricts") for topic in by_topic)
    _, units = parse("man-page", FAMILIES / "adduser.8.txt")
    assert any(topic.startswith("0 Success: The user or group exists") for topic in _by_topic(units))


def test_a_one_letter_option_beside_its_body_is_the_option_alone(parse) -> None:
    """badblocks(8) sets a one-letter option's description on its line ("-f     Normally, badblocks will refuse"):
    the option was titled by the whole line, so every citation of it read "OPTIONS > -f Normally, badblocks will
    refuse to do a read/write or a non-de‐"."""
    _, units = parse("man-page", REPO_ROOT / "tests" / "fixtures" / "heldout46" / "documents" / "badblocks.8.txt")
    by_topic = _by_topic(units)
    assert by_topic["-f"].attributes["unit_type"] == "option"
    assert by_topic["-f"].raw_text.startswith("-f     Normally,")
    assert {"-n", "-s", "-v", "-w", "-B", "-X", "-b block_size"} <= set(by_topic)


def test_a_tag_one_column_short_of_its_body_is_the_entry_title(parse) -> None:
    """rename(2)'s six-letter errors leave one space before their body ("EACCES Write permission is denied ..."): they
    were titled by the whole line. A question, or a command with its arguments, whose second word happens to start
    at the body's column keeps its line (gitfaq(7)'s "How do I ...", kernel-install(8)'s "add KERNEL-VERSION ...")."""
    _, units = parse("man-page", REPO_ROOT / "tests" / "fixtures" / "heldout50" / "documents" / "rename.2.txt")
    by_topic = _by_topic(units)
    assert {"EACCES", "EBUSY", "EDQUOT", "EINVAL", "ENOENT", "ENOSPC"} <= set(by_topic)
    assert by_topic["EACCES"].raw_text.startswith("EACCES Write permission is denied")
    assert by_topic["EISDIR newpath is an existing directory, but oldpath is not a direc‐"]  # not a sentence: kept
    for name, start in (("gitfaq.7.txt", "How do I"), ("kernel-install.8.txt", "add KERNEL-VERSION")):
        _, units = parse("man-page", next(REPO_ROOT.glob(f"tests/fixtures/*/documents/{name}")))
        assert any(topic.startswith(start) for topic in _by_topic(units)), name


def test_exit_values_and_captions_keep_their_lines(spec_registry) -> None:
    """An exit value of any length stays with its line ("125    The command itself failed"), and a DocBook caption
    set apart over its example ("Example 1. os-release file for Fedora Workstation") stays an entry's title."""
    parser = spec_registry.create("unit_parsers", "man-page")
    text = ("X(1)   User Commands   X(1)\n\nNAME\n       x - y\n\nSYNOPSIS\n       x\n\nEXIT STATUS\n"
            "       125    The command itself failed to run\n              for a reason of its own.\n\n"
            "       0      Success, nothing\n              went wrong.\n\nEXAMPLES\n"
            "       Example 1. A file for Fedora\n\n           NAME=Fedora\n           ID=fedora\n")
    document = Document("x.1.txt", text)
    topics = {u.topic for u in walk_units(build_units(document, parser.parse_document(document), "man-page"))}
    assert "125 The command itself failed to run" in topics and "0 Success, nothing" in topics
    assert "Example 1. A file for Fedora" in topics
