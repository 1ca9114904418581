//! `decode --fmt bc6h_uf16|bc6h_sf16`: one BC6H block in every style. The pieces each
//! style shows are worked out here once (as [`super::convert_fields`] does for convert),
//! so the styles cannot disagree.

use std::io::{self, Write};

use serde_json::json;

use crate::format::F16;
use crate::format::bc6h::{Block, Endpoint};
use crate::format::text::shortest_decimal;

/// The block as `0x` and 32 hex digits: the 16 bytes as one little-endian 128-bit number,
/// so bit 0 of the spec's layout is the last digit's lowest bit.
pub fn block_hex(b: &Block) -> String {
    format!("0x{:032x}", u128::from_le_bytes(b.bytes))
}

/// The format's name: `bc6h_uf16` or `bc6h_sf16`.
pub(super) fn format_name(b: &Block) -> &'static str {
    if b.signed { "bc6h_sf16" } else { "bc6h_uf16" }
}

/// The mode field in binary, as the spec writes it: 2 digits for modes 1 and 2, else 5.
pub(super) fn mode_bits(b: &Block) -> String {
    match b.mode {
        Ok(m) => format!("0b{:0w$b}", m.field, w = m.field_bits as usize),
        Err(field) => format!("0b{field:05b}"),
    }
}

/// The endpoint's name in Table 2 (`w`, `x`, `y`, `z`) and what it is (region, A or B).
pub(super) const ENDPOINT_NAMES: [(&str, u8, &str); 4] =
    [("w", 0, "A"), ("x", 0, "B"), ("y", 1, "A"), ("z", 1, "B")];

pub(super) fn stored_hex(e: &Endpoint) -> [String; 3] {
    e.stored.map(|v| format!("{v:#x}"))
}

/// A texel's three values, shortest decimals of the f16 patterns.
pub(super) fn values(t: &[u16; 3]) -> [String; 3] {
    t.map(|bits| shortest_decimal(&F16, bits as u64))
}

pub(super) fn patterns(t: &[u16; 3]) -> [String; 3] {
    t.map(|bits| format!("0x{bits:04x}"))
}

/// `--plain`: the 16 texels, `R,G,B` each (shortest decimals), separated by spaces.
pub fn plain(out: &mut dyn Write, b: &Block) -> io::Result<()> {
    let texels: Vec<String> = b.texels.iter().map(|t| values(t).join(",")).collect();
    writeln!(out, "{}", texels.join(" "))
}

/// `--json`: one object.
pub fn json_object(b: &Block, schema: u32) -> serde_json::Value {
    let mode = b.mode.ok();
    let endpoints: Vec<serde_json::Value> = b
        .endpoints()
        .iter()
        .zip(ENDPOINT_NAMES)
        .map(|(e, (name, region, end))| {
            json!({
                "name": name,
                "region": region,
                "end": end,
                "stored": stored_hex(e),
                "transformed": e.transformed,
                "unquantized": e.unquantized,
            })
        })
        .collect();
    let texels: Vec<serde_json::Value> = b
        .texels
        .iter()
        .map(|t| json!({"bits": patterns(t), "values": values(t)}))
        .collect();
    json!({
        "schema": schema,
        "format": format_name(b),
        "bits": block_hex(b),
        "mode": mode.map(|m| m.number),
        "mode_bits": mode_bits(b),
        "reserved": mode.is_none(),
        "code": mode.map(|m| m.code),
        "regions": mode.map(|m| m.regions),
        "transformed": mode.map(|m| m.transformed),
        "precision": mode.map(|m| m.precision),
        "delta_bits": mode.map(|m| m.delta_bits),
        "partition": b.partition,
        "endpoints": endpoints,
        "texel_regions": b.regions,
        "indices": b.indices,
        "texels": texels,
    })
}

/// `--csv`'s columns.
pub const CSV_COLUMNS: [&str; 12] = [
    "format",
    "bits",
    "mode",
    "mode_bits",
    "code",
    "partition",
    "stored",
    "transformed",
    "unquantized",
    "indices",
    "texels",
    "values",
];

/// `--csv`'s cells: lists are space separated, an endpoint's or texel's three channels
/// joined by `/`; empty cells where a reserved mode has nothing.
pub fn csv_cells(b: &Block) -> Vec<String> {
    let mode = b.mode.ok();
    let join3 = |v: [String; 3]| v.join("/");
    let list = |items: Vec<String>| items.join(" ");
    let eps = b.endpoints();
    vec![
        format_name(b).to_string(),
        block_hex(b),
        mode.map_or(String::new(), |m| m.number.to_string()),
        mode_bits(b),
        mode.map_or(String::new(), |m| m.code.to_string()),
        b.partition.map_or(String::new(), |p| p.to_string()),
        list(eps.iter().map(|e| join3(stored_hex(e))).collect()),
        list(
            eps.iter()
                .map(|e| join3(e.transformed.map(|v| v.to_string())))
                .collect(),
        ),
        list(
            eps.iter()
                .map(|e| join3(e.unquantized.map(|v| v.to_string())))
                .collect(),
        ),
        list(b.indices.iter().map(|i| i.to_string()).collect()),
        list(b.texels.iter().map(|t| join3(patterns(t))).collect()),
        list(b.texels.iter().map(|t| join3(values(t))).collect()),
    ]
}
