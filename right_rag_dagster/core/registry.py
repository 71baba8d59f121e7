"""Plugin discovery: every concrete no-argument subclass under ``spec/<kind>/`` (recursive), beside the built-in
plugin modules the caller passes (``right_rag_dagster.registry.build_registry`` passes the package's).

A plugin file that fails to import is reported (file and exception) instead of stopping discovery. A spec
plugin with the same name as a built-in replaces it; two spec plugins with one name are an error. What a spec file
registered is kept beside its bytecode for its version (``sources.keep``): the next process knows its plugins'
names and versions without running the file, and imports it when a plugin is first used (a run with nothing to
index never does).
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import ConfigError, PluginError
from .hashing import file_hash, stable_hash
from .interfaces import PLUGIN_KINDS
from .sources import code_version, forget, keep, read_kept

SMOKE_TEST_KINDS = ("unit_parsers", "chunk_parsers")


def register_plugin_kind(kind: str, interface: type, name_property: str) -> None:
    """Let a layer above the core (retrieval, ...) add a plugin kind discovered under ``spec/<kind>/``."""
    PLUGIN_KINDS.setdefault(kind, (interface, name_property))


@dataclass(frozen=True)
class PluginInfo:
    """A discovered plugin: where it came from and its version (a hash of its source, ``_source_version``). ``load``
    gives its class: at hand when discovery ran the file, imported on first use when it was known from what an
    earlier process kept."""

    kind: str
    name: str
    load: Callable[[], type] = field(repr=False, compare=False)
    source_file: str = ""
    version: str = ""
    builtin: bool = False
    selected_by_default: bool = True

    @property
    def cls(self) -> type:
        return self.load()


@dataclass(frozen=True)
class PluginLoadError:
    """A plugin file or class that could not be used, with the reason."""

    kind: str
    file: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


@dataclass
class Registry:
    """All plugins by kind and name, plus the errors met while discovering them."""

    spec_dir: Path | None
    plugins: dict[str, dict[str, PluginInfo]] = field(default_factory=dict)
    errors: list[PluginLoadError] = field(default_factory=list)
    _instances: dict[tuple[str, str], Any] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def names(self, kind: str) -> list[str]:
        return sorted(self.plugins.get(kind, {}))

    def info(self, kind: str, name: str) -> PluginInfo:
        try:
            return self.plugins[kind][name]
        except KeyError:
            available = ", ".join(self.names(kind)) or "none"
            raise ConfigError(f"no {kind[:-1].replace('_', ' ')} named {name!r}; available: {available}") from None

    def create(self, kind: str, name: str) -> Any:
        """The (cached) instance of plugin ``name`` of ``kind``."""
        key = (kind, name)
        with self._lock:  # the playground answers in threads: one instance, one import of its file
            if key not in self._instances:
                self._instances[key] = self.info(kind, name).cls()
            return self._instances[key]

    def default_names(self, kind: str) -> list[str]:
        """What ``None`` selects: every plugin with ``selected_by_default``, the user's before the built-ins
        (loaders are tried in this order). Once a user unit or chunk parser exists, the smoke-test ``default``
        parser of that kind is left out; built-in loaders and savers stay, next to the user's."""
        infos = [i for i in self.plugins.get(kind, {}).values() if i.selected_by_default]
        if kind in SMOKE_TEST_KINDS and any(not i.builtin for i in infos):
            infos = [i for i in infos if not (i.builtin and i.name == "default")]
        return [i.name for i in sorted(infos, key=lambda i: (i.builtin, i.name))]

    def resolve_names(self, kind: str, names: Sequence[str] | None) -> list[str]:
        """None = all registered (see ``default_names``), [] = none, unknown name = ``ConfigError``."""
        if names is None:
            return self.default_names(kind)
        for name in names:
            self.info(kind, name)
        return list(dict.fromkeys(names))

    def resolve(self, kind: str, names: Sequence[str] | None) -> list[Any]:
        return [self.create(kind, name) for name in self.resolve_names(kind, names)]

    def version(self, kind: str, name: str) -> str:
        return self.info(kind, name).version

    # right-rag compatibility: ``r.unit_parsers`` etc. map names to instances.
    def _all(self, kind: str) -> dict[str, Any]:
        return {name: self.create(kind, name) for name in self.names(kind)}

    @property
    def document_loaders(self) -> dict[str, Any]:
        return self._all("document_loaders")

    @property
    def unit_parsers(self) -> dict[str, Any]:
        return self._all("unit_parsers")

    @property
    def chunk_parsers(self) -> dict[str, Any]:
        return self._all("chunk_parsers")

    @property
    def unit_savers(self) -> dict[str, Any]:
        return self._all("unit_savers")

    @property
    def chunk_savers(self) -> dict[str, Any]:
        return self._all("chunk_savers")


