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
