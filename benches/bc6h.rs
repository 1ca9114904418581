//! BC6H encoders side by side, in one run on the same images: ours (`--quality fast,
//! normal, slow`) and the ISPC-based encoder of `intel_tex_2` at its five settings
//! (unsigned only, as it is), each on one thread.
//!
//! `cargo bench --bench bc6h [-- SIZE]`: three generated HDR images of SIZE x SIZE texels
//! (default 256): `sky` (a smooth gradient from 0.05 to 4 with a sun disc of 2000),
//! `detail` (four octaves of value noise over 2^-6 to 2^8) and `edges` (discs and bars
//! of unrelated colours from 0.01 to 100 on a dark ground). Per encoder and image: the
//! RMSE of log2 of every channel (values below 2^-14, the smallest normal f16, count as
//! 2^-14), the PSNR of the image tone-mapped (x / (1 + x), then gamma 1/2.2, 8 bits), and
//! Mtexels/s on one core (the best of 3 runs). Then ours on signed copies of the images
//! (every other bar negated) through SF16, which the ISPC encoder cannot write.

use std::time::Instant;

// The ISPC kernels come with a C++ object (its ASTC part) that needs the C++ runtime's
// exception personality, which intel_tex_2 does not link itself.
#[link(name = "stdc++")]
unsafe extern "C" {}

use d3dfloat::format::bc6h::{Quality, decode_block, encode_block};
use half::f16;

struct Image {
    name: &'static str,
    size: usize,
    /// RGB per texel, row by row.
    rgb: Vec<[f32; 3]>,
}

fn hash(x: u32, y: u32, seed: u32) -> f32 {
    let mut h =
        x.wrapping_mul(0x27d4_eb2d) ^ y.wrapping_mul(0x1656_67b1) ^ seed.wrapping_mul(0x9e37_79b9);
    h ^= h >> 15;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    (h & 0xffff) as f32 / 65535.0
}

/// Smooth value noise at one scale: bilinear between hashed lattice points.
fn value_noise(x: f32, y: f32, seed: u32) -> f32 {
    let (xi, yi) = (x.floor(), y.floor());
    let (fx, fy) = (x - xi, y - yi);
    let (xi, yi) = (xi as u32, yi as u32);
    let s = |a: f32| a * a * (3.0 - 2.0 * a);
    let (sx, sy) = (s(fx), s(fy));
    let top = hash(xi, yi, seed) * (1.0 - sx) + hash(xi + 1, yi, seed) * sx;
    let bottom = hash(xi, yi + 1, seed) * (1.0 - sx) + hash(xi + 1, yi + 1, seed) * sx;
    top * (1.0 - sy) + bottom * sy
}

fn images(size: usize) -> Vec<Image> {
    let n = size as f32;
    let sky = (0..size * size)
        .map(|i| {
            let (x, y) = ((i % size) as f32 / n, (i / size) as f32 / n);
            let base = 0.05 + 4.0 * (1.0 - y).powi(2);
            let sun = ((x - 0.7).powi(2) + (y - 0.25).powi(2)).sqrt();
            let glow = 2000.0 * (-sun * sun * 400.0).exp();
            [base * 0.6 + glow, base * 0.8 + glow, base + glow * 0.9]
        })
        .collect();
    let detail = (0..size * size)
        .map(|i| {
            let (x, y) = ((i % size) as f32, (i / size) as f32);
            std::array::from_fn(|c| {
                let mut v = 0.0;
                for octave in 0..4 {
                    let scale = 32.0 / (1 << octave) as f32;
                    v += value_noise(x / scale, y / scale, c as u32 * 7 + octave)
                        / (1 << octave) as f32;
                }
                2f32.powf(v / 1.875 * 14.0 - 6.0)
            })
        })
        .collect();
    let edges = (0..size * size)
        .map(|i| {
            let (x, y) = ((i % size) as f32, (i / size) as f32);
            let cell = ((x / 24.0) as u32, (y / 24.0) as u32);
            let colour: [f32; 3] =
                std::array::from_fn(|c| 0.01 * 10_000f32.powf(hash(cell.0, cell.1, 11 + c as u32)));
            let (cx, cy) = ((x % 24.0) - 12.0, (y % 24.0) - 12.0);
            if cx * cx + cy * cy < 81.0 || (x as u32 / 5).is_multiple_of(7) {
                colour
            } else {
                [0.02, 0.02, 0.03]
            }
        })
        .collect();
    vec![
        Image {
            name: "sky",
            size,
            rgb: sky,
        },
        Image {
            name: "detail",
            size,
            rgb: detail,
        },
        Image {
            name: "edges",
            size,
            rgb: edges,
        },
    ]
}

/// Every other band of 16 rows negated: data only SF16 can hold.
fn signed_copy(img: &Image) -> Image {
    Image {
        name: img.name,
        size: img.size,
        rgb: img
            .rgb
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if (i / img.size / 16) % 2 == 1 {
                    t.map(|v| -v)
                } else {
                    *t
                }
            })
            .collect(),
    }
}

