"""Direct3D floating-point formats, rounding and verdicts on numpy arrays.

The Python face of the d3dfloat library (the ``python/`` crate of its repository; see
``python/README.md`` and ``docs/`` there): every function runs the library's own code, so
every bit and every verdict is the one the ``d3dfloat`` command line gives.

Formats are named as on the command line: ``f64``, ``f32``, ``f16``, ``f11``, ``f10``
(also ``half``, ``float``, ...), ``r11g11b10`` and ``rgb9e5`` (and their DXGI names).
Rounding modes: ``rne`` (IEEE nearest-even, overflow to infinity), ``rtz`` (toward zero,
overflow to the largest finite value; ``d3d`` is an alias: D3D's float-to-float conversion
rule, spec 3.2.2), ``rtp`` and ``rtn`` (toward +/- infinity).

Bit patterns travel in the format's unsigned type: uint16 for f16, f11 and f10 (in the
low bits; a pattern wider than the format is refused), uint32 for f32 and the packed
words, uint64 for f64.

Functions:

- :func:`encode`, :func:`decode`: values to a float format's patterns and back;
- :func:`pack`, :func:`unpack`: RGB values to R11G11B10 / RGB9E5 words and back;
- :func:`ulp_distance`: distances on a format's value line (the ``ulp-diff`` rules; their
  magnitudes, or with ``signed=True`` the signed distances ``ulp-diff`` prints);
- :func:`classify`: sign, exponent and fraction fields and the class of patterns;
- :func:`read_image`, :func:`write_image`, :func:`write_dds`: the DDS, KTX2, EXR, PFM and
  HDR files ``convert`` handles;
- :func:`check`, :func:`allowed`: a device's results judged against the D3D rules;
- :func:`check_program`, :func:`program_interval`: the same for whole shader expressions
  and instruction sequences (``d3dfloat op --asm`` / ``op --expr``).

Arrays are read as numpy means them, element by element in C (row-major) order of their
shape, whatever their memory: C-contiguous arrays in the machine's byte order are read in
place (not copied); Fortran-ordered (``a.T``), strided or reversed views, unaligned
memory, and arrays of the other byte order (``>f4`` on a little-endian machine), are
gathered into that order in blocks (a byte swap keeps every bit, NaN payloads included),
so each gives exactly the answer its C-ordered copy gives without that copy being made
(``classify``, ``ulp_distance``, ``check`` and ``allowed`` do make it, in one pass).
The interpreter lock is released while the library runs, large arrays use every core,
and ``check`` and ``allowed`` stop with ``KeyboardInterrupt`` within a second of Ctrl-C. The functions are plain functions of arrays, so they run
inside ``dask.array.map_blocks`` or a Ray task unchanged.
"""

from __future__ import annotations

import numpy as np

from . import _native

__all__ = [
    "CLASSES",
    "DEFAULT_MAX_PIXELS",
    "allowed",
    "check",
    "check_program",
    "classify",
    "decode",
    "encode",
    "pack",
    "program_interval",
    "read_image",
    "ulp_distance",
    "unpack",
    "write_dds",
    "write_image",
]

__version__: str = _native.__version__

#: Class names, indexed by the codes :func:`classify` returns.
CLASSES: tuple = tuple(_native.CLASSES)
#: The most pixels an .exr or .hdr header may declare by default (as ``convert --max-pixels``).
DEFAULT_MAX_PIXELS: int = _native.DEFAULT_MAX_PIXELS
# The defaults of rounding=, rules=, compression= and quality=, as the core defines them
# (the command line takes the same ones).
_DEFAULTS: dict = dict(_native.DEFAULTS)
# The violations check_program lists by default (as ``op --limit``).
_DEFAULT_LIMIT: int = _native.DEFAULT_LIMIT


