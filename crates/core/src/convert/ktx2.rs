//! KTX2 textures (Khronos KTX 2.0 specification), read and written by hand: the header, the
//! level index, a Basic data format descriptor (Khronos Data Format specification 1.3 §5)
//! and key/value data. The float VkFormats convert handles and BC6H's two block formats,
//! without supercompression; every mip level, array layer and cube face.
//!
//! Placement follows the rules KTX-Software's `ktx validate` checks: the descriptor right
//! after the level index (aligned to 4), the key/value data right after it, each level
//! aligned to lcm(texel bytes, 4), the smallest level first, each level's offset exactly
//! where the previous one ends (rounded up to the alignment). The reader holds a file to
//! the same placement, so a header that lies (sizes, offsets, counts, descriptor lengths)
//! is an error before anything is allocated for it, and a stream is read no further than
//! the index describes.

use std::io::Read;

use ddsfile::{AlphaMode, D3D10ResourceDimension};

use super::ConvertError;
use super::blocks;
use super::dds::{Shape, Texels};
use super::layout::{self, Order};
use crate::format::bc6h::{BLOCK_BYTES, Bc6h};
use crate::format::{F16, F32, Format};
use crate::io::{MemoryReadError, read_at_most, read_full};

/// The twelve bytes every KTX2 file starts with (KTX 2.0 §3.1): «KTX 20», CR LF, EOF, LF.
pub const IDENTIFIER: [u8; 12] = [
    0xAB, 0x4B, 0x54, 0x58, 0x20, 0x32, 0x30, 0xBB, 0x0D, 0x0A, 0x1A, 0x0A,
];

/// Bytes of the identifier, the header and the index (KTX 2.0 §3).
const HEADER_BYTES: usize = 80;
/// Bytes of one level index entry: byteOffset, byteLength, uncompressedByteLength.
const LEVEL_ENTRY_BYTES: usize = 24;
/// The largest descriptor read: a Basic descriptor of 16 samples is 280 bytes.
const DFD_LIMIT: u64 = 64 << 10;
/// The most key/value data read: real files carry a writer's name and an orientation.
const KVD_LIMIT: u64 = 1 << 20;

/// The VkFormats convert reads and writes: value, name, texels and the header's typeSize
/// (KTX 2.0 §3.3: the size of the data type, 4 for a PACK32 format).
const VK_TEXELS: [(u32, &str, Format, usize, u32); 10] = [
    (76, "R16_SFLOAT", Format::Float(F16), 1, 2),
    (83, "R16G16_SFLOAT", Format::Float(F16), 2, 2),
    (90, "R16G16B16_SFLOAT", Format::Float(F16), 3, 2),
    (97, "R16G16B16A16_SFLOAT", Format::Float(F16), 4, 2),
    (100, "R32_SFLOAT", Format::Float(F32), 1, 4),
    (103, "R32G32_SFLOAT", Format::Float(F32), 2, 4),
    (106, "R32G32B32_SFLOAT", Format::Float(F32), 3, 4),
    (109, "R32G32B32A32_SFLOAT", Format::Float(F32), 4, 4),
    // The same bits as DXGI's R11G11B10_FLOAT and R9G9B9E5_SHAREDEXP: Vulkan names the
    // channels from the most significant bits down.
    (122, "B10G11R11_UFLOAT_PACK32", Format::R11G11B10, 1, 4),
    (123, "E5B9G9R9_UFLOAT_PACK32", Format::Rgb9e5, 1, 4),
];

/// The BC6H VkFormats (Vulkan 1.0's VK_FORMAT_BC6H_*_BLOCK): value, name and format. A
/// block-compressed format has typeSize 1 (KTX 2.0 §3.3).
const VK_BC6H: [(u32, &str, Bc6h); 2] = [
    (143, "BC6H_UFLOAT_BLOCK", Bc6h::Unsigned),
    (144, "BC6H_SFLOAT_BLOCK", Bc6h::Signed),
];

/// The VkFormat names convert reads and writes, for help and messages.
pub fn supported_names() -> String {
    let mut names = VK_TEXELS.map(|(_, n, ..)| n).to_vec();
    names.extend(VK_BC6H.map(|(_, n, _)| n));
    names.join(", ")
}

/// The VkFormat value and name of a BC6H format.
pub fn vk_of_bc6h(b: Bc6h) -> (u32, &'static str) {
    let &(v, n, _) = VK_BC6H.iter().find(|e| e.2 == b).expect("listed");
    (v, n)
}

/// What a KTX2 file's levels hold: texels one by one, or BC6H blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Texels(Texels),
    Bc6h(Bc6h),
}

