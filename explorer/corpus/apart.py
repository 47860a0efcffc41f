"""An uploaded reference list read in a process of its own, at low priority and under a time
limit, so that a visitor's upload never holds the server's interpreter lock while the other
sessions' questions wait (benchmarks/abuse.py measures it). The child runs
`references.read_references` and hands back its ReferenceList (or its CorpusError's message).
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys

from explorer.corpus.references import ReferenceList, read_references
from explorer.errors import CorpusError

__all__ = ["CPU_SECONDS", "READ_SECONDS", "read_references_apart"]
CPU_SECONDS = 30  # the child's CPU time: a valid 5 MiB .bib reads in about 2 s of CPU
READ_SECONDS = 600.0  # the wall-clock limit, against a hang: at low priority on a busy machine
# the child may wait long for a core while the CPU limit is what stops a crafted file
_CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the child runs there: `python -m` puts its working folder first on the path, so the child
# reads this very package (installed or not) and no environment variable is touched
_MEMORY_BYTES = 2 << 30  # the child's address-space limit: a file cannot make it grow past it
_SLOW = ("{name}: reading it took longer than {seconds} and was stopped. Export a smaller "
         "reference list (fewer entries, no attached abstracts or notes) and try again.")
_FAILED = ("{name}: could not be read ({why}). Check that it is a reference manager's export "
           "(BibTeX .bib, RIS .ris or CSL JSON .json) and try again.")


def read_references_apart(data: bytes, name: str, max_bytes: int, seconds: float = READ_SECONDS,
                          cpu_seconds: int = CPU_SECONDS) -> ReferenceList:
    """`read_references(data, name, max_bytes)` run in a child Python at low priority, stopped
    after `cpu_seconds` of its CPU time or `seconds` on the clock: a CorpusError says what
    happened (the file's own errors as the reader words them, a file too slow to read, a child
    that died)."""
    if len(data) > max_bytes:  # the reader's own message, without starting a process
        return read_references(data, name, max_bytes)
    command = [sys.executable, "-m", "explorer.corpus.apart", name, str(max_bytes),
               str(cpu_seconds)]
    try:
        done = subprocess.run(command, input=data, capture_output=True, timeout=seconds,
                              check=False, cwd=_CHECKOUT)
    except subprocess.TimeoutExpired:
        raise CorpusError(_SLOW.format(name=name, seconds=f"{seconds:g} s")) from None
    except OSError as error:
        raise CorpusError(_FAILED.format(name=name, why=f"no reader process: {error}")) from None
    if done.returncode == -getattr(signal, "SIGXCPU", 0) != 0:
        raise CorpusError(_SLOW.format(name=name, seconds=f"{cpu_seconds:g} s of CPU"))
    if done.returncode != 0 or not done.stdout:
        raise CorpusError(_FAILED.format(name=name, why=_why(done)))
    outcome, value = pickle.loads(done.stdout)  # written by our own child, never by the file
    if outcome == "error":
        raise CorpusError(value)
    return value


def _why(done: subprocess.CompletedProcess) -> str:
    if done.returncode < 0:
        return f"the reader was stopped by signal {-done.returncode}, most likely out of memory"
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[-1][:200] if lines else f"the reader exited with status {done.returncode}"


def _child(name: str, max_bytes: int, cpu_seconds: int) -> None:
    """In the child: lower priority, bound memory and CPU time, read stdin, write the pickled
    outcome."""
    os.nice(10)
    try:
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (_MEMORY_BYTES, _MEMORY_BYTES))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
    except (ImportError, ValueError, OSError):  # not on this system: the time limit still holds
        pass
    data = sys.stdin.buffer.read(max_bytes + 1)
    try:
        outcome = ("ok", read_references(data, name, max_bytes))
    except CorpusError as error:
        outcome = ("error", str(error))
    sys.stdout.buffer.write(pickle.dumps(outcome))


if __name__ == "__main__":
    _child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
