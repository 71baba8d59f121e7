"""The policy change-log parser on Debian's upgrading-checklist.txt."""

from __future__ import annotations

import re

from right_rag_dagster.core.coverage import compute_coverage
from right_rag_dagster.core.model import Document
from right_rag_dagster.core.units import build_units, walk_units

from .conftest import REPO_ROOT
from .invariants import check_tree, find_unit

CHECKLIST = REPO_ROOT / "data" / "documents" / "upgrading-checklist.txt"


def test_versions_and_changes(parse) -> None:
    document, units = parse("policy-changelog", CHECKLIST)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    printed = re.findall(r"(?m)^10\.\d+\. Version (\S+)\n=+$", document.text)
    versions = [u for u in units if u.attributes["unit_type"] == "version"]
    assert [u.attributes["version"] for u in versions] == printed and len(printed) == 67
    assert units[0].topic == "Upgrading checklist" and units[1].key == "10.1"
    latest = find_unit(units, "4.6.2")
    assert latest.attributes["released"] == "December, 2022"
    assert [u.key for u in latest.subunits] == ["3.8", "6.5 & 6.6", "11.8.4"]
    series = find_unit(units, "4.5.1", "4.17")
    assert series.attributes["policy_sections"] == ["4.17"] and series.attributes["role"] == "prohibition"
    assert series.raw_text.startswith("4.17\n   Packages must not contain a non-default series file.")
    assert "4.5.1" in series.temporal_topic and "November, 2020" in series.temporal_topic
    changes = [u for u in walk_units(units) if u.attributes["unit_type"] == "change"]
    assert len(changes) > 300 and all(not u.subunits for u in changes)


def test_repeated_references_get_unique_keys(parse) -> None:
    _, units = parse("policy-changelog", CHECKLIST)
    keys = [u.key for u in find_unit(units, "4.3.0").subunits]
    assert "10.1" in keys and "10.1 #2" in keys


def test_accepts_only_logs_with_version_headings(spec_registry) -> None:
    parser = spec_registry.create("unit_parsers", "policy-changelog")
    two = Document("news.txt", "Version 1.1\n===========\n\nfix\n\nVersion 1.0\n===========\n\nfirst\n",
                   metadata={"format": "text"})
    assert not parser.parser_can_handle_document(two)
    three = Document("news.txt", two.text + "\nVersion 0.9\n===========\n\n* beta\n", metadata={"format": "text"})
    assert parser.parser_can_handle_document(three)
    assert not parser.parser_can_handle_document(Document("pkg.copyright", three.text, metadata={"format": "text"}))


FAMILIES = REPO_ROOT / "tests" / "spec" / "fixtures" / "families"
OPENSSH_NEWS = REPO_ROOT / "tests" / "fixtures" / "heldout20" / "documents" / "openssh-NEWS.Debian.txt"


def test_a_debian_package_changelog_has_a_version_per_entry_and_a_change_per_item(parse) -> None:
    document, units = parse("policy-changelog", FAMILIES / "avahi-changelog.Debian.txt")
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    printed = re.findall(r"(?m)^avahi \((\S+)\) \S+; urgency=\w+$", document.text)
    assert [u.attributes["version"] for u in units] == printed and len(printed) == 12
    assert units[0].attributes["document_title"] == "avahi Debian changelog"
    latest = units[0]
    assert latest.topic == "Version 0.8-10+deb12u1" and latest.attributes["distribution"] == "bookworm"
    assert latest.attributes["released"] == "Thu, 19 Dec 2024 09:01:14 +0200"
    items = latest.subunits
    assert len(items) == 7 and items[0].topic == "Non-maintainer upload." and "author" not in items[0].attributes
    assert items[1].topic == "core: make sure there is rdata to process before parsing it."
    assert items[1].attributes["author"] == "Michael Biebl"
    assert items[1].raw_text.endswith("(CVE-2023-38472, Closes: #1054879)")  # the item's indented lines are its own
    assert "0.8-10+deb12u1" in items[1].temporal_topic and "2024" in items[1].temporal_topic


