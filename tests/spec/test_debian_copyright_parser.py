"""The Debian copyright parser on real files from the scale corpus (machine-readable and free-form)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from right_rag_dagster.core.coverage import compute_coverage
from right_rag_dagster.pipeline.steps import parse_document

from .conftest import SCALE_DIR
from .invariants import check_tree

pytestmark = pytest.mark.skipif(not SCALE_DIR.is_dir(), reason="needs the shared scale corpus")
_FORMAT = re.compile(r"(?mi)^Format:\s*\S*(copyright-format|dep-?5)")


@pytest.fixture
def copy_scale(tmp_path: Path):
    def copy(name: str) -> Path:
        return Path(shutil.copy(SCALE_DIR / name, tmp_path / name))

    return copy


def test_machine_readable_file_becomes_stanzas(parse, copy_scale) -> None:
    document, units = parse("debian-copyright", copy_scale("adduser.copyright"))
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    header, first = units[0], units[1]
    assert header.attributes["unit_type"] == "header_stanza" and header.attributes["upstream_name"] == "adduser"
    assert first.attributes["unit_type"] == "files_stanza" and first.attributes["files"] == ["*"]
    assert first.attributes["license"] == "GPL-2+"
    assert "1994 Debian Association, Inc." in first.attributes["copyright_holders"]
    stanzas = re.split(r"\n\s*\n", document.text.strip())
    assert len(units) == len(stanzas)


def test_the_stanzas_of_the_whole_work_and_of_the_packaging_say_so(parse, copy_scale) -> None:
    """A question asks who packaged the software for Debian, or who holds the work as a whole, not for
    ``debian/*`` or ``*``: those two stanzas carry what the format says they cover (the chunk header shows it)."""
    document, units = parse("debian-copyright", copy_scale("at-spi2-common.copyright"))
    by_files = {tuple(u.attributes.get("files", ())): u for u in units}
    assert "upstream work as a whole" in by_files[("*",)].temporal_topic
    assert "who packaged it for Debian" in by_files[("debian/*",)].temporal_topic
    others = [u for files, u in by_files.items() if files not in (("*",), ("debian/*",))]
    assert all("Debian packaging" not in u.temporal_topic and "whole" not in u.temporal_topic for u in others)


def test_standalone_license_stanza(parse, copy_scale) -> None:
    _, units = parse("debian-copyright", copy_scale("libnspr4.copyright"))
    assert [u.attributes["unit_type"] for u in units] == ["header_stanza", "files_stanza"]
    assert units[1].attributes["license_names"] == ["MPL-2.0"]
    _, units = parse("debian-copyright", copy_scale("adduser.copyright"))
    licences = [u for u in units if u.attributes["unit_type"] == "license_stanza"]
    assert licences and all(u.key.startswith("License: ") for u in licences)


def test_free_form_file_becomes_notices_and_sections(parse, copy_scale) -> None:
    document, units = parse("debian-copyright", copy_scale("krb5-locales.copyright"))
    check_tree(document, units)
    assert compute_coverage(len(document.text), units).coverage_percent >= 95
    types = [u.attributes["unit_type"] for u in units]
    assert types[0] == "packaging_note" and "labelled_section" in types
    copyright_section = next(u for u in units if u.topic == "Copyright")
    assert "Copyright (C) 1985-2022 by the Massachusetts Institute of Technology." in (
        copyright_section.attributes["copyright_holders"])
    assert "BSD" in copyright_section.attributes["license_names"]
    assert all(u.attributes["conforming"] is False for u in units)


def test_free_form_notices_name_the_licences_they_point_to(parse, copy_scale) -> None:
    document, units = parse("debian-copyright", copy_scale("libctf-nobfd0.copyright"))
    check_tree(document, units)
    names = {name for u in units for name in u.attributes.get("license_names", [])}
    assert {"GPL", "LGPL", "GFDL"} <= names
    pointer = next(u for u in units if "/usr/share/common-licenses/GPL" in u.raw_text)
    assert pointer.attributes["license_names"][:2] == ["GPL", "LGPL"]


def test_stanzas_without_a_format_line_are_still_stanzas(parse, copy_scale) -> None:
    _, units = parse("debian-copyright", copy_scale("libwayland-client0.copyright"))
    assert [u.attributes["unit_type"] for u in units] == ["header_stanza", "files_stanza", "files_stanza",
                                                          "license_stanza"]
    assert units[0].attributes["conforming"] is False and units[0].attributes["upstream_name"] == "wayland"


def test_prose_before_the_header_stanza_is_kept_apart(parse, copy_scale) -> None:
    _, units = parse("debian-copyright", copy_scale("libgstreamer1.0-0.copyright"))
    assert units[0].attributes["unit_type"] == "free_text" and units[1].attributes["unit_type"] == "header_stanza"


def test_scale_corpus_every_file_parsed_faithfully(spec_registry) -> None:
    """All 710 files: machine-readable ones into stanzas, free-form ones into notices; spans exact, coverage >= 95%."""
    loader = spec_registry.create("document_loaders", "default")
    parsers = spec_registry.resolve("unit_parsers", None)
    stanzas = free_form = 0
    for path in sorted(SCALE_DIR.glob("*.copyright")):
        document = loader.load_document(path, path.name)
        outcome = parse_document(document, parsers)
        assert outcome.rejection is None and outcome.parser == "debian-copyright", (path.name, outcome.rejection)
        check_tree(document, outcome.units)
        assert compute_coverage(len(document.text), outcome.units).coverage_percent >= 95, path.name
        types = {u.attributes["unit_type"] for u in outcome.units}
        if _FORMAT.search(document.text[:8000]) is not None:
            assert types >= {"header_stanza", "files_stanza"}, path.name
            stanzas += 1
        else:
            assert types & {"packaging_note", "copyright_notice", "labelled_section", "files_stanza"}, path.name
            free_form += 1
    print(f"scale corpus: {stanzas} machine-readable files parsed into stanzas, {free_form} free-form files")
    assert stanzas + free_form == len(list(SCALE_DIR.glob("*.copyright"))) and stanzas > 400 and free_form > 200


def test_free_form_file_names_its_files_before_their_notices(parse) -> None:
    """``cairo/*.c:`` and ``examples/gtk/hangman.py:`` open sections holding their statements and terms, as a
    Files stanza would (their copyright lines do not start notices of their own)."""
    path = Path(__file__).resolve().parents[1] / "fixtures" / "heldout3" / "documents" / "python3-cairo.copyright"
    document, units = parse("debian-copyright", path)
    check_tree(document, units)
    sections = {u.topic: u for u in units if u.attributes["unit_type"] == "files_section"}
    assert list(sections) == ["cairo/*.c", "examples/gtk/hangman.py"]
    assert sections["cairo/*.c"].attributes["files"] == ["cairo/*.c"]
    assert "Mozilla" in sections["cairo/*.c"].raw_text and "James Henstridge" in sections["cairo/*.c"].raw_text
    assert "Copyright 2004 Kevin Worth" in sections["examples/gtk/hangman.py"].raw_text
    assert not any(u.topic == "Copyright/License" for u in units)
