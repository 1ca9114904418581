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
        # Build it when missing or stale (cargo decides). scripts/test sets D3DFLOAT_BIN
        # to the binary its `cargo test` built, so this runs only for a bare `pytest`.
        built = subprocess.run(
            ["cargo", "build", "--quiet", "--bin", "d3dfloat"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if built.returncode != 0:
            pytest.fail(
                f"cargo build --bin d3dfloat failed ({built.returncode}):\n{built.stderr}",
                pytrace=False,
            )

    def run(*args, input=None, check=True):
        return subprocess.run(
            [binary, *args], input=input, capture_output=True, text=True, check=check
        )

    return run
