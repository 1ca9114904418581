"""Wrong dtypes, shapes, lengths and names: one clear exception, never a wrong result."""

import numpy as np
import pytest

import d3dfloat as d

F32 = np.array([1.0, 2.0], np.float32)


@pytest.mark.parametrize(
    "call, kind, message",
    [
        (lambda: d.encode([1.0, 2.0], "f16"), TypeError, "numpy array of float32 or float64"),
        (lambda: d.encode(np.array([1, 2], np.int32), "f16"), TypeError, "not int32"),
        (lambda: d.encode(F32, "f8"), ValueError, "unknown format 'f8'"),
        (lambda: d.encode(F32, "r11g11b10"), ValueError, "use pack/unpack"),
        (lambda: d.encode(F32, "f16", "nearest"), ValueError, "unknown rounding 'nearest'"),
        (lambda: d.decode(F32, "f16"), TypeError, "uint16"),
        (lambda: d.decode(np.array([1.0, np.nan]), "f32"), TypeError, "uint32"),
        (lambda: d.decode(np.array([1], np.uint32), "f16"), TypeError, "uint16"),
        (lambda: d.decode(np.array([0x3C00], np.uint32), "f11"), TypeError, "uint16"),
        (lambda: d.decode(np.array([0x7C0, 0x800], np.uint16), "f11"), ValueError, "element 1 is 0x800, wider than f11's 11 bits"),
        (lambda: d.decode(np.array([0x400], np.uint16), "f10"), ValueError, "wider than f10's 10 bits"),
        (lambda: d.decode(np.array([1], np.uint64), "f64", "float32"), ValueError, "float64"),
        (lambda: d.pack(np.zeros((4, 2), np.float32), "rgb9e5"), ValueError, r"\(\.\.\., 3\)"),
        (lambda: d.pack(np.zeros((4, 3), np.float32), "f16"), ValueError, "packed format"),
        (lambda: d.unpack(np.zeros(3, np.uint16), "r11g11b10"), TypeError, "uint32"),
        (lambda: d.ulp_distance(np.zeros(3, np.uint32), np.zeros(4, np.uint32), "f32"), ValueError, "differ in shape"),
        (lambda: d.ulp_distance(np.zeros(3, np.uint16), np.zeros(3, np.uint16), "f32"), TypeError, "uint32"),
        (lambda: d.ulp_distance(np.full(1, 0x800, np.uint16), np.zeros(1, np.uint16), "f11"), ValueError, "wider than f11"),
        (lambda: d.classify(np.zeros(3, np.uint32), "rgb9e5"), ValueError, "float format"),
        (lambda: d.check("madd", F32, F32), ValueError, "unknown instruction 'madd'"),
        (lambda: d.check("sqrt", F32, F32, fmt="f64"), ValueError, "sqrt has no f64 form"),
        (lambda: d.check("add", F32, F32), ValueError, "add takes 2 operand slices, got 1"),
        (lambda: d.check("add", [F32, F32[:1]], F32), ValueError, "operand 2 has 1 elements where 2 lines need 2"),
        (lambda: d.check("add", [F32, F32], F32[:1]), ValueError, "results has 1 elements"),
        (lambda: d.check("add", [F32, F32], F32.astype(np.float16)), TypeError, "uint32"),
        (lambda: d.check("add", "ab", F32), TypeError, "sequence"),
        (lambda: d.check("add", [F32, F32], F32, rules="d3d9"), ValueError, "d3d9"),
        (lambda: d.allowed("dp3", [np.zeros(4, np.float32)] * 2), ValueError, "where"),
    ],
)
def test_refusals(call, kind, message):
    with pytest.raises(kind, match=message):
        call()


def test_non_native_byte_order_is_read_by_value_not_misread():
    # Once refused; now read in the machine's order (test_layouts.py has every function).
    assert d.encode(F32.astype(">f4"), "f16").tolist() == [0x3C00, 0x4000]
    assert d.decode(np.array([0x3C00], ">u2"), "f16").tolist() == [1.0]


def test_empty_arrays_are_empty_answers():
    assert d.encode(np.zeros(0, np.float32), "f16").shape == (0,)
    assert d.pack(np.zeros((0, 3), np.float32), "r11g11b10").shape == (0,)
    ok, summary = d.check("sqrt", np.zeros(0, np.float32), np.zeros(0, np.float32))
    assert ok.shape == (0,) and summary["lines"] == 0
