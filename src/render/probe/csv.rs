//! `probe --csv`: a header, then one row per instruction; the most frequent violation class
//! and its example in the last columns.

use std::io::{self, Write};

use super::ProbeRenderer;
use crate::judge::{DeviceInfo, Findings};

pub struct Csv;

/// A field quoted when it needs to be (RFC 4180).
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

impl ProbeRenderer for Csv {
    fn devices(&mut self, out: &mut dyn Write, devices: &[DeviceInfo]) -> io::Result<()> {
        writeln!(
            out,
            "index,name,driver,driver_version,api_version,device_type,float16,float64"
        )?;
        for d in devices {
            writeln!(
                out,
                "{},{},{},{},{},{},{},{}",
                d.index,
                field(&d.name),
                field(&d.driver),
                field(&d.driver_version),
                d.api_version,
                d.device_type,
                d.float16,
                d.float64
            )?;
        }
        Ok(())
    }

    fn findings(&mut self, out: &mut dyn Write, r: &Findings) -> io::Result<()> {
        writeln!(
            out,
            "op,format,lines,conform,violate,max_ulps,classes,top_class,top_count,example,skipped,max_distance,via"
        )?;
        for op in &r.ops {
            let top = op.classes.first();
            writeln!(
                out,
                "{},{},{},{},{},{},{},{},{},{},{},{},{}",
                op.name,
                field(&op.format),
                op.lines,
                op.conform,
                op.violate,
                op.max_ulps,
                op.classes.len(),
                field(&top.map_or(String::new(), |c| c.class.to_string())),
                top.map_or(String::new(), |c| c.count.to_string()),
                field(top.map_or("", |c| &c.example)),
                field(op.skipped.as_deref().unwrap_or("")),
                if op.skipped.is_some() {
                    String::new()
                } else {
                    op.max_distance.to_string()
                },
                op.via,
            )?;
        }
        // `--list`: a second table after a blank line, as `ulp-diff --files --list` has.
        if r.ops.iter().any(|o| !o.violations.is_empty()) {
            writeln!(out)?;
            writeln!(out, "op,format,index,class")?;
            for op in &r.ops {
                for v in &op.violations {
                    writeln!(
                        out,
                        "{},{},{},{}",
                        op.name,
                        field(&op.format),
                        v.index,
                        field(&v.class.map(|c| c.to_string()).unwrap_or_default())
                    )?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_one_row_per_instruction() {
        let mut buf = Vec::new();
        Csv.findings(&mut buf, &crate::judge::findings::sample())
            .unwrap();
        let text = String::from_utf8(buf).unwrap();
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows.len(), 7);
        assert!(rows[0].starts_with("op,format,lines"));
        assert_eq!(
            rows[2],
            "add,f32,10,7,3,1,1,f32 denormal operand not flushed,3,d3dfloat op add 0x00000001 0x00000001 --check 0x00000002,,5,direct"
        );
        assert!(rows[3].ends_with(",device has no shaderFloat64,,direct"));
        // The listed violations, after a blank line.
        assert_eq!(
            rows[4..],
            [
                "",
                "op,format,index,class",
                "add,f32,4,f32 denormal operand not flushed"
            ][..]
        );
    }
}
