"""read_image and write_dds against `d3dfloat convert` on the same files."""

import numpy as np
import pytest

import d3dfloat as d

RNG = np.random.default_rng(5)


def image(h=5, w=7, c=4):
    return (RNG.standard_normal((h, w, c)) * 4).astype(np.float32)


@pytest.mark.parametrize("fmt", ["f32", "f16", "r11g11b10", "rgb9e5"])
@pytest.mark.parametrize("mode", ["rne", "d3d"])
def test_write_dds_writes_what_convert_writes(cli, tmp_path, fmt, mode):
    pixels = image()
    src = tmp_path / "src.dds"
    d.write_dds(src, pixels, "f32")
    assert np.array_equal(d.read_image(src), pixels)
    ours = tmp_path / "ours.dds"
    theirs = tmp_path / "theirs.dds"
    d.write_dds(ours, pixels, fmt, mode)
    cli("convert", str(src), "--to", fmt, "--rounding", mode, "-o", str(theirs))
    assert ours.read_bytes() == theirs.read_bytes()


def test_read_image_of_packed_and_half_dds(tmp_path):
    pixels = image(3, 4, 3)
    path = tmp_path / "p.dds"
    d.write_dds(path, pixels, "r11g11b10", saturate=True)
    want = d.unpack(d.pack(pixels, "r11g11b10", saturate=True), "r11g11b10")
    assert np.array_equal(d.read_image(path), want)
    rgba = image(3, 4, 4)
    d.write_dds(path, rgba, "f16")
    half = d.read_image(path)
    assert half.dtype == np.float16 and half.shape == (3, 4, 4)
    assert np.array_equal(half.view(np.uint16), d.encode(rgba, "f16"))
    # No DXGI format holds three f16 channels: refused, as `convert` refuses it.
    with pytest.raises(ValueError, match="no DXGI format holds 3 channel"):
        d.write_dds(path, pixels, "f16")


def write_hdr(path, rgbe):
    """A flat (not run-length encoded) Radiance file of RGBE bytes (h, w, 4)."""
    h, w, _ = rgbe.shape
    head = f"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y {h} +X {w}\n".encode()
    path.write_bytes(head + rgbe.astype(np.uint8).tobytes())


def test_read_image_of_hdr_as_convert(cli, tmp_path):
    rgbe = RNG.integers(0, 256, (3, 5, 4))
    rgbe[..., 3] = RNG.integers(120, 136, (3, 5))
    path = tmp_path / "sky.hdr"
    write_hdr(path, rgbe)
    raw = tmp_path / "sky.f32"
    cli("convert", str(path), "--to", "f32", "-o", str(raw))
    want = np.fromfile(raw, np.float32).reshape(3, 5, 4)
    assert np.array_equal(d.read_image(path), want)


def test_file_errors_name_the_file(cli, tmp_path):
    bad = tmp_path / "bad.dds"
    bad.write_bytes(b"not a dds at all")
    with pytest.raises(ValueError, match=r"bad\.dds: not a readable DDS file"):
        d.read_image(bad)
    exr = tmp_path / "bad.exr"
    exr.write_bytes(b"\x76\x2f\x31\x01garbage")
    with pytest.raises(ValueError, match=r"bad\.exr: "):
        d.read_image(exr)
    with pytest.raises(FileNotFoundError, match="missing.hdr"):
        d.read_image(tmp_path / "missing.hdr")
    with pytest.raises(ValueError, match=r"\.png"):
        d.read_image(tmp_path / "x.png")


def test_hdr_pixel_limit_is_converts(cli, tmp_path):
    rgbe = np.full((4, 4, 4), 128)
    path = tmp_path / "big.hdr"
    write_hdr(path, rgbe)
    with pytest.raises(ValueError, match=r"big\.hdr: .*more than the limit of 15"):
        d.read_image(path, max_pixels=15)
    assert d.read_image(path, max_pixels=16).shape == (4, 4, 4)
    # The same message as `convert --max-pixels`.
    out = cli("convert", str(path), "--to", "f32", "--max-pixels", "15", "-o", str(tmp_path / "o"), check=False)
    assert "more than the limit of 15" in out.stderr


def test_write_dds_refuses_what_dds_cannot_hold(tmp_path):
    with pytest.raises(ValueError, match="3 or 4"):
        d.write_dds(tmp_path / "x.dds", image(c=2), "r11g11b10")
    with pytest.raises(ValueError, match="shape"):
        d.write_dds(tmp_path / "x.dds", np.zeros(5, np.float32), "f16")
    with pytest.raises(ValueError, match="f11"):
        d.write_dds(tmp_path / "x.dds", image(), "f11")


# write_image: the container by the name's extension, the bytes `convert -o` writes.
WRITE_CASES = [
    ("dds", "f16", 4),
    ("dds", "rgb9e5", 3),
    ("ktx2", "f32", 4),
    ("ktx2", "f16", 2),
    ("ktx2", "f16", 3),
    ("ktx2", "r11g11b10", 3),
    ("ktx2", "bc6h_uf16", 4),
    ("ktx2", "bc6h_sf16", 3),
    ("dds", "bc6h_sf16", 4),
    ("exr", "f16", 4),
    ("exr", "f32", 3),
    ("exr", "f16", 1),
    ("pfm", "f32", 3),
    ("pfm", "f32", 1),
]


