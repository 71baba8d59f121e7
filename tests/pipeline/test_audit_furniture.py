"""The audit report counts the page furniture parsers report inside their units (the ``furniture_chars``
attribute) per document, and none for documents whose units report none."""

from __future__ import annotations

import json
import textwrap

from right_rag_dagster.cli import main

from ..orchestration.conftest import make_project

FURNITURE_PARSER = '''
from right_rag_dagster.interfaces import UnitParser
from right_rag_dagster.model import ParsedUnit


class PagedParser(UnitParser):
    """Two sections of a paged document; the first says 12 of its characters are a running header."""

    @property
    def parser_name(self):
        return "paged"

    def parser_can_handle_document(self, document):
        return document.text.startswith("PAGED")

    def parse_document(self, document):
        middle = len(document.text) // 2
        yield ParsedUnit(topic="One", key="one", fulltext=document.text[:middle], source_start=0,
                         source_end=middle, attributes={"unit_type": "section", "furniture_chars": 12})
        yield ParsedUnit(topic="Two", key="two", fulltext=document.text[middle:], source_start=middle,
                         source_end=len(document.text), attributes={"unit_type": "section"})
'''


def test_the_report_counts_the_furniture_parsers_report(tmp_path, monkeypatch, capsys) -> None:
    project = make_project(tmp_path / "p", documents=("Apache-2.0.txt",))
    (project / "spec" / "unit_parsers" / "paged.py").write_text(textwrap.dedent(FURNITURE_PARSER))
    (project / "data" / "documents" / "paged.txt").write_text("PAGED manual, page 1\n" + "Some content. " * 40)
    config = project / "right_rag.toml"
    config.write_text(config.read_text().replace('"apache-licence"]', '"apache-licence", "paged"]'))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster_home"))
    assert main(["--project", str(project), "index", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["--project", str(project), "report", "--json"]) == 0
    coverage = {row["document_id"]: row for row in json.loads(capsys.readouterr().out)["coverage"]}
    assert coverage["paged.txt"]["furniture_chars"] == 12
    assert coverage["Apache-2.0.txt"]["furniture_chars"] == 0
