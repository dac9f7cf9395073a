"""One open ``DedupFilter`` per index directory per process, shared by every crawler in it.

LMDB forbids opening one environment twice in a process (the second handle would break the
first one's locks), so the dupefilter, the middleware and any other crawler of the process that
names the same directory all borrow the same filter, and its one ``IndexWorker`` (the only writer
to it: its thread, or the deciding process it hands the batches to); the last one to leave closes
it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from twisted.internet.defer import Deferred, succeed

from dedup_filter import Config, ConfigError, DedupFilter

from .worker import IndexWorker


@dataclass(slots=True)
class _Shared:
    worker: IndexWorker
    users: int = 0


_open: dict[Path, _Shared] = {}


def acquire(path: Path, config: Config, prepare_processes: int = 0) -> IndexWorker:
    """The worker of the filter open on ``path``, opening it on first use (with
    ``prepare_processes`` processes deciding and preparing its pages: ``worker``).

    Raises:
        ConfigError: the index is already open in this process under another configuration.
        IndexStoreError: the index cannot be opened (including a parameter mismatch).
    """
    key = path.resolve()
    shared = _open.get(key)
    if shared is None:
        shared = _open[key] = _Shared(IndexWorker(DedupFilter.open(key, config), prepare_processes))
    elif shared.worker.dedup.config != config:
        msg = f"index {key} is already open in this process with another dedup configuration"
        raise ConfigError(msg)
    shared.users += 1
    return shared.worker


def release(worker: IndexWorker) -> Deferred[None]:
    """Give back a worker from ``acquire``; fires when the last user's decisions are committed
    and the index is synced and closed (at once for the other users)."""
    for key, shared in list(_open.items()):
        if shared.worker is worker:
            shared.users -= 1
            if shared.users == 0:
                del _open[key]
                return worker.idle().addCallback(lambda _: worker.close())
            break
    return succeed(None)


def open_paths() -> list[Path]:
    """Index directories currently open in this process (for tests and diagnostics)."""
    return sorted(_open)
