"""check_program and program_interval: whole shader programs, as `op --asm` / `op --expr`."""

import json

import numpy as np
import pytest

import d3dfloat as d

NORMALIZE_ASM = """
dp3 r0.x, v0.xyzx, v0.xyzx
rsq r0.x, r0.x
mul r1.xyz, r0.xxxx, v0.xyzx
"""
N = 3000


def vectors(n=N, seed=7):
    rng = np.random.default_rng(seed)
    v = rng.uniform(-100.0, 100.0, size=(n, 3)).astype(np.float32)
    v[v == 0] = 1.0
    return v


def device_normalize(v):
    """What a conforming device returns: dp3 as sequential float32 multiply/adds, rsq as
    float32(1/sqrt(float64)), the products in float32."""
    v = v.astype(np.float32)
    x, y, z = v[:, 0], v[:, 1], v[:, 2]
    dot = np.float32(x * x)
    dot = np.float32(dot + np.float32(y * y))
    dot = np.float32(dot + np.float32(z * z))
    rsq = (1.0 / np.sqrt(dot.astype(np.float64))).astype(np.float32)
    return (v * rsq[:, None]).astype(np.float32)


def moved(results, where, component=1, ulps=64):
    bits = results.view(np.uint32).copy()
    bits[where, component] += ulps
    return bits.view(np.float32)


def test_normalize_asm_conforms():
    v = vectors()
    ok, s = d.check_program(NORMALIZE_ASM, {"v0": v}, device_normalize(v))
    assert ok.shape == (N,) and ok.dtype == np.bool_ and ok.all()
    assert s["elements"] == N and s["conform"] == N and s["violate"] == 0
    assert s["violations"] == [] and s["outputs"] == ["r1.x", "r1.y", "r1.z"]


def test_normalize_expr_conforms():
    v = vectors(seed=8)
    ok, s = d.check_program("normalize(v)", {"v": v}, device_normalize(v), expr=True)
    assert ok.all() and s["conform"] == N
    assert s["outputs"] == ["o0.x", "o0.y", "o0.z"]


@pytest.mark.parametrize("expr", [False, True])
def test_moved_results_violate_at_exactly_those_indices(expr):
    v = vectors(seed=9)
    where = np.array([0, 5, 17, 1234, N - 1])
    bad = moved(device_normalize(v), where)
    if expr:
        ok, s = d.check_program("normalize(v)", {"v": v}, bad, expr=True)
        name = "o0.y"
    else:
        ok, s = d.check_program(NORMALIZE_ASM, {"v0": v}, bad)
        name = "r1.y"
    assert list(np.flatnonzero(~ok)) == list(where)
    assert s["violate"] == len(where) and s["conform"] == N - len(where)
    assert [x["index"] for x in s["violations"]] == list(where)
    bits = bad.view(np.uint32)
    for x in s["violations"]:
        assert x["component"] == name
        assert x["result"] == int(bits[x["index"], 1])
        lo, hi = np.array([x["lo"], x["hi"]], np.uint32).view(np.float32)
        assert lo <= hi and x["nan"] is False  # patterns in value order
    # limit= keeps the first violations; the verdicts still cover every element.
    ok2, s2 = d.check_program(NORMALIZE_ASM, {"v0": v}, bad, limit=2)
    assert [x["index"] for x in s2["violations"]] == list(where[:2])
    assert list(np.flatnonzero(~ok2)) == list(where) and s2["violate"] == len(where)


def test_verdicts_agree_with_the_command_line(cli):
    v = vectors(n=40, seed=10)
    res = device_normalize(v)
    res = moved(res, np.array([1, 3]), component=0, ulps=64)
    res = moved(res, np.array([2]), component=2, ulps=3)  # within a few ULPs, maybe inside
    ok, _ = d.check_program(NORMALIZE_ASM, {"v0": v}, res)
    vb, rb = v.view(np.uint32), res.view(np.uint32)
    for i in range(6):
        out = cli(
            "op",
            "--asm",
            NORMALIZE_ASM,
            "--input",
            "v0=" + ",".join(f"0x{b:08x}" for b in vb[i]),
            "--check",
            ",".join(f"0x{b:08x}" for b in rb[i]),
            "--json",
            check=False,
        )
        lines = [json.loads(x) for x in out.stdout.splitlines() if x.strip()]
        assert len(lines) == 3, out.stderr
        assert all(x["conforms"] for x in lines) == bool(ok[i]), i
    assert not ok[1] and not ok[3]


