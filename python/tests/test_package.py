"""What editors and help() see: stubs, docstrings, one abi3 module."""

import pathlib
import sys

import d3dfloat as d


def test_stubs_and_docstrings_ship():
    pkg = pathlib.Path(d.__file__).parent
    assert (pkg / "__init__.pyi").is_file() and (pkg / "py.typed").is_file()
    stubs = (pkg / "__init__.pyi").read_text()
    for name in d.__all__:
        obj = getattr(d, name)
        if callable(obj):
            assert obj.__doc__ and len(obj.__doc__) > 80, name
            assert f"def {name}(" in stubs, name
    assert d.CLASSES == ("zero", "subnormal", "normal", "infinity", "nan", "snan")


def test_the_extension_is_the_stable_abi_build():
    if sys.platform.startswith("linux"):
        assert d._native.__file__.endswith(".abi3.so"), d._native.__file__
