//! The DXBC container: a 32-byte header (magic `DXBC`, a 16-byte checksum, version 1, the
//! total size, the chunk count), a table of chunk offsets, then the chunks, each a tag, a
//! byte size and its bytes.
//!
//! The checksum is MD5's compression function over everything after the checksum field,
//! with a padding of its own: the last block carries the message length in bits in its
//! first word (not its last two) and `bits / 4 | 1` in its last word. The runtime and the
//! translators (vkd3d-shader, dxbc-spirv) refuse a container whose checksum is wrong.

/// Bytes before the chunk table: magic, checksum, version, total size, chunk count.
const HEADER: usize = 32;
/// The checksum covers the container from this byte on (after magic and checksum).
const CHECKSUMMED_FROM: usize = 20;

/// Why a blob is no valid DXBC container.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ContainerError {
    /// Shorter than the header or its chunk table.
    #[error("{0} bytes is too short for a DXBC container")]
    TooShort(usize),
    /// The first four bytes are not `DXBC`.
    #[error("no DXBC magic")]
    Magic,
    /// The container version is not 1.
    #[error("container version {0}, expected 1")]
    Version(u32),
    /// The size field does not match the blob.
    #[error("the header says {header} bytes, the blob has {actual}")]
    Size {
        /// The size field.
        header: u32,
        /// The blob's length.
        actual: usize,
    },
    /// A chunk lies (partly) outside the container or before the chunk table.
    #[error("chunk {index} at offset {offset} lies outside the container")]
    Chunk {
        /// The chunk's place in the table.
        index: usize,
        /// Its offset.
        offset: u32,
    },
    /// The stored checksum is not the checksum of the contents.
    #[error("checksum {stored:08x?} does not match the contents ({computed:08x?})")]
    Checksum {
        /// The checksum in the header.
        stored: [u32; 4],
        /// The checksum of the bytes after it.
        computed: [u32; 4],
    },
}

/// One chunk of a container.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// Its four-character tag (`SHEX`, `ISGN`).
    pub tag: [u8; 4],
    /// Its bytes, without tag and size.
    pub data: &'a [u8],
}

/// A container holding `chunks` in order, with its checksum.
pub fn write(chunks: &[Chunk<'_>]) -> Vec<u8> {
    let table_end = HEADER + 4 * chunks.len();
    let total = table_end
        + chunks
            .iter()
            .map(|c| 8 + padded(c.data.len()))
            .sum::<usize>();
    let mut blob = Vec::with_capacity(total);
    blob.extend_from_slice(b"DXBC");
    blob.extend_from_slice(&[0; 16]);
    for word in [1, total as u32, chunks.len() as u32] {
        blob.extend_from_slice(&word.to_le_bytes());
    }
    let mut offset = table_end;
    for c in chunks {
        blob.extend_from_slice(&(offset as u32).to_le_bytes());
        offset += 8 + padded(c.data.len());
    }
    for c in chunks {
        blob.extend_from_slice(&c.tag);
        blob.extend_from_slice(&(c.data.len() as u32).to_le_bytes());
        blob.extend_from_slice(c.data);
        blob.resize(blob.len() + padded(c.data.len()) - c.data.len(), 0);
    }
    let sum = checksum(&blob);
    for (i, word) in sum.iter().enumerate() {
        blob[4 + 4 * i..8 + 4 * i].copy_from_slice(&word.to_le_bytes());
    }
    blob
}

/// Chunks start on 4-byte boundaries.
fn padded(n: usize) -> usize {
    n.div_ceil(4) * 4
}

fn word_at(blob: &[u8], at: usize) -> Option<u32> {
    let bytes = blob.get(at..at + 4)?;
    Some(u32::from_le_bytes(bytes.try_into().ok()?))
}

/// The chunks of a container, after checking its magic, version, size, chunk table and
/// checksum.
pub fn read(blob: &[u8]) -> Result<Vec<Chunk<'_>>, ContainerError> {
    if blob.len() < HEADER {
        return Err(ContainerError::TooShort(blob.len()));
    }
    if &blob[..4] != b"DXBC" {
        return Err(ContainerError::Magic);
    }
    let word = |at| word_at(blob, at).unwrap_or(0);
    let version = word(20);
    if version != 1 {
        return Err(ContainerError::Version(version));
    }
    let size = word(24);
    if size as usize != blob.len() {
        return Err(ContainerError::Size {
            header: size,
            actual: blob.len(),
        });
    }
    let count = word(28) as usize;
    let table_end = count
        .checked_mul(4)
        .and_then(|n| n.checked_add(HEADER))
        .filter(|&end| end <= blob.len())
        .ok_or(ContainerError::TooShort(blob.len()))?;
    let mut chunks = Vec::with_capacity(count);
    for index in 0..count {
        let offset = word(HEADER + 4 * index);
        let outside = ContainerError::Chunk { index, offset };
        let start = offset as usize;
        if start < table_end || !start.is_multiple_of(4) {
            return Err(outside);
        }
        let len = word_at(blob, start + 4).ok_or(outside.clone())? as usize;
        let data = blob
            .get(start + 8..)
            .and_then(|rest| rest.get(..len))
            .ok_or(outside)?;
        let mut tag = [0; 4];
        tag.copy_from_slice(&blob[start..start + 4]);
        chunks.push(Chunk { tag, data });
    }
    let stored = std::array::from_fn(|i| word(4 + 4 * i));
    let computed = checksum(blob);
    if stored != computed {
        return Err(ContainerError::Checksum { stored, computed });
    }
    Ok(chunks)
}

