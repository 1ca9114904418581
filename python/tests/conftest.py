"""Shared fixtures: the d3dfloat command line the tests compare the package with."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    """Runs the command line built from this repository (``D3DFLOAT_BIN`` overrides it).

    Returns a function ``cli(*args, input=str) -> CompletedProcess``.
    """
    binary = os.environ.get("D3DFLOAT_BIN")
    if not binary:
        binary = str(ROOT / "target" / "debug" / "d3dfloat")
        # Build it when missing or stale (cargo decides; a no-op after `cargo test`).
        subprocess.run(
            ["cargo", "build", "--quiet", "--bin", "d3dfloat"], cwd=ROOT, check=True
        )

    def run(*args, input=None, check=True):
        return subprocess.run(
            [binary, *args], input=input, capture_output=True, text=True, check=check
        )

    return run
