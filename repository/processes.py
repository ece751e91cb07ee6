"""Which process wrote a row, and whether that process still runs: for rows a process leaves
``running`` (the scan log) that only it would end.

A process is named by its host, its pid and, on Linux, its start: the boot id and the start
time of the pid (``/proc``), so a pid reused after a reboot or by a later process is not taken
for the process that wrote the row. Whether a process still runs can only be told on its own
host: rows of other hosts are left to those hosts, or to an age limit.
"""

from __future__ import annotations

import contextlib
import os
import socket
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ProcessId:
    """One process: host name, pid and (Linux) its start, ``boot_id:start_ticks``.

    Examples
    --------
    >>> me = ProcessId.current()
    >>> me.pid == os.getpid(), me.is_alive()
    (True, True)
    >>> ProcessId(me.host, me.pid, "another-boot:1").is_alive()  # a pid reused since
    False
    """

    host: str
    pid: int
    start: str | None

    @classmethod
    def current(cls) -> ProcessId:
        """This process."""
        return cls(socket.gethostname(), os.getpid(), _start_of(os.getpid()))

    def is_alive(self) -> bool:
        """Whether this process still runs (asked on its own host only: see ``on_this_host``)."""
        if self.start is not None:
            now = _start_of(self.pid)
            if now is not None or Path("/proc/self/stat").exists():
                return now == self.start
        try:
            os.kill(self.pid, 0)  # signal 0: only checks that the pid exists
        except ProcessLookupError:
            return False
        except PermissionError:  # it exists, under another user
            return True
        return True

    def on_this_host(self) -> bool:
        """Whether the process ran on this host (only then can ``is_alive`` tell)."""
        return self.host == socket.gethostname()


def _start_of(pid: int) -> str | None:
    """``boot_id:start_ticks`` of a running process (Linux), None when it is gone or unknown."""
    with contextlib.suppress(OSError, IndexError, ValueError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        return f"{boot}:{int(fields[19])}"  # field 22 of stat: start time in clock ticks
    return None