/// The image's 4x4 blocks, each as 16 RGB f16 patterns.
fn blocks_of(img: &Image) -> Vec<[[u16; 3]; 16]> {
    let s = img.size;
    let mut out = Vec::new();
    for by in 0..s / 4 {
        for bx in 0..s / 4 {
            out.push(std::array::from_fn(|i| {
                let t = img.rgb[(4 * by + i / 4) * s + 4 * bx + i % 4];
                t.map(|v| f16::from_f32(v).to_bits())
            }));
        }
    }
    out
}

/// Decoded blocks back into RGB f32 texels, row by row.
fn unblock(img: &Image, blocks: &[u8], signed: bool) -> Vec<[f32; 3]> {
    let s = img.size;
    let mut out = vec![[0f32; 3]; s * s];
    for (n, b) in blocks.chunks_exact(16).enumerate() {
        let (bx, by) = (n % (s / 4), n / (s / 4));
        let texels = decode_block(b.try_into().unwrap(), signed);
        for (i, t) in texels.iter().enumerate() {
            out[(4 * by + i / 4) * s + 4 * bx + i % 4] = t.map(|h| f16::from_bits(h).to_f32());
        }
    }
    out
}

/// (RMSE of log2, PSNR of the tone-mapped image): magnitudes, so signed data is measured
/// the same way (a sign error counts as the whole distance through 0 in the PSNR).
fn errors(original: &[[f32; 3]], decoded: &[[f32; 3]]) -> (f64, f64) {
    let floor = 2f32.powi(-14);
    let log = |v: f32| v.abs().max(floor).log2() as f64;
    let tone = |v: f32| {
        let m = v.abs();
        let t = (m / (1.0 + m)).powf(1.0 / 2.2) * 255.0;
        (if v < 0.0 { -t } else { t }) as f64
    };
    let (mut log_sq, mut tone_sq, mut n) = (0.0, 0.0, 0.0);
    for (a, b) in original.iter().zip(decoded) {
        for c in 0..3 {
            // f16 first: both encoders start from the same f16 image.
            let a = f16::from_f32(a[c]).to_f32();
            log_sq += (log(a) - log(b[c])).powi(2);
            tone_sq += (tone(a) - tone(b[c])).powi(2);
            n += 1.0;
        }
    }
    let psnr = 10.0 * (255.0f64 * 255.0 / (tone_sq / n)).log10();
    ((log_sq / n).sqrt(), psnr)
}

fn timed(mut f: impl FnMut() -> Vec<u8>) -> (Vec<u8>, f64) {
    let mut best = f64::INFINITY;
    let mut out = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        out = f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    (out, best)
}

fn row(encoder: &str, img: &Image, blocks: &[u8], seconds: f64, signed: bool) {
    let (log_rmse, psnr) = errors(&img.rgb, &unblock(img, blocks, signed));
    let mtexels = (img.size * img.size) as f64 / seconds / 1e6;
    println!(
        "| {:<7} | {:<18} | {:>10.4} | {:>8.2} | {:>10.3} |",
        img.name, encoder, log_rmse, psnr, mtexels
    );
}

fn main() {
    let size: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(256);
    assert!(
        size.is_multiple_of(4) && size > 0,
        "SIZE must be a multiple of 4"
    );
    println!("| image   | encoder            | log2 RMSE  | PSNR dB  | Mtexels/s  |");
    println!("|---------|--------------------|-----------:|---------:|-----------:|");
    let ispc = [
        ("ispc veryfast", intel_tex_2::bc6h::very_fast_settings()),
        ("ispc fast", intel_tex_2::bc6h::fast_settings()),
        ("ispc basic", intel_tex_2::bc6h::basic_settings()),
        ("ispc slow", intel_tex_2::bc6h::slow_settings()),
        ("ispc veryslow", intel_tex_2::bc6h::very_slow_settings()),
    ];
    let ours = [Quality::Fast, Quality::Normal, Quality::Slow];
    let all = images(size);
    for img in &all {
        let rgba: Vec<u8> = img
            .rgb
            .iter()
            .flat_map(|t| [t[0], t[1], t[2], 1.0])
            .flat_map(|v| f16::from_f32(v).to_bits().to_le_bytes())
            .collect();
        let surface = intel_tex_2::RgbaSurface {
            data: &rgba,
            width: size as u32,
            height: size as u32,
            stride: size as u32 * 8,
        };
        for (name, settings) in &ispc {
            let (out, s) = timed(|| intel_tex_2::bc6h::compress_blocks(settings, &surface));
            row(name, img, &out, s, false);
        }
        let blocks = blocks_of(img);
        for q in ours {
            let (out, s) = timed(|| {
                blocks
                    .iter()
                    .flat_map(|b| encode_block(b, false, q))
                    .collect()
            });
            row(&format!("ours {} uf16", q.name()), img, &out, s, false);
        }
    }
    for img in all.iter().map(signed_copy) {
        let blocks = blocks_of(&img);
        for q in ours {
            let (out, s) = timed(|| {
                blocks
                    .iter()
                    .flat_map(|b| encode_block(b, true, q))
                    .collect()
            });
            row(&format!("ours {} sf16", q.name()), &img, &out, s, true);
        }
    }
}