def encode(values, fmt, rounding=_DEFAULTS["rounding"], saturate=False, counts=False):
    """Round float32 or float64 ``values`` into float format ``fmt``'s bit patterns.

    Exactly what ``d3dfloat encode --fmt FMT --rounding R`` and ``d3dfloat convert`` give
    each value. Returns an array of the same shape: uint16 for f16, f11 and f10, uint32
    for f32, uint64 for f64. ``saturate=True`` keeps finite values finite (overflow gives
    the largest finite value in every mode). With ``counts=True`` returns
    ``(patterns, counts)``, where counts is a dict of the ``convert --json`` counts
    (``saturated``, ``overflow_to_infinity``, ``flushed_to_zero``, ``nan_in``, ...).

    >>> encode(np.array([1.0, 0.1, 70000.0], np.float32), "f16", "rtz")
    array([15360, 11878, 31743], dtype=uint16)
    """
    return _native.encode(values, fmt, rounding, saturate, counts)


def decode(bits, fmt, dtype=None):
    """Decode float format ``fmt``'s bit patterns to values, exactly.

    ``bits`` is uint16 (f16, f11, f10), uint32 (f32) or uint64 (f64). Returns float32
    values (float64 for f64, or with ``dtype="float64"``). f32 subnormals are kept, and
    so are NaNs as they are: the sign, the payload (widened into the top of the wider
    fraction) and a signalling NaN's clear quiet bit (f32 0x7f800001 decodes to the
    float32 of those bits, not to the quieted 0x7fc00001 ``encode`` would write).
    """
    return _native.decode(bits, fmt, dtype)


def pack(rgb, fmt, rounding=_DEFAULTS["rounding"], saturate=False, counts=False):
    """Pack a (..., 3) RGB array (or (..., 4) RGBA, alpha dropped) into uint32 words.

    ``fmt`` is ``r11g11b10`` (each channel rounded into f11, f11, f10 as ``encode`` does;
    ``saturate=True`` or ``rounding="d3d"`` keep out-of-range values finite) or ``rgb9e5``
    (the shared exponent of spec 19.3.2; always saturates). Returns shape (...). With
    ``counts=True`` returns ``(words, counts)``.
    """
    return _native.pack(rgb, fmt, rounding, saturate, counts)


def unpack(words, fmt, dtype=None):
    """Unpack uint32 ``r11g11b10`` or ``rgb9e5`` words to (..., 3) float32 RGB, exactly."""
    return _native.unpack(words, fmt, dtype)


def ulp_distance(a, b, fmt, flush_subnormals=True, signed=False):
    """The distance from ``a`` to ``b`` on ``fmt``'s value line, element by element.

    The ``d3dfloat ulp-diff`` rules: the number of representable values between the two
    (+0 and -0 are one point, infinity is one step past the largest finite value); f32
    subnormals count as zero as D3D arithmetic reads them (``flush_subnormals=False``
    keeps them); packed words give the largest channel distance. ``a`` and ``b`` are
    patterns (the format's unsigned type, or for f16/f32/f64 the float array itself).

    Returns ``(distance, nan)``: uint64 magnitudes, and a boolean mask of the elements
    where either side is NaN (their distance is 0 and means nothing). With
    ``signed=True`` the distances are int64 and signed as ``ulp-diff`` prints them
    (negative when ``b`` lies below ``a``; for packed words the first channel of largest
    magnitude); a distance beyond int64 (f64 values most of the line apart) raises
    ``ValueError``.
    """
    return _native.ulp_distance(a, b, fmt, flush_subnormals, signed)


def classify(bits, fmt):
    """Sign, exponent and fraction fields and the class of every pattern of ``fmt``.

    Returns a dict of arrays: ``sign`` (bool), ``exponent`` (uint16, the biased field),
    ``fraction`` (uint64), ``class`` (uint8 codes into :data:`CLASSES`) and ``names``
    (the class names as a string array).
    """
    out = _native.classify(bits, fmt)
    out["names"] = np.asarray(CLASSES)[out["class"]]
    return out