def test_a_debian_news_item_keeps_its_indented_paragraphs(parse) -> None:
    """openssh's NEWS.Debian: an item's second paragraph (why ~C is off) was a unit apart, without the item's
    first words (heldout20)."""
    _, units = parse("policy-changelog", OPENSSH_NEWS)
    assert units[0].attributes["document_title"] == "openssh Debian NEWS" and units[0].attributes["urgency"] == "medium"
    note, item = units[0].subunits
    assert note.raw_text.startswith("OpenSSH 9.2 includes a number of changes")
    assert item.raw_text.startswith("* ssh(1): add a new EnableEscapeCommandline")
    assert item.raw_text.endswith("to use a stricter default sandbox policy.")


def test_a_text_that_does_not_open_with_a_debian_entry_is_declined(spec_registry) -> None:
    parser = spec_registry.create("unit_parsers", "policy-changelog")
    entry = "pkg (1.0-1) unstable; urgency=low\n\n  * Initial release.\n\n -- A B <a@b.org>  Mon, 01 Jan 2024 00:00:00 +0000\n"
    assert parser.parser_can_handle_document(Document("changelog", entry, metadata={"format": "text"}))
    assert not parser.parser_can_handle_document(Document("changelog", "Notes\n\n" + entry, metadata={"format": "text"}))
    unsigned = entry.replace(" -- A B", " - A B")
    assert not parser.parser_can_handle_document(Document("changelog", unsigned, metadata={"format": "text"}))


PATCH_NEWS = REPO_ROOT / "tests" / "fixtures" / "heldout21" / "documents" / "patch-NEWS.txt"


def test_gnu_release_notes_have_a_version_per_header_and_a_change_per_item(parse, spec_registry) -> None:
    """GNU patch's NEWS ("Changes in version 2.7.6:" over ``*`` items) went to the generic fallback as 73 paragraphs
    titled "patch-NEWS.txt ¶N" (heldout21); the text-manual parser leaves release notes to this one."""
    document, units = parse("policy-changelog", PATCH_NEWS)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    printed = re.findall(r"(?m)^Changes (?:in|until) versions? ([\d.]+\w*)", document.text)
    assert [u.attributes["version"] for u in units] == printed and len(printed) == 18
    assert units[0].attributes["document_title"] == "patch NEWS" and units[0].topic == "Changes in version 2.7.6"
    symlinks = units[1].subunits[0]
    assert symlinks.raw_text.startswith("* There are users which expect patch to follow symbolic links")
    assert symlinks.raw_text.endswith("leave the working directory.") and "2.7.5" in symlinks.temporal_topic
    assert not spec_registry.create("unit_parsers", "text-manual").parser_can_handle_document(document)


def test_release_notes_need_a_release_in_their_first_lines_and_three_headers(spec_registry) -> None:
    parser = spec_registry.create("unit_parsers", "policy-changelog")
    releases = "".join(f"Noteworthy changes in release 1.{n} (2024-0{n}-01)\n\n* fix {n}\n\n" for n in (3, 2, 1))
    news = Document("NEWS", "GNU foo NEWS\n\n" + releases, metadata={"format": "text"})
    assert parser.parser_can_handle_document(news)
    two = releases.rsplit("Noteworthy", 1)[0]
    assert not parser.parser_can_handle_document(Document("NEWS", two, metadata={"format": "text"}))
    late = "Introduction\n\n" + "\n\n".join(f"Paragraph {n}." for n in range(6)) + "\n\n" + releases
    assert not parser.parser_can_handle_document(Document("NEWS", late, metadata={"format": "text"}))
    # ... unless the file is titled as a change log: plans and notes may come before its first release
    titled = late.replace("Introduction", "What's New", 1)
    assert parser.parser_can_handle_document(Document("WHATSNEW", titled, metadata={"format": "text"}))
    # a line of a wrapped sentence that names a version is no header, whatever its case
    prose = "".join(f"This release replaces the one before,\nthe previous version 1.{n}.\n\n" for n in range(4))
    assert not parser.parser_can_handle_document(Document("NEWS", prose, metadata={"format": "text"}))
    wrapped = "".join(f"This bug was fixed in\nRelease 2.0.{n}.\n\n" for n in range(4))
    assert not parser.parser_can_handle_document(Document("NEWS", wrapped, metadata={"format": "text"}))


