//! Streaming conversion of raw little-endian data of any size in constant memory. With
//! several cores, a reader stage fills chunks, the calling thread converts each chunk on
//! every core (rayon over slices of it), a writer stage writes them out, with a few
//! buffers recycled among them ([`Stage`]). On one core (a pipeline pinning each conversion to its
//! own core, `taskset -c 0`) threads only add hand-offs, so one loop reads, converts and
//! writes small chunks that stay in the core's own cache.

use std::io::{Read, Write};

use rayon::prelude::*;

use crate::threads::Stage;

use super::{Conversion, ConvertError, Stats, kernels};
use crate::io::{PageBuf, read_full};

/// Input plus output bytes of one chunk; three chunks are in flight at most (one being
/// read, one converted, one written), so memory stays near 3 x this whatever the input.
/// Small enough that the chunks in flight stay in the last-level cache between the read
/// copy, the conversion and the write copy (the sizes tried: docs/benchmarks.md).
const CHUNK_BYTES: usize = 4 << 20;
/// Input plus output bytes of one chunk on one core: about a core's L2 cache, so that
/// the read copy leaves most of the input where the conversion reads it. The size of
/// the writes matters more: on ext4 writes under about 128 KiB cost a one-core run more
/// than the cache gains (the sizes tried: docs/benchmarks.md).
const SERIAL_CHUNK_BYTES: usize = 3 << 19;
/// Bytes of input one rayon task converts.
const TASK_BYTES: usize = 256 << 10;

/// Source bytes per chunk of `bytes` input plus output: a whole number of groups, and a
/// multiple of 4096 groups, so that both the input and the output chunks are whole pages.
/// Then every read and write starts at a file offset on a page, as the buffers
/// ([`PageBuf`]) do, and Linux copies between them at full speed (reads off the
/// buffer's alignment are slower: docs/benchmarks.md, round 6).
fn chunk_len(conv: &Conversion, bytes: usize) -> usize {
    const GROUPS: usize = 4096;
    let (sg, dg) = (conv.src_group_bytes(), conv.dst_group_bytes());
    (bytes / (sg + dg) / GROUPS).max(1) * GROUPS * sg
}

/// Converts slices in parallel and adds up their counts.
pub fn convert_parallel(conv: &Conversion, src: &[u8], dst: &mut [u8]) -> Stats {
    let simd = kernels::Simd::detect();
    let (sg, dg) = (conv.src_group_bytes(), conv.dst_group_bytes());
    let groups = (TASK_BYTES / sg).max(1);
    src.par_chunks(groups * sg)
        .zip(dst.par_chunks_mut(groups * dg))
        .map(|(s, d)| {
            let mut stats = Stats::default();
            kernels::convert_slice_at(simd, conv, s, d, &mut stats);
            stats
        })
        .reduce(Stats::default, |mut a, b| {
            a.merge(&b);
            a
        })
}

