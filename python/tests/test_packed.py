"""pack/unpack round trips and ulp_distance against the command line."""

import numpy as np
import pytest

import d3dfloat as d

RNG = np.random.default_rng(9)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def test_r11g11b10_every_channel_pattern_round_trips():
    f11 = np.arange(2**11, dtype=np.uint32)
    f10 = np.arange(2**10, dtype=np.uint32)
    words = np.concatenate(
        [f11 | (0x3C0 << 11) | (0x1E0 << 22), 0x3C0 | (f11 << 11) | (0x1E0 << 22), 0x3C0 | (0x3C0 << 11) | (f10 << 22)]
    ).astype(np.uint32)
    rgb = d.unpack(words, "r11g11b10")
    assert rgb.shape == (words.size, 3) and rgb.dtype == np.float32
    keep = ~np.isnan(rgb).any(axis=1)
    assert np.array_equal(d.pack(rgb[keep], "r11g11b10"), words[keep])
    # The channels are the f11/f10 values decode gives.
    assert np.array_equal(rgb[: 2**11, 0], d.decode(f11.astype(np.uint16), "f11"), equal_nan=True)


def test_rgb9e5_round_trips_by_value():
    words = RNG.integers(0, 2**32, 200_000, dtype=np.uint64).astype(np.uint32)
    rgb = d.unpack(words, "rgb9e5")
    again = d.unpack(d.pack(rgb, "rgb9e5"), "rgb9e5")
    assert np.array_equal(again, rgb)


@pytest.mark.parametrize("fmt", ["r11g11b10", "rgb9e5"])
@pytest.mark.parametrize("mode", ["rne", "d3d"])
def test_pack_as_the_command_line(cli, fmt, mode):
    rgb = (RNG.standard_normal((400, 3)) * 2.0 ** RNG.integers(-20, 18, (400, 1))).astype(np.float32)
    text = "".join(" ".join(float(v).hex() for v in t) + "\n" for t in rgb.tolist())
    out = cli("encode", "--fmt", fmt, "--rounding", mode, "--plain", input=text)
    want = [int(x, 16) for x in out.stdout.split()]
    assert d.pack(rgb, fmt, mode).tolist() == want
    # RGBA: alpha is dropped.
    rgba = np.concatenate([rgb, np.ones((400, 1), np.float32)], axis=1)
    assert d.pack(rgba, fmt, mode).tolist() == want


def test_pack_counts_saturation():
    rgb = np.array([[1e9, 0.5, -1.0]], np.float32)
    words, counts = d.pack(rgb, "r11g11b10", saturate=True, counts=True)
    assert counts["saturated"] == 1 and counts["clamped_negative"] == 1
    assert d.unpack(words, "r11g11b10").tolist() == [[65024.0, 0.5, 0.0]]


@pytest.mark.parametrize("fmt", ["f32", "f16", "f11", "r11g11b10", "rgb9e5"])
@pytest.mark.parametrize("flush", [True, False])
def test_ulp_distance_as_ulp_diff(cli, fmt, flush):
    n = 500
    if fmt == "f32":
        a = RNG.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        b = (a.astype(np.int64) + RNG.integers(-5, 6, n)).astype(np.uint32)
        b[:50] = RNG.integers(0, 2**32, 50, dtype=np.uint64).astype(np.uint32)
        a[50:60] = RNG.integers(0, 2**24, 10)  # subnormals
    elif fmt in ("f16", "f11"):
        top = 2**16 if fmt == "f16" else 2**11
        a = RNG.integers(0, top, n).astype(np.uint16)
        b = RNG.integers(0, top, n).astype(np.uint16)
    else:
        a = RNG.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        b = RNG.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    args = ["ulp-diff", "--fmt", fmt, "--plain"] + ([] if flush else ["--no-flush"])
    # Exactly the format's hex digits: patterns, not values.
    w = {"f16": 4, "f11": 3}.get(fmt, 8)
    text = "".join(f"0x{int(x):0{w}x} 0x{int(y):0{w}x}\n" for x, y in zip(a, b))
    out = cli(*args, input=text, check=False).stdout.splitlines()
    dist, nan = d.ulp_distance(a, b, fmt, flush_subnormals=flush)
    signed, nan_s = d.ulp_distance(a, b, fmt, flush_subnormals=flush, signed=True)
    assert signed.dtype == np.int64 and (nan_s == nan).all()
    assert len(out) == n
    for i, line in enumerate(out):
        fields = line.split()
        if "nan" in fields:
            assert nan[i], (i, line)
        else:
            assert not nan[i]
            assert dist[i] == max(abs(int(x)) for x in fields), (i, line)
            # Signed as ulp-diff prints it: the first channel of largest magnitude.
            headline = max((int(x) for x in fields), key=abs)
            assert signed[i] == headline, (i, line)


def test_ulp_distance_reads_float_arrays_as_patterns():
    a = np.array([1.0, 0.0, np.nan], np.float32)
    b = np.nextafter(a, np.float32(2))
    dist, nan = d.ulp_distance(a, b, "f32")
    # The smallest f32 subnormal counts as zero unless told otherwise (spec 3.1.3.2).
    assert dist.tolist()[:2] == [1, 0] and nan.tolist() == [False, False, True]
    assert d.ulp_distance(a, b, "f32", flush_subnormals=False)[0].tolist()[:2] == [1, 1]


def test_signed_distances_beyond_int64_are_refused():
    a = np.array([0xFFF0000000000000], np.uint64)  # -inf
    b = np.array([0x7FF0000000000000], np.uint64)  # +inf
    assert d.ulp_distance(a, b, "f64")[0][0] > 2**63
    with pytest.raises(ValueError, match="beyond int64"):
        d.ulp_distance(a, b, "f64", signed=True)
    # The other way round, small: negative.
    one, two = np.array([0x3FF0000000000000], np.uint64), np.array([0x3FF0000000000002], np.uint64)
    assert d.ulp_distance(two, one, "f64", signed=True)[0].tolist() == [-2]