def test_program_interval_agrees_with_the_command_line(cli):
    got = d.program_interval("normalize(float3(1, 2, 3))", {}, expr=True)
    out = cli("op", "--expr", "normalize(float3(1, 2, 3))", "--json")
    lines = [json.loads(x) for x in out.stdout.splitlines() if x.strip()]
    assert [g["component"] for g in got] == [x["component"] for x in lines]
    assert [g["component"] for g in got] == ["o0.x", "o0.y", "o0.z"]
    key = lambda b: np.array([b], np.uint32).view(np.float32)[0]
    for g, x in zip(got, lines):
        assert g["lo"] == int(x["lo"], 16) and g["hi"] == int(x["hi"], 16)
        assert g["exact"] == int(x["exact"], 16) and g["nan"] == x["nan"]
        assert key(g["lo"]) <= key(g["exact"]) <= key(g["hi"])
        assert g["exact_value"] == pytest.approx(float(key(g["exact"])), rel=1e-6)
        if g["set"] is not None:
            assert [f"0x{b:08x}" for b in g["set"]] == x["set"]
    # The same through a variable, an array of values, patterns and assembly.
    for inputs in ({"v": [1, 2, 3]}, {"v": np.array([1.0, 2.0, 3.0])}, {"v": ["1", "2", "3"]}):
        assert d.program_interval("normalize(v)", inputs, expr=True) == got
    pats = {"v0": np.array([1.0, 2.0, 3.0], np.float32).view(np.uint32)}
    asm = d.program_interval(NORMALIZE_ASM, pats)
    assert [(a["lo"], a["hi"]) for a in asm] == [(g["lo"], g["hi"]) for g in got]


def test_f16_inputs():
    v = vectors(n=500, seed=11) / np.float32(10)
    v16 = v.astype(np.float16)
    # A device working in f16: every operation rounded to f16 (within the f16 rules).
    w = v16.astype(np.float32)
    dot = np.float16(w[:, 0] * w[:, 0]).astype(np.float32)
    dot = np.float16(dot + np.float16(w[:, 1] * w[:, 1])).astype(np.float32)
    dot = np.float16(dot + np.float16(w[:, 2] * w[:, 2])).astype(np.float32)
    rsq = np.float16(1.0 / np.sqrt(dot.astype(np.float64))).astype(np.float32)
    res = (w * rsq[:, None]).astype(np.float16)
    ok, s = d.check_program("normalize(v)", {"v": v16}, res, fmt="f16", expr=True)
    assert s["elements"] == 500 and ok.all(), s["violations"][:3]
    ok2, _ = d.check_program(
        NORMALIZE_ASM, {"v0": v16.view(np.uint16)}, res.view(np.uint16), fmt="f16"
    )
    assert ok2.all()
    bad = res.view(np.uint16).copy()
    bad[7, 0] += 64
    ok3, s3 = d.check_program(NORMALIZE_ASM, {"v0": v16}, bad, fmt="f16")
    assert list(np.flatnonzero(~ok3)) == [7] and s3["violations"][0]["component"] == "r1.x"
    one = d.program_interval("normalize(v)", {"v": [1, 2, 3]}, fmt="f16", expr=True)
    assert all(x["lo"] < 0x10000 and x["hi"] < 0x10000 for x in one)


def test_layouts_and_byte_orders_give_the_same_verdicts():
    v = vectors(n=1000, seed=12)
    res = moved(device_normalize(v), np.array([3, 500, 999]), component=2)
    want, _ = d.check_program(NORMALIZE_ASM, {"v0": v}, res)
    assert list(np.flatnonzero(~want)) == [3, 500, 999]
    fortran = {"v0": np.asfortranarray(v)}
    assert np.array_equal(d.check_program(NORMALIZE_ASM, fortran, np.asfortranarray(res))[0], want)
    big = {"v0": v.astype(">f4")}
    assert np.array_equal(d.check_program(NORMALIZE_ASM, big, res.astype(">f4"))[0], want)
    bits = {"v0": v.view(np.uint32).astype(">u4")}
    assert np.array_equal(d.check_program(NORMALIZE_ASM, bits, res.view(np.uint32))[0], want)
    # A wider array (.w unread) and a strided view read the same components.
    wide = np.concatenate([v, np.ones((1000, 1), np.float32)], axis=1)
    assert np.array_equal(d.check_program(NORMALIZE_ASM, {"v0": wide}, res)[0], want)
    stacked = np.stack([v, v])[:, :, :][0]
    assert np.array_equal(d.check_program(NORMALIZE_ASM, {"v0": stacked[::1]}, res)[0], want)
    expr_fortran = d.check_program("normalize(v)", {"v": np.asfortranarray(v)}, res, expr=True)
    assert np.array_equal(expr_fortran[0], want)


