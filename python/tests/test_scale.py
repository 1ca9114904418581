"""Zero-copy reads of contiguous arrays, and the functions inside dask."""

import os
import tracemalloc

import numpy as np
import pytest

import d3dfloat as d


def test_contiguous_input_is_not_copied():
    # numpy reports its allocations to tracemalloc; a copy of the 40 MB input (or of any
    # numpy temporary of its size) would show in the peak. The output is the library's
    # own vector, handed to numpy without a copy.
    values = np.linspace(-70000, 70000, 10_000_000, dtype=np.float32)
    bits = d.encode(values, "f16", "rtz")  # warm: first-call allocations are not counted
    tracemalloc.start()
    try:
        bits = d.encode(values, "f16", "rtz")
        d.decode(bits, "f16")
        d.pack(values[: 9_999_999].reshape(-1, 3), "r11g11b10")
        d.ulp_distance(values, values, "f32")
        d.check("sqrt", values, values)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < values.nbytes // 20, peak


def peak_rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def reset_peak_rss():
    # Linux 4.0 and later: writing 5 resets the peak resident size (VmHWM).
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


@pytest.mark.skipif(
    not os.access("/proc/self/clear_refs", os.W_OK), reason="needs Linux /proc/self/clear_refs"
)
def test_no_input_is_copied_whole_by_the_library_either():
    # tracemalloc sees numpy's allocations only; the process's peak resident size sees
    # the library's too. Any input costs its output (2 bytes a value) and no more: a
    # contiguous one is read in place, a strided view or an array of the other byte order
    # in blocks of 2^16 values a core (issue 38; these were copied whole, 100 MB here).
    n = 25_000_000
    values = np.linspace(-70000, 70000, n, dtype=np.float32)
    wide = np.zeros((n, 2), np.float32)
    swapped = values.astype(">f4")
    for v in (values, wide[:, 0], swapped):
        d.encode(v[:1000], "f16")
    grown = {}
    for name, v in (("contiguous", values), ("strided", wide[:, 0]), ("big-endian", swapped)):
        reset_peak_rss()
        base = peak_rss()
        out = d.encode(v, "f16", "rtz")
        grown[name] = peak_rss() - base
        del out
    for name, g in grown.items():
        # The output shows (so the measure sees the library's memory); a copy would not fit.
        assert 2 * n * 3 // 4 < g < 2 * n + values.nbytes // 4, (name, grown)


def test_strided_input_gives_the_same_answer_as_its_copy():
    values = np.linspace(-3, 3, 3000, dtype=np.float32).reshape(100, 30)
    view = values[::3, 1::2]
    assert not view.flags.c_contiguous
    assert np.array_equal(d.encode(view, "f11", "d3d"), d.encode(view.copy(), "f11", "d3d"))


def test_encode_inside_dask_map_blocks():
    da = pytest.importorskip("dask.array")
    import dask

    values = np.random.default_rng(2).standard_normal(1_000_000).astype(np.float32) * 1e4
    chunked = da.from_array(values, chunks=100_000)
    encoded = chunked.map_blocks(d.encode, "f16", "rtz", dtype=np.uint16)
    with dask.config.set(scheduler="threads"):
        got = encoded.compute()
    assert np.array_equal(got, d.encode(values, "f16", "rtz"))
    with dask.config.set(scheduler="processes", num_workers=2):
        got = encoded.compute()
    assert np.array_equal(got, d.encode(values, "f16", "rtz"))


def test_the_interpreter_runs_while_the_library_does():
    # allowed() on 6 x 10^5 divisions takes about a second in the exact engine. While it
    # runs in a thread, the main thread sleeps a little and runs Python: with the
    # interpreter lock held through the call it would wait for the call's end.
    import threading
    import time

    x = np.linspace(1, 2, 600_000, dtype=np.float32)
    y = x[::-1].copy()
    started = threading.Event()
    took = []

    def work():
        started.set()
        begin = time.perf_counter()
        d.allowed("div", [x, y])
        took.append(time.perf_counter() - begin)

    t = threading.Thread(target=work)
    t.start()
    started.wait()
    begin = time.perf_counter()
    time.sleep(0.05)  # the thread enters the call
    sum(range(10_000))
    elapsed = time.perf_counter() - begin
    alive = t.is_alive()
    t.join()
    assert alive and elapsed < took[0] / 2, (alive, elapsed, took)
