"""Arrays that are not C-contiguous are read in blocks (issue 38, item 4).

An array that is not C-contiguous in the machine's byte order is gathered into C order
block by block (2^16 elements a block) and each block converted by the same kernels as a
contiguous array. These tests cover what that walk can get wrong: arrays of several
blocks whose size is not a multiple of one, rows that straddle a block's end, every kind
of stride (negative, zero, larger than an element, not a multiple of the element's size),
unaligned memory, the other byte order with any of those, zero-size and 0-d arrays. Each
answer is compared with the answer for ``np.ascontiguousarray`` of the same array (the
package's in-place path) and, where numpy can say it, with numpy's own conversion.
"""

import numpy as np
import pytest

import d3dfloat as d

BLOCK = 1 << 16
RNG = np.random.default_rng(384)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def values(shape, dtype=np.float32):
    """Values over f16's whole range and beyond, with NaNs, infinities, zeros."""
    v = (RNG.standard_normal(shape) * np.exp2(RNG.integers(-30, 20, shape))).astype(dtype)
    flat = v.reshape(-1)
    at = np.arange(0, flat.size, 101)
    flat[at] = np.resize(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 65520.0, 6e-8], dtype),
                         at.size)
    return v


def unaligned(a):
    """The same values in memory one byte off the element's alignment."""
    raw = np.zeros(a.nbytes + 1, np.uint8)
    u = np.frombuffer(raw.data, dtype=a.dtype, count=a.size, offset=1).reshape(a.shape)
    u[...] = a
    assert not u.flags.aligned
    return u


def views(a):
    """Views of a 2-D array (or arrays equal to it) in every layout the walk handles;
    each equals ``a`` as numpy reads it, and none is C-contiguous native memory."""
    rows, cols = a.shape
    wide = np.zeros((rows, cols * 3 + 1), a.dtype)
    wide[:, 1::3] = a
    odd = np.zeros(a.size * a.itemsize + 2 * rows * cols + 1, np.uint8)
    # A stride that is no multiple of the element's size (for float32: 6 bytes).
    odd_view = np.ndarray(a.shape, a.dtype, buffer=odd.data, offset=0,
                          strides=(cols * (a.itemsize + 2), a.itemsize + 2))
    odd_view[...] = a
    out = {
        "fortran": np.asfortranarray(a),
        "transposed": np.ascontiguousarray(a.T).T,
        "reversed rows": np.ascontiguousarray(a[::-1])[::-1],
        "reversed both": np.ascontiguousarray(a[::-1, ::-1])[::-1, ::-1],
        "reversed fortran": np.asfortranarray(a[:, ::-1])[:, ::-1],
        "column slice": wide[:, 1::3],
        "odd byte stride": odd_view,
        "unaligned": unaligned(a),
        "big-endian": a.astype(a.dtype.newbyteorder(">")),
        "big-endian fortran": np.asfortranarray(a.astype(a.dtype.newbyteorder(">"))),
        "big-endian reversed": np.ascontiguousarray(
            a[::-1].astype(a.dtype.newbyteorder(">")))[::-1],
    }
    for name, v in out.items():
        assert np.array_equal(v, a, equal_nan=True), name
        assert not (v.flags.c_contiguous and v.flags.aligned and v.dtype.isnative), name
    return out


# Several blocks, not a multiple of one, and rows (of 389) that straddle the block ends.
SHAPE = (517, 389)


@pytest.mark.parametrize("layout", list(views(np.zeros((2, 3), np.float32))))
def test_encode_reads_every_layout_in_blocks(layout):
    a = values(SHAPE)
    v = views(a)[layout]
    want = a.astype(np.float16).view(np.uint16)  # numpy's nearest-even, independently
    assert np.array_equal(d.encode(v, "f16"), want)
    for fmt, rounding in (("f16", "rtz"), ("f11", "rtn"), ("f10", "rtp"), ("f32", "rne")):
        got, counts = d.encode(v, fmt, rounding, counts=True)
        ref, ref_counts = d.encode(a, fmt, rounding, counts=True)
        assert np.array_equal(got, ref), (fmt, rounding)
        assert counts == ref_counts
    a64 = a.astype(np.float64) * 1.0000001
    v64 = views(a64)[layout]
    assert np.array_equal(d.encode(v64, "f32"), a64.astype(np.float32).view(np.uint32))


