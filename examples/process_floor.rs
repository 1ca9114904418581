//! The whole-process floor for `benches/convert_process.sh`: the least a program can do to
//! turn a raw f32 file into f16 on one core, timed beside `cat` and `d3dfloat convert` in
//! the same run. It reads the file in the chunks the tool's one-core loop uses, converts
//! each with the `half` crate's slice conversion (F16C where the CPU has it) and writes it
//! straight to the output: no counts, no checks, no temporary file. Its buffers start on
//! a page, as the tool's do (`d3dfloat::io::PageBuf`): Linux copies into a buffer 16
//! bytes off at about half the speed. Its output's disk is reserved first, by the tool's
//! own `reserve` (`fallocate` on Linux): ext4 then writes 512 MiB 30-35 ms faster.
//!
//!   process_floor f16 IN OUT     the conversion above
//!   process_floor io IN OUT      the same reads and writes with no conversion (the
//!                                first half of each chunk is written as it is)

use std::fs::File;
use std::io::{Read, Write};

use d3dfloat::io::PageBuf;
use half::slice::{HalfBitsSliceExt, HalfFloatSliceExt};

/// Input bytes per chunk: the input share of the tool's one-core chunk (1.5 MiB of input
/// and output together, two thirds of it input for f32 -> f16).
const CHUNK: usize = 1 << 20;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, mode, input, output] = args.as_slice() else {
        eprintln!("usage: process_floor f16|io IN OUT");
        std::process::exit(2);
    };
    let convert = mode == "f16";
    let mut input = File::open(input)?;
    let mut output = File::create(output)?;
    // The tool's reservation (a hint: a file system that cannot is written as it comes).
    d3dfloat::output_file::reserve(&output, 0, input.metadata()?.len() / 2)?;
    let mut src_bytes = PageBuf::zeroed(CHUNK);
    let mut dst_bytes = PageBuf::zeroed(CHUNK / 2);
    loop {
        let n = read_full(&mut input, &mut src_bytes)?;
        let values = n / 4;
        if convert {
            let src: &[f32] = bytemuck::cast_slice(&src_bytes[..values * 4]);
            let dst: &mut [u16] = bytemuck::cast_slice_mut(&mut dst_bytes[..values * 2]);
            dst.reinterpret_cast_mut::<half::f16>()
                .convert_from_f32_slice(src);
            output.write_all(&dst_bytes[..values * 2])?;
        } else {
            output.write_all(&src_bytes[..values * 2])?;
        }
        if n < CHUNK {
            return Ok(());
        }
    }
}

/// Fills `buf` unless the file ends first; returns the bytes read.
fn read_full(r: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..])? {
            0 => break,
            k => filled += k,
        }
    }
    Ok(filled)
}
