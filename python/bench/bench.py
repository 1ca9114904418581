"""Speed of the Python package against numpy and the library, ratios in one run.

    target/py/bin/python python/bench/bench.py [--n 100000000] [--judge]

- encode(x, "f16", "rtz") of N float32 against numpy's x.astype(np.float16) (which can
  only round to nearest): goal at least 1.5x;
- pack(rgb, "r11g11b10") of N float32 values (N/3 texels) against astype(np.float16) of
  the same N values: goal at least 1x;
- check("sqrt", [x], r) on 2^24 lines, one core, against the judge in process on the
  same data (benches/judge.rs, `cargo bench --bench judge`, run here with --judge): goal
  within 2x. The check figure runs in a child process with RAYON_NUM_THREADS=1, as the
  Rust benchmark uses a one-thread pool;
- check_program("normalize(v)", ...) on 2^20 elements of float3, one core (a child
  process with RAYON_NUM_THREADS=1), the results a conforming device returns (rsq the
  nearest pattern or a neighbour), against numpy's copy of the same bytes in the same
  run: goal at least 5 M elements/s (issue 41; `cargo bench --bench program` is the same
  in process);
- pack and encode of strided, reversed, Fortran-ordered and big-endian arrays against
  the same values C-contiguous (``--layouts-only`` stops after these): goal at least 0.5x.

Best of three for each against numpy; each layout and its contiguous call alternately, the
best of each (at least three calls, half a second in all); the machine's cores are used as
the library uses them.
"""

import argparse
import os
import pathlib
import subprocess
import sys
import time

import numpy as np

import d3dfloat as d

ROOT = pathlib.Path(__file__).resolve().parents[2]


def best(f, repeat=3):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def paired(f, g, seconds=0.5, most=60):
    """The best time of f and of g, called alternately (at least 3 times each, until both
    together have run `seconds`): a ratio of two calls of a few milliseconds taken at
    different moments measures the machine's load as much as the code."""
    tf, tg = [], []
    while len(tf) < 3 or (sum(tf) + sum(tg) < seconds and len(tf) < most):
        for f_or_g, times in ((f, tf), (g, tg)):
            t = time.perf_counter()
            f_or_g()
            times.append(time.perf_counter() - t)
    return min(tf), min(tg)


def check_rate(lines):
    """M lines/s of check("sqrt") on the judge benchmark's typical data: values in
    [0, 100) with the results a conforming device returns."""
    rng = np.random.default_rng(0)
    x = (rng.random(lines, dtype=np.float32) * 100).astype(np.float32)
    r = np.sqrt(x)
    conforms, summary = d.check("sqrt", [x], r)
    assert summary["violate"] == 0
    return lines / best(lambda: d.check("sqrt", [x], r)) / 1e6


def program_rate(n):
    """M elements/s of check_program("normalize(v)") on `n` elements of float3 with
    components in [-100, 100], and numpy's copy of the same bytes (inputs and results)."""
    rng = np.random.default_rng(0x41)
    v = (rng.random((n, 3), dtype=np.float32) * 200 - 100 + 0.001).astype(np.float32)
    dot = (v[:, 0] * v[:, 0] + v[:, 1] * v[:, 1]) + v[:, 2] * v[:, 2]
    near = (1.0 / np.sqrt(dot.astype(np.float64))).astype(np.float32)
    step = rng.integers(-1, 2, n).astype(np.int32)
    s = (near.view(np.int32) + step).view(np.float32)
    r = (s[:, None] * v).astype(np.float32)
    conforms, summary = d.check_program("normalize(v)", {"v": v}, r, expr=True)
    assert summary["violate"] == 0, summary
    t = best(lambda: d.check_program("normalize(v)", {"v": v}, r, expr=True))
    both = np.concatenate([v, r], axis=1)
    copy = best(lambda: both.copy())
    return n / t / 1e6, n / copy / 1e6


