"""A small real project with two narrow licence parsers, for the orchestration tests."""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2] / "data" / "documents"

PARSER_TEMPLATE = '''
import re
from right_rag_dagster.interfaces import UnitParser
from right_rag_dagster.model import ParsedUnit


class {cls}(UnitParser):
    """Numbered sections ("  0. Definitions.") of one licence family."""

    @property
    def parser_name(self):
        return "{name}"

    def parser_can_handle_document(self, document):
        return {accepts}

    def parse_document(self, document):
        starts = [m for m in re.finditer(r"(?m)^\\s*(\\d+)\\. (.+)$", document.text)]
        for i, m in enumerate(starts):
            end = starts[i + 1].start() if i + 1 < len(starts) else len(document.text)
            yield ParsedUnit(topic=f"Section {{m.group(1)}}", key=f"{{m.group(1)}}-{{i}}",
                             fulltext=document.text[m.start():end].strip(),
                             source_start=m.start(), source_end=end,
                             attributes={{"unit_type": "section"}})
'''

GNU_PARSER = PARSER_TEMPLATE.format(
    cls="GnuLicenceParser", name="gnu-licence",
    accepts='"GNU" in document.text[:2000] and "GENERAL PUBLIC LICENSE" in document.text[:2000]')
APACHE_PARSER = PARSER_TEMPLATE.format(
    cls="ApacheLicenceParser", name="apache-licence", accepts='"Apache License" in document.text[:500]')


def make_project(root: Path, documents: tuple[str, ...] = ("GPL-3.0.txt", "LGPL-3.0.txt", "Apache-2.0.txt")) -> Path:
    """A project at ``root`` with the two licence parsers, the default chunker and some licences."""
    (root / "spec" / "unit_parsers").mkdir(parents=True)
    (root / "spec" / "unit_parsers" / "gnu.py").write_text(textwrap.dedent(GNU_PARSER))
    (root / "spec" / "unit_parsers" / "apache.py").write_text(textwrap.dedent(APACHE_PARSER))
    docs = root / "data" / "documents"
    docs.mkdir(parents=True)
    for name in documents:
        shutil.copy(CORPUS / name, docs / name)
    (root / "right_rag.toml").write_text(
        '[right-rag]\n\n[right-rag.pipeline]\nunit_parsers = ["gnu-licence", "apache-licence"]\n'
        'chunk_parsers = ["default"]\n\n[right-rag.checks]\nsmoke_test = true\n')
    return root


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    return make_project(tmp_path / "project")


def indexed_template(root: Path, first_index: Callable, **instance_options: bool) -> Path:
    """``root/project`` (``make_project``) after ``first_index(project, instance)``, and ``root/dagster``, the
    folder of the instance that ran it (closed). Shared by a module's tests through ``indexed_copy``."""
    import dagster as dg

    project = make_project(root / "project")
    (root / "dagster").mkdir()
    with dg.instance_for_test(temp_dir=str(root / "dagster"), **instance_options) as instance:
        first_index(project, instance)
    return root


@contextmanager
def indexed_copy(template: Path, destination: Path, **instance_options: bool) -> Iterator[tuple[Path, object]]:
    """A copy of an ``indexed_template`` (project, store and the instance's folder): (project, the instance of its
    first index, opened again), as if the test had just indexed it (copying costs milliseconds; an index, seconds)."""
    import dagster as dg

    root = Path(shutil.copytree(template, destination, symlinks=True))
    with dg.instance_for_test(temp_dir=str(root / "dagster"), **instance_options) as instance:
        yield root / "project", instance