impl Kind {
    /// The VkFormat value, name and typeSize.
    fn vk(self) -> Option<(u32, &'static str, u32)> {
        match self {
            Kind::Texels(t) => vk_of(t).map(|(v, n)| (v, n, entry_of(v).expect("listed").2)),
            Kind::Bc6h(b) => Some((vk_of_bc6h(b).0, vk_of_bc6h(b).1, 1)),
        }
    }

    fn of_vk(vk: u32) -> Option<(&'static str, Kind, u32)> {
        entry_of(vk)
            .map(|(n, t, ts)| (n, Kind::Texels(t), ts))
            .or_else(|| {
                VK_BC6H
                    .iter()
                    .find(|e| e.0 == vk)
                    .map(|&(_, n, b)| (n, Kind::Bc6h(b), 1))
            })
    }

    /// What a reader gets: the texels, or what the blocks decode to.
    fn texels(self) -> Texels {
        match self {
            Kind::Texels(t) => t,
            Kind::Bc6h(_) => blocks::TEXELS,
        }
    }

    /// Bytes of one texel block: a texel, or a 4x4 block.
    fn block_bytes(self) -> usize {
        match self {
            Kind::Texels(t) => t.bytes(),
            Kind::Bc6h(_) => BLOCK_BYTES,
        }
    }

    /// Bytes of one image (one layer) at `level`, or `None` where that overflows.
    fn image_bytes(self, shape: &Shape, level: u32) -> Option<u64> {
        match self {
            Kind::Texels(t) => layout::image_bytes(shape, t, level),
            Kind::Bc6h(_) => layout::block_image_bytes(shape, level),
        }
    }

    /// Bytes of the whole texture, or `None` where that overflows.
    fn total_bytes(self, shape: &Shape) -> Option<u64> {
        match self {
            Kind::Texels(t) => shape.texel_count()?.checked_mul(t.bytes() as u64),
            Kind::Bc6h(_) => blocks::checked_size(shape),
        }
    }
}

/// The VkFormat value and name that hold `t`, or `None`.
pub fn vk_of(t: Texels) -> Option<(u32, &'static str)> {
    VK_TEXELS
        .iter()
        .find(|(_, _, f, c, _)| *f == t.format && *c == t.channels)
        .map(|&(v, n, ..)| (v, n))
}

fn entry_of(vk: u32) -> Option<(&'static str, Texels, u32)> {
    VK_TEXELS
        .iter()
        .find(|e| e.0 == vk)
        .map(|&(_, n, format, channels, ts)| (n, Texels { format, channels }, ts))
}

fn container(msg: String) -> ConvertError {
    ConvertError::Container(msg)
}

/// Rounds `n` up to a multiple of `to`.
fn align(n: u64, to: u64) -> u64 {
    n.div_ceil(to) * to
}

/// The alignment of each level's data: lcm(texel block bytes, 4) (KTX 2.0 §3.9.7).
fn level_alignment(kind: Kind) -> u64 {
    let b = kind.block_bytes() as u64;
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    b * 4 / gcd(b, 4)
}

// Khronos Data Format specification 1.3 values (khr_df.h).
const MODEL_RGBSDA: u32 = 1;
// KHR_DF_MODEL_BC6H: 133 (131 is BC4; a file with 131 describes BC4 blocks).
const MODEL_BC6H: u32 = 133;
const PRIMARIES_BT709: u32 = 1;
const TRANSFER_LINEAR: u32 = 1;
const VERSION_1_3: u32 = 2;
const CHANNEL_ALPHA: u32 = 15;
const QUALIFIER_EXPONENT: u32 = 0x20;
const QUALIFIER_SIGNED: u32 = 0x40;
const QUALIFIER_FLOAT: u32 = 0x80;

/// One sample of a Basic descriptor: bit offset, bit length, channel id with its
/// qualifiers, lower and upper values.
type Sample = (u32, u32, u32, u32, u32);

/// The samples that describe `t`, as KTX-Software's `vk2dfd` makes them: one per float
/// channel; for B10G11R11 one per packed channel; for E5B9G9R9 a mantissa and the shared
/// exponent per channel (Khronos Data Format specification 1.3 §5.6, §15.3).
fn samples(t: Texels) -> Vec<Sample> {
    let one = 1f32.to_bits();
    match t.format {
        Format::Float(f) => {
            let bits = f.width();
            (0..t.channels as u32)
                .map(|i| {
                    let id = if i == 3 { CHANNEL_ALPHA } else { i };
                    let q = QUALIFIER_FLOAT | QUALIFIER_SIGNED;
                    (bits * i, bits, id | q, (-1f32).to_bits(), one)
                })
                .collect()
        }
        Format::R11G11B10 => [(0, 11, 0), (11, 11, 1), (22, 10, 2)]
            .map(|(off, len, id)| (off, len, id | QUALIFIER_FLOAT, 0, one))
            .to_vec(),
        Format::Rgb9e5 => (0..3)
            .flat_map(|c| {
                [
                    (9 * c, 9, c, 0, 8448),
                    (27, 5, c | QUALIFIER_EXPONENT, 15, 31),
                ]
            })
            .collect(),
    }
}

