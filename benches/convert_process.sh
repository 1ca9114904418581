#!/usr/bin/env bash
# Whole-process benchmark of `d3dfloat convert` on a large raw f32 file, with `cat` of the
# same file as the baseline in the same run, peak memory (max RSS) and user time of each
# (the least of the runs: the conversion's own cost, where wall time carries the
# machine's write-back noise): first on
# every core, then on one core (`taskset -c 0` for both d3dfloat and cat), which is what
# a pipeline running many conversions side by side gets.
#
#   cargo build --release && benches/convert_process.sh [SIZE_MIB]    (default 1024)
#
# Environment: D3DFLOAT (the binary, default target/release/d3dfloat), BENCH_DIR (where the
# inputs are made and kept, default /tmp/d3dfloat-bench), RUNS (runs per timing, the best
# kept; default 3, more on a noisy machine), FLOOR and CONVERT_BENCH (see below).
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
# cache. Each timing is the best of $RUNS.
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE_MIB=${1:-1024}
BIN=${D3DFLOAT:-target/release/d3dfloat}
RUNS=${RUNS:-3}
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

# The timed cases, in the order printed: a label and the command's words, where a word
# that starts with IN or OUT starts with the input's or the output's path instead.
LABELS=()
COMMANDS=()
add_case() {
    LABELS+=("$1")
    shift
    # The words joined by the unit separator, which no word holds.
    local IFS=$'\x1f'
    COMMANDS+=("$*")
}
add_case "cat IN > OUT (baseline)" sh -c 'cat "$0" > "$1"' IN OUT
add_case "floor f16: the reads and writes only" "$FLOOR" io IN OUT
add_case "floor f16: half crate, no counts" "$FLOOR" f16 IN OUT
for to in f16 r11g11b10 rgb9e5; do
    # Packed targets read RGBA texels (16 bytes): 2^k MiB is a whole number of them.
    add_case "d3dfloat convert f32 -> $to" "$BIN" convert --no-progress --from f32 --to "$to" \
        --channels 4 IN -o OUT
done
for to in f16 r11g11b10 rgb9e5; do
    add_case "d3dfloat convert f32 -> $to, random" "$BIN" convert --no-progress --from f32 \
        --to "$to" --channels 4 IN.random -o OUT
done

# run_all PREFIX...: every case under PREFIX, one after the other, $RUNS times, so that a
# slow spell of a shared machine falls on all of them alike; then the best wall time of
# each, its speed against cat's (the best times' ratio, and the median of the ratios run
# by run), its peak RSS (in MiB) and its least user time. Each timed run follows an
# untimed run of the same case: on ext4 (Linux 6.18) a 1 GiB write right after another
# program's run often took cat 0.5-0.8 s instead of 0.33 s, so every case is timed in
# the state its own previous run left.
run_all() {
    local -a best rss user walls
    local i run t0 t1 kib t u words
    # User time of the run (its children's, from getrusage), in ms: what the conversion
    # itself costs, which the writes' noise barely touches.
    local TIMEFORMAT='%3U'
    for run in $(seq "$RUNS"); do
        for i in "${!COMMANDS[@]}"; do
            IFS=$'\x1f' read -r -a words <<< "${COMMANDS[$i]}"
            words=("${words[@]/#IN/$IN}")
            words=("${words[@]/#OUT/$OUT}")
            # Each run starts with nothing left to write back from the one before (its
            # output deleted and synced), or the write-back of one falls on the next.
            rm -f "$OUT"
            sync
            "$@" "${words[@]}" > /dev/null 2>&1
            rm -f "$OUT"
            sync
            # Wall time in nanoseconds around the run (time's %e has 10 ms steps), peak
            # RSS from time's %M, user time from bash's `time`.
            t0=$(date +%s%N)
            { time /usr/bin/time -f '%M' -o "$DIR/time.log" "$@" "${words[@]}" \
                > /dev/null 2>&1; } 2> "$DIR/user.log"
            t1=$(date +%s%N)
            kib=$(tail -1 "$DIR/time.log")
            t=$(((t1 - t0) / 1000))
            u=$(awk '{printf "%d", $1 * 1000}' "$DIR/user.log")
            walls[i]="${walls[$i]:-} $t"
            if [ "$run" = 1 ] || [ "$t" -lt "${best[$i]}" ]; then best[i]=$t; fi
            if [ "$run" = 1 ] || [ "$kib" -gt "${rss[$i]}" ]; then rss[i]=$kib; fi
            if [ "$run" = 1 ] || [ "$u" -lt "${user[$i]}" ]; then user[i]=$u; fi
        done
    done
    for i in "${!COMMANDS[@]}"; do
        printf '%-42s %7.3f s %8.0f MiB/s  peak RSS %5d MiB  user %4d ms' "${LABELS[$i]}" \
            "$(awk "BEGIN{print ${best[$i]} / 1e6}")" \
            "$(awk "BEGIN{print $SIZE_MIB * 1e6 / ${best[$i]}}")" $((rss[i] / 1024)) \
            "${user[$i]}"
        if [ "$i" -gt 0 ]; then
            awk "BEGIN{printf \"  = %.2fx cat\", ${best[0]} / ${best[$i]}}"
            # The median over the runs of cat's time in a run over this case's: a slow
            # spell that falls on one run moves it less than the best times' ratio.
            awk -v c="${walls[0]}" -v t="${walls[$i]}" 'BEGIN {
                n = split(c, cs, " "); split(t, ts, " ")
                for (k = 1; k <= n; k++) r[k] = cs[k] / ts[k]
                for (k = 2; k <= n; k++) for (j = k; j > 1 && r[j - 1] > r[j]; j--) {
                    x = r[j]; r[j] = r[j - 1]; r[j - 1] = x
                }
                m = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
                printf "  (run by run: median %.2fx)", m
            }'
        fi
        echo
    done
}

echo "input: $IN ($SIZE_MIB MiB of f32), $(nproc) cores, best of $RUNS runs"
echo "== every core"
run_all env
if command -v taskset > /dev/null; then
    echo "== one core (taskset -c 0, cat too)"
    run_all taskset -c 0
else
    echo "== one core: skipped (no taskset)"
fi
rm -f "$OUT"
rm -f "$DIR/time.log" "$DIR/user.log"
