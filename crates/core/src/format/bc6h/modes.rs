//! The fourteen block modes of BC6H and the header layout of each, as the D3D11.3 spec's
//! §19.5.13.3 (the mode diagram) and §19.5.13.5 (Table 2, "Compressed Endpoint Formats")
//! give them. The layouts are written in the table's own field notation and parsed once,
//! so the text below can be read against the table column by column; the decoder reads
//! the header through it and the encoder writes through it, so both sides share one copy.

use std::sync::LazyLock;

/// One BC6H block mode (a column of Table 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    /// The mode's number, 1 to 14, in the order of the spec's diagram (the numbering of
    /// Microsoft's BC6H format page).
    pub number: u8,
    /// The mode field's value: the low 2 bits of the block for modes 1 and 2, the low 5
    /// bits for the others (`0b00010` is mode 3).
    pub field: u8,
    /// Width of the mode field in bits: 2 or 5.
    pub field_bits: u8,
    /// The spec's endpoint code, e.g. `10.555 10.555 10.555`: per channel the endpoint
    /// precision, then the width of each stored delta (§19.5.13.3).
    pub code: &'static str,
    /// Regions (endpoint pairs): 2 ("TWO", a partition is stored) or 1 ("ONE").
    pub regions: u8,
    /// Whether the endpoints other than the first are stored as deltas from it.
    pub transformed: bool,
    /// Bits of each endpoint after the inverse transform (the `w` fields), all channels.
    pub precision: u8,
    /// Bits of each stored delta (or second endpoint) per channel R, G, B.
    pub delta_bits: [u8; 3],
    /// The header, LSB first, in Table 2's notation.
    layout: &'static str,
}

impl Mode {
    /// Bits of the header (mode, endpoints, partition): 82 for two regions, 65 for one.
    pub fn header_bits(&self) -> u32 {
        if self.regions == 2 { 82 } else { 65 }
    }

    /// Bits of each texel index: 3 with two regions, 4 with one (one less at an anchor).
    pub fn index_bits(&self) -> u32 {
        if self.regions == 2 { 3 } else { 4 }
    }

    /// The header bit by bit, parsed from the layout text.
    pub(crate) fn header(&self) -> &'static [HeaderBit] {
        &HEADERS[(self.number - 1) as usize]
    }
}

/// What one bit of the header holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum HeaderBit {
    /// Bit `n` of the mode field.
    Mode(u8),
    /// Bit `bit` of channel `channel` (R, G, B) of endpoint `endpoint`: 0 `w`
    /// (`endpt[0].A`), 1 `x` (`endpt[0].B`), 2 `y` (`endpt[1].A`), 3 `z` (`endpt[1].B`).
    Endpoint { endpoint: u8, channel: u8, bit: u8 },
    /// Bit `n` of the partition (shape) index `d`.
    Partition(u8),
}