/// The data format descriptor of `kind`: its total size, then one Basic descriptor
/// block. BC6H's is KTX-Software's `createDFDCompressed` one: model BC6H, 4x4x1x1 texel
/// blocks (stored minus one), 16 bytes in plane 0, one 128-bit sample of channel 0
/// (colour), FLOAT and for SFLOAT SIGNED, from 0.0 or -1.0 to 1.0 (Khronos Data Format
/// specification 1.3 §5.6.1, §17.4).
fn descriptor(kind: Kind) -> Vec<u8> {
    let (model, dims, samples) = match kind {
        Kind::Texels(t) => (MODEL_RGBSDA, 0, samples(t)),
        Kind::Bc6h(b) => {
            let (signed, lower) = if b.signed() {
                (QUALIFIER_SIGNED, (-1f32).to_bits())
            } else {
                (0, 0f32.to_bits())
            };
            let sample = (0, 128, QUALIFIER_FLOAT | signed, lower, 1f32.to_bits());
            (MODEL_BC6H, 3 | 3 << 8, vec![sample])
        }
    };
    let block = 24 + 16 * samples.len() as u32;
    let mut words = vec![
        4 + block,
        0, // vendor Khronos, descriptor type Basic
        VERSION_1_3 | block << 16,
        model | PRIMARIES_BT709 << 8 | TRANSFER_LINEAR << 16,
        dims,
        kind.block_bytes() as u32,
        0,
    ];
    for (offset, len, id, lower, upper) in samples {
        words.extend([offset | (len - 1) << 16 | id << 24, 0, lower, upper]);
    }
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// What a KTX2 file's header says, read or to be written.
struct Header {
    vk_format: u32,
    type_size: u32,
    width: u32,
    height: u32,
    depth: u32,
    layer_count: u32,
    face_count: u32,
    level_count: u32,
    supercompression: u32,
    dfd: (u32, u32),
    kvd: (u32, u32),
    sgd: (u64, u64),
}

impl Header {
    fn bytes(&self) -> Vec<u8> {
        let mut out = IDENTIFIER.to_vec();
        for w in [
            self.vk_format,
            self.type_size,
            self.width,
            self.height,
            self.depth,
            self.layer_count,
            self.face_count,
            self.level_count,
            self.supercompression,
            self.dfd.0,
            self.dfd.1,
            self.kvd.0,
            self.kvd.1,
        ] {
            out.extend(w.to_le_bytes());
        }
        out.extend(self.sgd.0.to_le_bytes());
        out.extend(self.sgd.1.to_le_bytes());
        out
    }

    fn parse(b: &[u8; HEADER_BYTES]) -> Header {
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        Header {
            vk_format: u32_at(12),
            type_size: u32_at(16),
            width: u32_at(20),
            height: u32_at(24),
            depth: u32_at(28),
            layer_count: u32_at(32),
            face_count: u32_at(36),
            level_count: u32_at(40),
            supercompression: u32_at(44),
            dfd: (u32_at(48), u32_at(52)),
            kvd: (u32_at(56), u32_at(60)),
            sgd: (u64_at(64), u64_at(72)),
        }
    }
}

/// The key/value data convert writes: the writer's name (`KTXwriter`, which `ktx
/// validate` asks for), each entry padded to 4 bytes (KTX 2.0 §3.11).
fn key_values() -> Vec<u8> {
    let mut out = Vec::new();
    let entries = [("KTXwriter", concat!("d3dfloat ", env!("CARGO_PKG_VERSION")))];
    for (key, value) in entries {
        let len = key.len() + 1 + value.len() + 1;
        out.extend((len as u32).to_le_bytes());
        out.extend(key.as_bytes());
        out.push(0);
        out.extend(value.as_bytes());
        out.push(0);
        out.resize(align(out.len() as u64, 4) as usize, 0);
    }
    out
}

/// A KTX2 file to be written: everything before the first level, and for each level in
/// file order (the smallest first) the zero bytes that pad it to its alignment.
pub struct Layout {
    /// Identifier, header, level index, descriptor and key/value data.
    pub head: Vec<u8>,
    /// `(level, padding)`, the smallest level first.
    pub levels: Vec<(u32, usize)>,
    /// Bytes of the whole file.
    pub file_bytes: u64,
}

/// The layout of a KTX2 file holding a texture of `shape` with `texels`.
pub fn build(shape: &Shape, texels: Texels) -> Result<Layout, ConvertError> {
    build_kind(shape, Kind::Texels(texels))
}

/// The layout of a KTX2 file holding a texture of `shape` in BC6H blocks.
pub fn build_bc6h(shape: &Shape, b: Bc6h) -> Result<Layout, ConvertError> {
    build_kind(shape, Kind::Bc6h(b))
}

fn build_kind(shape: &Shape, kind: Kind) -> Result<Layout, ConvertError> {
    let texels = kind.texels();
    let (vk_format, name, type_size) = kind.vk().ok_or_else(|| {
        container(format!(
            "no VkFormat holds {} channel(s) of {} (KTX2 output takes {})",
            texels.channels,
            texels.format.name(),
            supported_names()
        ))
    })?;
    let faces = if shape.cubemap { 6 } else { 1 };
    if shape.depth > 1 && shape.layers > 1 {
        return Err(container(format!(
            "a KTX2 file of {name} holds no array of 3D textures ({} layers of {}x{}x{})",
            shape.layers, shape.width, shape.height, shape.depth
        )));
    }
    let level_count = shape.mips;
    let dfd = descriptor(kind);
    let kvd = key_values();
    let dfd_offset = align(
        (HEADER_BYTES + LEVEL_ENTRY_BYTES * level_count as usize) as u64,
        4,
    );
    let kvd_offset = dfd_offset + dfd.len() as u64;
    let alignment = level_alignment(kind);
    let mut at = kvd_offset + kvd.len() as u64;
    let mut index = vec![(0u64, 0u64); level_count as usize];
    let mut levels = Vec::with_capacity(level_count as usize);
    for level in (0..level_count).rev() {
        let start = align(at, alignment);
        let len = kind
            .image_bytes(shape, level)
            .and_then(|b| b.checked_mul(shape.layers as u64))
            .ok_or_else(|| container(format!("a {name} texture too large for KTX2")))?;
        index[level as usize] = (start, len);
        levels.push((level, (start - at) as usize));
        at = start
            .checked_add(len)
            .ok_or_else(|| container(format!("a {name} texture too large for KTX2")))?;
    }
    let is_1d = shape.dimension == D3D10ResourceDimension::Texture1D;
    let header = Header {
        vk_format,
        type_size,
        width: shape.width,
        height: if is_1d { 0 } else { shape.height },
        depth: if shape.dimension == D3D10ResourceDimension::Texture3D {
            shape.depth
        } else {
            0
        },
        layer_count: match shape.layers / faces {
            1 => 0,
            n => n,
        },
        face_count: faces,
        level_count,
        supercompression: 0,
        dfd: (dfd_offset as u32, dfd.len() as u32),
        kvd: (kvd_offset as u32, kvd.len() as u32),
        sgd: (0, 0),
    };
    let mut head = header.bytes();
    for (offset, len) in index {
        head.extend(offset.to_le_bytes());
        head.extend(len.to_le_bytes());
        head.extend(len.to_le_bytes());
    }
    head.resize(dfd_offset as usize, 0);
    head.extend(dfd);
    head.extend(kvd);
    Ok(Layout {
        head,
        levels,
        file_bytes: at,
    })
}

/// A KTX2 texture read into memory: its shape and texels, and the data as the file stores
/// it (levels from the smallest, each with all its layers: [`Order::SmallestLevelFirst`]),
/// without the padding between levels.
pub struct Texture {
    /// Size and arrangement, from the header.
    pub shape: Shape,
    /// What one texel is, from the header's VkFormat (for BC6H, what its blocks decode
    /// to).
    pub texels: Texels,
    /// The texel data, exactly the size the header describes. For BC6H, the decoded
    /// texels ([`read`]) or the blocks as stored ([`read_stored`]).
    pub data: Vec<u8>,
    /// The BC6H format the file held; `None` for texels stored as they are.
    pub bc6h: Option<Bc6h>,
}

impl Texture {
    /// The order of [`Texture::data`].
    pub const ORDER: Order = Order::SmallestLevelFirst;
}

fn reading_error(e: MemoryReadError, what: &str) -> ConvertError {
    match e {
        MemoryReadError::Io(source) => ConvertError::io(format!("reading {what}"), source),
        MemoryReadError::OutOfMemory(n) => {
            container(format!("not enough memory for {what} ({n} bytes)"))
        }
    }
}

/// Reads exactly `n` bytes into a new vector, growing it as they arrive: a header that
/// declares more than the stream holds costs only what arrived.
fn read_exactly(r: &mut dyn Read, n: u64, what: &str) -> Result<Vec<u8>, ConvertError> {
    let mut out = Vec::new();
    read_at_most(&mut r.take(n), &mut out, n, None).map_err(|e| reading_error(e, what))?;
    if (out.len() as u64) < n {
        return Err(container(format!(
            "KTX2 file ends inside {what} ({} of {n} bytes)",
            out.len()
        )));
    }
    Ok(out)
}

/// The shape and texels a header declares, once its counts are consistent.
fn shape_of(h: &Header) -> Result<(Shape, Kind, &'static str), ConvertError> {
    if h.supercompression != 0 {
        return Err(container(format!(
            "KTX2 supercompression scheme {} (BasisLZ 1, Zstandard 2, ZLIB 3) is not read: \
             convert reads uncompressed KTX2 files",
            h.supercompression
        )));
    }
    let (name, kind, type_size) = Kind::of_vk(h.vk_format).ok_or_else(|| {
        container(format!(
            "KTX2 VkFormat {} is not one convert reads ({})",
            h.vk_format,
            supported_names()
        ))
    })?;
    if h.type_size != type_size {
        return Err(container(format!(
            "KTX2 header gives typeSize {} for {name}, which has {type_size}",
            h.type_size
        )));
    }
    if h.face_count != 1 && h.face_count != 6 {
        return Err(container(format!(
            "KTX2 header declares {} faces (1, or 6 for a cube map)",
            h.face_count
        )));
    }
    let cubemap = h.face_count == 6;
    if cubemap && (h.width != h.height || h.depth != 0) {
        return Err(container(format!(
            "KTX2 header declares a cube map of {}x{}x{} faces (cube faces are square and 2D)",
            h.width, h.height, h.depth
        )));
    }
    let layers = h
        .layer_count
        .max(1)
        .checked_mul(h.face_count)
        .ok_or_else(|| {
            container(format!(
                "KTX2 header declares {} layers of {} faces, more than can be counted",
                h.layer_count, h.face_count
            ))
        })?;
    if h.depth > 0 && h.layer_count > 0 {
        return Err(container(format!(
            "KTX2 header declares an array of {} 3D textures, which DDS and Direct3D do not have",
            h.layer_count
        )));
    }
    let dimension = if h.depth > 0 {
        D3D10ResourceDimension::Texture3D
    } else if h.height == 0 {
        D3D10ResourceDimension::Texture1D
    } else {
        D3D10ResourceDimension::Texture2D
    };
    let shape = Shape {
        width: h.width,
        height: h.height.max(1),
        depth: h.depth.max(1),
        mips: h.level_count.max(1),
        layers,
        cubemap,
        dimension,
        alpha_mode: AlphaMode::Unknown,
    };
    if h.width == 0 {
        return Err(container(format!(
            "KTX2 header describes an empty texture ({}x{}x{} of {name})",
            h.width, h.height, h.depth
        )));
    }
    let most = shape.most_mips();
    if shape.mips > most {
        return Err(container(format!(
            "KTX2 header declares {} mip levels, but a {}x{}x{} texture has at most {most}",
            shape.mips, shape.width, shape.height, shape.depth
        )));
    }
    shape
        .texel_count()
        .and_then(|n| n.checked_mul(kind.texels().bytes() as u64))
        .and(kind.total_bytes(&shape))
        .ok_or_else(|| {
            container(format!(
                "KTX2 header describes an impossible size ({}x{}x{}, {} levels, {} layers of {name})",
                shape.width, shape.height, shape.depth, shape.mips, shape.layers
            ))
        })?;
    Ok((shape, kind, name))
}

/// Checks a descriptor against the one `texels` has: the parts that say what the bytes
/// are (the model, block size, bytes per texel, each sample's bits, channel and
/// qualifiers). Colour primaries and the samples' lower and upper values are not read.
fn check_descriptor(dfd: &[u8], kind: Kind, name: &str) -> Result<(), ConvertError> {
    let wrong = |why: String| container(format!("KTX2 data format descriptor {why}"));
    let words: Vec<u32> = dfd
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes")))
        .collect();
    if !dfd.len().is_multiple_of(4) || words.len() < 7 || words[0] as usize != dfd.len() {
        return Err(wrong(format!(
            "of {} bytes does not hold a Basic descriptor block (its size word says {})",
            dfd.len(),
            words.first().copied().unwrap_or(0)
        )));
    }
    let block = (words[2] >> 16) as usize;
    if words[1] != 0 || block < 24 || block % 16 != 8 || 4 + block > dfd.len() {
        return Err(wrong(format!(
            "starts with vendor/type word {:#x} and a block of {block} bytes in {} (a Khronos \
             Basic block is 24 + 16 per sample)",
            words[1],
            dfd.len()
        )));
    }
    let expected = descriptor(kind);
    let exp: Vec<u32> = expected
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().expect("4 bytes")))
        .collect();
    let model = |w: u32| w & 0xff;
    let samples = (block - 24) / 16;
    let exp_samples = (exp.len() - 7) / 4;
    let transfer = (words[3] >> 16) & 0xff;
    let same = model(words[3]) == model(exp[3])
        && transfer == TRANSFER_LINEAR
        && words[4] == exp[4]
        && words[5] == exp[5]
        && words[6] == exp[6]
        && samples == exp_samples
        && (0..samples).all(|s| words[7 + 4 * s] == exp[7 + 4 * s]);
    if !same {
        return Err(wrong(format!(
            "does not describe {name} (model {}, transfer {transfer}, {} bytes a texel \
             block, {samples} samples; {name} is model {}, linear, {} bytes, {exp_samples} \
             samples)",
            model(words[3]),
            words[5] & 0xff,
            model(exp[3]),
            kind.block_bytes()
        )));
    }
    Ok(())
}

