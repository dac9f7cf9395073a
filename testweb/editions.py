"""Distinct pages that simhash takes for copies, from real text, and true copies of them.

Two kinds that an independent web of documentation trees lost as near-duplicates (issue 11):

- **language editions** of one guide: the same prose (docstrings of standard-library functions)
  around code samples of another language each, real code cut from the Python sources (Python),
  Python's C headers (C) and the C++ standard library's headers (C++, where installed); each
  edition on a site of its own (Henzinger's site: ``c-guides.example``, ``python-guides.example``);
- **reference pages**, one per function, made from one template around the function's signature
  and docstring; consecutive functions of a module alternate between two sites.

Every page shows dynamic fields (``variants.render_field``); ``copies`` makes Henzinger's correct
near-duplicates of some pages by changing them, served on a mirror site.
"""

from __future__ import annotations

import functools
import html as html_escaping
import importlib
import inspect
import random
import re
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .labelled import LabelledPage
from .variants import FIELDS, change_field, combination, field_value, render_field

GUIDE_MODULES = (
    *("textwrap", "heapq", "bisect", "json", "fnmatch", "base64", "statistics", "glob"),
    *("difflib", "copy", "functools", "html", "urllib.parse", "calendar", "gzip", "posixpath"),
)
REFERENCE_MODULES = (
    *("math", "cmath", "operator", "statistics", "textwrap", "random", "binascii", "zlib"),
    *("unicodedata", "heapq", "bisect", "base64", "functools", "glob", "fnmatch", "posixpath"),
)
_CODE_MODULES = ("shutil", "tempfile", "zipfile", "tarfile")  # none of them explained in a guide
_SECTIONS = 6  # functions a guide explains (at most)
_PROSE_WORDS = 120  # of each function's docstring in a guide
_REFERENCE_WORDS = 25  # in a reference page: a sentence or two
_CODE_LINES = 1  # of each code sample: a call or a declaration
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*|#[^\n]*", re.S)
_REFERENCE_SITES = ("ref.alpha-docs.example", "api.beta-docs.example")
_MIRROR = "mirror.gamma-copies.example"
_COPY_KINDS = (*FIELDS, "combination")


@dataclass(frozen=True, slots=True)
class Function:
    module: str
    name: str
    signature: str
    doc: str  # the docstring's words, at most ``_PROSE_WORDS``


def language_editions() -> list[tuple[str, str, bytes]]:
    """(language, URL, HTML) of every edition of every guide, guide by guide."""
    pages = []
    for module in GUIDE_MODULES:
        functions = module_functions(module)[:_SECTIONS]
        if len(functions) < 2:
            continue  # not enough documented functions here to make a guide
        for language, snippets in code_samples().items():
            rng = random.Random(f"{module}:{language}")
            sections = [
                f"<h2>{html_escaping.escape(f.name + f.signature)}</h2><p>{_text(f.doc)}</p>"
                f"<pre>{html_escaping.escape(rng.choice(snippets))}</pre>"
                for f in functions
            ]
            title = f"A guide to {module}, {language} edition"
            url = f"http://{language}-guides.example/{module}/guide.html"
            pages.append((language, url, _page(title, "".join(sections), rng)))
    return pages


def reference_pages() -> list[tuple[str, bytes]]:
    """(URL, HTML) of one page per documented function, from one template: the module's summary
    and the list of its functions (a generator's sidebar) around the function's signature and the
    first sentences of its docstring."""
    pages = []
    for module in REFERENCE_MODULES:
        functions = module_functions(module)
        summary = " ".join((inspect.getdoc(importlib.import_module(module)) or "").split()[:150])
        sidebar = "".join(f"<li>{f.name}</li>" for f in functions)
        for number, function in enumerate(functions):
            site = _REFERENCE_SITES[number % 2]
            qualified = f"{module}.{function.name}"
            doc = " ".join(function.doc.split()[:_REFERENCE_WORDS])
            body = (
                f"<ul>{sidebar}</ul><p>{_text(summary)}</p>"
                f"<pre>{html_escaping.escape(function.name)}"
                f"{html_escaping.escape(function.signature)}</pre><p>{_text(doc)}</p>"
                f"<p>Defined in the {module} module. Generated from the docstring; see the module "
                "page for the functions next to this one and the index for every name.</p>"
            )
            rng = random.Random(qualified)
            url = f"http://{site}/{module}/{function.name}.html"
            pages.append((url, _page(f"{qualified} - API reference", body, rng)))
    return pages