def read_image(path, max_pixels=DEFAULT_MAX_PIXELS):
    """Read a .dds, .ktx2, .exr, .pfm or .hdr file as a (height, width, channels) array.

    The container is chosen by the name's extension, as ``convert`` chooses it. EXR (first
    RGB(A) layer) and HDR give float32 RGBA, as ``convert`` reads them, with the same
    ``max_pixels`` limit; PFM gives float32 with 1 (grey) or 3 (RGB) channels, rows from
    the top. A DDS or KTX2 file gives its first layer's largest level: float32 or float16
    texels as stored, R11G11B10 and RGB9E5 unpacked exactly to float32 RGB, BC6H blocks
    decoded to float16 RGBA. Errors are ``convert``'s one-line messages prefixed with the
    file's name (``ValueError`` for a file that cannot be read as asked, ``OSError`` for
    the operating system's).
    """
    return _native.read_image(path, max_pixels)


def write_image(
    path,
    array,
    fmt="f32",
    rounding=_DEFAULTS["rounding"],
    saturate=False,
    counts=False,
    compression=_DEFAULTS["compression"],
    quality=_DEFAULTS["quality"],
):
    """Write a (height, width[, channels]) float32/float64 array as an image file.

    The container is the one the name's extension names: ``.dds``, ``.ktx2``, ``.exr`` or
    ``.pfm``; any other name (``.png``, ``.hdr``, none) is refused with ``ValueError``
    rather than written in a form its name does not promise. ``fmt`` is the texel format:
    ``f32``/``f16`` (as many channels as the container holds), ``r11g11b10``/``rgb9e5``
    (.dds and .ktx2; 3 or 4 channels, alpha dropped), or ``bc6h_uf16``/``bc6h_sf16``
    (.dds and .ktx2; the values rounded to f16, then encoded at ``quality``: ``fast``,
    ``normal`` or ``slow``). An .exr holds f16 or f32 in 1 (Y), 3 (RGB) or 4 (RGBA)
    channels, compressed by ``compression`` (``none``, ``zip``, ``piz``; all lossless); a
    .pfm holds f32 in 1 or 3 channels. What a container cannot hold is a ``ValueError``
    naming it. The file is what ``d3dfloat convert X --to FMT -o path`` writes for that
    image; with ``counts=True`` returns the conversion's counts.
    """
    return _native.write_image(
        path, array, fmt, rounding, saturate, counts, compression, quality
    )


def write_dds(path, array, fmt, rounding=_DEFAULTS["rounding"], saturate=False, counts=False):
    """Write a (height, width[, channels]) float32/float64 array as a DDS texture.

    ``fmt`` is the texel format: ``f32``/``f16`` (1, 2, 3 or 4 channels as DXGI has them)
    or ``r11g11b10``/``rgb9e5`` (3 or 4 channels, alpha dropped), rounded as ``encode`` and
    ``pack`` do. The file is what ``d3dfloat convert X --to FMT -o out.dds`` writes. A name
    whose extension promises another kind of file (``.exr``, ``.ktx2``, ``.png``, ...) is
    refused with ``ValueError``: :func:`write_image` chooses by the extension. With
    ``counts=True`` returns the conversion's counts.
    """
    return _native.write_dds(path, array, fmt, rounding, saturate, counts)


def check(op, operands, result, fmt="f32", rules=_DEFAULTS["rules"]):
    """Judge a device's results of instruction ``op`` against the D3D rules.

    ``operands`` is one array per source operand (a single array for a unary instruction),
    all of one shape: one line per element, or for dp2-dp4 one line per row of shape
    ``(..., n)`` (n components), or flat ``(lines * n,)`` as a buffer holds them; a
    ``(n, lines)`` stack of components is refused. ``result`` has the lines' shape
    (sincos: with a trailing axis of 2, sine then cosine), or is flat ``(lines * outputs,)``
    as read back from a buffer; any other shape is a ``ValueError`` (a ``(2, lines)``
    stack of sines and cosines is refused). Patterns or the float array of the working
    format ``fmt`` (f32, f16 or f64). Judged by the library's judge over slices, the
    ``d3dfloat op --check`` verdicts.

    Returns ``(conforms, summary)``: a boolean array, one per line, and a dict with
    ``lines``, ``conform``, ``violate``, ``max_ulps`` (largest distance of a conforming
    result from the correctly rounded one), ``max_distance``, ``classes`` (each kind of
    violation with its ``count``, ``first`` line and an ``example`` command line), and the
    distance ``histogram``.
    """
    return _native.check(op, operands, result, fmt, rules)