/// Checks key/value data as `ktx validate` does: entries of at least two bytes, within the
/// data, each key terminated, padded to 4 bytes, adding up to the whole.
fn check_key_values(kvd: &[u8]) -> Result<(), ConvertError> {
    let mut at = 0usize;
    while at < kvd.len() {
        let wrong = |why: String| container(format!("KTX2 key/value data at byte {at}: {why}"));
        if kvd.len() - at < 6 {
            return Err(wrong("too short for an entry".into()));
        }
        let len = u32::from_le_bytes(kvd[at..at + 4].try_into().expect("4 bytes")) as usize;
        let entry = &kvd[at + 4..];
        if len < 2 || len > entry.len() {
            return Err(wrong(format!(
                "an entry of {len} bytes where {} remain",
                entry.len()
            )));
        }
        if !entry[..len].contains(&0) {
            return Err(wrong("a key without its terminating zero".into()));
        }
        at = align((at + 4 + len) as u64, 4) as usize;
    }
    Ok(())
}

/// Reads a KTX2 file from `r`: the header (80 bytes) and level index first, checked
/// against each other and `file_len` (a regular file's size); then the descriptor and
/// key/value data (at most 64 KiB and 1 MiB), checked; then each level, the smallest
/// first, exactly where the index puts it and no further, so a stream that never ends or
/// a header that claims gigabytes costs no more than what the file really holds.
///
/// A BC6H texture's blocks are decoded into f16 RGBA texels ([`read_stored`] keeps them).
pub fn read(r: &mut dyn Read, file_len: Option<u64>) -> Result<Texture, ConvertError> {
    let mut t = read_stored(r, file_len)?;
    if let Some(b) = t.bc6h {
        t.data = blocks::decode(&t.shape, Texture::ORDER, b, &t.data)?;
    }
    Ok(t)
}

