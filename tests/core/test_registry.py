"""Plugin discovery under spec/<kind>/: recursive, tolerant of broken files, versioned by source, name resolution."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path

import pytest

from right_rag_dagster.core.interfaces import PLUGIN_KINDS, UnitParser
from right_rag_dagster.core.model import Document
from right_rag_dagster.errors import ConfigError, PluginError
from right_rag_dagster.registry import build_registry, register_plugin_kind

PARSER = '''
from right_rag_dagster.interfaces import UnitParser
from right_rag_dagster.model import ParsedUnit


class {cls}(UnitParser):
    @property
    def parser_name(self):
        return "{name}"

    def parser_can_handle_document(self, document):
        return document.text.startswith("{marker}")

    def parse_document(self, document):
        yield ParsedUnit(topic="{topic}", fulltext=document.text, source_start=0, source_end=len(document.text))
'''


def parser_source(name: str, cls: str = "P", marker: str = "X", topic: str = "All") -> str:
    return PARSER.format(name=name, cls=cls, marker=marker, topic=topic)


def errors_by_file(registry) -> dict[str, str]:
    return {Path(error.file).name: error.message for error in registry.errors}


def test_discovery_is_recursive_and_keeps_source_file_and_builtins(tmp_path, write_plugin):
    spec = tmp_path / "spec"
    write_plugin(spec, "unit_parsers", "acts.py", parser_source("acts"))
    write_plugin(spec, "unit_parsers", "thai/orders/order.py", parser_source("thai-order"))
    registry = build_registry(spec)
    assert registry.errors == []
    assert registry.names("unit_parsers") == ["acts", "default", "generic", "thai-order"]
    info = registry.info("unit_parsers", "thai-order")
    assert Path(info.source_file) == spec / "unit_parsers" / "thai" / "orders" / "order.py"
    assert not info.builtin and registry.info("unit_parsers", "default").builtin
    assert registry.names("document_loaders") == ["default"]
    assert registry.names("chunk_parsers") == ["default"]


def test_a_broken_plugin_file_is_reported_by_name_and_the_others_still_load(tmp_path, write_plugin):
    spec = tmp_path / "spec"
    write_plugin(spec, "unit_parsers", "good.py", parser_source("good"))
    write_plugin(spec, "unit_parsers", "syntax_error.py", "def broken(:\n    pass\n")
    write_plugin(spec, "unit_parsers", "raises.py", "import not_a_real_module_xyz\n")
    write_plugin(spec, "unit_parsers", "zz_after.py", parser_source("after", cls="After"))
    registry = build_registry(spec)
    assert registry.names("unit_parsers") == ["after", "default", "generic", "good"]
    errors = errors_by_file(registry)
    assert set(errors) == {"syntax_error.py", "raises.py"}
    assert errors["syntax_error.py"].startswith("import failed: SyntaxError")
    assert "ModuleNotFoundError" in errors["raises.py"] and "not_a_real_module_xyz" in errors["raises.py"]
    assert all(error.kind == "unit_parsers" for error in registry.errors)
    assert str(registry.errors[0]).startswith(str(spec / "unit_parsers"))


def test_a_plugin_that_needs_constructor_arguments_is_reported(tmp_path, write_plugin):
    spec = tmp_path / "spec"
    write_plugin(spec, "unit_parsers", "needs_args.py", parser_source("needs-args", cls="NeedsArgs") + '''
    def __init__(self, language):
        self.language = language
''')
    registry = build_registry(spec)
    assert "needs-args" not in registry.names("unit_parsers")
    message = errors_by_file(registry)["needs_args.py"]
    assert "NeedsArgs needs a no-argument constructor" in message
    assert "language" in message


def test_abstract_bases_helpers_and_imported_classes_are_not_plugins(tmp_path, write_plugin):
    spec = tmp_path / "spec"
    write_plugin(spec, "unit_parsers", "base.py", '''
        from abc import abstractmethod
        from right_rag_dagster.interfaces import UnitParser
        from right_rag_dagster.builtins.unit_parsers.default import DefaultUnitParser  # imported, not defined here

        class HalfDone(UnitParser):
            @abstractmethod
            def parse_document(self, document): ...

        class NotAPlugin:
            pass
    ''')
    registry = build_registry(spec)
    assert registry.errors == []
    assert registry.names("unit_parsers") == ["default", "generic"]
    assert registry.info("unit_parsers", "default").builtin


def test_two_spec_plugins_with_one_name_are_an_error_naming_both_files(tmp_path, write_plugin):
    spec = tmp_path / "spec"
    write_plugin(spec, "unit_parsers", "a.py", parser_source("same", cls="A"))
    write_plugin(spec, "unit_parsers", "b.py", parser_source("same", cls="B"))
    registry = build_registry(spec)
    [error] = registry.errors
    assert Path(error.file).name == "b.py"
    assert "reuses the name 'same'" in error.message and "a.py" in error.message
    assert registry.info("unit_parsers", "same").cls.__name__ == "A"


def test_a_spec_plugin_named_like_a_builtin_replaces_it(tmp_path, write_plugin):
    spec = tmp_path / "spec"
    write_plugin(spec, "unit_parsers", "mine.py", parser_source("default", cls="MyDefault"))
    registry = build_registry(spec)
    info = registry.info("unit_parsers", "default")
    assert (info.cls.__name__, info.builtin) == ("MyDefault", False)


def test_name_resolution_none_all_empty_none_unknown_lists_available(tmp_path, write_plugin):
    spec = tmp_path / "spec"
    write_plugin(spec, "unit_parsers", "a.py", parser_source("acts", cls="A"))
    write_plugin(spec, "unit_parsers", "b.py", parser_source("orders", cls="B"))
    registry = build_registry(spec)
    assert registry.resolve_names("unit_parsers", None) == ["acts", "orders"]  # the smoke-test default left out
    assert registry.resolve_names("unit_parsers", []) == []
    assert registry.resolve_names("unit_parsers", ["orders", "default", "orders"]) == ["orders", "default"]
    assert [p.parser_name for p in registry.resolve("unit_parsers", ["default"])] == ["default"]
    with pytest.raises(ConfigError) as caught:
        registry.resolve_names("unit_parsers", ["acts", "thai-order"])
    assert "'thai-order'" in str(caught.value)
    assert "available: acts, default, generic, orders" in str(caught.value)


def test_defaults_are_selected_only_while_no_user_plugin_of_that_kind_exists(tmp_path, write_plugin):
    spec = tmp_path / "spec"
    (spec / "unit_parsers").mkdir(parents=True)
    assert build_registry(spec).resolve_names("unit_parsers", None) == ["default"]
    write_plugin(spec, "unit_parsers", "a.py", parser_source("acts"))
    registry = build_registry(spec)
    assert registry.resolve_names("unit_parsers", None) == ["acts"]
    assert registry.resolve_names("chunk_parsers", None) == ["default"]  # other kinds keep their default


def test_selected_by_default_false_keeps_a_plugin_out_of_none(tmp_path, write_plugin):
    spec = tmp_path / "spec"
    write_plugin(spec, "unit_parsers", "a.py", parser_source("acts"))
    write_plugin(spec, "unit_parsers", "b.py", parser_source("baseline", cls="B") + "    selected_by_default = False\n")
    registry = build_registry(spec)
    assert registry.resolve_names("unit_parsers", None) == ["acts"]
    assert registry.resolve_names("unit_parsers", ["baseline"]) == ["baseline"]


def test_editing_a_plugin_file_changes_its_version_and_behaviour(tmp_path, write_plugin):
    spec = tmp_path / "spec"
    path = write_plugin(spec, "unit_parsers", "acts.py", parser_source("acts", topic="Before"))
    first = build_registry(spec)
    assert build_registry(spec).version("unit_parsers", "acts") == first.version("unit_parsers", "acts")
    path.write_text(path.read_text().replace("Before", "After"))
    second = build_registry(spec)
    assert second.version("unit_parsers", "acts") != first.version("unit_parsers", "acts")
    [unit] = second.create("unit_parsers", "acts").parse_document(Document(id="d", text="X"))
    assert unit.topic == "After"
    assert second.version("unit_parsers", "default") == first.version("unit_parsers", "default")


def test_same_file_names_in_two_projects_do_not_clash(tmp_path, write_plugin):
    write_plugin(tmp_path / "one" / "spec", "unit_parsers", "p.py", parser_source("one"))
    write_plugin(tmp_path / "two" / "spec", "unit_parsers", "p.py", parser_source("two"))
    first, second = build_registry(tmp_path / "one" / "spec"), build_registry(tmp_path / "two" / "spec")
    assert first.resolve_names("unit_parsers", None) == ["one"]
    assert second.resolve_names("unit_parsers", None) == ["two"]
    assert first.create("unit_parsers", "one").parser_name == "one"


def test_right_rag_style_properties_map_names_to_instances(tmp_path, write_plugin):
    spec = tmp_path / "spec"
    write_plugin(spec, "unit_parsers", "a.py", parser_source("acts"))
    registry = build_registry(spec)
    parsers = registry.unit_parsers
    assert sorted(parsers) == ["acts", "default", "generic"]
    assert isinstance(parsers["acts"], UnitParser)
    assert parsers["acts"] is registry.create("unit_parsers", "acts")
    assert sorted(registry.chunk_savers) == ["default"]


def test_missing_spec_folder_gives_only_builtins(tmp_path):
    registry = build_registry(tmp_path / "nowhere")
    assert registry.errors == []
    assert registry.names("unit_parsers") == ["default", "generic"]
    assert build_registry(None).names("unit_savers") == ["default"]
    assert build_registry(tmp_path, include_builtins=False).names("unit_parsers") == []


def test_the_core_registers_only_the_builtins_it_is_given(tmp_path):
    from right_rag_dagster.builtins.unit_parsers import generic
    from right_rag_dagster.core.registry import discover

    registry = discover(tmp_path, {"unit_parsers": (generic,)})
    assert registry.names("unit_parsers") == ["generic"] and registry.names("chunk_parsers") == []
    info = registry.info("unit_parsers", "generic")
    assert info.builtin and info.version == build_registry(tmp_path).version("unit_parsers", "generic")


class Widget(ABC):
    """A plugin kind that only this test knows."""

    @property
    @abstractmethod
    def widget_name(self) -> str: ...


def test_a_later_layer_can_register_a_new_plugin_kind(tmp_path, write_plugin):
    spec = tmp_path / "spec"
    write_plugin(spec, "test_widgets", "w.py", f"""
        from {__name__} import Widget

        class Gear(Widget):
            widget_name = "gear"
    """)
    register_plugin_kind("test_widgets", Widget, "widget_name")
    try:
        assert build_registry(spec).names("test_widgets") == ["gear"]
    finally:
        PLUGIN_KINDS.pop("test_widgets")


def kept_discovery(monkeypatch) -> None:  # noqa: ANN001
    """Let discovery keep what it finds beside the bytecode (PYTHONDONTWRITEBYTECODE may be set where tests run)."""
    from right_rag_dagster.core import sources

    monkeypatch.setattr(sources.sys, "dont_write_bytecode", False)


def no_imports(monkeypatch) -> list[Path]:  # noqa: ANN001
    """Record the spec files discovery runs (and run them as before)."""
    from right_rag_dagster.core import registry as core_registry

    ran: list[Path] = []
    real = core_registry._import_file

    def recording(path, kind, folder):  # noqa: ANN001, ANN202
        ran.append(path)
        return real(path, kind, folder)

    monkeypatch.setattr(core_registry, "_import_file", recording)
    return ran


def test_the_next_discovery_knows_a_files_plugins_without_running_it_until_one_is_used(tmp_path, write_plugin,
                                                                                       monkeypatch):
    spec = tmp_path / "spec"
    write_plugin(spec, "unit_parsers", "a.py", parser_source("acts", cls="A") + parser_source("orders", cls="B")
                 .split("\n", 3)[3])  # two plugin classes in one file
    write_plugin(spec, "unit_parsers", "_helper.py", "WORDS = 1\n")
    kept_discovery(monkeypatch)
    first = build_registry(spec)
    ran = no_imports(monkeypatch)
    again = build_registry(spec)
    assert ran == [] and again.errors == []
    assert again.names("unit_parsers") == first.names("unit_parsers") == ["acts", "default", "generic", "orders"]
    assert again.version("unit_parsers", "acts") == first.version("unit_parsers", "acts")
    assert again.info("unit_parsers", "orders").source_file == str(spec / "unit_parsers" / "a.py")
    assert again.create("unit_parsers", "acts").parser_name == "acts"  # imported now, once for both classes
    assert again.create("unit_parsers", "orders").parser_name == "orders"
    assert ran == [spec / "unit_parsers" / "a.py"]


def test_an_edited_or_broken_file_is_run_again_and_its_errors_reported_every_time(tmp_path, write_plugin,
                                                                                   monkeypatch):
    spec = tmp_path / "spec"
    plugin = write_plugin(spec, "unit_parsers", "a.py", parser_source("acts"))
    write_plugin(spec, "unit_parsers", "b.py", parser_source("acts", cls="Again"))  # the name a.py has
    write_plugin(spec, "unit_parsers", "broken.py", "import not_a_real_module_xyz\n")
    kept_discovery(monkeypatch)
    build_registry(spec)
    ran = no_imports(monkeypatch)
    registry = build_registry(spec)
    assert ran == [spec / "unit_parsers" / "b.py", spec / "unit_parsers" / "broken.py"]
    assert set(errors_by_file(registry)) == {"b.py", "broken.py"}
    assert "reuses the name 'acts'" in errors_by_file(registry)["b.py"]

    version = registry.version("unit_parsers", "acts")
    plugin.write_text(parser_source("renamed"), encoding="utf-8")
    ran.clear()
    edited = build_registry(spec)
    assert spec / "unit_parsers" / "a.py" in ran
    assert "renamed" in edited.names("unit_parsers") and edited.version("unit_parsers", "renamed") != version
    assert edited.info("unit_parsers", "acts").source_file.endswith("b.py")  # b.py's plugin has the name now


def test_a_kept_plugin_is_found_by_the_name_its_file_binds_and_a_failed_import_is_reported_and_forgotten(
        tmp_path, write_plugin, monkeypatch):
    """A class made by a factory is bound under another name than its own; a file that no longer imports (a package
    it needs was removed) fails with its name and reason when first used, and the next discovery runs it again."""
    spec = tmp_path / "spec"
    plugin = write_plugin(spec, "unit_parsers", "made.py", parser_source("made", cls="_Made") + "\n\nActs = _Made\n"
                          "del _Made\nimport os\nif os.environ.get('BREAK_MADE'):\n    import not_a_real_module_xyz\n")
    kept_discovery(monkeypatch)
    build_registry(spec)
    again = build_registry(spec)
    assert again.create("unit_parsers", "made").parser_name == "made"

    monkeypatch.setenv("BREAK_MADE", "1")
    broken = build_registry(spec)
    assert broken.names("unit_parsers") == ["default", "generic", "made"]  # known from what was kept
    with pytest.raises(PluginError, match=r"made\.py: import failed: ModuleNotFoundError"):
        broken.create("unit_parsers", "made")
    assert "made.py" in errors_by_file(build_registry(spec))  # run again at discovery, and reported there
    assert plugin.is_file()