KindSpec = tuple["type | str", str]
"""A plugin kind's interface (a class, or ``"module:Class"`` imported only when the kind has plugins) and the
property that names its plugins."""


def discover(spec_dir: str | Path | None, builtins: Mapping[str, Sequence[ModuleType]],
             kinds: Mapping[str, KindSpec] | None = None) -> Registry:
    """The ``builtins`` (plugin kind -> modules), then the plugins under ``spec_dir`` (relative paths are from
    the working directory), for the plugin ``kinds`` given (default: the core's ``PLUGIN_KINDS``)."""
    spec_path = Path(spec_dir).resolve() if spec_dir is not None else None
    registry = Registry(spec_dir=spec_path)
    for kind, spec in (PLUGIN_KINDS if kinds is None else kinds).items():
        registry.plugins[kind] = {}
        for module in builtins.get(kind, ()):
            _register(registry, kind, spec, module, Path(module.__file__).resolve(), None)
        if spec_path is not None:
            _discover(registry, kind, spec, spec_path / kind)
    return registry


def _interface(spec: KindSpec) -> tuple[type, str]:
    interface, name_property = spec
    if isinstance(interface, str):
        module, _, attribute = interface.partition(":")
        interface = getattr(importlib.import_module(module), attribute)
    return interface, name_property


def load_helper(plugin_file: str | Path, filename: str) -> Any:
    """Import a private helper module (``_shared.py``) lying beside a spec plugin: ``load_helper(__file__, name)``.

    Spec plugins are imported by path, not as packages, so they cannot import their neighbours; this loads one
    module per helper file content (its hash is in the module name) and is part of the plugins' versions.
    """
    path = Path(plugin_file).resolve().with_name(filename)
    module_name = f"right_rag_spec_helper_{stable_hash([str(path), file_hash(path)])[:16]}"
    return sys.modules.get(module_name) or _exec_file(module_name, path)


KEPT = "plugins"
"""What discovery keeps of a spec file beside its bytecode (``sources.keep``)."""
KEPT_FORMAT = 2
"""Part of the kept entry's key: a change to what discovery finds in a file (this module is in no plugin's version,
``sources.DISCOVERY``) must raise it."""


def _kept_key(kind: str, spec: KindSpec, version: str) -> str:
    """What a kept entry is valid for: the file's version, the kind's interface and naming property (a kind a user
    registers may change them), and the interpreter and environment that imported it (a package the file imports
    may be missing from another one)."""
    interface, name_property = spec
    where = interface if isinstance(interface, str) else f"{interface.__module__}:{interface.__qualname__}"
    return stable_hash([KEPT_FORMAT, kind, where, name_property, version, sys.prefix, sys.version])


def _discover(registry: Registry, kind: str, spec: KindSpec, folder: Path) -> None:
    if not folder.is_dir():
        return
    seen_in_spec: dict[str, str] = {}
    for path in sorted(folder.rglob("*.py")):
        if path.name == "__init__.py" or "__pycache__" in path.parts:
            continue
        version = _source_version(path, builtin=False)
        key = _kept_key(kind, spec, version)
        kept = read_kept(path, KEPT, key)
        if isinstance(kept, list) and _register_kept(registry, kind, path, folder, version, kept, seen_in_spec):
            continue
        try:
            module = _import_file(path, kind, folder)
        except Exception as exc:  # a user's broken file must not stop discovery
            registry.errors.append(PluginLoadError(kind, str(path), f"import failed: {type(exc).__name__}: {exc}"))
            continue
        errors = len(registry.errors)
        found = _register(registry, kind, spec, module, path, seen_in_spec, version)
        # kept only without an error (a file with one runs again, so it is reported again) and when the file did not
        # change while it ran (what it registered must be what its version names)
        if len(registry.errors) == errors and _source_version(path, builtin=False) == version:
            keep(path, KEPT, key, found)


