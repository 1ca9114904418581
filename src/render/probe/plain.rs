//! `probe --plain`: one line per instruction, `OP FORMAT LINES CONFORM VIOLATE MAX_ULPS
//! MAX_DISTANCE` (the largest distance of a conforming line, then of any line), or `OP
//! FORMAT skipped`, then `total LINES VIOLATE`. When the report holds a translated path
//! (`--via`), every instruction line ends with its path (`direct`, `vkd3d-shader`,
//! `dxbc-spirv`).

use std::io::{self, Write};

use super::ProbeRenderer;
use crate::judge::{DeviceInfo, Findings};
use crate::probe::paths;

pub struct Plain;

impl ProbeRenderer for Plain {
    fn devices(&mut self, out: &mut dyn Write, devices: &[DeviceInfo]) -> io::Result<()> {
        for d in devices {
            writeln!(out, "{} {}", d.index, d.name)?;
        }
        Ok(())
    }

    fn findings(&mut self, out: &mut dyn Write, r: &Findings) -> io::Result<()> {
        let named = paths::translated(r);
        for op in &r.ops {
            match op.skipped {
                Some(_) => write!(out, "{} {} skipped", op.name, op.format)?,
                None => write!(
                    out,
                    "{} {} {} {} {} {} {}",
                    op.name,
                    op.format,
                    op.lines,
                    op.conform,
                    op.violate,
                    op.max_ulps,
                    op.max_distance
                )?,
            }
            if named {
                write!(out, " {}", op.via)?;
            }
            writeln!(out)?;
        }
        writeln!(out, "total {} {}", r.lines(), r.violate())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_total() {
        let mut buf = Vec::new();
        Plain
            .findings(&mut buf, &crate::judge::findings::sample())
            .unwrap();
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "mul f32 10 10 0 1 1\nadd f32 10 7 3 1 5\ndadd f64 skipped\ntotal 20 3\n"
        );
    }
}