def judge_rate():
    """The sqrt f32 typical row of `cargo bench --bench judge` (M lines/s, one core)."""
    out = subprocess.run(
        ["cargo", "bench", "--quiet", "--bench", "judge"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for line in out.splitlines():
        f = line.split()
        if f[:3] == ["sqrt", "f32", "typical"]:
            return float(f[3])
    raise SystemExit("no sqrt f32 typical row in the judge benchmark's output:\n" + out)


def layouts(x, n):
    """pack and encode on arrays that are not C-contiguous, against the same values
    contiguous, in the same run (issue 38: goal at least 0.5x, the contiguous speed
    halved at worst). The README's own example slices RGB out of RGBA like this. Such
    arrays are gathered into C order in blocks and converted by the same kernels; a
    strided view still reads all the memory it spans (rgba[:, 0] reads 16 bytes a value
    where its copy reads 4), which bounds its ratio where memory bandwidth bounds both."""
    rgba = np.abs(x[: n // 4 * 4]).reshape(-1, 4)
    rgb_view = rgba[:, :3]  # a strided slice
    rgb = np.ascontiguousarray(rgb_view)
    pack_c = lambda: d.pack(rgb, "r11g11b10")  # noqa: E731
    plane = rgba[:, 0]
    plane_c = np.ascontiguousarray(plane)
    encode_plane = lambda: d.encode(plane_c, "f16", "rtz")  # noqa: E731
    encode_x = lambda: d.encode(x, "f16", "rtz")  # noqa: E731
    # Each layout made before the clock starts.
    reversed_rows, fortran, big_endian = rgb[::-1], np.asfortranarray(rgb), rgb.astype(">f4")
    reversed_x, big_endian_x = x[::-1], x.astype(">f4")
    cases = [
        ("pack, rgba[:, :3] (strided)", lambda: d.pack(rgb_view, "r11g11b10"), pack_c),
        ("pack, reversed rows", lambda: d.pack(reversed_rows, "r11g11b10"), pack_c),
        ("pack, Fortran order", lambda: d.pack(fortran, "r11g11b10"), pack_c),
        ("pack, big-endian", lambda: d.pack(big_endian, "r11g11b10"), pack_c),
        ("encode, rgba[:, 0] (strided)", lambda: d.encode(plane, "f16", "rtz"), encode_plane),
        ("encode, x[::-1] (reversed)", lambda: d.encode(reversed_x, "f16", "rtz"), encode_x),
        ("encode, x big-endian", lambda: d.encode(big_endian_x, "f16", "rtz"), encode_x),
    ]
    # Each layout is timed alternately with its contiguous call (`paired`).
    print(f"{'layout (x its contiguous speed)':34} {'seconds':>8} {'contig.':>8} {'ratio':>6} goal")
    for name, f, contiguous in cases:
        t_contiguous, t = paired(contiguous, f)
        ratio = t_contiguous / t
        print(
            f"{name:34} {t:8.4f} {t_contiguous:8.4f} {ratio:6.2f} >= 0.5x "
            f"{'ok' if ratio >= 0.5 else 'MISSED'}"
        )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000_000)
    ap.add_argument("--judge", action="store_true", help="also run cargo bench --bench judge")
    ap.add_argument("--check-only", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--program-only", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--layouts-only", action="store_true",
                    help="stop after the array-layout ratios (issue 38)")
    args = ap.parse_args()
    if args.check_only:
        print(check_rate(args.check_only))
        return
    if args.program_only:
        print(*program_rate(args.program_only))
        return

    n = args.n - args.n % 3
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(n, dtype=np.float32) * 1000).astype(np.float32)
    print(f"{n} float32 values, {os.cpu_count()} cores, numpy {np.__version__}")

    t_np = best(lambda: x.astype(np.float16))
    t_rtz = best(lambda: d.encode(x, "f16", "rtz"))
    t_rne = best(lambda: d.encode(x, "f16"))
    rgb = np.abs(x).reshape(-1, 3)
    t_pack = best(lambda: d.pack(rgb, "r11g11b10"))
    rows = [
        ("numpy astype(float16)", t_np, None),
        ('encode(x, "f16", "rtz")', t_rtz, 1.5),
        ('encode(x, "f16") (rne)', t_rne, None),
        ('pack(rgb, "r11g11b10")', t_pack, 1.0),
    ]
    print(f"{'':28} {'seconds':>8} {'M values/s':>11} {'x numpy':>8} goal")
    for name, t, goal in rows:
        ratio = t_np / t
        mark = "" if goal is None else (f">= {goal}x " + ("ok" if ratio >= goal else "MISSED"))
        print(f"{name:28} {t:8.3f} {n / t / 1e6:11.1f} {ratio:8.2f} {mark}")

    layouts(x, n)
    if args.layouts_only:
        return

    lines = 1 << 24
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    one_core = float(
        subprocess.run(
            [sys.executable, __file__, "--check-only", str(lines)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    all_cores = check_rate(lines)
    print(f'check("sqrt", [x], r), {lines} lines: {one_core:.1f} M lines/s on one core, '
          f"{all_cores:.1f} on every core")
    elements = 1 << 20
    rate, copy = map(float, subprocess.run(
        [sys.executable, __file__, "--program-only", str(elements)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split())
    print(f'check_program("normalize(v)"), {elements} float3 elements, one core: '
          f"{rate:.2f} M elements/s, numpy's copy of the same bytes {copy:.1f} M elements/s, "
          f"ratio {rate / copy:.4f} (goal >= 5 M elements/s: {'ok' if rate >= 5 else 'MISSED'})")
    if args.judge:
        judge = judge_rate()
        ratio = judge / one_core
        print(f"judge in process (cargo bench --bench judge, sqrt f32 typical, one core): "
              f"{judge:.1f} M lines/s; check takes {ratio:.2f}x the judge's time (goal "
              f"<= 2x: {'ok' if ratio <= 2 else 'MISSED'})")


if __name__ == "__main__":
    main()
