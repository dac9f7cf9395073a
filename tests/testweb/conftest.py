"""One small test web per session: building it renders pydoc text, which is the slow part."""

from __future__ import annotations

import pytest

from testweb.site import TestWeb, build_web


@pytest.fixture(scope="session")
def web() -> TestWeb:
    return build_web(seed=0, scale="small")


@pytest.fixture(scope="session", params=[0, 2], ids=lambda seed: f"seed{seed}")
def any_seed_web(request: pytest.FixtureRequest) -> TestWeb:
    """Small webs of two seeds, for the properties that must hold whatever the seed picks."""
    return build_web(seed=request.param, scale="small")


@pytest.fixture(scope="session")
def demo_web() -> TestWeb:
    return build_web(seed=0, scale="demo")