def test_scalar_columns_and_output_selection():
    rng = np.random.default_rng(13)
    a = rng.uniform(-10, 10, 200).astype(np.float32)
    b = rng.uniform(-10, 10, 200).astype(np.float32)
    ok, s = d.check_program("a * b + a", {"a": a, "b": b}, (a * b + a).astype(np.float32), expr=True)
    assert s["outputs"] == ["o0.x"] and s["elements"] == 200
    # mul then add rounded separately is one of the sequences, so all conform.
    assert ok.all()
    prog = "mul r0.x, v0.x, v1.x\nadd r1.x, r0.x, v0.x"
    ok2, s2 = d.check_program(prog, {"v0": a, "v1": b}, a * b, output="r0.x")
    assert ok2.all() and s2["outputs"] == ["r0.x"]
    ok3, _ = d.check_program(prog, {"v0": a, "v1": b}, (a * b)[:, None], output="r0")
    assert ok3.all()


@pytest.mark.parametrize(
    "call, err, text",
    [
        (lambda v: d.check_program("dp3 r0.x, v0.xyzx", {"v0": v}, v[:, 0]), ValueError, "instruction"),
        (lambda v: d.check_program("bogus r0.x, v0.x", {"v0": v}, v[:, 0]), ValueError, "bogus"),
        (lambda v: d.check_program(NORMALIZE_ASM, {"v1": v}, v), ValueError, "v1"),
        (lambda v: d.check_program(NORMALIZE_ASM, {"x0": v}, v), ValueError, "not an input register"),
        (lambda v: d.check_program(NORMALIZE_ASM, {"v0": v}, v[:, :2]), ValueError, "(N, 3)"),
        (lambda v: d.check_program(NORMALIZE_ASM, {"v0": v[:5]}, v), ValueError, "elements"),
        (lambda v: d.check_program(NORMALIZE_ASM, {"v0": v[:, :2]}, v), ValueError, "component"),
        (lambda v: d.check_program(NORMALIZE_ASM, {"v0": v.reshape(2, 5, 3)}, v), ValueError, "shape"),
        (lambda v: d.check_program(NORMALIZE_ASM, {"v0": v}, v, output="r7"), ValueError, "r7"),
        (lambda v: d.check_program(NORMALIZE_ASM, {"v0": v}, v, fmt="f64"), ValueError, "f32 or f16"),
        (lambda v: d.check_program(NORMALIZE_ASM, {"v0": v}, v, rules="d3d9"), ValueError, "d3d9"),
        (lambda v: d.check_program("normalize(v)", {"v": v}, v, expr=True, output="o0"), ValueError, "output"),
        (lambda v: d.check_program("normalize(q)", {"v": v}, v, expr=True), ValueError, "expression"),
        (lambda v: d.check_program(NORMALIZE_ASM, {"v0": v.astype(np.float64)}, v), TypeError, "float32"),
        (lambda v: d.check_program(NORMALIZE_ASM, {"v0": v}, v.astype(np.float16)), TypeError, "uint32"),
        (lambda v: d.program_interval(NORMALIZE_ASM, {"v0": [1, 2]}), ValueError, "v0"),
        (lambda v: d.program_interval(NORMALIZE_ASM, {"v0": ["zz", 1, 2]}), ValueError, "zz"),
        (lambda v: d.program_interval(NORMALIZE_ASM, {"v0": [1, 2, 3, 4, 5]}), ValueError, "four"),
        (lambda v: d.program_interval(NORMALIZE_ASM, {"v0": [True, 1, 2]}), TypeError, "bool"),
        (lambda v: d.program_interval("", {}), ValueError, "no instruction"),
    ],
)
def test_errors(call, err, text):
    v = vectors(n=10)
    with pytest.raises(err, match=None) as e:
        call(v)
    assert text in str(e.value), str(e.value)


def test_signals_are_checked_and_large_buffers_work():
    # Several blocks (the pace grows from 4096 elements): every element judged once.
    v = np.tile(vectors(n=1000, seed=14), (20, 1))
    res = device_normalize(v)
    ok, s = d.check_program(NORMALIZE_ASM, {"v0": v}, res, limit=0)
    assert ok.all() and s["elements"] == 20000 and s["violations"] == []
