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


def test_standalone_license_stanza(parse, copy_scale) -> None:
    _, units = parse("debian-copyright", copy_scale("libnspr4.copyright"))
    assert [u.attributes["unit_type"] for u in units] == ["header_stanza", "files_stanza"]
    assert units[1].attributes["license_names"] == ["MPL-2.0"]
    _, units = parse("debian-copyright", copy_scale("adduser.copyright"))
    licences = [u for u in units if u.attributes["unit_type"] == "license_stanza"]
    assert licences and all(u.key.startswith("License: ") for u in licences)


def test_free_form_file_is_rejected_with_a_reason(spec_registry, load_document, copy_scale) -> None:
    document = load_document(copy_scale("libgnutls30.copyright"))
    outcome = parse_document(document, spec_registry.resolve("unit_parsers", None))
    assert outcome.parser == "debian-copyright" and outcome.units == []
    assert outcome.rejection.status == "rejected" and "free-form copyright file" in outcome.rejection.reason


def test_prose_before_the_header_stanza_is_kept_apart(parse, copy_scale) -> None:
    _, units = parse("debian-copyright", copy_scale("libgstreamer1.0-0.copyright"))
    assert units[0].attributes["unit_type"] == "free_text" and units[1].attributes["unit_type"] == "header_stanza"


def test_scale_corpus_every_machine_readable_file_parsed_every_free_form_rejected(spec_registry) -> None:
    loader = spec_registry.create("document_loaders", "default")
    parsers = spec_registry.resolve("unit_parsers", None)
    parsed = rejected = 0
    for path in sorted(SCALE_DIR.glob("*.copyright")):
        document = loader.load_document(path, path.name)
        outcome = parse_document(document, parsers)
        machine_readable = _FORMAT.search(document.text[:8000]) is not None
        if machine_readable:
            assert outcome.rejection is None, (path.name, outcome.rejection)
            assert {u.attributes["unit_type"] for u in outcome.units} >= {"header_stanza", "files_stanza"}, path.name
            parsed += 1
        else:
            assert outcome.rejection is not None and outcome.parser == "debian-copyright", path.name
            assert "free-form copyright file" in outcome.rejection.reason
            rejected += 1
    print(f"scale corpus: {parsed} machine-readable files parsed into stanzas, {rejected} free-form files rejected")
    assert parsed + rejected == len(list(SCALE_DIR.glob("*.copyright"))) and parsed > 400 and rejected > 200
