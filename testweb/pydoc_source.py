"""Real text for the test web: standard-library documentation rendered offline by pydoc.

Every function here returns the same bytes for the same module on one Python installation, in any
process and under any hash seed: memory addresses are scrubbed from reprs, members are sorted, and
inherited members are left out (they would make unrelated class pages near-copies of each other).
Hyperlinks keep pydoc's own form (``module.html#anchor``); the tree builder rewrites them.
"""

from __future__ import annotations

import builtins
import functools
import importlib
import inspect
import pydoc
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

_ADDRESS = re.compile(r"(?:\s|&nbsp;)+at(?:\s|&nbsp;)+0x[0-9a-fA-F]+")
_SECTION_END = "</td></tr></table>"
_NOISE_DESCRIPTORS = re.compile(
    r"<dl><dt><strong>__(?:dict|weakref)__</strong></dt>\n<dd>.*?</dd>\n</dl>\n", re.S
)


@dataclass(frozen=True, slots=True)
class ClassDoc:
    name: str
    summary: str  # first line of the docstring, plain text
    html: str


@dataclass(frozen=True, slots=True)
class ModuleDoc:
    """The parts of one module's pydoc page, so that pages can be cut at class granularity."""

    name: str
    summary: str  # first line of the docstring, plain text
    docstring_html: str
    functions: tuple[str, ...]  # one HTML block per public function
    classes: tuple[ClassDoc, ...]
    data: tuple[str, ...]  # one HTML line per public constant


def importable(name: str) -> bool:
    """Whether a module imports here (some are platform-specific); never raises."""
    try:
        _import(name)
    except Exception:  # any import failure means: leave the module out
        return False
    return True


@functools.cache
def module_doc(name: str) -> ModuleDoc:
    module = _import(name)
    renderer = pydoc.HTMLDoc()
    classes = _public_members(module, inspect.isclass)
    functions = _public_members(module, inspect.isroutine)
    links = _link_tables(name, classes, functions)
    docstring = inspect.getdoc(module) or ""
    return ModuleDoc(
        name=name,
        summary=_first_line(docstring),
        docstring_html=_scrub(renderer.markup(docstring, renderer.preformat, *links)),
        functions=tuple(
            _scrub(renderer.docroutine(value, key, name, *links)) for key, value in functions
        ),
        classes=tuple(_class_doc(renderer, name, key, value, links) for key, value in classes),
        data=tuple(_scrub(renderer.docother(value, key)) for key, value in _public_data(module)),
    )


@functools.cache
def builtin_function_html(name: str) -> str:
    """pydoc's entry for one built-in function: a short page of real text."""
    return _scrub(pydoc.HTMLDoc().docroutine(getattr(builtins, name), name))


@functools.cache
def prose(name: str) -> tuple[str, ...]:
    """The paragraphs of a module's docstring (``module:attribute`` picks a string attribute)."""
    module_name, _, attribute = name.partition(":")
    module = _import(module_name)
    text = getattr(module, attribute) if attribute else inspect.getdoc(module) or ""
    paragraphs = (" ".join(block.split()) for block in inspect.cleandoc(text).split("\n\n"))
    return tuple(paragraph for paragraph in paragraphs if paragraph)


def _import(name: str) -> ModuleType:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return importlib.import_module(name)


def _public_members(
    module: ModuleType, predicate: Callable[[object], bool]
) -> list[tuple[str, object]]:
    public = getattr(module, "__all__", None)
    members = []
    for key, value in inspect.getmembers(module, predicate):
        if _documented_here(module, key, value) and pydoc.visiblename(key, public, value):
            members.append((key, value))
    return sorted(members)


def _documented_here(module: ModuleType, key: str, value: object) -> bool:
    """Defined in the module, or exported by it from a private one (``concurrent.futures._base``).

    A member re-exported from a public module is documented there only, so that no two pages
    carry the same class or function text.
    """
    home = getattr(value, "__module__", None) or ""
    if home == module.__name__:
        return True
    exported = key in getattr(module, "__all__", ())
    return (
        exported and home.startswith(module.__name__ + ".") and "._" in home[len(module.__name__) :]
    )


def _public_data(module: ModuleType) -> list[tuple[str, object]]:
    public = getattr(module, "__all__", None)
    plain = (int, float, str, bytes, bool, tuple, frozenset)
    return sorted(
        (key, value)
        for key, value in vars(module).items()
        if isinstance(value, plain) and not key.startswith("_") and pydoc.visiblename(key, public)
    )


def _link_tables(
    module_name: str, classes: list[tuple[str, object]], functions: list[tuple[str, object]]
) -> tuple[dict[str, str], dict[str, str]]:
    """pydoc's (funcs, classes) tables, in the canonical ``module.html#anchor`` form."""
    funcs = {key: f"{module_name}.html#-{key}" for key, _ in functions}
    class_links = {key: f"{module_name}.html#{key}" for key, _ in classes}
    return funcs, class_links


def _class_doc(
    renderer: pydoc.HTMLDoc,
    module_name: str,
    name: str,
    value: object,
    links: tuple[dict[str, str], dict[str, str]],
) -> ClassDoc:
    html = renderer.docclass(value, name, module_name, *links)
    return ClassDoc(name, _first_line(inspect.getdoc(value) or ""), _scrub(_own_members(html)))


def _own_members(class_html: str) -> str:
    """Drop the 'inherited from' blocks and the __dict__/__weakref__ noise of a pydoc class."""
    body, end = class_html[: -len(_SECTION_END)], _SECTION_END
    chunks = _NOISE_DESCRIPTORS.sub("", body).split("<hr>\n")
    kept = [chunks[0], *(chunk for chunk in chunks[1:] if _keeps(chunk))]
    return "<hr>\n".join(kept) + end


def _keeps(chunk: str) -> bool:
    heading = chunk.split("<br>", 1)[0]
    return "inherited from" not in heading and "<dl>" in chunk


def _first_line(docstring: str) -> str:
    return docstring.strip().split("\n", 1)[0].strip()


def _scrub(html: str) -> str:
    return _ADDRESS.sub("", html)
