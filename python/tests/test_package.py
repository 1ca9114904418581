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


def test_choices_and_defaults_come_from_the_core_as_the_command_line_has_them(cli):
    import inspect
    import re

    stub = (pathlib.Path(d.__file__).parent / "__init__.pyi").read_text()
    # The stub's literal lists (static typing cannot compute them) name what the core
    # accepts, in its order.
    literals = {
        "rounding": re.search(r"^Rounding = Literal\[(.*)\]$", stub, re.M).group(1),
        "rules": re.search(r"rules: Literal\[(.*?)\]", stub).group(1),
        "compression": re.search(r"compression: Literal\[(.*?)\]", stub).group(1),
        "quality": re.search(r"quality: Literal\[(.*?)\]", stub).group(1),
    }
    for key, text in literals.items():
        assert [s.strip().strip('"') for s in text.split(",")] == list(d._native.CHOICES[key]), key
    # Each wrapper's default is the core's, and the command line shows the same one.
    sig = lambda f, p: inspect.signature(f).parameters[p].default
    assert sig(d.encode, "rounding") == sig(d.pack, "rounding") == d._native.DEFAULTS["rounding"]
    assert sig(d.check, "rules") == sig(d.allowed, "rules") == d._native.DEFAULTS["rules"]
    assert sig(d.write_image, "compression") == d._native.DEFAULTS["compression"]
    assert sig(d.write_image, "quality") == d._native.DEFAULTS["quality"]
    assert f"[default: {sig(d.encode, 'rounding')}]" in cli("encode", "--help").stdout
    assert f"[default: {sig(d.check, 'rules')}]" in cli("op", "--help").stdout
    convert_help = cli("convert", "--help").stdout
    assert f"[default: {sig(d.write_image, 'compression')}]" in convert_help
    assert f"[default: {sig(d.write_image, 'quality')}]" in convert_help
