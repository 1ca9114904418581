//! One 2D image, already converted, as the bytes of a whole file of any container
//! `convert` writes: what a library caller with an image in memory (the Python package's
//! `write_image`) needs. The command line streams textures of any shape through the same
//! header builders ([`dds::build`], [`ktx2::build`], [`pfm::header`], [`exr_out::encode`]),
//! so a file written here is byte for byte the file `convert -o` writes for that image.

use super::dds::{self, Shape, Texels};
use super::exr_out::{self, ExrCompression};
use super::{Container, ConvertError, ktx2, pfm};
use crate::format::bc6h::Bc6h;

/// What the image's data holds: texels of one format, or BC6H blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// `width * height` texels, rows from the top, little-endian elements.
    Texels(Texels),
    /// The image's 4x4 blocks, rows of blocks from the top.
    Bc6h(Bc6h),
}

/// The file of `container` holding one `width` x `height` image whose `data` is as
/// `stored` says. `holds` names what the data came from, for the refusal of a container
/// that cannot hold it ([`Container::cannot_hold`]); `compression` applies to `.exr`.
pub fn file_bytes(
    container: Container,
    (width, height): (u32, u32),
    stored: Stored,
    mut data: Vec<u8>,
    holds: &str,
    compression: ExrCompression,
) -> Result<Vec<u8>, ConvertError> {
    let shape = Shape::image(width, height);
    let refuse = |why: String| Err(ConvertError::Container(why));
    let refusal = match stored {
        Stored::Texels(t) => container.cannot_hold(&shape, t, holds),
        Stored::Bc6h(b) => container.cannot_hold_bc6h(b),
    };
    if let Some(why) = refusal {
        return refuse(why);
    }
    let len = data.len() as u64;
    match (container, stored) {
        (Container::Raw, _) => Ok(data),
        (Container::Dds, _) => {
            let dds = match stored {
                Stored::Texels(t) => dds::build(&shape, t, len),
                Stored::Bc6h(b) => dds::build_bc6h(&shape, b, len),
            };
            Ok(joined(dds::header_bytes(&dds?)?, &[], data))
        }
        (Container::Ktx2, _) => {
            let plan = match stored {
                Stored::Texels(t) => ktx2::build(&shape, t),
                Stored::Bc6h(b) => ktx2::build_bc6h(&shape, b),
            };
            Ok(one_level(plan?, data))
        }
        (Container::Hdr, _) => refuse("d3dfloat reads .hdr files but does not write them".into()),
        (Container::Exr | Container::Pfm, Stored::Bc6h(_)) => unreachable!("refused above"),
        (Container::Pfm, Stored::Texels(t)) => {
            pfm::flip_rows(&mut data, width as usize * t.bytes());
            Ok(joined(pfm::header(width, height, t.channels), &[], data))
        }
        (Container::Exr, Stored::Texels(t)) => {
            exr_out::encode(width, height, t.format, t.channels, &data, compression)
        }
    }
}

/// A one-level KTX2 file: the head, the zero bytes that align its only level, the level.
fn one_level(plan: ktx2::Layout, data: Vec<u8>) -> Vec<u8> {
    let pad = vec![0u8; plan.levels.first().map_or(0, |&(_, pad)| pad)];
    joined(plan.head, &pad, data)
}

fn joined(mut head: Vec<u8>, pad: &[u8], data: Vec<u8>) -> Vec<u8> {
    head.reserve(pad.len() + data.len());
    head.extend_from_slice(pad);
    head.extend_from_slice(&data);
    head
}
