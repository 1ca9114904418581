#!/usr/bin/env bash
# Whole-process benchmark of `d3dfloat convert` on a large raw f32 file, with `cat` of the
# same file as the baseline in the same run, and peak memory (max RSS) of each: first on
# every core, then on one core (`taskset -c 0` for both d3dfloat and cat), which is what
# a pipeline running many conversions side by side gets.
#
#   cargo build --release && benches/convert_process.sh [SIZE_MIB]    (default 1024)
#
# Environment: D3DFLOAT (the binary, default target/release/d3dfloat), BENCH_DIR (where the
# inputs are made and kept, default /tmp/d3dfloat-bench), FLOOR and CONVERT_BENCH (see
# below).
#
# Beside cat, a floor for f32 -> f16 from examples/process_floor.rs (built here): the same
# reads and writes with the `half` crate's conversion and nothing else (no counts, checks
# or temporary file; its output's disk reserved first, as the tool's is), and the reads and
# writes alone. No f32 -> f16 program reading with read(2) can beat the second, and the
# first is the best single-purpose code.
#
# Two inputs are made once and kept in $BENCH_DIR: texture-like values (the figures that
# matter) and random f16 patterns widened to f32 (NaN, INF, subnormals and negatives
# everywhere: the exact lane code's worst case). Both programs read them from the page
# cache. Each timing is the best of 3.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MIB=${1:-1024}
BIN=${D3DFLOAT:-target/release/d3dfloat}
DIR=${BENCH_DIR:-/tmp/d3dfloat-bench}
mkdir -p "$DIR"
IN="$DIR/in-${SIZE_MIB}MiB.f32"
OUT="$DIR/out.bin"
# On a machine without cargo, FLOOR and CONVERT_BENCH name prebuilt binaries of
# examples/process_floor.rs and benches/convert.rs.
if [ -z "${FLOOR:-}" ]; then
    cargo build -q --release --example process_floor
    FLOOR=target/release/examples/process_floor
fi
if [ ! -f "$IN" ]; then
    # Texture-like values (see sample_f32 in benches/convert.rs).
    if [ -n "${CONVERT_BENCH:-}" ]; then
        "$CONVERT_BENCH" --write-sample "$IN" "$SIZE_MIB" > /dev/null
    else
        cargo bench -q --bench convert -- --write-sample "$IN" "$SIZE_MIB" > /dev/null
    fi
fi
if [ ! -f "$IN.random" ]; then
    # Adversarial: random f16 patterns widened to f32 (NaN, INF, subnormals, negatives).
    head -c $((SIZE_MIB << 19)) /dev/urandom > "$DIR/seed.f16"
    "$BIN" convert --no-progress --from f16 --to f32 "$DIR/seed.f16" -o "$IN.random" 2>/dev/null
    rm -f "$DIR/seed.f16"
fi
cat "$IN" > /dev/null # Into the page cache.

# best_of LABEL CMD...: prints the best wall time of 3 runs and the peak RSS, in MiB.
best_of() {
    local label=$1 best= rss=0
    shift
    for _ in 1 2 3; do
        rm -f "$OUT"
        # Wall time in nanoseconds around the run (time's %e has 10 ms steps), peak RSS
        # from time's %M.
        local t0 t1
        t0=$(date +%s%N)
        /usr/bin/time -f '%M' -o "$DIR/time.log" "$@" > /dev/null 2>&1
        t1=$(date +%s%N)
        local kib t
        kib=$(tail -1 "$DIR/time.log")
        t=$(awk "BEGIN{print ($t1 - $t0) / 1e9}")
        if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
        [ "$kib" -gt "$rss" ] && rss=$kib
    done
    printf '%-40s %7.3f s %8.0f MiB/s  peak RSS %5d MiB\n' "$label" "$best" \
        "$(awk "BEGIN{print $SIZE_MIB / ($best > 0 ? $best : 0.001)}")" $((rss / 1024))
    LAST=$best
}

# run_all PREFIX...: cat, then every conversion of both inputs, each under PREFIX.
run_all() {
    best_of "cat IN > OUT (baseline)" "$@" sh -c "cat '$IN' > '$OUT'"
    local cat=$LAST
    best_of "floor f16: the reads and writes only" "$@" "$FLOOR" io "$IN" "$OUT"
    awk "BEGIN{printf \"  = %.2fx the speed of cat\n\", $cat / $LAST}"
    best_of "floor f16: half crate, no counts" "$@" "$FLOOR" f16 "$IN" "$OUT"
    awk "BEGIN{printf \"  = %.2fx the speed of cat\n\", $cat / $LAST}"
    for data in "$IN" "$IN.random"; do
        echo "-- $(basename "$data")"
        for to in f16 r11g11b10 rgb9e5; do
            # Packed targets read RGBA texels (16 bytes): 2^k MiB is a whole number of them.
            best_of "d3dfloat convert f32 -> $to" "$@" "$BIN" convert --no-progress --from f32 \
                --to "$to" --channels 4 "$data" -o "$OUT"
            awk "BEGIN{printf \"  = %.2fx the speed of cat\n\", $cat / $LAST}"
        done
    done
}

echo "input: $IN ($SIZE_MIB MiB of f32), $(nproc) cores"
echo "== every core"
run_all env
if command -v taskset > /dev/null; then
    echo "== one core (taskset -c 0, cat too)"
    run_all taskset -c 0
else
    echo "== one core: skipped (no taskset)"
fi
rm -f "$OUT"
rm -f "$DIR/time.log"
