"""Configuration: one frozen dataclass tree, loaded from the ``[dedup.*]`` tables of a TOML file.

Unknown keys and invalid values fail at load time with the dotted key in the message, so a typo
never silently falls back to a default. ``Config.fingerprint()`` covers exactly the parameters that
change the bytes an index stores; an index refuses to open under a different fingerprint.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import tomllib
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from dedup_filter.errors import ConfigError

#: The documented defaults shipped with the package (``dedup-filter config`` prints it; the
#: repository's configs/default.toml is a link to it). A test checks it loads to ``Config()``.
DEFAULT_TOML = Path(__file__).with_name("default.toml")

SIMHASH_WIDTHS = (64, 128, 256, 384)
# [dedup.minhash] keys applied when pages are compared, never stored: no index depends on them
_LOOKUP_ONLY_MINHASH_KEYS = (
    "min_shared_features",
    "min_resemblance",
    "short_page_tokens",
    "short_page_resemblance",
    "unshared_resemblance",
    "drop_resemblance",
)
MIRROR_MODES = ("url", "content")


def require(condition: bool, dotted_key: str, problem: str) -> None:
    """Raise ``ConfigError`` naming ``dotted_key`` unless ``condition`` holds."""
    if not condition:
        msg = f"{dotted_key}: {problem}"
        raise ConfigError(msg)


def _require(condition: bool, key: str, problem: str) -> None:
    require(condition, f"dedup.{key}", problem)


def coerce_value(dotted_key: str, default: Any, value: Any) -> Any:
    """``value`` as the type of a field's ``default`` (TOML gives ints for whole floats).

    Raises:
        ConfigError: the value cannot stand for the default's type; the message names the key.
    """
    if isinstance(default, tuple):
        item_type = type(default[0]) if default else str
        is_list = isinstance(value, (list, tuple)) and all(
            type(item) is item_type for item in value
        )
        require(is_list, dotted_key, f"must be a list of {item_type.__name__}")
        return tuple(value)
    if isinstance(default, bool) or not isinstance(default, (int, float)):
        require(type(value) is type(default), dotted_key, f"must be a {type(default).__name__}")
        return value
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    require(numeric, dotted_key, "must be a number")
    require(isinstance(default, float) or isinstance(value, int), dotted_key, "must be an integer")
    return float(value) if isinstance(default, float) else value


@dataclass(frozen=True, slots=True, kw_only=True)
class TextConfig:
    """How a body becomes a token sequence and a title."""

    min_tokens: int = 30
    max_body_bytes: int = 5_000_000
    max_depth: int = 1_000
    fallback_encoding: str = "cp1252"
    same_site_titles: bool = True
    cross_site_titles: bool = True
    code_blocks_apart: bool = True
    language_editions_apart: bool = True

    def __post_init__(self) -> None:
        _require(self.min_tokens >= 0, "text.min_tokens", "must be >= 0")
        _require(self.max_body_bytes >= 1024, "text.max_body_bytes", "must be >= 1024")
        _require(self.max_depth >= 32, "text.max_depth", "must be >= 32")
        _require(_is_codec(self.fallback_encoding), "text.fallback_encoding", "unknown codec")


@dataclass(frozen=True, slots=True, kw_only=True)
class MinHashConfig:
    """Algorithm B: shingles, min-hash values and super-shingles (Broder; Henzinger's B)."""

    shingle_width: int = 8
    num_perm: int = 84
    features: int = 6
    min_shared_features: int = 2
    seed: int = 1
    sketch_bits: int = 2
    min_resemblance: float = 0.8
    short_page_tokens: int = 500
    short_page_resemblance: float = 0.85
    unshared_resemblance: float = 0.86
    drop_resemblance: float = 0.85

    def __post_init__(self) -> None:
        _require(self.shingle_width >= 1, "minhash.shingle_width", "must be >= 1")
        _require(self.features >= 1, "minhash.features", "must be >= 1")
        _require(
            self.num_perm >= self.features and self.num_perm % self.features == 0,
            "minhash.num_perm",
            f"must be a positive multiple of minhash.features={self.features}",
        )
        _require(
            1 <= self.min_shared_features <= self.features,
            "minhash.min_shared_features",
            f"must lie in 1..{self.features}",
        )
        _require(self.sketch_bits in (1, 2, 4, 8), "minhash.sketch_bits", "must be 1, 2, 4 or 8")
        resemblances = (
            "min_resemblance",
            "short_page_resemblance",
            "unshared_resemblance",
            "drop_resemblance",
        )
        for key in resemblances:
            _require(0.0 <= getattr(self, key) <= 1.0, f"minhash.{key}", "must lie in 0..1")
        _require(self.short_page_tokens >= 0, "minhash.short_page_tokens", "must be >= 0")

    @property
    def values_per_feature(self) -> int:
        return self.num_perm // self.features


@dataclass(frozen=True, slots=True, kw_only=True)
class SimHashConfig:
    """Algorithm C: Charikar's random-projection fingerprint over term frequencies.

    Thresholds are given in agreeing bits out of 384 (Henzinger's scale) and scaled to ``bits``.
    """

    bits: int = 384
    bands: int = 12
    same_site_threshold: int = 355
    cross_site_threshold: int = 372
    seed: int = 2

    def __post_init__(self) -> None:
        _require(self.bits in SIMHASH_WIDTHS, "simhash.bits", f"must be one of {SIMHASH_WIDTHS}")
        _require(1 <= self.bands <= self.bits // 8, "simhash.bands", "must lie in 1..bits/8")
        for key in ("same_site_threshold", "cross_site_threshold"):
            _require(0 <= getattr(self, key) <= 384, f"simhash.{key}", "must lie in 0..384")

    def scaled(self, threshold: int) -> int:
        """A threshold out of 384 expressed in agreeing bits out of ``bits``."""
        return round(threshold * self.bits / 384)


@dataclass(frozen=True, slots=True, kw_only=True)
class IndexConfig:
    """The LMDB environment."""

    map_size_mb: int = 64
    max_map_size_mb: int = 65_536
    sync: bool = True
    shard_id: int = 0
    file_mode: int = 0o600  # crawled URLs are private data: owner-only unless relaxed

    def __post_init__(self) -> None:
        _require(self.map_size_mb >= 1, "index.map_size_mb", "must be >= 1")
        _require(
            0o600 <= self.file_mode <= 0o777 and self.file_mode & 0o600 == 0o600,
            "index.file_mode",
            "must be a permission mode that lets the owner read and write (0o600..0o777)",
        )
        _require(
            self.max_map_size_mb >= self.map_size_mb,
            "index.max_map_size_mb",
            "must be >= index.map_size_mb",
        )
        _require(0 <= self.shard_id < 1 << 16, "index.shard_id", "must lie in 0..65535")


@dataclass(frozen=True, slots=True, kw_only=True)
class MirrorConfig:
    """Mirrored directories: index pages, coordinate sampling and replica boundaries."""

    enabled: bool = True
    index_names: tuple[str, ...] = ("index", "default", "home", "welcome", "main")
    index_extensions: tuple[str, ...] = (
        "",
        ".html",
        ".htm",
        ".shtml",
        ".php",
        ".asp",
        ".aspx",
        ".jsp",
    )
    samples: int = 4
    # content: identical generated listings over different files fool URL sampling (docs/mirrors.md)
    mode: str = "content"
    min_resemblance: float = 0.75
    min_matched: int = 1
    max_unchecked: int = 4
    # samples drawn at most while the evidence stays ambiguous (sequential.py)
    max_samples: int = 12
    # a sampled pair matches when this share of the simhash bits that differ between the pages of
    # each side agree (what a directory's pages share discounted: systematic.py)
    discounted_agreement: float = 0.9
    # samples drawn first from the documents known to have code blocks, where editions of one
    # guide differ (editions.py)
    code_samples: int = 6
    # the same for a rule whose sides are sibling directories (editions side by side)
    code_samples_siblings: int = 64
    # documents a faithful rule's kept side gains before its first audit (audits.py); 0: none
    audit_first: int = 32
    max_boundary_levels: int = 8
    max_depth: int = 12
    listing_min_links: int = 4
    listing_min_agreement: float = 0.85
    listing_min_resemblance: float = 0.75
    # two directories whose URLs name different languages (``en/``, ``manual-de/``, none,
    # ``de.docs.example.org``) are never paired: a partial translation's untranslated pages
    # would confirm it (languages.py)
    language_editions_apart: bool = True
    # two directories whose paths both name a release, and different ones (``/13/`` and ``/14/``,
    # ``v2.1/`` and ``v2.2/``), are never paired: a rewritten page would go with the copies
    # (releases.py)
    release_editions_apart: bool = True
    # two directories whose paths both name a platform of one kind, and different ones
    # (``amd64/`` and ``arm64/``, ``windows/`` and ``linux/``), are never paired: a platform's own
    # pages would go with the copies (platforms.py)
    platform_editions_apart: bool = True
    # hosts (``docs.example.org``) or URL prefixes (``https://example.org/docs/``) no rule prunes
    protected_prefixes: tuple[str, ...] = ()
    # a held counterpart resembling the origin's soft-404 page this much is no copy (soft404.py)
    soft404_resemblance: float = 0.5
    # query and ;path parameters removed from URLs and links before relative paths are compared
    session_parameters: tuple[str, ...] = (
        "sessionid",
        "session_id",
        "sid",
        "phpsessid",
        "jsessionid",
        "aspsessionid",
        "cfid",
        "cftoken",
        "zenid",
        "oscsid",
    )
    # a query parameter a host writes into nearly every link with one id-like or stamp-like
    # value is learnt as a session parameter of that host (sessions.py)
    learn_session_parameters: bool = True
    # a document on the mirror side of a pair being sampled waits for the pair's verdict
    # (pruning._while_sampled)
    defer_while_sampled: bool = True

    def __post_init__(self) -> None:
        _require(0 <= self.samples <= 1000, "mirror.samples", "must lie in 0..1000")
        _require(self.mode in MIRROR_MODES, "mirror.mode", f"must be one of {MIRROR_MODES}")
        _require(0.0 < self.min_resemblance <= 1.0, "mirror.min_resemblance", "must lie in (0, 1]")
        _require(
            self.min_matched >= 0 and (self.samples == 0 or self.min_matched <= self.samples),
            "mirror.min_matched",
            f"must lie in 0..mirror.samples={self.samples}",
        )
        _require(0 <= self.max_unchecked <= 1000, "mirror.max_unchecked", "must lie in 0..1000")
        _require(0 <= self.max_samples <= 1000, "mirror.max_samples", "must lie in 0..1000")
        _require(
            0.5 < self.discounted_agreement <= 1.0,
            "mirror.discounted_agreement",
            "must lie in (0.5, 1]",
        )
        _require(0 <= self.code_samples <= 1000, "mirror.code_samples", "must lie in 0..1000")
        _require(
            0 <= self.code_samples_siblings <= 255,
            "mirror.code_samples_siblings",
            "must lie in 0..255",
        )
        _require(0 <= self.audit_first <= 1 << 20, "mirror.audit_first", "must lie in 0..2**20")
        _require(self.max_boundary_levels >= 0, "mirror.max_boundary_levels", "must be >= 0")
        _require(1 <= self.max_depth <= 64, "mirror.max_depth", "must lie in 1..64")
        _require(self.listing_min_links >= 0, "mirror.listing_min_links", "must be >= 0")
        _require(
            0.0 <= self.listing_min_agreement <= 1.0,
            "mirror.listing_min_agreement",
            "must lie in [0, 1]",
        )
        _require(
            0.0 < self.listing_min_resemblance <= 1.0,
            "mirror.listing_min_resemblance",
            "must lie in (0, 1]",
        )
        _require(
            0.0 < self.soft404_resemblance <= 1.0,
            "mirror.soft404_resemblance",
            "must lie in (0, 1]",
        )


# tracking parameters of analytics and advertising links: read by the page's scripts, never by
# its server; trusted by default (rules from the start: docs/urlrules.md, point 6)
TRACKING_PARAMETERS = (
    "utm_*",
    "fbclid",
    "gclid",
    "dclid",
    "msclkid",
    "mc_cid",
    "mc_eid",
    "_ga",
    "yclid",
)
# well-known session and tracking parameters: candidates from the first pair, never rules unproven
# unless trusted
KNOWN_PARAMETERS = (
    "phpsessid",
    "jsessionid",
    "aspsessionid",
    "sid",
    "sessionid",
    "session_id",
    "cfid",
    "cftoken",
    *TRACKING_PARAMETERS,
)
DEFAULT_DOCUMENTS = (
    "index.html",
    "index.htm",
    "index.shtml",
    "index.php",
    "index.asp",
    "index.aspx",
    "index.jsp",
    "default.htm",
    "default.html",
    "default.asp",
    "default.aspx",
)
MAX_SUPPORT = 16  # distinct classes a rule record remembers


@dataclass(frozen=True, slots=True, kw_only=True)
class UrlRulesConfig:
    """URL rules: aliases of one host learnt from its duplicate pairs, proven, then pruned."""

    enabled: bool = True
    min_support: int = 3
    min_support_known: int = 2
    min_support_learnt: int = 1
    min_values: int = 2
    known_parameters: tuple[str, ...] = KNOWN_PARAMETERS
    trusted_parameters: tuple[str, ...] = TRACKING_PARAMETERS
    default_documents: tuple[str, ...] = DEFAULT_DOCUMENTS
    negotiated_languages: tuple[str, ...] = ("en",)
    language_layouts: bool = True
    max_probes: int = 2
    witness_min_tokens: int = 200
    max_candidates_per_host: int = 64
    counterexample_containment: float = 0.5
    suspect_containment: float = 0.85
    learnt_from_hosts: int = 2
    defer_aliases: bool = True
    redirect_support: int = 3

    def __post_init__(self) -> None:
        _require(
            1 <= self.redirect_support <= 255, "url_rules.redirect_support", "must lie in 1..255"
        )
        _require(
            0.0 < self.counterexample_containment <= 1.0,
            "url_rules.counterexample_containment",
            "must lie in (0, 1]",
        )
        _require(
            self.counterexample_containment <= self.suspect_containment <= 1.0,
            "url_rules.suspect_containment",
            "must lie in [counterexample_containment, 1]",
        )
        for key in ("min_support", "min_support_known", "min_support_learnt"):
            value = getattr(self, key)
            _require(1 <= value <= MAX_SUPPORT, f"url_rules.{key}", f"must lie in 1..{MAX_SUPPORT}")
        _require(1 <= self.min_values <= 4, "url_rules.min_values", "must lie in 1..4")
        _require(0 <= self.max_probes <= 100, "url_rules.max_probes", "must lie in 0..100")
        _require(self.witness_min_tokens >= 1, "url_rules.witness_min_tokens", "must be >= 1")
        _require(self.learnt_from_hosts >= 0, "url_rules.learnt_from_hosts", "must be >= 0")
        _require(
            self.max_candidates_per_host >= 1, "url_rules.max_candidates_per_host", "must be >= 1"
        )


_SECTIONS: dict[str, type] = {
    "text": TextConfig,
    "minhash": MinHashConfig,
    "simhash": SimHashConfig,
    "index": IndexConfig,
    "mirror": MirrorConfig,
    "url_rules": UrlRulesConfig,
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """Every parameter of the core: ``Config.default()``, ``load()`` or ``from_dict()``."""

    text: TextConfig = field(default_factory=TextConfig)
    minhash: MinHashConfig = field(default_factory=MinHashConfig)
    simhash: SimHashConfig = field(default_factory=SimHashConfig)
    index: IndexConfig = field(default_factory=IndexConfig)
    mirror: MirrorConfig = field(default_factory=MirrorConfig)
    url_rules: UrlRulesConfig = field(default_factory=UrlRulesConfig)

    @classmethod
    def default(cls) -> Config:
        return cls()

    @classmethod
    def load(cls, path: str | Path) -> Config:
        """Read the ``[dedup]`` tables of a TOML file; other top-level tables are ignored.

        Raises:
            ConfigError: the file is not valid TOML, or a key is unknown or invalid.
        """
        try:
            with open(path, "rb") as handle:
                document = tomllib.load(handle)
        except tomllib.TOMLDecodeError as error:
            msg = f"{path}: not valid TOML: {error}"
            raise ConfigError(msg) from error
        return cls.from_dict(document.get("dedup", {}))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Config:
        """Build from a mapping shaped like the ``[dedup]`` table."""
        _require(isinstance(data, dict), "", "must be a table")
        unknown = sorted(set(data) - set(_SECTIONS))
        _require(not unknown, ",".join(unknown), f"unknown table (known: {sorted(_SECTIONS)})")
        return cls(
            **{
                name: _section(section, data.get(name, {}), name)
                for name, section in _SECTIONS.items()
            }
        )

    def with_overrides(self, overrides: dict[str, Any]) -> Config:
        """A copy with dotted keys replaced (e.g. ``{"simhash.bits": 256}``), validated."""
        data = self.to_dict()
        for dotted, value in overrides.items():
            section, _, key = dotted.removeprefix("dedup.").partition(".")
            _require(section in data and bool(key), dotted, "expected <table>.<key>")
            data[section][key] = value
        return Config.from_dict(data)

    def to_dict(self) -> dict[str, dict[str, Any]]:
        return {name: asdict(getattr(self, name)) for name in _SECTIONS}

    def persisted(self) -> dict[str, Any]:
        """The parameters that change the bytes an index stores, by dotted key."""
        minhash = {f"minhash.{key}": value for key, value in asdict(self.minhash).items()}
        for applied_at_lookup in _LOOKUP_ONLY_MINHASH_KEYS:
            del minhash[f"minhash.{applied_at_lookup}"]
        return minhash | {
            "text.tokenizer": 4,  # bump whenever tokens or their hashes change for the same body
            "simhash.bits": self.simhash.bits,
            "simhash.bands": self.simhash.bands,
            "simhash.seed": self.simhash.seed,
        }

    def fingerprint(self) -> str:
        encoded = json.dumps(self.persisted(), sort_keys=True).encode()
        return hashlib.sha256(encoded).hexdigest()[:16]


def _section(section: type, table: Any, name: str) -> Any:
    _require(isinstance(table, dict), name, "must be a table")
    known = {spec.name: spec.default for spec in fields(section)}
    for key in table:
        _require(key in known, f"{name}.{key}", f"unknown key (known: {sorted(known)})")
    return section(
        **{
            key: coerce_value(f"dedup.{name}.{key}", known[key], value)
            for key, value in table.items()
        }
    )


def _is_codec(name: str) -> bool:
    try:
        codecs.lookup(name)
    except LookupError:
        return False
    return True


def parse_override(item: str) -> tuple[str, Any]:
    """``"simhash.bits=256"`` -> ``("simhash.bits", 256)``: TOML value syntax, else a string.

    Shared by every command line (``--set``) and the Scrapy setting ``DEDUP_OVERRIDES`` parser; the
    configuration validates the value by its key.
    """
    key, separator, raw = item.partition("=")
    if not separator or not key.strip():
        msg = f"--set {item!r}: expected SECTION.KEY=VALUE, e.g. simhash.bits=256"
        raise ConfigError(msg)
    try:
        value = tomllib.loads(f"value = {raw}")["value"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key.strip(), value