def test_release_notes_with_an_underlined_version_heading_are_accepted_and_parsed(spec_registry) -> None:
    """Accepting and parsing decide alike: one underlined "Version 0.9" among release headers is no underlined
    change log (three are needed), so the release headers give the tree instead of a rejection."""
    parser = spec_registry.create("unit_parsers", "policy-changelog")
    releases = "".join(f"Changes in version 1.{n}:\n\n* fix {n}\n\n" for n in (3, 2, 1))
    document = Document("NEWS", releases + "Version 0.9\n===========\n\n* beta\n", metadata={"format": "text"})
    assert parser.parser_can_handle_document(document)
    units = list(parser.parse_document(document))
    assert [u.topic for u in units] == ["Changes in version 1.3", "Changes in version 1.2", "Changes in version 1.1"]


def test_a_change_log_titled_whats_new_has_its_releases_after_its_plans(parse, spec_registry) -> None:
    """Info-ZIP's WHATSNEW ("What's New", then the plans for Zip 3.1, then "New things in Zip 3.0h" over ``-`` items)
    went to the generic fallback as paragraphs, each release's header a unit apart from its changes (heldout29)."""
    path = REPO_ROOT / "tests" / "fixtures" / "heldout29" / "documents" / "zip-WHATSNEW.txt"
    document, units = parse("policy-changelog", path)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    assert units[0].attributes["unit_type"] == "front_matter" and "Zip 3.1" in units[0].raw_text
    versions = [u for u in units if u.attributes["unit_type"] == "version"]
    assert [u.topic for u in versions[:3]] == ["New things in Zip 3.0 since Zip 3.0h", "New things in Zip 3.0h",
                                               "New things in Zip 3.0g"]
    assert versions[-1].topic == "New things in Zip 2.2" and len(versions) == 11
    fifo = next(u for u in walk_units(units) if u.raw_text.startswith("- Disable reading of Unix FIFOs"))
    assert "Zip 3.0g" in fifo.temporal_topic and units[0].attributes["document_title"] == "What's New"
    assert not spec_registry.create("unit_parsers", "text-manual").parser_can_handle_document(document)


GZIP_NEWS = REPO_ROOT / "tests" / "fixtures" / "heldout38" / "documents" / "gzip-NEWS.txt"


def test_outline_sub_headings_group_a_releases_changes_and_headers_may_sit_on_their_items(parse) -> None:
    """GNU gzip's NEWS (heldout38): each release's ``** Bug fixes`` and ``** Changes in behavior`` were changes of
    their own (a unit of one line, "Note 1") and the changes under them lost them; its oldest releases ("Major changes
    from 1.2 to 1.2.1" right over its ``*`` items) were paragraphs of one 5 KB release."""
    document, units = parse("policy-changelog", GZIP_NEWS)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    latest = units[1]
    assert latest.topic == "Noteworthy changes in release 1.12 (2022-04-07) [stable]"
    assert [u.topic for u in latest.subunits] == ["Changes in behavior", "Bug fixes"]
    length = latest.subunits[0].subunits[0]
    assert length.attributes["unit_type"] == "change" and length.raw_text.startswith("'gzip -l' no longer misreports")
    assert length.attributes["hierarchy"][-2] == "Changes in behavior"
    versions = [u for u in units if u.attributes["unit_type"] == "version"]
    printed = re.findall(r"(?m)^(?:\* Noteworthy|Major|No major) changes? .*$", document.text)
    assert len(versions) == len(printed) > 40
    oldest = [u for u in versions if u.topic.startswith("Major changes from")]
    assert len(oldest) == len(re.findall(r"(?m)^Major changes from", document.text)) == 24
    assert all(u.attributes["version"] == re.search(r" to ([\d.]+?)\.?$", u.topic).group(1) for u in oldest)
    release = next(u for u in oldest if u.topic == "Major changes from 1.2 to 1.2.1")
    assert [u.raw_text[:20] for u in release.subunits] == ["* Let zmore act as m", "* made gzexe more se",
                                                           "* By default, displa"]
    assert next(u for u in oldest if u.topic == "Major changes from 0.8.1 to 0.8.2").attributes["version"] == "0.8.2"
    # a change written as an outline heading ("** ... instead of complaining.") stays a change
    assert not any(u.attributes["unit_type"] == "section" and u.topic.endswith(".") for u in walk_units(units))
    # a change's title is its first sentence, which "e.g." does not end
    topics = {u.topic for u in walk_units(units)}
    assert "Add support for large files, e.g. files larger than 2 GB on Solaris 2.6." in topics


