//! The human view of a decoded BC6H block (`decode --fmt bc6h_uf16|bc6h_sf16`).

use std::io::{self, Write};

use super::Palette;
use crate::format::bc6h::Block;
use crate::render::bc6h::{
    ENDPOINT_NAMES, block_hex, format_name, mode_bits, patterns, stored_hex, values,
};

/// The human view: the mode, the partition, each endpoint in its three stages, the
/// regions and indices as 4x4 grids, and the texels.
pub fn human(out: &mut dyn Write, p: &Palette, b: &Block) -> io::Result<()> {
    let label = |s: &str| p.label(&format!("{s:<11}"));
    writeln!(out, "{} {}", format_name(b), p.value(&block_hex(b)))?;
    let Ok(mode) = b.mode else {
        writeln!(
            out,
            "  {} {} {}",
            label("mode"),
            p.value(&mode_bits(b)),
            p.warn("reserved: every texel decodes to 0 (alpha 1), §19.5.13.3")
        )?;
        return Ok(());
    };
    let kind = if mode.regions == 2 {
        "two regions"
    } else {
        "one region"
    };
    let transform = if mode.transformed {
        "deltas from w"
    } else {
        "endpoints stored whole"
    };
    writeln!(
        out,
        "  {} {} ({}: {}, {kind}, {transform})",
        label("mode"),
        p.value(&mode.number.to_string()),
        mode_bits(b),
        mode.code
    )?;
    if let Some(part) = b.partition {
        writeln!(
            out,
            "  {} {} (anchor of region 1: texel {})",
            label("partition"),
            p.value(&part.to_string()),
            (1..16).find(|&i| b.is_anchor(i)).unwrap_or(0)
        )?;
    }
    let rows: Vec<[String; 4]> = b
        .endpoints()
        .iter()
        .zip(ENDPOINT_NAMES)
        .map(|(e, (name, region, end))| {
            [
                format!("{name}: region {region} {end}"),
                stored_hex(e).join(" "),
                e.transformed.map(|v| v.to_string()).join(" "),
                e.unquantized.map(|v| v.to_string()).join(" "),
            ]
        })
        .collect();
    let head = ["", "stored R G B", "transformed", "unquantized"];
    let width = |k: usize| rows.iter().map(|r| r[k].len()).chain([head[k].len()]).max();
    let (w1, w2) = (width(1).unwrap_or(0), width(2).unwrap_or(0));
    writeln!(
        out,
        "  {} {:<15} {:<w1$}  {:<w2$}  {}",
        label("endpoints"),
        head[0],
        head[1],
        head[2],
        head[3]
    )?;
    for r in &rows {
        writeln!(
            out,
            "    {:<25} {:<w1$}  {:<w2$}  {}",
            r[0], r[1], r[2], r[3]
        )?;
    }
    for row in 0..4 {
        let cells = |f: &dyn Fn(usize) -> String| -> String {
            (0..4).map(|x| f(4 * row + x)).collect::<Vec<_>>().join(" ")
        };
        let indices = cells(&|i| {
            let mark = if b.is_anchor(i) { "*" } else { " " };
            format!("{:>2}{mark}", b.indices[i])
        });
        if mode.regions == 2 {
            let regions = cells(&|i| b.regions[i].to_string());
            let first = if row == 0 { "regions" } else { "" };
            let line = format!("  {} {regions}    indices {indices}", label(first));
            writeln!(out, "{}", line.trim_end())?;
        } else {
            let first = if row == 0 { "indices" } else { "" };
            let line = format!("  {} {indices}", label(first));
            writeln!(out, "{}", line.trim_end())?;
        }
    }
    writeln!(
        out,
        "  {} (* an anchor: its index has one bit less, §19.5.13.4)",
        label("")
    )?;
    writeln!(out, "  {} f16 R G B = values", label("texels"))?;
    for (i, t) in b.texels.iter().enumerate() {
        writeln!(
            out,
            "    ({},{}) {} = {}",
            i % 4,
            i / 4,
            patterns(t).join(" "),
            p.value(&values(t).join(" "))
        )?;
    }
    Ok(())
}
