"""A plugin's version covers the package modules its code runs (``core/sources.py``)."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import pytest

from right_rag_dagster.builtins.unit_parsers import generic
from right_rag_dagster.core import sources
from right_rag_dagster.registry import build_registry


def write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def package(tmp_path: Path) -> Path:
    """``mypkg``: a plugin importing ``core.rules`` (absolute), which imports ``core.words`` inside a function
    (relative); ``core.unused`` is imported by nothing."""
    root = tmp_path / "mypkg"
    write(root, "__init__.py", "")
    write(root, "core/__init__.py", "")
    write(root, "core/rules.py", "def rule():\n    from .words import WORDS\n    return WORDS\n")
    write(root, "core/words.py", "WORDS = ['a']\n")
    write(root, "core/unused.py", "X = 1\n")
    write(root, "plugins/parser.py", "import re\nfrom mypkg.core.rules import rule\n")
    return root


def test_the_modules_a_file_imports_are_followed_through_each_other(tmp_path):
    root = package(tmp_path)
    found = sources.package_sources([root / "plugins/parser.py"], root)
    assert [p.relative_to(root).as_posix() for p in found] == ["core/rules.py", "core/words.py", "plugins/parser.py"]


def test_imports_inside_any_block_are_followed(tmp_path):
    """Imports under ``if``, ``try``/``except``/``finally``, ``with``, ``match``, loops and classes count like
    top-level ones; a name in an expression or a string does not."""
    root = tmp_path / "mypkg"
    write(root, "__init__.py", "")
    names = ["a", "b", "c", "d", "e", "f", "g", "h", "unused"]
    for name in names:
        write(root, f"m/{name}.py", "")
    write(root, "m/__init__.py", "")
    write(root, "plugin.py", (
        "import sys\n"
        "if sys.argv:\n    pass\nelse:\n    import mypkg.m.a\n"
        "try:\n    from mypkg.m import b\nexcept ImportError:\n    from mypkg.m import c\n"
        "finally:\n    pass\n"
        "with open(__file__):\n    from .m import d\n"
        "match sys.argv:\n    case []:\n        from .m import e\n"
        "for _ in ():\n    import mypkg.m.f\n"
        "class K:\n    def method(self):\n        while False:\n            from .m import g\n"
        "async def run():\n    async with x:\n        from .m import h\n"
        "TEXT = 'from mypkg.m import unused'\nNAME = __import__('mypkg.m.unused')\n"
    ))
    found = {p.relative_to(root).as_posix() for p in sources.package_sources([root / "plugin.py"], root)}
    assert found == {"plugin.py", "m/__init__.py"} | {f"m/{name}.py" for name in names[:-1]}


def test_editing_a_module_the_code_runs_changes_its_version_and_no_other_edit_does(tmp_path):
    root = package(tmp_path)
    plugin = [root / "plugins/parser.py"]
    first = sources.code_version(plugin, root)
    write(root, "core/unused.py", "X = 2\n")
    assert sources.code_version(plugin, root) == first
    write(root, "core/words.py", "WORDS = ['b']\n")
    assert sources.code_version(plugin, root) != first


def test_a_plugin_outside_the_package_follows_what_it_imports_from_it(tmp_path):
    plugin = write(tmp_path / "spec" / "unit_parsers", "acts.py",
                   "from right_rag_dagster.core.restructuredtext import only_comments\nfrom . import nothing\n"
                   "from right_rag_dagster.core.registry import load_helper\n")
    found = {p.relative_to(sources.PACKAGE).as_posix() for p in sources.package_sources([plugin])
             if p.is_relative_to(sources.PACKAGE)}
    assert "core/restructuredtext.py" in found and not any(name.startswith("retrieval/") for name in found)
    assert not found & set(sources.DISCOVERY)  # how plugins are found and loaded is no part of what they do


def test_the_generic_parsers_version_covers_the_modules_its_logic_lives_in(tmp_path):
    found = {p.relative_to(sources.PACKAGE).as_posix() for p in sources.package_sources([Path(generic.__file__)])}
    assert {"core/faq.py", "core/restructuredtext.py", "builtins/unit_parsers/generic.py"} <= found
    assert build_registry(tmp_path).version("unit_parsers", "generic") == sources.code_version([Path(generic.__file__)])


def test_a_helper_python_cannot_parse_is_reported_and_the_other_plugins_load(tmp_path):
    """A leftover ``_old.py`` in Python 2 syntax beside a plugin: its bytes count in the plugin's version, its imports
    are not followed, and discovery goes on (before, parsing it for imports failed the whole registry)."""
    folder = tmp_path / "spec" / "unit_parsers"
    write(folder, "ok.py", "from right_rag_dagster.core.interfaces import UnitParser\n\n\nclass Ok(UnitParser):\n"
                           "    parser_name = 'ok'\n\n    def parser_can_handle_document(self, document):\n"
                           "        return True\n\n    def parse_document(self, document):\n        return []\n")
    write(folder, "_old.py", "print 'hello'\n")
    registry = build_registry(tmp_path / "spec")
    assert "ok" in registry.names("unit_parsers")
    first = registry.version("unit_parsers", "ok")
    write(folder, "_old.py", "print 'hello again'\n")
    assert build_registry(tmp_path / "spec").version("unit_parsers", "ok") != first


def fresh(monkeypatch) -> None:  # noqa: ANN001
    """A new process's view: nothing parsed in memory yet."""
    monkeypatch.setattr(sources, "_parsed", functools.cache(sources._parsed.__wrapped__))
    monkeypatch.setattr(sources, "_imported", functools.cache(sources._imported.__wrapped__))