def test_sub_headings_in_capitals_group_a_releases_changes(parse) -> None:
    """GMP's NEWS (heldout46) heads each release's items ``BUGS FIXED``, ``FEATURES``, ``SPEEDUPS`` and ``MISC``:
    each was a change of its own (a unit of ten characters) and the changes under it lost it."""
    document, units = parse("policy-changelog", REPO_ROOT / "tests" / "fixtures" / "heldout46" / "documents"
                            / "gmp-NEWS.txt")
    check_tree(document, units)
    latest = units[1]
    assert latest.topic == "Changes between GMP version 6.2.0 and 6.2.1"
    assert [u.topic for u in latest.subunits] == ["BUGS FIXED", "FEATURES", "SPEEDUPS", "MISC"]
    fixed = latest.subunits[0].subunits
    assert len(fixed) == 4 and fixed[0].attributes["hierarchy"][-2] == "BUGS FIXED"
    assert not any(u.attributes["unit_type"] == "change" and u.topic == "FEATURES" for u in walk_units(units))



def test_an_items_wrapped_word_in_capitals_is_no_sub_heading(spec_registry) -> None:
    """A capitals line right under an item's line ("denied, as on" over "  NFS") is the item's last word."""
    text = ("patch NEWS\n\nChanges in version 2.7:\n\n* Files are no longer chmod'ed when permission is denied, as on\n"
            "  NFS\n* License clarifications.\n\nChanges in version 2.6:\n\n* Fixes.\n\n"
            "Changes in version 2.5:\n\n* More fixes.\n")
    parser = spec_registry.create("unit_parsers", "policy-changelog")
    document = Document("patch-NEWS.txt", text, metadata={"format": "text"})
    units = build_units(document, parser.parse_document(document), parser.parser_name)
    assert not any(u.topic == "NFS" for u in walk_units(units))


def test_a_header_over_its_first_item_needs_others_that_open_alike(spec_registry) -> None:
    """A release header right over its items counts where other headers open with the same words (gzip's 24 "Major
    changes from ..."); lead-ins over lists that name a version do not make a change log, and an item that names a
    release is no header."""
    parser = spec_registry.create("unit_parsers", "policy-changelog")
    readme = ("foo\n\nNew in version 2.0 you can:\n* run it\n\nPython packages need version 3.8 or later:\n* pip\n\n"
              "Version 1.9.2 users must first:\n* upgrade\n\nRelease 1.9.1 introduced a regression, fixed here:\n* x\n")
    assert not parser.parser_can_handle_document(Document("README", readme, metadata={"format": "text"}))
    log = "".join(f"Major changes from 1.{n} to 1.{n + 1}\n* fix {n}\n* Release 9.{n} notes moved\n* more\n\n"
                  for n in (3, 2, 1))
    document = Document("NEWS", log, metadata={"format": "text"})
    units = list(parser.parse_document(document))
    assert [u.attributes["version"] for u in units] == ["1.4", "1.3", "1.2"]
    assert [len(u.subunits) for u in units] == [3, 3, 3]  # "* Release 9.3 notes moved" stays an item


