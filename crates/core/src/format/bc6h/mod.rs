//! BC6H (`DXGI_FORMAT_BC6H_UF16` and `BC6H_SF16`, §19.5.13): 4x4 texels of RGB half floats
//! in 16 bytes. The decoder follows the spec's steps and keeps each one for `decode`'s
//! view ([`analyse`]); [`decode_block`] and [`encode_block`] are the block codec, and
//! [`surface`] turns whole textures (any size, every mip level) into blocks and back.
//!
//! ```
//! use d3dfloat_core::format::bc6h::{decode_block, analyse};
//!
//! // Mode 11 (10.10, one region) with both endpoints at their largest unsigned value:
//! // every texel decodes to the largest f16, 65504 (0x7bff).
//! let mut block = [0u8; 16];
//! block[0] = 0b111_00011;
//! for b in &mut block[1..9] { *b = 0xff; }
//! block[8] = 0x01;
//! assert_eq!(decode_block(&block, false)[5], [0x7bff; 3]);
//! assert_eq!(analyse(&block, false).mode.unwrap().number, 11);
//! ```

mod decode;
pub mod encode;
mod modes;
mod partitions;
pub mod surface;

pub use decode::{Block, Endpoint, analyse, decode_block};
pub use encode::{Quality, encode_block};
pub use modes::{MODES, Mode, RESERVED_FIELDS, mode_of};

/// Bytes of one block.
pub const BLOCK_BYTES: usize = 16;

/// Which BC6H format: unsigned (`BC6H_UF16`) or signed (`BC6H_SF16`) half floats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bc6h {
    /// `DXGI_FORMAT_BC6H_UF16`: values from 0 to 65504.
    Unsigned,
    /// `DXGI_FORMAT_BC6H_SF16`: values from -65504 to 65504.
    Signed,
}

impl Bc6h {
    /// Whether the format is signed.
    pub fn signed(self) -> bool {
        self == Bc6h::Signed
    }

    /// The name the tool uses (`bc6h_uf16`, `bc6h_sf16`).
    pub fn name(self) -> &'static str {
        match self {
            Bc6h::Unsigned => "bc6h_uf16",
            Bc6h::Signed => "bc6h_sf16",
        }
    }

    /// The format a name names: `bc6h_uf16`, `bc6h_sf16`, any case, with or without
    /// `DXGI_FORMAT_`.
    pub fn from_name(name: &str) -> Option<Bc6h> {
        let lower = name.trim().to_ascii_lowercase();
        match lower.strip_prefix("dxgi_format_").unwrap_or(&lower) {
            "bc6h_uf16" => Some(Bc6h::Unsigned),
            "bc6h_sf16" => Some(Bc6h::Signed),
            _ => None,
        }
    }
}