/// [`read`], with a BC6H texture's blocks kept as they are in [`Texture::data`].
pub fn read_stored(r: &mut dyn Read, file_len: Option<u64>) -> Result<Texture, ConvertError> {
    let mut head = [0u8; HEADER_BYTES];
    let got = read_full(r, &mut head)
        .map_err(|e| reading_error(MemoryReadError::Io(e), "the KTX2 header"))?;
    if got < 12 || head[..12] != IDENTIFIER {
        return Err(container(
            "not a KTX2 file (it does not start with the KTX 2.0 identifier)".into(),
        ));
    }
    if got < HEADER_BYTES {
        return Err(container(format!(
            "KTX2 file ends inside its header ({got} of {HEADER_BYTES} bytes)"
        )));
    }
    let h = Header::parse(&head);
    let (shape, kind, name) = shape_of(&h)?;
    let levels = shape.mips as usize;
    let index_bytes = read_exactly(r, (LEVEL_ENTRY_BYTES * levels) as u64, "the level index")?;
    let entry = |level: usize, field: usize| {
        let at = level * LEVEL_ENTRY_BYTES + field * 8;
        u64::from_le_bytes(index_bytes[at..at + 8].try_into().expect("8 bytes"))
    };
    // Where everything must lie (KTX 2.0 §3.9, as `ktx validate` places it).
    let dfd_offset = align((HEADER_BYTES + LEVEL_ENTRY_BYTES * levels) as u64, 4);
    let (dfd_at, dfd_len) = (h.dfd.0 as u64, h.dfd.1 as u64);
    if dfd_at != dfd_offset || dfd_len == 0 || dfd_len > DFD_LIMIT {
        return Err(container(format!(
            "KTX2 header puts its data format descriptor at byte {dfd_at}, {dfd_len} bytes long \
             (it must follow the level index, at byte {dfd_offset}, and take 1 to {DFD_LIMIT})"
        )));
    }
    let (kvd_at, kvd_len) = (h.kvd.0 as u64, h.kvd.1 as u64);
    let kvd_expected = if kvd_len == 0 {
        0
    } else {
        align(dfd_at + dfd_len, 4)
    };
    if kvd_at != kvd_expected || kvd_len > KVD_LIMIT {
        return Err(container(format!(
            "KTX2 header puts {kvd_len} bytes of key/value data at byte {kvd_at} (expected at \
             byte {kvd_expected}, at most {KVD_LIMIT} bytes)"
        )));
    }
    if h.sgd != (0, 0) {
        return Err(container(format!(
            "KTX2 header declares {} bytes of supercompression global data in a file without \
             supercompression",
            h.sgd.1
        )));
    }
    let meta_end = if kvd_len > 0 {
        kvd_at + kvd_len
    } else {
        dfd_at + dfd_len
    };
    let meta = read_exactly(
        r,
        meta_end - HEADER_BYTES as u64 - index_bytes.len() as u64,
        "the KTX2 descriptor and key/value data",
    )?;
    let local = |at: u64| (at - HEADER_BYTES as u64 - index_bytes.len() as u64) as usize;
    check_descriptor(&meta[local(dfd_at)..local(dfd_at + dfd_len)], kind, name)?;
    if kvd_len > 0 {
        check_key_values(&meta[local(kvd_at)..local(kvd_at + kvd_len)])?;
    }
    // The level index against the shape: each level's length is what its images take,
    // and it starts where the previous one (a smaller level) ends, aligned.
    let alignment = level_alignment(kind);
    let mut at = meta_end;
    let mut placed = Vec::with_capacity(levels);
    for level in (0..levels).rev() {
        let (offset, len, full) = (entry(level, 0), entry(level, 1), entry(level, 2));
        let expected_len = kind
            .image_bytes(&shape, level as u32)
            .and_then(|b| b.checked_mul(shape.layers as u64))
            .expect("checked with the whole size");
        let expected_at = align(at, alignment);
        if len != expected_len || full != len || offset != expected_at {
            return Err(container(format!(
                "KTX2 level index puts level {level} at byte {offset}, {len} bytes long \
                 ({full} uncompressed); {name} level {level} of this texture is {expected_len} \
                 bytes at byte {expected_at}"
            )));
        }
        placed.push((offset - at, len));
        at = offset + len;
    }
    if let Some(file_len) = file_len
        && file_len != at
    {
        return Err(container(format!(
            "KTX2 level index describes a file of {at} bytes, but the file holds {file_len}"
        )));
    }
    let total = at - meta_end - placed.iter().map(|p| p.0).sum::<u64>();
    let mut data = Vec::new();
    if file_len.is_some() {
        data.try_reserve_exact(total as usize).map_err(|_| {
            container(format!(
                "not enough memory for the KTX2 texels ({total} bytes)"
            ))
        })?;
    }
    for (pad, len) in placed {
        let skipped = std::io::copy(&mut r.take(pad), &mut std::io::sink())
            .map_err(|e| ConvertError::io("reading the KTX2 level padding", e))?;
        let before = data.len();
        if skipped == pad {
            read_at_most(&mut r.take(len), &mut data, len, None)
                .map_err(|e| reading_error(e, "the KTX2 texels"))?;
        }
        if skipped < pad || ((data.len() - before) as u64) < len {
            return Err(container(format!(
                "KTX2 file ends at byte {} of the {at} its level index describes",
                meta_end + data.len() as u64
            )));
        }
    }
    let mut more = [0u8; 1];
    if file_len.is_none()
        && read_full(r, &mut more)
            .map_err(|e| reading_error(MemoryReadError::Io(e), "the KTX2 file"))?
            > 0
    {
        return Err(container(format!(
            "KTX2 file holds more than the {at} bytes its level index describes"
        )));
    }
    Ok(Texture {
        shape,
        texels: kind.texels(),
        data,
        bc6h: match kind {
            Kind::Bc6h(b) => Some(b),
            Kind::Texels(_) => None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rgba16() -> Texels {
        Texels {
            format: Format::Float(F16),
            channels: 4,
        }
    }

    #[test]
    fn descriptors_match_ktx_software_s_for_each_format() {
        // Words from KTX-Software's vk2dfd (createDFDUnpacked, createDFDPacked) for
        // R16G16B16A16_SFLOAT: 4 samples of 16 bits, FLOAT|SIGNED, -1.0 to 1.0.
        let d = descriptor(Kind::Texels(rgba16()));
        let w: Vec<u32> = d
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(w[..7], [92, 0, 2 | 88 << 16, 0x0001_0101, 0, 8, 0]);
        assert_eq!(w[7..11], [0xC00F_0000, 0, 0xBF80_0000, 0x3F80_0000]);
        assert_eq!(w[19], 0xCF0F_0030); // alpha: channel 15, bit 48
        let e5 = descriptor(Kind::Texels(Texels {
            format: Format::Rgb9e5,
            channels: 1,
        }));
        let w: Vec<u32> = e5
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(w[0], 4 + 24 + 6 * 16);
        assert_eq!(w[7..15], [0x0008_0000, 0, 0, 8448, 0x2004_001B, 0, 15, 31]);
    }

    #[test]
    fn bc6h_descriptors_are_ktx_software_s() {
        // createDFDCompressed(c_BC6H, 4, 4, 1, s_UFLOAT / s_SFLOAT): model 133, BT.709,
        // linear, 4x4x1x1 blocks stored minus one, 16 bytes, one sample of 128 bits of
        // channel 0, FLOAT (and SIGNED), 0.0 or -1.0 to 1.0.
        for (b, channel, lower) in [
            (Bc6h::Unsigned, 0x80u32, 0u32),
            (Bc6h::Signed, 0xC0, 0xBF80_0000),
        ] {
            let w: Vec<u32> = descriptor(Kind::Bc6h(b))
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(w[..7], [44, 0, 2 | 40 << 16, 0x0001_0185, 0x0303, 16, 0]);
            assert_eq!(w[7..], [127 << 16 | channel << 24, 0, lower, 0x3F80_0000]);
        }
    }

    #[test]
    fn a_bc6h_layout_reads_back_block_for_block() {
        let mut shape = Shape::image(9, 5);
        shape.mips = 4;
        shape.layers = 3;
        let layout = build_bc6h(&shape, Bc6h::Signed).unwrap();
        let total = blocks::checked_size(&shape).unwrap() as usize;
        let data: Vec<u8> = (0..total).map(|i| (i * 13) as u8).collect();
        let mut file = layout.head.clone();
        let images = layout::block_images(&shape, Order::SmallestLevelFirst);
        for (level, pad) in &layout.levels {
            file.extend(std::iter::repeat_n(0, *pad));
            for i in images.iter().filter(|i| i.level == *level) {
                file.extend(&data[i.offset..i.offset + i.len]);
            }
        }
        assert_eq!(file.len() as u64, layout.file_bytes);
        let t = read_stored(&mut file.as_slice(), Some(file.len() as u64)).unwrap();
        assert_eq!((t.shape, t.bc6h), (shape, Some(Bc6h::Signed)));
        assert_eq!(t.data, data);
        let decoded = read(&mut file.as_slice(), None).unwrap();
        assert_eq!(decoded.texels, blocks::TEXELS);
        assert_eq!(decoded.data.len() as u64, shape.texel_count().unwrap() * 8);
    }

    #[test]
    fn a_written_layout_reads_back() {
        let mut shape = Shape::image(5, 3);
        shape.mips = 3;
        shape.layers = 2;
        let layout = build(&shape, rgba16()).unwrap();
        let total = shape.texel_count().unwrap() as usize * 8;
        let mut file = layout.head.clone();
        let data: Vec<u8> = (0..total).map(|i| (i * 7) as u8).collect();
        let images = layout::images(&shape, rgba16(), Order::SmallestLevelFirst);
        for (level, pad) in &layout.levels {
            file.extend(std::iter::repeat_n(0, *pad));
            for i in images.iter().filter(|i| i.level == *level) {
                file.extend(&data[i.offset..i.offset + i.len]);
            }
        }
        assert_eq!(file.len() as u64, layout.file_bytes);
        let t = read(&mut file.as_slice(), Some(file.len() as u64)).unwrap();
        assert_eq!((t.shape, t.texels), (shape, rgba16()));
        assert_eq!(t.data, data);
        // A stream (no size known) reads the same, and one byte more is refused.
        let t = read(&mut file.as_slice(), None).unwrap();
        assert_eq!(t.data, data);
        file.push(0);
        let err = read(&mut file.as_slice(), None).err().unwrap().to_string();
        assert!(err.contains("holds more"), "{err}");
    }
}