/// The modes, in the diagram's order. Each layout lists the header's fields from bit 0 up;
/// `rw[9:0]` stores bits 0 to 9 of `rw` from the lowest, and `rw[10:15]` (the reversed
/// spelling of Table 2) stores bit 15 first, down to bit 10.
pub const MODES: [Mode; 14] = [
    Mode {
        number: 1,
        field: 0b00,
        field_bits: 2,
        code: "10.555 10.555 10.555",
        regions: 2,
        transformed: true,
        precision: 10,
        delta_bits: [5, 5, 5],
        layout: "m[1:0] gy[4] by[4] bz[4] rw[9:0] gw[9:0] bw[9:0] rx[4:0] gz[4] gy[3:0] \
                 gx[4:0] bz[0] gz[3:0] bx[4:0] bz[1] by[3:0] ry[4:0] bz[2] rz[4:0] bz[3] d[4:0]",
    },
    Mode {
        number: 2,
        field: 0b01,
        field_bits: 2,
        code: "7666 7666 7666",
        regions: 2,
        transformed: true,
        precision: 7,
        delta_bits: [6, 6, 6],
        layout: "m[1:0] gy[5] gz[4] gz[5] rw[6:0] bz[0] bz[1] by[4] gw[6:0] by[5] bz[2] gy[4] \
                 bw[6:0] bz[3] bz[5] bz[4] rx[5:0] gy[3:0] gx[5:0] gz[3:0] bx[5:0] by[3:0] \
                 ry[5:0] rz[5:0] d[4:0]",
    },
    Mode {
        number: 3,
        field: 0b00010,
        field_bits: 5,
        code: "11.555 11.444 11.444",
        regions: 2,
        transformed: true,
        precision: 11,
        delta_bits: [5, 4, 4],
        layout: "m[4:0] rw[9:0] gw[9:0] bw[9:0] rx[4:0] rw[10] gy[3:0] gx[3:0] gw[10] bz[0] \
                 gz[3:0] bx[3:0] bw[10] bz[1] by[3:0] ry[4:0] bz[2] rz[4:0] bz[3] d[4:0]",
    },
    Mode {
        number: 4,
        field: 0b00110,
        field_bits: 5,
        code: "11.444 11.555 11.444",
        regions: 2,
        transformed: true,
        precision: 11,
        delta_bits: [4, 5, 4],
        layout: "m[4:0] rw[9:0] gw[9:0] bw[9:0] rx[3:0] rw[10] gz[4] gy[3:0] gx[4:0] gw[10] \
                 gz[3:0] bx[3:0] bw[10] bz[1] by[3:0] ry[3:0] bz[0] bz[2] rz[3:0] gy[4] bz[3] \
                 d[4:0]",
    },
    Mode {
        number: 5,
        field: 0b01010,
        field_bits: 5,
        code: "11.444 11.444 11.555",
        regions: 2,
        transformed: true,
        precision: 11,
        delta_bits: [4, 4, 5],
        layout: "m[4:0] rw[9:0] gw[9:0] bw[9:0] rx[3:0] rw[10] by[4] gy[3:0] gx[3:0] gw[10] \
                 bz[0] gz[3:0] bx[4:0] bw[10] by[3:0] ry[3:0] bz[1] bz[2] rz[3:0] bz[4] bz[3] \
                 d[4:0]",
    },
    Mode {
        number: 6,
        field: 0b01110,
        field_bits: 5,
        code: "9555 9555 9555",
        regions: 2,
        transformed: true,
        precision: 9,
        delta_bits: [5, 5, 5],
        layout: "m[4:0] rw[8:0] by[4] gw[8:0] gy[4] bw[8:0] bz[4] rx[4:0] gz[4] gy[3:0] \
                 gx[4:0] bz[0] gz[3:0] bx[4:0] bz[1] by[3:0] ry[4:0] bz[2] rz[4:0] bz[3] d[4:0]",
    },
    Mode {
        number: 7,
        field: 0b10010,
        field_bits: 5,
        code: "8666 8555 8555",
        regions: 2,
        transformed: true,
        precision: 8,
        delta_bits: [6, 5, 5],
        layout: "m[4:0] rw[7:0] gz[4] by[4] gw[7:0] bz[2] gy[4] bw[7:0] bz[3] bz[4] rx[5:0] \
                 gy[3:0] gx[4:0] bz[0] gz[3:0] bx[4:0] bz[1] by[3:0] ry[5:0] rz[5:0] d[4:0]",
    },
    Mode {
        number: 8,
        field: 0b10110,
        field_bits: 5,
        code: "8555 8666 8555",
        regions: 2,
        transformed: true,
        precision: 8,
        delta_bits: [5, 6, 5],
        layout: "m[4:0] rw[7:0] bz[0] by[4] gw[7:0] gy[5] gy[4] bw[7:0] gz[5] bz[4] rx[4:0] \
                 gz[4] gy[3:0] gx[5:0] gz[3:0] bx[4:0] bz[1] by[3:0] ry[4:0] bz[2] rz[4:0] \
                 bz[3] d[4:0]",
    },
    Mode {
        number: 9,
        field: 0b11010,
        field_bits: 5,
        code: "8555 8555 8666",
        regions: 2,
        transformed: true,
        precision: 8,
        delta_bits: [5, 5, 6],
        layout: "m[4:0] rw[7:0] bz[1] by[4] gw[7:0] by[5] gy[4] bw[7:0] bz[5] bz[4] rx[4:0] \
                 gz[4] gy[3:0] gx[4:0] bz[0] gz[3:0] bx[5:0] by[3:0] ry[4:0] bz[2] rz[4:0] \
                 bz[3] d[4:0]",
    },
    Mode {
        number: 10,
        field: 0b11110,
        field_bits: 5,
        code: "6666 6666 6666",
        regions: 2,
        transformed: false,
        precision: 6,
        delta_bits: [6, 6, 6],
        layout: "m[4:0] rw[5:0] gz[4] bz[0] bz[1] by[4] gw[5:0] gy[5] by[5] bz[2] gy[4] \
                 bw[5:0] gz[5] bz[3] bz[5] bz[4] rx[5:0] gy[3:0] gx[5:0] gz[3:0] bx[5:0] \
                 by[3:0] ry[5:0] rz[5:0] d[4:0]",
    },
    Mode {
        number: 11,
        field: 0b00011,
        field_bits: 5,
        code: "10.10 10.10 10.10",
        regions: 1,
        transformed: false,
        precision: 10,
        delta_bits: [10, 10, 10],
        layout: "m[4:0] rw[9:0] gw[9:0] bw[9:0] rx[9:0] gx[9:0] bx[9:0]",
    },
    Mode {
        number: 12,
        field: 0b00111,
        field_bits: 5,
        code: "11.9 11.9 11.9",
        regions: 1,
        transformed: true,
        precision: 11,
        delta_bits: [9, 9, 9],
        layout: "m[4:0] rw[9:0] gw[9:0] bw[9:0] rx[8:0] rw[10] gx[8:0] gw[10] bx[8:0] bw[10]",
    },
    Mode {
        number: 13,
        field: 0b01011,
        field_bits: 5,
        code: "12.8 12.8 12.8",
        regions: 1,
        transformed: true,
        precision: 12,
        delta_bits: [8, 8, 8],
        layout: "m[4:0] rw[9:0] gw[9:0] bw[9:0] rx[7:0] rw[10:11] gx[7:0] gw[10:11] bx[7:0] \
                 bw[10:11]",
    },
    Mode {
        number: 14,
        field: 0b01111,
        field_bits: 5,
        code: "16.4 16.4 16.4",
        regions: 1,
        transformed: true,
        precision: 16,
        delta_bits: [4, 4, 4],
        layout: "m[4:0] rw[9:0] gw[9:0] bw[9:0] rx[3:0] rw[10:15] gx[3:0] gw[10:15] bx[3:0] \
                 bw[10:15]",
    },
];