def test_underlined_parts_of_a_release_are_its_sections(parse) -> None:
    """giflib's NEWS underlines each release with ``=`` and its "Code Fixes" and "Build Fixes" with ``-``: those were
    units beside the releases, each release a unit of its heading alone (27 characters, a chunk of its own) and its
    fixes without their version (heldout25)."""
    path = REPO_ROOT / "tests" / "fixtures" / "heldout25" / "documents" / "giflib-NEWS.txt"
    document, units = parse("policy-changelog", path)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    assert all(u.attributes["unit_type"] in ("version", "title", "section") for u in units)
    release = next(u for u in units if u.topic == "Version 5.1.5")
    assert [u.topic for u in release.subunits] == ["Code Fixes", "Build Fixes"]
    fix = release.subunits[0].subunits[1]
    assert fix.attributes["unit_type"] == "change" and "CVE-2018-11490" in fix.raw_text
    assert fix.attributes["hierarchy"][:2] == ["Version 5.1.5", "Code Fixes"] and "5.1.5" in fix.temporal_topic
    assert not any(u.attributes["unit_type"] == "section" and u.topic.endswith("Fixes") for u in units)


PULSEAUDIO_NEWS = REPO_ROOT / "tests" / "fixtures" / "heldout27" / "documents" / "pulseaudio-NEWS.txt"


def test_release_headers_that_name_the_program_and_its_version(parse, spec_registry) -> None:
    """PulseAudio's NEWS heads each release "PulseAudio 16.1" alone between blank lines: the fallback made each a
    paragraph of the release before it. A name and a version count as a header only where every header names
    the same program."""
    document, units = parse("policy-changelog", PULSEAUDIO_NEWS)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent > 99
    versions = [u for u in units if u.attributes["unit_type"] == "version"]
    assert [u.topic for u in versions[:3]] == ["PulseAudio 16.1", "PulseAudio 16.0", "PulseAudio 15.0"]
    assert versions[0].attributes["version"] == "16.1" and versions[-1].topic == "PulseAudio 4.0" and len(versions) == 19
    assert "Fix parsing of percentage volumes" in versions[0].raw_text
    parser = spec_registry.create("unit_parsers", "policy-changelog")
    mixed = "Foo 1.2\n\nA fix.\n\nBar 1.1\n\nA fix.\n\nBaz 1.0\n\nFirst.\n"
    assert not parser.parser_can_handle_document(Document("NEWS", mixed))
    assert parser.parser_can_handle_document(Document("NEWS", mixed.replace("Bar", "Foo").replace("Baz", "Foo")))


PYASN1_CHANGES = REPO_ROOT / "tests" / "fixtures" / "heldout33" / "documents" / "pyasn1-CHANGES.rst"


def test_revision_headings_make_a_change_log(parse, spec_registry) -> None:
    """pyasn1's change log heads each release "Revision 0.6.1, released 10-09-2024" over dashes: the text-manual
    parser took it for a manual titled by its first release, which every chunk's header then repeated (heldout33)."""
    document, units = parse("policy-changelog", PYASN1_CHANGES)
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    assert not spec_registry.create("unit_parsers", "text-manual").parser_can_handle_document(document)
    assert units[0].attributes["document_title"] == "pyasn1-CHANGES" and units[0].topic == "Version 0.6.1"
    assert units[0].attributes["released"] == "10-09-2024" and "10-09-2024" in units[0].subunits[0].temporal_topic
    assert [u.topic for u in units[-3:]] == ["Version 0.0.3a", "Version 0.0.2a", "Version 0.0.1a"]
    streaming = next(u for u in walk_units(units) if "StreamingDecoder" in u.raw_text and not u.subunits)
    assert streaming.attributes["unit_type"] == "change" and "0.5.0" in streaming.temporal_topic
