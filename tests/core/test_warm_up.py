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