def allowed(op, operands, fmt="f32", rules=_DEFAULTS["rules"]):
    """The correctly rounded result and the bounds of the allowed set, line by line.

    Returns a dict of arrays in the result's pattern type: ``correct`` (what a strict
    implementation returns), ``lo`` and ``hi`` (the lowest and highest allowed pattern, in
    value order; the set may exclude values between them, such as flushed denormals), and
    ``nan`` (bool: any NaN is allowed). Through the exact engine of ``d3dfloat op``.
    """
    return _native.allowed(op, operands, fmt, rules)


def check_program(
    program,
    inputs,
    results,
    *,
    fmt="f32",
    rules=_DEFAULTS["rules"],
    expr=False,
    output=None,
    limit=_DEFAULT_LIMIT,
):
    """Judge a device's results of a whole shader program, element by element.

    ``program`` is shader assembly (``dp3 r0.x, v0.xyz, v0.xyz`` ..., instructions split
    by newlines or ``;``), or with ``expr=True`` an HLSL expression (``normalize(v)``),
    expanded into the instruction sequences compilers emit (a result conforms when one of
    them allows it). The result is the output register's written components (assembly:
    ``output=`` such as ``"r1"`` or ``"r1.xy"``, by default the last instruction's
    destination; an expression: its value, ``o0``).

    ``inputs`` is a dict: for assembly, input register names (``"v0"``) to arrays of shape
    ``(N, components)`` (as many as the program reads, x first) or ``(N,)`` for one; for
    an expression, variable names to such arrays (a variable's width is its array's
    second dimension, 1 for a 1-D array; the first variable given is ``v0``, the next
    ``v1``, ...). ``results`` is ``(N, output components)``, or ``(N,)`` for one. Arrays
    hold values (float32 for ``fmt="f32"``, float16 for ``fmt="f16"``) or the format's
    bit patterns (uint32, uint16), in any layout or byte order.

    Returns ``(conforms, summary)``: a boolean array of shape ``(N,)`` (every output
    component inside its interval) and a dict with ``elements``, ``conform``,
    ``violate``, ``fast`` (elements the fast decider settled), ``outputs`` (the output
    components' names) and ``violations``: the first ``limit`` violating components, each
    a dict with ``index``, ``component``, ``result``, ``lo`` and ``hi`` (bit patterns as
    ints; None when only NaN is allowed) and ``nan``. The verdicts of ``d3dfloat op --asm
    ... --operands ... --results ...``. Errors in the program, the registers or the
    shapes raise ``ValueError`` with the command line's message; a wrong dtype
    ``TypeError``.
    """
    return _native.check_program(program, inputs, results, fmt, rules, expr, output, limit)


def program_interval(
    program, inputs, *, fmt="f32", rules=_DEFAULTS["rules"], expr=False, output=None
):
    """The results a conforming implementation may return for one set of inputs.

    ``program``, ``expr`` and ``output`` as in :func:`check_program`; ``inputs`` a dict of
    register (or variable) names to their components: a list, tuple or array of values
    (numbers, rounded to nearest even into ``fmt``; strings as the command line reads
    them, ``"0x3f800000"`` a bit pattern), or a uint32/uint16 (or float32/float16) numpy
    array of the format's patterns. ``program_interval("normalize(v)", {"v": [1, 2, 3]},
    expr=True)`` is ``d3dfloat op --expr 'normalize(v)' --input v=1,2,3``.

    Returns a list with one dict per output component: ``component`` (``"o0.x"``),
    ``lo`` and ``hi`` (the interval's ends as bit patterns, None when only NaN is
    allowed), ``nan``, ``ulps`` (its width), ``exact`` (the exact expression's value
    rounded to nearest, a bit pattern), ``exact_value`` (that value as a float) and ``set``
    (every pattern some chain of choices returns, ascending, when small enough to list;
    else None).
    """
    return _native.program_interval(program, inputs, fmt, rules, expr, output)