@pytest.mark.parametrize("ext,fmt,channels", WRITE_CASES)
def test_write_image_writes_what_convert_writes(cli, tmp_path, ext, fmt, channels):
    pixels = image(9, 6, channels)
    src = tmp_path / "src.dds"
    d.write_dds(src, pixels, "f32")
    ours = tmp_path / f"ours.{ext}"
    theirs = tmp_path / f"theirs.{ext}"
    d.write_image(ours, pixels, fmt, quality="fast")
    cli("convert", str(src), "--to", fmt, "--quality", "fast", "-o", str(theirs))
    assert ours.read_bytes() == theirs.read_bytes()


def test_read_image_of_ktx2_and_pfm_gives_the_values_written(tmp_path):
    rgba = image(5, 3, 4)
    d.write_image(tmp_path / "a.ktx2", rgba, "f16")
    half = d.read_image(tmp_path / "a.ktx2")
    assert half.dtype == np.float16 and half.shape == (5, 3, 4)
    assert np.array_equal(half.view(np.uint16), d.encode(rgba, "f16"))
    d.write_image(tmp_path / "a.pfm", rgba[..., :3])
    assert np.array_equal(d.read_image(tmp_path / "a.pfm"), rgba[..., :3])
    grey = rgba[..., 0]
    d.write_image(tmp_path / "g.pfm", grey)
    assert np.array_equal(d.read_image(tmp_path / "g.pfm"), grey[..., None])
    words = d.pack(rgba, "rgb9e5")
    d.write_image(tmp_path / "e.ktx2", rgba, "rgb9e5")
    assert np.array_equal(d.read_image(tmp_path / "e.ktx2"), d.unpack(words, "rgb9e5"))


def test_pfm_as_numpy_reads_it(tmp_path):
    # The format by hand: a text header, then little-endian floats (a negative scale),
    # rows from the bottom of the image up.
    rgb = image(4, 5, 3)
    path = tmp_path / "n.pfm"
    d.write_image(path, rgb)
    raw = path.read_bytes()
    kind, size, scale, data = raw.split(b"\n", 3)
    assert kind == b"PF" and size == b"5 4" and float(scale) < 0
    floats = np.frombuffer(data, "<f4").reshape(4, 5, 3)
    assert np.array_equal(floats[::-1], rgb)


def test_exr_as_openexr_reads_it(tmp_path):
    OpenEXR = pytest.importorskip("OpenEXR")
    rgba = image(6, 4, 4)
    path = tmp_path / "o.exr"
    d.write_image(path, rgba, "f16", compression="piz")
    with OpenEXR.File(str(path), separate_channels=True) as f:
        channels = f.channels()
        got = np.stack([channels[c].pixels for c in "RGBA"], axis=-1)
    assert got.dtype == np.float16
    assert np.array_equal(got.view(np.uint16), d.encode(rgba, "f16"))


def test_bc6h_written_decodes_as_convert_decodes(cli, tmp_path):
    rgb = np.abs(image(8, 8, 3))
    d.write_image(tmp_path / "b.ktx2", rgb, "bc6h_uf16", quality="fast")
    cli("convert", str(tmp_path / "b.ktx2"), "--to", "f16", "-o", str(tmp_path / "b.dds"))
    ours = d.read_image(tmp_path / "b.ktx2")
    assert ours.shape == (8, 8, 4) and ours.dtype == np.float16
    assert np.array_equal(ours.view(np.uint16), d.read_image(tmp_path / "b.dds").view(np.uint16))


@pytest.mark.parametrize("name", ["x.png", "x.jpg", "x.hdr", "x", "x.f16", "x.tif"])
def test_write_image_refuses_a_name_it_does_not_write(tmp_path, name):
    path = tmp_path / name
    with pytest.raises(ValueError, match="write_image writes .dds, .ktx2, .exr and .pfm"):
        d.write_image(path, image(), "f16")
    assert not path.exists()


@pytest.mark.parametrize(
    "name,fmt,channels,says",
    [
        ("x.pfm", "f32", 4, "1 \\(grey\\) or 3 \\(RGB\\)"),
        ("x.pfm", "f16", 3, "a .pfm holds f32 values only"),
        ("x.exr", "r11g11b10", 3, "an .exr holds f16 or f32"),
        ("x.exr", "f16", 2, "1 \\(Y\\), 3 \\(RGB\\) or 4 \\(RGBA\\)"),
        ("x.exr", "bc6h_uf16", 3, "BC6H blocks"),
        ("x.ktx2", "bc6h_uf16", 2, "BC6H holds R, G and B"),
    ],
)
def test_write_image_refuses_what_the_container_cannot_hold(tmp_path, name, fmt, channels, says):
    path = tmp_path / name
    with pytest.raises(ValueError, match=says):
        d.write_image(path, image(c=channels), fmt)
    assert not path.exists()


@pytest.mark.parametrize("name", ["x.exr", "x.ktx2", "x.pfm", "x.png", "x.HDR"])
def test_write_dds_refuses_a_name_promising_another_file(tmp_path, name):
    path = tmp_path / name
    with pytest.raises(ValueError, match="write_dds writes a DDS texture"):
        d.write_dds(path, image(), "f16")
    assert not path.exists()