/// Checks a container: magic, version, size, chunk table and checksum.
pub fn verify(blob: &[u8]) -> Result<(), ContainerError> {
    read(blob).map(|_| ())
}

/// The first chunk tagged `tag`, in a container [`read`] accepts.
pub fn find<'a>(blob: &'a [u8], tag: &[u8; 4]) -> Result<Option<&'a [u8]>, ContainerError> {
    Ok(read(blob)?
        .into_iter()
        .find(|c| &c.tag == tag)
        .map(|c| c.data))
}

/// The checksum of a container (of at least 20 bytes): the four words the header stores
/// at bytes 4..20, computed over the bytes from 20 on.
pub fn checksum(blob: &[u8]) -> [u32; 4] {
    let data = blob.get(CHECKSUMMED_FROM..).unwrap_or(&[]);
    let bits = (data.len() as u64 * 8) as u32;
    let mut state = md5::INIT;
    let mut blocks = data.chunks_exact(64);
    for block in &mut blocks {
        md5::compress(&mut state, block.try_into().expect("64-byte chunks"));
    }
    let rest = blocks.remainder();
    // The tail: the rest, 0x80, zeros; the bit count goes in the first word of the last
    // block (in front of the rest when the rest leaves room for both length words) and
    // `bits / 4 | 1` in its last word.
    let mut last = [0u8; 64];
    if rest.len() >= 56 {
        let mut block = [0u8; 64];
        block[..rest.len()].copy_from_slice(rest);
        block[rest.len()] = 0x80;
        md5::compress(&mut state, &block);
    } else {
        last[4..4 + rest.len()].copy_from_slice(rest);
        last[4 + rest.len()] = 0x80;
    }
    last[..4].copy_from_slice(&bits.to_le_bytes());
    last[60..].copy_from_slice(&(bits >> 2 | 1).to_le_bytes());
    md5::compress(&mut state, &last);
    state
}

