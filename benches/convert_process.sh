#!/usr/bin/env bash
# Whole-process benchmark of `d3dfloat convert` on a large raw f32 file, with `cat` of the
# same file as the baseline in the same run, and peak memory (max RSS) of each.
#
#   cargo build --release && benches/convert_process.sh [SIZE_MIB]    (default 1024)
#
# The input is made once (random f16 patterns widened to f32, so every value is in the
# range textures hold, NaN and infinity included) and kept in $BENCH_DIR; both programs
# read it from the page cache. Each timing is the best of 3.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MIB=${1:-1024}
BIN=${D3DFLOAT:-target/release/d3dfloat}
DIR=${BENCH_DIR:-/tmp/d3dfloat-bench}
mkdir -p "$DIR"
IN="$DIR/in-${SIZE_MIB}MiB.f32"
OUT="$DIR/out.bin"
if [ ! -f "$IN" ]; then
    head -c $((SIZE_MIB << 19)) /dev/urandom > "$DIR/seed.f16"
    "$BIN" convert --no-progress --from f16 --to f32 "$DIR/seed.f16" -o "$IN" 2>/dev/null
    rm -f "$DIR/seed.f16"
fi
cat "$IN" > /dev/null # Into the page cache.

# best_of LABEL CMD...: prints the best wall time of 3 runs and the peak RSS, in MiB.
best_of() {
    local label=$1 best= rss=0
    shift
    for _ in 1 2 3; do
        rm -f "$OUT"
        local log
        log=$( { /usr/bin/time -f '%e %M' "$@" > /dev/null 2>/dev/null; } 2>&1 | tail -1)
        local t=${log% *} kib=${log#* }
        if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
        [ "$kib" -gt "$rss" ] && rss=$kib
    done
    printf '%-40s %7.2f s %8.0f MiB/s  peak RSS %5d MiB\n' "$label" "$best" \
        "$(awk "BEGIN{print $SIZE_MIB / ($best > 0 ? $best : 0.001)}")" $((rss / 1024))
    LAST=$best
}

echo "input: $IN ($SIZE_MIB MiB of f32), $(nproc) cores"
best_of "cat IN > OUT (baseline)" sh -c "cat '$IN' > '$OUT'"
CAT=$LAST
for to in f16 r11g11b10 rgb9e5; do
    # Packed targets read RGBA texels (16 bytes): 2^k MiB is a whole number of them.
    best_of "d3dfloat convert f32 -> $to" "$BIN" convert --no-progress --from f32 --to "$to" \
        --channels 4 "$IN" -o "$OUT"
    awk "BEGIN{printf \"  = %.2fx the speed of cat\n\", $CAT / $LAST}"
done
rm -f "$OUT"
