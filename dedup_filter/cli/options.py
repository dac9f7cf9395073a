"""Options every sub-command shares (``--config``, ``--set``) and opening an existing index."""

from __future__ import annotations

import argparse
from pathlib import Path

from dedup_filter.config import Config, parse_override
from dedup_filter.errors import ConfigError, IndexStoreError
from dedup_filter.index.lmdb_index import LmdbIndex


def config_options() -> argparse.ArgumentParser:
    """A parent parser holding ``--config`` and ``--set`` (pass it in ``parents=[...]``)."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("configuration")
    group.add_argument(
        "--config",
        metavar="TOML",
        type=Path,
        help="configuration file (its [dedup.*] tables; default: the built-in defaults)",
    )
    group.add_argument(
        "--set",
        metavar="SECTION.KEY=VALUE",
        action="append",
        default=[],
        dest="overrides",
        help="override one key, TOML value syntax (e.g. simhash.bits=256); repeatable",
    )
    return parent


def load_config(args: argparse.Namespace) -> Config:
    """The configuration of ``--config`` (or the defaults) with every ``--set`` applied.

    Raises:
        ConfigError: the file cannot be read or is invalid, or an override is malformed or invalid.
    """
    config = Config.default()
    if args.config is not None:
        try:
            config = Config.load(args.config)
        except OSError as error:
            msg = f"{args.config}: cannot read the configuration file: {error.strerror}"
            raise ConfigError(msg) from error
    overrides = dict(parse_override(item) for item in args.overrides)
    return config.with_overrides(overrides) if overrides else config


def open_existing_index(path: Path, config: Config) -> LmdbIndex:
    """Open the index at ``path``, refusing to create one where there is none.

    Raises:
        IndexStoreError: no index at ``path``, or LMDB could not open it.
        IndexMismatchError: the index was built with other feature parameters.
    """
    if not (path / "data.mdb").is_file():
        msg = f"no index at {path} (expected an LMDB environment with data.mdb there)"
        raise IndexStoreError(msg)
    return LmdbIndex.open(path, config)