/// MD5's compression function (RFC 1321 §3.4), which the DXBC checksum shares with MD5.
pub(crate) mod md5 {
    /// The initial state (RFC 1321 §3.3).
    pub const INIT: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];

    /// `floor(abs(sin(i + 1)) * 2^32)` for step i.
    const SINES: [u32; 64] = [
        0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
        0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
        0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
        0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
        0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
        0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
        0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
        0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
        0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
        0xeb86d391,
    ];

    /// Left rotations of each round's four steps.
    const ROTATIONS: [[u32; 4]; 4] = [
        [7, 12, 17, 22],
        [5, 9, 14, 20],
        [4, 11, 16, 23],
        [6, 10, 15, 21],
    ];

    /// Folds one 64-byte block into the state.
    pub fn compress(state: &mut [u32; 4], block: &[u8; 64]) {
        let m: [u32; 16] = std::array::from_fn(|i| {
            u32::from_le_bytes([
                block[4 * i],
                block[4 * i + 1],
                block[4 * i + 2],
                block[4 * i + 3],
            ])
        });
        let [mut a, mut b, mut c, mut d] = *state;
        for step in 0..64 {
            let round = step / 16;
            let (mix, word) = match round {
                0 => ((b & c) | (!b & d), step),
                1 => ((d & b) | (!d & c), (5 * step + 1) % 16),
                2 => (b ^ c ^ d, (3 * step + 5) % 16),
                _ => (c ^ (b | !d), (7 * step) % 16),
            };
            let sum = a
                .wrapping_add(mix)
                .wrapping_add(SINES[step])
                .wrapping_add(m[word]);
            let next = b.wrapping_add(sum.rotate_left(ROTATIONS[round][step % 4]));
            (a, b, c, d) = (d, next, b, c);
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d]) {
            *s = s.wrapping_add(v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain MD5 (RFC 1321 padding) over the same compression function.
    fn md5_hex(message: &[u8]) -> String {
        let mut padded = message.to_vec();
        padded.push(0x80);
        while padded.len() % 64 != 56 {
            padded.push(0);
        }
        padded.extend_from_slice(&(message.len() as u64 * 8).to_le_bytes());
        let mut state = md5::INIT;
        for block in padded.chunks_exact(64) {
            md5::compress(&mut state, block.try_into().unwrap());
        }
        state
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    #[test]
    fn compression_function_gives_the_rfc_1321_digests() {
        // The test suite of RFC 1321, appendix A.5.
        assert_eq!(md5_hex(b""), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(md5_hex(b"abc"), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            md5_hex(b"abcdefghijklmnopqrstuvwxyz"),
            "c3fcd3d76192e4007dfb496cca67e13b"
        );
        assert_eq!(
            md5_hex(
                b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"
            ),
            "57edf4a22be3c955ac49da2e2107b67a"
        );
    }

    #[test]
    fn written_containers_read_back() {
        let shex = [1u8, 2, 3, 4, 5, 6, 7, 8];
        let odd = [9u8; 3];
        let blob = write(&[
            Chunk {
                tag: *b"SHEX",
                data: &shex,
            },
            Chunk {
                tag: *b"XTRA",
                data: &odd,
            },
        ]);
        assert_eq!(blob.len(), 32 + 8 + 16 + 12);
        let chunks = read(&blob).unwrap();
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].data, shex);
        assert_eq!(chunks[1].data, odd);
        assert_eq!(find(&blob, b"XTRA").unwrap(), Some(&odd[..]));
        assert_eq!(find(&blob, b"ISGN").unwrap(), None);
    }

    #[test]
    fn every_tail_length_round_trips() {
        // Each remainder length mod 64 takes one of the two padding paths.
        for n in 0..140 {
            let data = vec![n as u8; n];
            let blob = write(&[Chunk {
                tag: *b"DATA",
                data: &data,
            }]);
            verify(&blob).unwrap_or_else(|e| panic!("{n}: {e}"));
        }
    }

    #[test]
    fn damaged_containers_are_refused() {
        let blob = write(&[Chunk {
            tag: *b"SHEX",
            data: &[0; 16],
        }]);
        let mut flipped = blob.clone();
        flipped[50] ^= 1;
        assert!(matches!(
            verify(&flipped),
            Err(ContainerError::Checksum { .. })
        ));
        assert_eq!(verify(&blob[..20]), Err(ContainerError::TooShort(20)));
        let mut magic = blob.clone();
        magic[0] = b'X';
        assert_eq!(verify(&magic), Err(ContainerError::Magic));
        assert!(matches!(
            verify(&blob[..blob.len() - 4]),
            Err(ContainerError::Size { .. })
        ));
        let mut offset = blob.clone();
        offset[32] = 0xf0;
        assert!(matches!(verify(&offset), Err(ContainerError::Chunk { .. })));
        let mut count = blob.clone();
        count[28..32].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(verify(&count).is_err());
    }
}
