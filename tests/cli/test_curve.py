"""Broder's acceptance curve: the paper's numbers, the inverse, and ``dedup-filter curve``."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from dedup_filter.cli import main
from dedup_filter.curve import acceptance_probability, resemblance_at


def test_curve_reproduces_broders_numbers_for_6_14_2():
    # Broder: P(0.909) = 1/2; missed above 97.5 % and accepted below 77 % with probability < 0.01;
    # accepted below 50 % with probability < 0.6e-7
    assert acceptance_probability(0.975, 6, 14, 2) > 0.99 - 1e-3
    assert acceptance_probability(0.77, 6, 14, 2) < 0.01
    assert acceptance_probability(0.5, 6, 14, 2) < 0.6e-7
    assert resemblance_at(0.5, 6, 14, 2) == pytest.approx(0.909, abs=5e-4)


def test_curve_is_vectorised_monotonic_and_bounded():
    rho = np.linspace(0.0, 1.0, 201)
    probabilities = acceptance_probability(rho, 6, 14, 2)
    assert probabilities.shape == rho.shape
    assert np.all(np.diff(probabilities) >= 0)
    assert probabilities[0] == 0.0
    assert probabilities[-1] == pytest.approx(1.0)


def test_curve_agrees_with_a_simulation_of_feature_agreement():
    rng = np.random.default_rng(7)
    agree = rng.random((20_000, 6)) < 0.9**14  # each of 6 features agrees with probability rho**s
    simulated = np.mean(agree.sum(axis=1) >= 2)
    assert acceptance_probability(0.9, 6, 14, 2) == pytest.approx(simulated, abs=0.015)


@pytest.mark.parametrize("probability", [0.01, 0.5, 0.99])
def test_resemblance_at_inverts_the_curve(probability):
    rho = resemblance_at(probability, 6, 14, 2)
    assert acceptance_probability(rho, 6, 14, 2) == pytest.approx(probability, rel=1e-6)


@pytest.mark.parametrize(
    ("resemblance", "k", "s", "r"),
    [(1.2, 6, 14, 2), (-0.1, 6, 14, 2), (0.5, 0, 14, 0), (0.5, 6, 14, 7)],
)
def test_curve_rejects_impossible_arguments(resemblance, k, s, r):
    with pytest.raises(ValueError, match="must"):
        acceptance_probability(resemblance, k, s, r)


def test_curve_command_prints_table_and_landmarks(capsys):
    assert main(["curve", "--k", "6", "--s", "14", "--r", "2", "--step", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "P(k=6, s=14, r=2)" in out
    assert len([line for line in out.splitlines() if line.strip().startswith(("0.", "1."))]) == 11
    assert "P = 0.5 at resemblance 0.909" in out


def test_curve_command_takes_defaults_from_configuration(capsys):
    assert main(["curve", "--set", "minhash.min_shared_features=1"]) == 0
    assert "P(k=6, s=14, r=1)" in capsys.readouterr().out


def test_curve_command_rejects_bad_parameters(capsys):
    assert main(["curve", "--k", "6", "--s", "14", "--r", "9"]) == 2
    assert "r (shared features)" in capsys.readouterr().err


def test_png_without_matplotlib_exits_2_with_the_install_hint(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    assert main(["curve", "--png", str(tmp_path / "curve.png")]) == 2
    assert "dedup-filter[plot]" in capsys.readouterr().err
    assert not (tmp_path / "curve.png").exists()
