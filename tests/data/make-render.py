#!/usr/bin/env python3
"""Writes render-nearest.f16 and render-toward-zero.f16: one small "render" (a lit sphere
on a gradient, 96x64 RGBA, raw little-endian float16) rounded from the same f64 shading
to nearest even (what a GPU's f32 -> f16 store does) and toward zero (what D3D's f32tof16
conversion rule asks, section 3.2.2). ulp-diff's report shows where the two differ.
Standard library only; the output is the same on every machine."""
import math
import struct

W, H = 96, 64


def shade(x, y):
    # Background: a warm gradient; the sphere: diffuse plus a specular highlight (HDR > 1).
    u, v = (x + 0.5) / W, (y + 0.5) / H
    rgb = [0.15 + 0.5 * u, 0.12 + 0.3 * v, 0.35 - 0.2 * u]
    cx, cy, r = 0.55 * W, 0.48 * H, 0.36 * H
    dx, dy = (x + 0.5 - cx) / r, (y + 0.5 - cy) / r
    d2 = dx * dx + dy * dy
    if d2 < 1.0:
        nz = math.sqrt(1.0 - d2)
        lx, ly, lz = -0.5, -0.6, 0.62
        diffuse = max(0.0, dx * lx + dy * ly + nz * lz)
        spec = max(0.0, 2 * nz * (dx * lx + dy * ly + nz * lz) - lz) ** 40
        rgb = [0.8 * diffuse + 0.05 + 6.0 * spec,
               0.35 * diffuse + 0.03 + 6.0 * spec,
               0.2 * diffuse + 0.02 + 6.0 * spec]
    return rgb + [1.0]


def half_nearest(v):
    return struct.unpack('<H', struct.pack('<e', v))[0]


def half_toward_zero(v):
    bits = half_nearest(v)
    back = struct.unpack('<e', struct.pack('<H', bits))[0]
    if abs(back) > abs(v):  # rounded away from zero: one step back toward it
        bits -= 1
    return bits


near, zero = bytearray(), bytearray()
for y in range(H):
    for x in range(W):
        for c in shade(x, y):
            near += struct.pack('<H', half_nearest(c))
            zero += struct.pack('<H', half_toward_zero(c))
open('render-nearest.f16', 'wb').write(near)
open('render-toward-zero.f16', 'wb').write(zero)
