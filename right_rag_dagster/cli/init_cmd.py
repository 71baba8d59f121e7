"""`right-rag init DIR`: scaffold a project (settings, spec/ with example plugins, folders, Dagster workspace)."""

from __future__ import annotations

import argparse
import shlex
import shutil
from pathlib import Path

from ..errors import ConfigError

TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates" / "project"
DOT_PREFIX = "dot-"  # template files named dot-x are written as .x (a .gitignore in the package would act on it)
KEEP_IF_PRESENT = {".gitkeep"}  # placeholders: never a conflict, never overwritten
MERGED_LINES = {".gitignore"}  # an existing file gets the missing lines appended: never a conflict


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "init", help="create a project: right_rag.toml, spec/ with example parsers, data/documents/, workspace.yaml",
        description="Scaffold a right-rag project in DIR (created if missing). Files already there are kept; "
                    "if DIR already holds files of a project (right_rag.toml, spec/ examples, ...) nothing is "
                    "written unless --force overwrites those files.",
    )
    parser.add_argument("directory", nargs="?", default=None, metavar="DIR",
                        help="the project folder (default: --project, else the current directory)")
    parser.add_argument("--force", action="store_true", help="overwrite the scaffold's files where they exist")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    target = Path(args.directory or args.project or ".")
    written = scaffold_project(target, force=args.force)
    root = target.resolve()
    print(f"Created a right-rag project in {root} ({len(written)} files):")
    for path in sorted(written):
        print(f"  {path.relative_to(root).as_posix()}")
    cd = "" if root == Path.cwd().resolve() else f"cd {shlex.quote(str(target))} && "
    print("\nNext:\n"
          f"  {cd}cp /path/to/your/files/* data/documents/\n"
          "  edit spec/unit_parsers/example_sections.py (or add a parser per document family)\n"
          "  right-rag index && right-rag report   # or: DAGSTER_HOME=$PWD/.dagster dagster dev")
    return 0


def template_files() -> list[tuple[Path, Path]]:
    """(template file, path relative to the project) for every file of the scaffold."""
    pairs = []
    for source in sorted(TEMPLATE_DIR.rglob("*")):
        relative = source.relative_to(TEMPLATE_DIR)
        if source.is_dir() or "__pycache__" in relative.parts or source.suffix == ".pyc":
            continue
        name = relative.name
        if name.startswith(DOT_PREFIX):
            name = "." + name[len(DOT_PREFIX):]
        pairs.append((source, relative.with_name(name)))
    return pairs


def scaffold_project(target: str | Path, force: bool = False) -> list[Path]:
    """Copy the scaffold into ``target`` and return the files written.

    Raises ``ConfigError`` when ``target`` is a file, or when scaffold files already exist there and ``force``
    is false; files that are not part of the scaffold are never touched.
    """
    root = Path(target).resolve()
    if root.exists() and not root.is_dir():
        raise ConfigError(f"{root} exists and is not a folder; choose a new folder name for the project")
    files = template_files()
    conflicts = [rel for _, rel in files
                 if (root / rel).exists() and rel.name not in KEEP_IF_PRESENT | MERGED_LINES]
    if conflicts and not force:
        shown = ", ".join(rel.as_posix() for rel in conflicts[:5]) + (", ..." if len(conflicts) > 5 else "")
        raise ConfigError(f"{root} already holds a right-rag project ({shown}); "
                          "use 'right-rag init --force' to overwrite these files, or choose another folder")
    written = []
    for source, relative in files:
        destination = root / relative
        if relative.name in KEEP_IF_PRESENT and destination.exists():
            continue
        destination.parent.mkdir(parents=True, exist_ok=True)
        if relative.name in MERGED_LINES and destination.exists():
            if not _append_missing_lines(source, destination):
                continue
        else:
            shutil.copyfile(source, destination)
        written.append(destination)
    return written


def _append_missing_lines(source: Path, destination: Path) -> bool:
    """Append the lines of ``source`` that ``destination`` lacks; True if anything was added."""
    present = set(destination.read_text(encoding="utf-8").splitlines())
    missing = [line for line in source.read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.startswith("#") and line not in present]
    if missing:
        current = destination.read_text(encoding="utf-8")
        separator = "" if not current or current.endswith("\n") else "\n"
        destination.write_text(current + separator + "\n".join(missing) + "\n", encoding="utf-8")
    return bool(missing)