@pytest.mark.parametrize("layout", list(views(np.zeros((2, 3), np.float32))))
def test_decode_classify_and_distances_read_every_layout(layout):
    bits = RNG.integers(0, 1 << 16, SHAPE, dtype=np.uint16)
    v = views(bits)[layout]
    want = bits.view(np.float16).astype(np.float32)
    assert np.array_equal(d.decode(v, "f16").view(np.uint32), want.view(np.uint32))
    f11 = bits & 0x7FF
    assert np.array_equal(d.decode(views(f11)[layout], "f11", dtype="float64"),
                          d.decode(f11, "f11", dtype="float64"), equal_nan=True)
    c = d.classify(v, "f16")
    ref = d.classify(bits, "f16")
    for key in ("sign", "exponent", "fraction", "class"):
        assert np.array_equal(c[key], ref[key]), key
    other = (bits ^ RNG.integers(0, 4, SHAPE, dtype=np.uint16)).astype(np.uint16)
    dist, nan = d.ulp_distance(v, views(other)[layout], "f16", signed=True)
    want_dist, want_nan = d.ulp_distance(bits, other, "f16", signed=True)
    assert np.array_equal(dist, want_dist) and np.array_equal(nan, want_nan)


@pytest.mark.parametrize("layout", list(views(np.zeros((2, 3), np.float32))))
def test_check_reads_every_layout(layout):
    a = np.abs(values(SHAPE))
    r = np.sqrt(a)
    ok, summary = d.check("sqrt", views(a)[layout], views(r)[layout])
    want_ok, want_summary = d.check("sqrt", a, r)
    assert np.array_equal(ok, want_ok) and summary == want_summary


def rgb_views(rgba):
    """RGB(A) arrays of one image as the README's pipelines slice them."""
    rgb = np.ascontiguousarray(rgba[..., :3])
    be = rgba.astype(">f4")
    return rgb, {
        "rgba[..., :3]": rgba[..., :3],
        "rgba (alpha dropped)": rgba,
        "rgba[::-1, :, :3]": np.ascontiguousarray(rgba[::-1])[::-1, :, :3],
        "fortran rgb": np.asfortranarray(rgb),
        "channels last of planes": np.ascontiguousarray(np.moveaxis(rgb, -1, 0)).transpose(1, 2, 0),
        "big-endian rgba[..., :3]": be[..., :3],
        "big-endian fortran rgb": np.asfortranarray(rgb.astype(">f4")),
        "unaligned rgb": unaligned(rgb),
    }


@pytest.mark.parametrize("fmt", ["r11g11b10", "rgb9e5"])
def test_pack_reads_every_layout_in_blocks(fmt, tmp_path):
    rgba = np.abs(values((211, 157, 4)))  # 33127 texels: several blocks of RGB values
    rgb, cases = rgb_views(rgba)
    want, want_counts = d.pack(rgb, fmt, counts=True)
    for name, v in cases.items():
        got, counts = d.pack(v, fmt, counts=True)
        assert np.array_equal(got, want), name
        if v.shape[-1] == 3:
            assert counts == want_counts, name
        unpacked = d.unpack(np.asfortranarray(got)[::-1][::-1], fmt).view(np.uint32)
        assert np.array_equal(unpacked, d.unpack(want, fmt).view(np.uint32)), name
    d.write_dds(tmp_path / "c.dds", rgb, "r11g11b10")
    d.write_dds(tmp_path / "s.dds", rgba[..., :3], "r11g11b10")
    d.write_dds(tmp_path / "b.dds", np.asfortranarray(rgba.astype(">f4"))[::-1][::-1], "f16")
    d.write_dds(tmp_path / "cb.dds", rgba, "f16")
    assert (tmp_path / "c.dds").read_bytes() == (tmp_path / "s.dds").read_bytes()
    assert (tmp_path / "b.dds").read_bytes() == (tmp_path / "cb.dds").read_bytes()


@pytest.mark.parametrize("n", [0, 1, 2, BLOCK - 1, BLOCK, BLOCK + 1, 3 * BLOCK + 17])
def test_one_axis_of_every_length_reversed_strided_and_swapped(n):
    x = values(2 * n + 1).astype(np.float32)
    for v in (x[::-1][: n][::-1], x[1::2][:n], x[: 2 * n : 2][::-1],
              x[:n].astype(">f4"), x[:n].astype(">f4")[::-1]):
        c = np.ascontiguousarray(v).astype(np.float32)
        assert np.array_equal(d.encode(v, "f16", "rtz"), d.encode(c, "f16", "rtz"))
        assert np.array_equal(d.encode(v, "f16"), c.astype(np.float16).view(np.uint16))
    rgb = values((n, 4))[:, 1:]
    assert np.array_equal(d.pack(rgb, "rgb9e5"), d.pack(np.ascontiguousarray(rgb), "rgb9e5"))