/// The mode fields the spec reserves (§19.5.13.3): a block with one decodes to zero.
pub const RESERVED_FIELDS: [u8; 4] = [0b10011, 0b10111, 0b11011, 0b11111];

/// The mode of a block from its first byte: `Err(field)` with the 5-bit field for a
/// reserved mode.
pub fn mode_of(first_byte: u8) -> Result<&'static Mode, u8> {
    let two = first_byte & 0b11;
    let five = first_byte & 0b1_1111;
    let (field, bits) = if two < 2 { (two, 2) } else { (five, 5) };
    MODES
        .iter()
        .find(|m| m.field == field && m.field_bits == bits)
        .ok_or(five)
}

/// Every mode's header, parsed from its layout once.
static HEADERS: LazyLock<Vec<Vec<HeaderBit>>> =
    LazyLock::new(|| MODES.iter().map(|m| parse_layout(m.layout)).collect());

/// Parses Table 2's notation: each field is a name and a bit range; `m` the mode, `d` the
/// partition, and `r`/`g`/`b` with `w`/`x`/`y`/`z` a channel of an endpoint (§19.5.13.5's
/// field table).
fn parse_layout(layout: &str) -> Vec<HeaderBit> {
    let mut bits = Vec::new();
    for field in layout.split_whitespace() {
        let (name, range) = field
            .strip_suffix(']')
            .and_then(|f| f.split_once('['))
            .expect("field[range]");
        let (first, last) = match range.split_once(':') {
            // `[hi:lo]` stores lo first; `[lo:hi]` (reversed) stores hi first.
            Some((a, b)) => (b.parse::<u8>().expect("bit"), a.parse::<u8>().expect("bit")),
            None => {
                let n = range.parse::<u8>().expect("bit");
                (n, n)
            }
        };
        let order: Vec<u8> = if first <= last {
            (first..=last).collect()
        } else {
            (last..=first).rev().collect()
        };
        for bit in order {
            bits.push(match name.as_bytes() {
                b"m" => HeaderBit::Mode(bit),
                b"d" => HeaderBit::Partition(bit),
                [c, e] => HeaderBit::Endpoint {
                    channel: b"rgb".iter().position(|x| x == c).expect("channel") as u8,
                    endpoint: b"wxyz".iter().position(|x| x == e).expect("endpoint") as u8,
                    bit,
                },
                _ => panic!("unknown field {name}"),
            });
        }
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layouts are typed from Table 2; the mode codes from the diagram. Each must say
    /// the same thing as the other: the header's length, the mode field, every endpoint
    /// field's width, and each bit of each field exactly once.
    #[test]
    fn every_layout_agrees_with_its_mode_code() {
        for m in &MODES {
            let header = m.header();
            assert_eq!(header.len() as u32, m.header_bits(), "mode {}", m.number);
            let mut seen = std::collections::HashSet::new();
            let mut widths = [[0u8; 3]; 4];
            let mut mode_value = 0u8;
            for (pos, b) in header.iter().enumerate() {
                assert!(seen.insert(*b), "mode {}: {b:?} twice", m.number);
                match *b {
                    HeaderBit::Mode(n) => {
                        assert!(n < m.field_bits);
                        assert_eq!(pos, n as usize, "mode bits come first");
                        mode_value |= 1 << n;
                    }
                    HeaderBit::Endpoint {
                        endpoint,
                        channel,
                        bit,
                    } => {
                        let w = &mut widths[endpoint as usize][channel as usize];
                        *w = (*w).max(bit + 1);
                    }
                    HeaderBit::Partition(n) => assert!(n < 5),
                }
            }
            assert_eq!(mode_value.count_ones(), m.field_bits as u32);
            let count = header.len() - seen.len();
            assert_eq!(count, 0);
            let regions = m.regions as usize;
            for (e, w) in widths.iter().enumerate() {
                let expect = match e {
                    0 => [m.precision; 3],
                    e if e < 2 * regions => m.delta_bits,
                    _ => [0; 3],
                };
                assert_eq!(*w, expect, "mode {} endpoint {e}", m.number);
            }
            // The code spells the same widths: `P.DDD` or `PDDD` per channel.
            let expect: Vec<String> = (0..3)
                .map(|c| {
                    let p = m.precision;
                    let d = m.delta_bits[c];
                    match (regions, p >= 10) {
                        (2, true) => format!("{p}.{d}{d}{d}"),
                        (2, false) => format!("{p}{d}{d}{d}"),
                        _ => format!("{p}.{d}"),
                    }
                })
                .collect();
            assert_eq!(m.code, expect.join(" "), "mode {}", m.number);
            assert_eq!(m.transformed, m.delta_bits[0] < m.precision);
        }
    }

    #[test]
    fn mode_fields_are_told_apart() {
        for m in &MODES {
            for high in 0..8u8 {
                let byte = m.field | high << m.field_bits;
                assert_eq!(mode_of(byte).unwrap().number, m.number);
            }
        }
        for r in RESERVED_FIELDS {
            assert_eq!(mode_of(r | 0xe0), Err(r));
        }
    }
}
