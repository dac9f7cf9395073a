"""A warmed-up preparer has loaded every compiled kernel a real page needs, so the first page of
a crawl waits for none (checked in a fresh interpreter: this one has run other pages)."""

from __future__ import annotations

import subprocess
import sys

_CHECK = """
import pydoc, json, numba
from dedup_filter import Config
from dedup_filter.features import kernels
from dedup_filter.prepare import PagePreparer

def loaded():
    return {name: len(kernel.signatures) for name, kernel in vars(kernels).items()
            if isinstance(kernel, numba.core.registry.CPUDispatcher)}

preparer = PagePreparer(Config.default())
preparer.warm_up()
warm = loaded()
page = pydoc.HTMLDoc().page("json", pydoc.HTMLDoc().docmodule(json)).encode()
preparer.prepare("http://a.test/library/", page)
preparer.prepare("http://a.test/library/json.html", page)
assert loaded() == warm, (warm, loaded())
"""


def test_a_warmed_up_preparer_loads_no_kernel_for_a_real_page():
    subprocess.run([sys.executable, "-c", _CHECK], check=True, timeout=120)


_URL_CHECKS_ONLY = """
import sys, tempfile
from dedup_filter import Config, DedupFilter

with tempfile.TemporaryDirectory() as directory, DedupFilter.open(directory) as dedup:
    dedup.check_url("http://a.test/library/json.html")
    assert "numba" not in sys.modules
    dedup.check_page("http://a.test/library/json.html", b"<html><p>a page</p></html>")
    assert "numba" in sys.modules
"""


def test_a_process_that_only_checks_urls_never_imports_numba():
    """A crawl's process imports the filter and checks URLs; its pages are prepared elsewhere."""
    subprocess.run([sys.executable, "-c", _URL_CHECKS_ONLY], check=True, timeout=120)