def _register_kept(registry: Registry, kind: str, path: Path, folder: Path, version: str, kept: list,
                   seen_in_spec: dict[str, str]) -> bool:
    """Register the plugins an earlier process found in ``path`` at ``version``, their classes imported on first
    use; False (nothing registered) when the entry is not one ``_register`` wrote or a name is taken."""
    try:
        entries = [(str(attribute), name, bool(default)) for attribute, name, default in kept]
    except (TypeError, ValueError):
        return False
    if any(not isinstance(name, str) or name in seen_in_spec for _, name, _ in entries):
        return False  # import the file: registering it reports the clash as before
    module = _LazyModule(path, kind, folder, version)
    for attribute, name, default in entries:
        seen_in_spec[name] = str(path)
        registry.plugins[kind][name] = PluginInfo(kind=kind, name=name, load=module.attribute(attribute),
                                                  source_file=str(path), version=version, builtin=False,
                                                  selected_by_default=default)
    return True


class _LazyModule:
    """A spec file imported the first time one of its plugin classes is asked for (once for all its classes, once
    across threads), checked to be the file its kept entry described."""

    def __init__(self, path: Path, kind: str, folder: Path, version: str) -> None:
        self.path, self.kind, self.folder, self.version = path, kind, folder, version
        self._module: ModuleType | None = None
        self._lock = threading.Lock()

    def attribute(self, name: str) -> Callable[[], type]:
        def load() -> type:
            found = getattr(self._load(), name, None)
            if not isinstance(found, type):
                raise PluginError(f"{self.path}: no plugin class {name!r} where discovery found one; run again")
            return found

        return load

    def _load(self) -> ModuleType:
        with self._lock:
            if self._module is not None:
                return self._module
            if _source_version(self.path, builtin=False) != self.version:
                raise PluginError(f"{self.path} changed after this run started; run again to use the new version")
            try:
                self._module = _import_file(self.path, self.kind, self.folder)
            except Exception as exc:
                forget(self.path, KEPT)  # the next run imports it at discovery and reports the error there
                raise PluginError(f"{self.path}: import failed: {type(exc).__name__}: {exc}") from exc
            return self._module


def _register(registry: Registry, kind: str, spec: KindSpec, module: ModuleType, path: Path,
              seen_in_spec: dict[str, str] | None, version: str | None = None) -> list[list]:
    """Every plugin class defined in ``module``; ``seen_in_spec`` (None for a built-in) catches reused names.
    Returns ``[class name, plugin name, selected by default]`` of each one registered."""
    interface, name_property = _interface(spec)
    builtin = seen_in_spec is None
    version = version or _source_version(path, builtin)
    found = []
    for attribute, cls in inspect.getmembers(module, inspect.isclass):
        if cls.__module__ != module.__name__ or not issubclass(cls, interface) or inspect.isabstract(cls):
            continue
        try:
            name = getattr(cls(), name_property)
        except Exception as exc:
            registry.errors.append(
                PluginLoadError(kind, str(path), f"{cls.__name__} needs a no-argument constructor and a "
                                f"{name_property} property: {type(exc).__name__}: {exc}")
            )
            continue
        if not builtin and name in seen_in_spec:
            registry.errors.append(
                PluginLoadError(kind, str(path), f"{cls.__name__} reuses the name {name!r} of a plugin in "
                                f"{seen_in_spec[name]}; plugin names must be unique per kind")
            )
            continue
        if not builtin:
            seen_in_spec[name] = str(path)
        default = bool(getattr(cls, "selected_by_default", True))
        registry.plugins[kind][name] = PluginInfo(kind=kind, name=name, load=_constant(cls), source_file=str(path),
                                                  version=version, builtin=builtin, selected_by_default=default)
        found.append([attribute, name, default])
    return found


def _constant(cls: type) -> Callable[[], type]:
    return lambda: cls


def _import_file(path: Path, kind: str, folder: Path) -> Any:
    relative = path.relative_to(folder).with_suffix("")
    module_name = ".".join([f"right_rag_spec_{stable_hash(str(folder))[:8]}", kind, *relative.parts])
    return _exec_file(module_name, path)


def _exec_file(module_name: str, path: Path) -> Any:
    """Import the Python file ``path`` as module ``module_name`` (kept in ``sys.modules`` unless it fails)."""
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise PluginError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def _source_version(path: Path, builtin: bool) -> str:
    """Plugin version: a hash of the plugin's source file, the private helpers ``_*.py`` beside a spec plugin (which
    plugins import by path), and the modules of this package that they import, directly or through each other (the
    generic parser's logic lives in ``core/faq.py`` too, the default loader's in ``loaders/``)."""
    files = [path]
    if not builtin:
        files += sorted(p for p in path.parent.glob("_*.py") if p.name != "__init__.py" and p != path)
    return code_version(files)