def test_zero_size_and_0d_arrays():
    for empty in (np.zeros((0, 5), np.float32)[:, ::2], np.zeros((4, 0), ">f4"),
                  np.zeros((3, 0, 2), np.float32).transpose(2, 1, 0)):
        got = d.encode(empty, "f16")
        assert got.shape == empty.shape and got.dtype == np.uint16
        assert d.decode(d.encode(empty, "f32"), "f32").shape == empty.shape
    assert d.pack(np.zeros((0, 4), np.float32)[:, :3], "r11g11b10").shape == (0,)
    for scalar in (np.array(1.5, np.float32), np.array(1.5, ">f4"), np.array(-2.0, ">f8")):
        got = d.encode(scalar, "f16")
        assert got.shape == () and int(got) == int(np.float16(scalar).view(np.uint16))
        fmt = "f32" if scalar.itemsize == 4 else "f64"
        assert d.classify(scalar, fmt)["names"].tolist() == "normal"
    one = np.zeros((1, 1, 7), np.float32)[:, :, 3:4]  # every axis of length 1, odd strides
    assert d.encode(one, "f16").shape == (1, 1, 1)


def test_broadcast_arrays_read_their_repeated_elements():
    x = values(BLOCK + 5)
    wide = np.broadcast_to(x, (3, x.size))  # a stride of zero
    assert wide.strides[0] == 0
    got = d.encode(wide, "f16", "rtz")
    assert np.array_equal(got, np.broadcast_to(d.encode(x, "f16", "rtz"), wide.shape))
    column = np.broadcast_to(np.float32(3.0), (BLOCK + 3, 3))  # every stride zero
    assert np.array_equal(d.pack(column, "r11g11b10"),
                          np.full(BLOCK + 3, d.pack(np.full((1, 3), 3.0, np.float32),
                                                    "r11g11b10")[0], np.uint32))


def test_a_wide_pattern_is_named_at_its_index_in_any_layout():
    bits = np.zeros((300, 700), np.uint16)
    bits[250, 600] = 0x800  # wider than f11's 11 bits, in the fourth block
    bits[280, 3] = 0x900
    for v in (np.asfortranarray(bits), bits.astype(">u2"), np.ascontiguousarray(bits[::-1])[::-1]):
        with pytest.raises(ValueError, match=r"element 175600 is 0x800, wider than f11"):
            d.decode(v, "f11")
        with pytest.raises(ValueError, match=r"element 175600 is 0x800"):
            d.classify(v, "f11")


def test_signalling_nans_keep_their_bits_through_blocks():
    bits = RNG.integers(0, 1 << 32, 3 * BLOCK + 11, dtype=np.uint64).astype(np.uint32)
    bits[::977] = 0x7F800001  # signalling NaNs, in every block
    bits[5::977] = 0xFFA00000
    for v in (bits.astype(">u4"), np.ascontiguousarray(bits[::-1])[::-1],
              np.ascontiguousarray(bits[::-1]).astype(">u4")[::-1]):
        assert np.array_equal(d.decode(v, "f32").view(np.uint32), bits)


def test_random_views_of_many_axes_read_as_their_c_copies():
    # Random transposes, slices (any step, negative too) and byte orders of 1-5 axes, some
    # spanning several blocks: the walk's carries between axes, rows straddling blocks.
    rng = np.random.default_rng(38)
    for _ in range(60):
        ndim = int(rng.integers(1, 6))
        shape = tuple(int(s) for s in rng.integers(1, 9 if ndim > 2 else 400, ndim))
        base = values(shape, np.float64 if rng.random() < 0.3 else np.float32)
        if rng.random() < 0.3:
            base = base.astype(base.dtype.newbyteorder(">"))
        v = base.transpose(rng.permutation(ndim))
        index = []
        for n in v.shape:
            step = int(rng.choice([1, 2, 3, -1, -2]))
            start = int(rng.integers(0, max(1, n // 3)))
            index.append(slice(start, None, step) if step > 0 else slice(n - 1 - start, None, step))
        v = v[tuple(index)]
        c = np.ascontiguousarray(v).astype(v.dtype.newbyteorder("="))
        assert np.array_equal(d.encode(v, "f16", "rtz"), d.encode(c, "f16", "rtz")), (
            shape, v.strides)
        bits = c.view(np.uint32 if c.itemsize == 4 else np.uint64)
        assert np.array_equal(d.classify(v, "f32" if c.itemsize == 4 else "f64")["class"],
                              d.classify(bits, "f32" if c.itemsize == 4 else "f64")["class"])
