"""encode/decode against numpy's float16 and the command line, in every rounding mode."""

import numpy as np
import pytest

import d3dfloat as d

# numpy warns of the overflows and NaNs the tests make on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

RNG = np.random.default_rng(31)


def random_f32(n):
    """Every kind of f32: random patterns (all exponents, NaNs, subnormals) and values
    near the small formats' ranges and ties."""
    bits = RNG.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    near = (RNG.standard_normal(n) * 2.0 ** RNG.integers(-30, 20, n)).astype(np.float32)
    return np.concatenate([bits.view(np.float32), near])


def test_every_f16_pattern_decodes_as_numpy_float16():
    bits = np.arange(2**16, dtype=np.uint32).astype(np.uint16)
    ours = d.decode(bits, "f16")
    theirs = bits.view(np.float16).astype(np.float32)
    nan = np.isnan(theirs)
    assert np.array_equal(np.isnan(ours), nan)
    assert np.array_equal(ours[~nan].view(np.uint32), theirs[~nan].view(np.uint32))


def test_every_f16_value_encodes_back_to_its_pattern_in_every_mode():
    bits = np.arange(2**16, dtype=np.uint32).astype(np.uint16)
    values = bits.view(np.float16).astype(np.float32)
    keep = ~np.isnan(values)
    for mode in ["rne", "rtz", "rtp", "rtn"]:
        assert np.array_equal(d.encode(values, "f16", mode)[keep], bits[keep]), mode


def test_f32_sample_rounds_to_nearest_even_as_numpy_float16():
    values = random_f32(1_000_000)
    ours = d.encode(values, "f16")
    theirs = values.astype(np.float16)
    nan = np.isnan(values)
    assert np.array_equal(np.isnan(ours.view(np.float16)), nan)
    assert np.array_equal(ours[~nan], theirs[~nan].view(np.uint16))


def test_f64_input_rounds_once_as_numpy_float16():
    # float64 -> f16 directly (no double rounding through f32), as numpy does it.
    values = np.concatenate([random_f32(100_000).astype(np.float64), RNG.standard_normal(100_000)])
    values = values[~np.isnan(values)]
    assert np.array_equal(d.encode(values, "f16"), values.astype(np.float16).view(np.uint16))


def cli_lines(values):
    """Values as the command line reads them exactly: hex floats, inf and nan."""
    out = []
    for v in values.tolist():
        if np.isnan(v):
            out.append("nan")
        elif np.isinf(v):
            out.append("inf" if v > 0 else "-inf")
        else:
            out.append(float(v).hex())
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("fmt", ["f16", "f11", "f10", "f32"])
@pytest.mark.parametrize("mode", ["rne", "rtz", "rtp", "rtn", "d3d"])
@pytest.mark.parametrize("saturate", [False, True])
def test_every_rounding_mode_as_the_command_line(cli, fmt, mode, saturate):
    source = np.float64 if fmt == "f32" else np.float32
    values = random_f32(1500).astype(source)
    if source == np.float64:
        values = values + RNG.standard_normal(values.size) * 2.0**-30 * np.abs(values)
    values = values[~np.isnan(values)]  # NaN payloads: below
    args = ["encode", "--fmt", fmt, "--rounding", mode, "--plain"]
    if saturate:
        args.append("--saturate")
    want = [int(x, 16) for x in cli(*args, input=cli_lines(values)).stdout.split()]
    got = d.encode(values, fmt, mode, saturate)
    assert got.tolist() == want


def test_nan_stays_nan_and_is_counted():
    values = np.array([np.nan, 1.0, -np.nan], np.float32)
    bits, counts = d.encode(values, "f11", counts=True)
    assert d.classify(bits, "f11")["names"].tolist() == ["nan", "normal", "nan"]
    assert counts["nan_in"] == 2 and counts["nan_out"] == 2


def test_counts_name_what_saturated_flushed_and_overflowed():
    values = np.array([1e6, -1e6, 1e-12, 0.0, 1.0], np.float32)
    _, rne = d.encode(values, "f16", counts=True)
    assert (rne["overflow_to_infinity"], rne["saturated"], rne["flushed_to_zero"]) == (2, 0, 1)
    _, sat = d.encode(values, "f16", saturate=True, counts=True)
    assert (sat["overflow_to_infinity"], sat["saturated"]) == (0, 2)
    _, f11 = d.encode(values, "f11", "d3d", counts=True)
    assert f11["clamped_negative"] == 1 and f11["saturated"] == 1


def test_decode_of_every_small_pattern_is_the_command_lines():
    for fmt, width in [("f11", 11), ("f10", 10)]:
        bits = np.arange(2**width, dtype=np.uint16)
        values = d.decode(bits, fmt)
        finite = np.isfinite(values)
        # Finite values encode back to themselves exactly.
        assert np.array_equal(d.encode(values[finite], fmt), bits[finite])


def test_f32_and_f64_patterns_round_trip():
    values = random_f32(10_000)
    values = values[~np.isnan(values)]  # NaNs come out quiet, as `convert` writes them
    bits = d.encode(values, "f32")
    assert np.array_equal(bits, values.view(np.uint32))
    assert np.array_equal(d.decode(bits, "f32").view(np.uint32), values.view(np.uint32))
    wide = RNG.standard_normal(1000)
    assert np.array_equal(d.decode(d.encode(wide, "f64"), "f64"), wide)


def test_shapes_are_kept_and_strided_input_is_read():
    values = random_f32(12).reshape(2, 3, 4)
    assert d.encode(values, "f16").shape == (2, 3, 4)
    strided = values[:, ::2, ::-1]
    assert np.array_equal(d.encode(strided, "f16"), d.encode(np.ascontiguousarray(strided), "f16"))
    assert d.encode(np.array(1.5, np.float32), "f16").shape == ()


def test_classify_gives_the_fields():
    bits = np.array([0x0000, 0x8001, 0x3C00, 0xFC00, 0x7E00, 0x7D00], np.uint16)
    c = d.classify(bits, "f16")
    assert c["names"].tolist() == ["zero", "subnormal", "normal", "infinity", "nan", "snan"]
    assert c["sign"].tolist() == [False, True, False, True, False, False]
    assert c["exponent"].tolist() == [0, 0, 15, 31, 31, 31]
    assert c["fraction"].tolist() == [0, 1, 0, 0, 0x200, 0x100]
    # A float16 array is its patterns.
    assert d.classify(bits.view(np.float16), "f16")["names"].tolist() == c["names"].tolist()


@pytest.mark.parametrize("fmt", ["f16", "f11", "f10", "r11g11b10", "rgb9e5"])
@pytest.mark.parametrize("mode", ["rne", "rtz", "rtp", "rtn"])
def test_a_large_sample_as_convert_writes_it(cli, tmp_path, fmt, mode):
    # NaN payloads included: the bits of every element, as `convert` writes the stream.
    values = random_f32(300_000)
    src = tmp_path / "in.f32"
    out = tmp_path / "out.raw"
    values.tofile(src)
    cli("convert", "--from", "f32", "--to", fmt, "--rounding", mode, str(src), "-o", str(out))
    if fmt in ("r11g11b10", "rgb9e5"):
        got = d.pack(values.reshape(-1, 3), fmt, mode)
        want = np.fromfile(out, np.uint32)
    else:
        got = d.encode(values, fmt, mode)
        want = np.fromfile(out, np.uint16)
    assert np.array_equal(got, want)