/// Converts everything `input` holds into `output` (named `names.0` and `names.1` in
/// errors). `progress` is called with the input bytes done so far after each chunk. A
/// total that is not a whole number of groups is an error once the end is reached
/// (callers that know the size check it first).
pub fn convert_stream(
    conv: &Conversion,
    input: &mut (dyn Read + Send),
    output: &mut (dyn Write + Send),
    names: (&str, &str),
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Stats, ConvertError> {
    if rayon::current_num_threads() == 1 {
        return convert_serial(conv, input, output, names, progress);
    }
    let len = chunk_len(conv, CHUNK_BYTES);
    // Three stages: a reader fills the input chunks it is sent, this thread converts each
    // on every core, a writer writes the output chunks and hands them back. Two chunks of
    // each side are alive at most. When the system refuses a thread, its stage runs here,
    // in turn: the same chunks in the same order.
    let read = |mut buf: PageBuf| -> std::io::Result<(PageBuf, usize)> {
        let n = read_full(&mut *input, &mut buf)?;
        Ok((buf, n))
    };
    let write = |(buf, n): (PageBuf, usize)| -> std::io::Result<PageBuf> {
        output.write_all(&buf[..n])?;
        Ok(buf)
    };
    let (read, converted, written) = std::thread::scope(|scope| {
        let mut writer = Stage::start(scope, "convert-writer", 1, true, write);
        let mut reader = Stage::start(scope, "convert-reader", 1, true, read);
        reader.send(PageBuf::zeroed(len));
        let mut spare_input = Some(PageBuf::zeroed(len));
        let mut fresh_outputs = 2;
        let mut stats = Stats::default();
        let mut total: u64 = 0;
        let converted = (|| -> Result<(), ConvertError> {
            while let Some((buf, n)) = reader.recv() {
                // A short chunk is the input's end: nothing more is read after it.
                let last = n < len;
                if !last {
                    let next = spare_input.take();
                    reader.send(next.unwrap_or_else(|| PageBuf::zeroed(len)));
                }
                total += n as u64;
                whole_groups(conv, n, total)?;
                let mut dst = if fresh_outputs > 0 {
                    fresh_outputs -= 1;
                    PageBuf::zeroed(conv.dst_len(buf.len()))
                } else {
                    match writer.recv() {
                        Some(b) => b,
                        None => break, // the writer failed; its error is reported
                    }
                };
                let m = conv.dst_len(n);
                stats.merge(&convert_parallel(conv, &buf[..n], &mut dst[..m]));
                if !writer.send((dst, m)) {
                    break;
                }
                progress(total);
                spare_input = Some(buf);
                if last {
                    break;
                }
            }
            Ok(())
        })();
        (reader.finish(), converted.map(|()| stats), writer.finish())
    });
    // The first failure in stream order: reading, then converting, then writing.
    read.map_err(|e| reading(names.0, e))?;
    let stats = converted?;
    written
        .and_then(|()| output.flush())
        .map_err(|e| writing(names.1, e))?;
    Ok(stats)
}

/// [`convert_stream`] on one thread: the same chunks in the same order, and the same
/// errors (the first failure in stream order).
fn convert_serial(
    conv: &Conversion,
    input: &mut (dyn Read + Send),
    output: &mut (dyn Write + Send),
    names: (&str, &str),
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Stats, ConvertError> {
    let len = chunk_len(conv, SERIAL_CHUNK_BYTES);
    let simd = kernels::Simd::detect();
    let mut src = PageBuf::zeroed(len);
    let mut dst = PageBuf::zeroed(conv.dst_len(len));
    let mut stats = Stats::default();
    let mut total: u64 = 0;
    loop {
        let n = read_full(input, &mut src).map_err(|e| reading(names.0, e))?;
        total += n as u64;
        whole_groups(conv, n, total)?;
        let m = conv.dst_len(n);
        kernels::convert_slice_at(simd, conv, &src[..n], &mut dst[..m], &mut stats);
        output
            .write_all(&dst[..m])
            .map_err(|e| writing(names.1, e))?;
        progress(total);
        if n < len {
            break;
        }
    }
    output.flush().map_err(|e| writing(names.1, e))?;
    Ok(stats)
}

/// A chunk of `n` bytes, `total` in all so far, must be whole groups: a stream that ends
/// inside one is truncated.
fn whole_groups(conv: &Conversion, n: usize, total: u64) -> Result<(), ConvertError> {
    let group = conv.src_group_bytes();
    if n.is_multiple_of(group) {
        return Ok(());
    }
    Err(ConvertError::Truncated {
        size: total,
        group,
        what: conv.src_group_name(),
    })
}

fn reading(name: &str, e: std::io::Error) -> ConvertError {
    ConvertError::io(format!("reading {name}"), e)
}

fn writing(name: &str, e: std::io::Error) -> ConvertError {
    ConvertError::io(format!("writing {name}"), e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F10, F11, F16, F32, F64, Format, RoundOptions, Rounding};

    /// Every conversion's chunks, in both drivers, are whole pages on both sides (so reads
    /// and writes stay on the buffers' alignment) and fit the budget they were cut from.
    #[test]
    fn chunks_are_whole_pages_within_their_budget() {
        let formats = [F64, F32, F16, F11, F10]
            .map(Format::Float)
            .into_iter()
            .chain([Format::R11G11B10, Format::Rgb9e5]);
        let opts = RoundOptions::new(Rounding::NearestEven);
        for from in formats.clone() {
            for to in formats.clone() {
                for channels in [3, 4] {
                    let conv = Conversion::new(from, to, channels, opts).unwrap();
                    for budget in [SERIAL_CHUNK_BYTES, CHUNK_BYTES] {
                        let src = chunk_len(&conv, budget);
                        let dst = conv.dst_len(src);
                        let what = format!("{} -> {} x{channels}", from.name(), to.name());
                        assert_eq!(src % 4096, 0, "{what}: {src}");
                        assert_eq!(dst % 4096, 0, "{what}: {dst}");
                        assert_eq!(src % conv.src_group_bytes(), 0, "{what}");
                        assert!(src + dst <= budget, "{what}: {src} + {dst}");
                        assert!(src + dst > budget * 3 / 4, "{what}: {src} + {dst}");
                    }
                }
            }
        }
    }
}
