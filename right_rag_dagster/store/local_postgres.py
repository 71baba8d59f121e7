"""A throwaway PostgreSQL server in a temporary folder, for tests and ``scripts/scale-out-demo``.

``initdb`` writes a fresh cluster, ``pg_ctl`` starts it on a free port on 127.0.0.1 with trust authentication,
and ``stop()`` shuts it down and deletes the folder. PostgreSQL refuses to run as root, so as root the cluster
belongs to the ``postgres`` user (Debian's package creates it) and every server command runs through
``runuser``. The binaries are found on PATH, in /usr/local/bin or in /usr/lib/postgresql/<version>/bin.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ConfigError, StoreError

SERVER_USER = "postgres"
"""The operating-system user that owns the cluster when this process runs as root."""


class PostgresUnavailable(ConfigError):
    """No PostgreSQL server binaries here (install Debian's ``postgresql`` package), or no user to run them."""


def find_bin_dir() -> Path:
    """The folder holding ``initdb``, ``pg_ctl`` and ``postgres`` (newest version first in /usr/lib/postgresql)."""
    candidates = []
    on_path = shutil.which("initdb")
    if on_path:
        candidates.append(Path(on_path).resolve().parent)
    candidates.append(Path("/usr/local/bin"))
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name)
                      if Path(p).parent.name.isdigit() else 0, reverse=True)
    candidates.extend(Path(p) for p in versions)
    for folder in candidates:
        if all((folder / name).exists() for name in ("initdb", "pg_ctl", "postgres")):
            return (folder / "initdb").resolve().parent  # /usr/local/bin links into the version's folder
    raise PostgresUnavailable("PostgreSQL's initdb/pg_ctl/postgres were not found on PATH, in /usr/local/bin or "
                              "in /usr/lib/postgresql/*/bin: install Debian's postgresql package "
                              "(apt-get install -y postgresql; scripts/setup does it as root)")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class LocalPostgres:
    """A running throwaway server; ``dsn()`` and ``libpq()`` address its databases."""

    folder: Path
    port: int
    bin_dir: Path
    user: str
    run_as: str | None = None
    databases: list[str] = field(default_factory=list)

    def libpq(self, dbname: str = "postgres") -> str:
        """A libpq key/value connection string (what DuckDB's postgres and DuckLake extensions take)."""
        return f"dbname={dbname} host=127.0.0.1 port={self.port} user={self.user}"

    def url(self, dbname: str = "postgres") -> str:
        """A postgresql:// URL (what Dagster's PostgreSQL storage and psycopg take)."""
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{dbname}"

    def create_database(self, name: str) -> str:
        """Create database ``name`` (owned by the server's user) and return its libpq string."""
        self._run([str(self.bin_dir / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user,
                   "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-q", "-c", f'CREATE DATABASE "{name}"'])
        self.databases.append(name)
        return self.libpq(name)

    def cpu_seconds(self) -> float:
        """CPU seconds (user + system) the server used so far: the postmaster's own, its ended children's
        (backends and background workers it reaped: cutime + cstime) and its live children's. The difference
        of two readings is what the server spent between them (Linux /proc only)."""
        pid = int((self.folder / "data" / "postmaster.pid").read_text().split()[0])
        fields = _stat_fields(pid)
        ticks = sum(int(f) for f in fields[11:15])  # utime, stime, cutime, cstime
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    child = _stat_fields(int(entry.name))
                except (OSError, ValueError, IndexError):
                    continue  # ended meanwhile: counted in cutime once reaped
                if child[1] == str(pid):
                    ticks += int(child[11]) + int(child[12])
        return ticks / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        """Stop the server (fast shutdown) and delete its folder."""
        try:
            self._run([str(self.bin_dir / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "fast", "-w",
                       "stop"], check=False)
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)

    def _run(self, argv: list[str], check: bool = True) -> subprocess.CompletedProcess[str]:
        if self.run_as:
            argv = ["runuser", "-u", self.run_as, "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd="/")
        if check and done.returncode != 0:
            raise StoreError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip() or done.stdout}")
        return done

    def __enter__(self) -> LocalPostgres:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _stat_fields(pid: int) -> list[str]:
    """/proc/<pid>/stat after the command name: state, ppid, ... (field 14 of proc(5), utime, is index 11)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def start_local_postgres(parent: str | Path | None = None, settings: dict[str, str] | None = None) -> LocalPostgres:
    """initdb into a new temporary folder and start the server on a free port; stop it with ``stop()``.

    ``settings`` adds server settings (``-c name=value``), e.g. ``shared_preload_libraries``."""
    bin_dir = find_bin_dir()
    run_as = None
    user = pwd.getpwuid(os.getuid()).pw_name
    if os.getuid() == 0:
        try:
            pwd.getpwnam(SERVER_USER)
        except KeyError:
            raise PostgresUnavailable(f"running as root and there is no {SERVER_USER!r} user to own a PostgreSQL "
                                      "cluster (initdb refuses root): install Debian's postgresql package, which "
                                      "creates it") from None
        run_as = user = SERVER_USER
    folder = Path(tempfile.mkdtemp(prefix="right-rag-pg-", dir=parent))
    folder.chmod(0o755)
    if run_as:
        shutil.chown(folder, user=run_as)
    server = LocalPostgres(folder=folder, port=free_port(), bin_dir=bin_dir, user=user, run_as=run_as)
    try:
        server._run([str(bin_dir / "initdb"), "-D", str(folder / "data"), "-U", user, "--auth=trust",
                     "--encoding=UTF8", "--locale=C", "--no-sync"])
        # Enough connections for a Dagster instance, its run workers and the store's writers at once; no fsync:
        # the data is thrown away at exit.
        options = (f"-c listen_addresses=127.0.0.1 -c port={server.port} -c unix_socket_directories='{folder}' "
                   "-c max_connections=200 -c fsync=off -c synchronous_commit=off -c full_page_writes=off")
        options += "".join(f" -c {name}={value}" for name, value in (settings or {}).items())
        server._run([str(bin_dir / "pg_ctl"), "-D", str(folder / "data"), "-l", str(folder / "server.log"),
                     "-o", options, "-w", "-t", "60", "start"])
    except BaseException:
        log = folder / "server.log"
        detail = log.read_text(encoding="utf-8", errors="replace")[-2000:] if log.exists() else ""
        server.stop()
        if detail:
            raise StoreError(f"the throwaway PostgreSQL did not start; its log ends:\n{detail}") from None
        raise
    return server
