"""check and allowed against `d3dfloat op`: the same verdict on every line of a log."""

import json

import numpy as np
import pytest

import d3dfloat as d

RNG = np.random.default_rng(1131)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

N = 3000


def operands(n):
    """f32 operands: ordinary values, denormals, zeros, infinities and NaNs."""
    x = (RNG.standard_normal(n) * 2.0 ** RNG.integers(-20, 20, n)).astype(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-41, 1.0], np.float32)
    pick = RNG.random(n) < 0.05
    x[pick] = RNG.choice(special, pick.sum())
    return x


def claimed(correct):
    """Results a device might return: the correct one, or a few ULPs off."""
    off = RNG.integers(-3, 4, correct.size).astype(np.int64)
    return (correct.view(np.uint32).astype(np.int64) + off).astype(np.uint32)


def log_lines(op, args, results):
    cols = [a.view(np.uint32) for a in args]
    return "".join(
        f"{op} " + " ".join(f"0x{int(c[i]):08x}" for c in cols) + f" = 0x{int(results[i]):08x}\n"
        for i in range(results.size)
    )


CASES = {
    "add": (2, lambda a, b: a + b),
    "mul": (2, lambda a, b: a * b),
    "div": (2, lambda a, b: a / b),
    "mad": (3, lambda a, b, c: a * b + c),
    "sqrt": (1, lambda a: np.sqrt(np.abs(a))),
    "rsq": (1, lambda a: 1 / np.sqrt(np.abs(a))),
    "exp": (1, lambda a: np.exp2(a)),
}


@pytest.mark.parametrize("op", sorted(CASES))
def test_check_gives_op_checks_verdict_on_every_line(cli, op):
    arity, f = CASES[op]
    args = [operands(N) for _ in range(arity)]
    if op in ("sqrt", "rsq"):
        args = [np.abs(args[0])]
    if op == "exp":
        args = [np.clip(args[0], -130, 130)]
    results = claimed(f(*args).astype(np.float32))
    out = cli("op", "--plain", input=log_lines(op, args, results), check=False)
    want = [line == "conforms" for line in out.stdout.split()]
    assert len(want) == N, out.stderr
    conforms, summary = d.check(op, args if arity > 1 else args[0], results)
    assert conforms.tolist() == want
    assert summary["lines"] == N and summary["conform"] == sum(want)
    assert summary["violate"] == N - sum(want)
    assert sum(c["count"] for c in summary["classes"]) == summary["violate"]
    for c in summary["classes"]:
        assert c["example"].startswith(f"d3dfloat op {op}")


def test_check_takes_float_arrays_and_patterns_alike():
    a = operands(1000)
    r = np.sqrt(np.abs(a)).astype(np.float32)
    by_value, _ = d.check("sqrt", np.abs(a), r)
    by_bits, _ = d.check("sqrt", np.abs(a).view(np.uint32), r.view(np.uint32))
    assert by_value.tolist() == by_bits.tolist()


def test_f16_and_vector_instructions():
    a = RNG.standard_normal((500, 3)).astype(np.float16)
    b = RNG.standard_normal((500, 3)).astype(np.float16)
    r = (a.astype(np.float32) * b.astype(np.float32)).sum(axis=1).astype(np.float16)
    conforms, summary = d.check("dp3", [a, b], r, fmt="f16")
    assert conforms.shape == (500,) and summary["lines"] == 500


def test_allowed_brackets_the_correct_result_and_agrees_with_check():
    a, b = operands(2000), operands(2000)
    bounds = d.allowed("add", [a, b])
    correct = bounds["correct"]
    ok, _ = d.check("add", [a, b], correct)
    assert ok.all()
    # 1 + 2^-24 is a tie: both neighbours conform (the library's own example).
    one = np.array([1.0], np.float32)
    tie = d.allowed("add", [one, np.array([2.0**-24], np.float32)])
    assert (tie["lo"][0], tie["hi"][0]) == (0x3F800000, 0x3F800001)
    assert not tie["nan"][0]
    nan = d.allowed("add", [one, np.array([np.nan], np.float32)])
    assert nan["nan"][0]


def test_allowed_against_op_on_the_command_line(cli):
    a = np.abs(operands(300))
    bounds = d.allowed("sqrt", a)
    lines = "".join(f"sqrt 0x{int(x):08x}\n" for x in a.view(np.uint32))
    out = cli("op", "--json", input=lines).stdout.splitlines()
    assert len(out) == a.size
    for i, line in enumerate(out):
        rec = json.loads(line)
        assert int(rec["preferred"], 16) == int(bounds["correct"][i]), rec
        assert rec["nan_allowed"] == bool(bounds["nan"][i]), rec
        if rec["allowed"]:  # sqrt of a positive: ranges ascend in value and in bits
            assert int(rec["allowed"][0][0], 16) == int(bounds["lo"][i]), rec
            assert int(rec["allowed"][-1][1], 16) == int(bounds["hi"][i]), rec
