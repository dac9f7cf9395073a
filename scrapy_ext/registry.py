"""One open ``DedupFilter`` per index directory per process, shared by every crawler in it.

LMDB forbids opening one environment twice in a process (the second handle would break the
first one's locks), so the dupefilter, the middleware and any other crawler of the process that
names the same directory all borrow the same filter; the last one to leave closes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from dedup_filter import Config, ConfigError, DedupFilter


@dataclass(slots=True)
class _Shared:
    dedup: DedupFilter
    users: int = 0


_open: dict[Path, _Shared] = {}


def acquire(path: Path, config: Config) -> DedupFilter:
    """The filter open on ``path``, opening it on first use.

    Raises:
        ConfigError: the index is already open in this process under another configuration.
        IndexStoreError: the index cannot be opened (including a parameter mismatch).
    """
    key = path.resolve()
    shared = _open.get(key)
    if shared is None:
        shared = _open[key] = _Shared(DedupFilter.open(key, config))
    elif shared.dedup.config != config:
        msg = f"index {key} is already open in this process with another dedup configuration"
        raise ConfigError(msg)
    shared.users += 1
    return shared.dedup


def release(dedup: DedupFilter) -> None:
    """Give back a filter from ``acquire``; the last user syncs and closes it."""
    for key, shared in list(_open.items()):
        if shared.dedup is dedup:
            shared.users -= 1
            if shared.users == 0:
                del _open[key]
                dedup.index.sync()
                dedup.close()
            return


def open_paths() -> list[Path]:
    """Index directories currently open in this process (for tests and diagnostics)."""
    return sorted(_open)
