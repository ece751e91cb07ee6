"""A throwaway PostgreSQL server for tests, benchmarks and trials: ``TemporaryCluster``.

``initdb`` into a fresh temporary directory, then ``postgres`` on a free loopback port with its
unix socket inside that directory; password authentication over TCP (a random password, kept in
``password``); everything is deleted by ``stop()``. The server binaries are looked up in Debian's
and Ubuntu's ``/usr/lib/postgresql/<version>/bin`` (the newest version), then in the directory
``pg_config --bindir`` names, never on ``PATH`` (Debian does not put them there). ``initdb`` and
``postgres`` refuse to run as root: started by root, the server runs as the ``postgres`` user
(``nobody`` if there is none), which then owns the temporary directory.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from urllib.parse import quote

SUPERUSER = "anomaly"
TEST_SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off"}
"""Settings that make a test server faster and unsafe against power loss (not process kills)."""


def find_bindir() -> Path | None:
    """The directory of ``initdb``/``pg_ctl``/``postgres``, or None when none is installed."""
    root = Path("/usr/lib/postgresql")
    versions = sorted(
        (p for p in root.glob("*/bin") if (p / "initdb").exists() and p.parent.name.isdigit()),
        key=lambda p: int(p.parent.name),
    )
    if versions:
        return versions[-1]
    pg_config = shutil.which("pg_config")
    if pg_config:
        found = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True).stdout
        if (Path(found.strip()) / "initdb").exists():
            return Path(found.strip())
    return None


class TemporaryCluster:
    """A PostgreSQL server in a temporary directory, for as long as the ``with`` block runs.

    Parameters
    ----------
    bindir
        Where the server binaries are (default: ``find_bindir()``).
    settings
        Server settings (``-c name=value``), e.g. ``TEST_SETTINGS``.

    Examples
    --------
    >>> with TemporaryCluster() as cluster:  # doctest: +SKIP
    ...     cluster.create_database("metrics")
    ...     print(cluster.url("metrics"))
    postgresql://anomaly@127.0.0.1:40123/metrics
    """

    def __init__(self, bindir: Path | None = None, settings: dict[str, str] | None = None) -> None:
        found = bindir or find_bindir()
        if found is None:
            raise FileNotFoundError(
                "no PostgreSQL server binaries in /usr/lib/postgresql/<version>/bin; install "
                "them (Debian: apt-get install postgresql)"
            )
        self.bindir = found
        self.settings = dict(settings or {})
        self.password = secrets.token_urlsafe(18)
        self.port = 0
        self.folder: Path | None = None
        self._user = _server_user()

    def __enter__(self) -> TemporaryCluster:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def url(self, database: str = "postgres", schema: str | None = None) -> str:
        """A URL of one database (and schema) of the server, without the password."""
        options = "" if schema is None else "?options=" + quote(f"-csearch_path={schema}")
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}{options}"

    def url_with_password(self, database: str = "postgres") -> str:
        """The same URL with the password in it."""
        return f"postgresql://{SUPERUSER}:{self.password}@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        """Create the cluster and start the server (a few seconds)."""
        self.folder = Path(tempfile.mkdtemp(prefix="anomaly-pg-"))
        try:
            self._chown(self.folder)
            pwfile = self.folder / "pw"
            pwfile.write_text(self.password)
            self._chown(pwfile)
            # A server that never fsyncs needs no durable cluster either (initdb 1.4-2.6 -> 0.8 s).
            no_sync = ["--no-sync"] if self.settings.get("fsync") == "off" else []
            self._run(
                "initdb", "-D", str(self.folder / "data"), "-U", SUPERUSER, f"--pwfile={pwfile}",
                "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8",
                "--locale=C.UTF-8", "--no-instructions", *no_sync,
            )  # fmt: skip
            pwfile.unlink()
            for attempt in range(5):  # another process may take the free port first
                self.port = _free_port()
                options = {
                    "listen_addresses": "127.0.0.1",
                    "port": str(self.port),
                    "unix_socket_directories": str(self.folder),
                    "max_connections": "300",
                    **self.settings,
                }
                flags = " ".join(f"-c {name}={value}" for name, value in options.items())
                try:
                    self._run(
                        "pg_ctl", "-D", str(self.folder / "data"), "-l",
                        str(self.folder / "server.log"), "-w", "-t", "60", "-o", flags, "start",
                    )  # fmt: skip
                    return
                except subprocess.CalledProcessError:
                    if attempt == 4:
                        raise
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the server and delete the cluster."""
        if self.folder is None:
            return
        if (self.folder / "data" / "postmaster.pid").exists():
            with contextlib.suppress(subprocess.CalledProcessError):
                self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop")
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None

    def execute(self, sql: str, database: str = "postgres") -> None:
        """Run SQL as the superuser over the unix socket (e.g. ``CREATE DATABASE``)."""
        import psycopg

        assert self.folder is not None, "the cluster is not running"
        with psycopg.connect(
            host=str(self.folder), port=self.port, user=SUPERUSER, dbname=database, autocommit=True
        ) as connection:
            connection.execute(sql.encode())

    def create_database(self, name: str) -> None:
        """Create a database (the name is quoted as an identifier)."""
        self.execute(f'CREATE DATABASE "{name}"')

    def cpu_seconds(self) -> float:
        """CPU time used so far by the server's processes that are alive (Linux ``/proc``): the
        server's share of an operation, where the client's own CPU time shows only its part."""
        ticks = sum(int(fields[11]) + int(fields[12]) for fields in self._processes().values())
        return ticks / os.sysconf("SC_CLK_TCK")  # utime + stime

    def pids(self) -> list[int]:
        """The server's processes (Linux ``/proc``): the postmaster and every backend and helper
        it started, e.g. to freeze the server with ``SIGSTOP`` as a hung host would be."""
        return sorted(self._processes())

    def _processes(self) -> dict[int, list[str]]:
        """The fields of ``/proc/PID/stat`` after the name, of the server's processes."""
        assert self.folder is not None, "the cluster is not running"
        postmaster = int((self.folder / "data" / "postmaster.pid").read_text().split()[0])
        found = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError, ValueError, IndexError):
                fields = stat.read_text().rsplit(")", 1)[1].split()
                if int(stat.parent.name) == postmaster or int(fields[1]) == postmaster:
                    found[int(stat.parent.name)] = fields
        return found

    def log(self) -> str:
        """The server's log so far."""
        assert self.folder is not None
        return (self.folder / "server.log").read_text(errors="replace")

    def _chown(self, path: Path) -> None:
        if self._user is not None:
            os.chown(path, self._user.pw_uid, self._user.pw_gid)

    def _run(self, program: str, *args: str) -> None:
        command: Sequence[str] = [str(self.bindir / program), *args]
        if self._user is not None:
            command = ["runuser", "-u", self._user.pw_name, "--", *command]
        subprocess.run(
            command, check=True, stdin=subprocess.DEVNULL, capture_output=True, cwd=self.folder
        )


def _server_user() -> pwd.struct_passwd | None:
    """The unprivileged user to run the server as when started by root (None: as ourselves)."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        with contextlib.suppress(KeyError):
            return pwd.getpwnam(name)
    raise RuntimeError("running as root, with neither a postgres nor a nobody user to run as")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