def test_a_files_imports_are_kept_beside_its_bytecode_for_the_next_process(tmp_path, monkeypatch):
    root = package(tmp_path)
    plugin = [root / "plugins/parser.py"]
    monkeypatch.setattr(sources.sys, "dont_write_bytecode", False)
    fresh(monkeypatch)
    first = sources.code_version(plugin, root)
    kept = root / "plugins" / "__pycache__" / f"parser.{sys.implementation.cache_tag}.imports.json"
    assert kept.is_file() and not list(kept.parent.glob("*.tmp"))

    fresh(monkeypatch)
    monkeypatch.setattr(sources.ast, "parse", lambda *a, **k: pytest.fail("parsed again"))
    assert sources.code_version(plugin, root) == first  # every file's imports read from what was kept

    monkeypatch.undo()
    monkeypatch.setattr(sources.sys, "dont_write_bytecode", False)
    fresh(monkeypatch)
    write(root, "plugins/parser.py", "import re\n")  # new bytes: what was kept no longer applies
    assert sources.package_sources(plugin, root) == [root / "plugins/parser.py"]
    kept.write_text("{not json", encoding="utf-8")  # damaged: ignored, parsed again
    fresh(monkeypatch)
    assert sources.package_sources(plugin, root) == [root / "plugins/parser.py"]


def test_nothing_is_kept_when_python_is_told_not_to_write_bytecode(tmp_path, monkeypatch):
    root = package(tmp_path)
    monkeypatch.setattr(sources.sys, "dont_write_bytecode", True)
    fresh(monkeypatch)
    sources.code_version([root / "plugins/parser.py"], root)
    assert not list(root.rglob("__pycache__"))


def test_a_cache_folder_that_cannot_be_written_costs_a_parse_not_an_error(tmp_path, monkeypatch):
    root = package(tmp_path)
    monkeypatch.setattr(sources.sys, "dont_write_bytecode", False)
    fresh(monkeypatch)
    (root / "plugins" / "__pycache__").write_text("a file where the folder would go")  # as a read-only folder would
    found = sources.package_sources([root / "plugins/parser.py"], root)
    assert [p.relative_to(root).as_posix() for p in found] == ["core/rules.py", "core/words.py", "plugins/parser.py"]
    assert sorted(p.name for p in (root / "plugins").iterdir()) == ["__pycache__", "parser.py"]