def editions_web(copy_share: float = 0.5, seed: int = 0) -> list[LabelledPage]:
    """Editions and reference pages (duplicates of nothing), then a mirror's copies of a share of
    them with a dynamic field changed (duplicates of their page)."""
    rng = random.Random(seed)
    originals = [(url, body, "edition") for _, url, body in language_editions()]
    originals += [(url, body, "reference") for url, body in reference_pages()]
    pages = [LabelledPage(url, body, None, kind, False) for url, body, kind in originals]
    for url, body, _ in originals:
        if rng.random() < copy_share:
            change = rng.choice(_COPY_KINDS)
            variant = combination if change == "combination" else change_field(change)
            copy_url = f"http://{_MIRROR}/{url.removeprefix('http://')}"
            pages.append(LabelledPage(copy_url, variant(body, rng), url, change, False))
    return pages


@functools.cache
def module_functions(module_name: str) -> tuple[Function, ...]:
    """The public functions of a module that have a docstring of ten words or more, by name."""
    module = importlib.import_module(module_name)
    found = []
    for name, member in sorted(vars(module).items()):
        if name.startswith("_") or not callable(member) or inspect.isclass(member):
            continue
        if getattr(member, "__module__", module_name) not in (module_name, f"_{module_name}"):
            continue  # imported from another module (its C accelerator's functions are its own)
        words = (inspect.getdoc(member) or "").split()
        if len(words) < 10:
            continue
        try:
            signature = str(inspect.signature(member))
        except (TypeError, ValueError):
            signature = "(...)"
        found.append(Function(module_name, name, signature, " ".join(words[:_PROSE_WORDS])))
    return tuple(found)


@functools.cache
def code_samples() -> dict[str, tuple[str, ...]]:
    """Real code of each language found here, cut in samples of ``_CODE_LINES`` lines, comments
    removed."""
    include = Path(sysconfig.get_path("include"))
    cpp_roots = sorted(Path("/usr/include/c++").glob("[0-9]*"))
    sources = {
        "python": [Path(inspect.getfile(importlib.import_module(name))) for name in _CODE_MODULES],
        "c": sorted(include.glob("*.h"))[:40],
        "cpp": sorted((cpp_roots[-1] / "bits").glob("stl_*.h"))[:12] if cpp_roots else [],
    }
    samples = {language: tuple(_samples(paths)) for language, paths in sources.items()}
    return {language: found for language, found in samples.items() if found}


def _samples(paths: list[Path]) -> Iterator[str]:
    for path in paths:
        code = _COMMENT.sub("", path.read_text(encoding="utf-8", errors="replace"))
        lines = [line for line in code.splitlines() if len(line.split()) >= 2]
        for start in range(0, len(lines) - _CODE_LINES, _CODE_LINES):
            yield "\n".join(lines[start : start + _CODE_LINES])


def _page(title: str, main: str, rng: random.Random) -> bytes:
    fields = "".join(render_field(name, field_value(name, rng)) for name in FIELDS[:3])
    return (
        f"<html><head><title>{html_escaping.escape(title)}</title></head><body>"
        f"<h1>{html_escaping.escape(title)}</h1>{main}{fields}</body></html>"
    ).encode()


def _text(words: str) -> str:
    return html_escaping.escape(words)
