"""Type stubs of d3dfloat: Direct3D floating-point formats, rounding and verdicts on numpy arrays."""

from os import PathLike
from typing import Any, Literal, Mapping, Optional, Sequence, Tuple, TypedDict, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str
CLASSES: Tuple[str, ...]
DEFAULT_MAX_PIXELS: int

Rounding = Literal["rne", "rtz", "rtp", "rtn", "d3d"]
FloatArray = Union[npt.NDArray[np.float32], npt.NDArray[np.float64]]
Patterns = Union[
    npt.NDArray[np.uint16],
    npt.NDArray[np.uint32],
    npt.NDArray[np.uint64],
    npt.NDArray[np.float16],
    npt.NDArray[np.float32],
    npt.NDArray[np.float64],
]
Path = Union[str, "PathLike[str]"]

class Counts(TypedDict):
    values: int
    inexact: int
    saturated: int
    overflow_to_infinity: int
    nan_in: int
    nan_out: int
    clamped_negative: int
    subnormal_out: int
    flushed_to_zero: int
    max_ulp_error: float

ViolationClass = TypedDict(
    "ViolationClass", {"class": str, "count": int, "first": int, "example": str}
)

class Summary(TypedDict):
    lines: int
    conform: int
    violate: int
    max_ulps: int
    max_distance: int
    nan_mismatches: int
    histogram: list[int]
    classes: list[ViolationClass]
    exact_engine: int

Fields = TypedDict(
    "Fields",
    {
        "sign": npt.NDArray[np.bool_],
        "exponent": npt.NDArray[np.uint16],
        "fraction": npt.NDArray[np.uint64],
        "class": npt.NDArray[np.uint8],
        "names": npt.NDArray[np.str_],
    },
)

class ProgramViolation(TypedDict):
    index: int
    component: str
    result: int
    lo: Optional[int]
    hi: Optional[int]
    nan: bool

class ProgramSummary(TypedDict):
    elements: int
    conform: int
    violate: int
    fast: int
    outputs: list[str]
    violations: list[ProgramViolation]

class ComponentInterval(TypedDict):
    component: str
    lo: Optional[int]
    hi: Optional[int]
    nan: bool
    ulps: int
    exact: int
    exact_value: float
    set: Optional[list[int]]

class Bounds(TypedDict):
    correct: npt.NDArray[Any]
    lo: npt.NDArray[Any]
    hi: npt.NDArray[Any]
    nan: npt.NDArray[np.bool_]

@overload
def encode(
    values: FloatArray,
    fmt: str,
    rounding: Rounding = ...,
    saturate: bool = ...,
    counts: Literal[False] = ...,
) -> npt.NDArray[Any]: ...
@overload
def encode(
    values: FloatArray,
    fmt: str,
    rounding: Rounding = ...,
    saturate: bool = ...,
    *,
    counts: Literal[True],
) -> Tuple[npt.NDArray[Any], Counts]: ...
def decode(
    bits: npt.NDArray[Any], fmt: str, dtype: Optional[Literal["float32", "float64"]] = ...
) -> FloatArray: ...
@overload
def pack(
    rgb: FloatArray,
    fmt: Literal["r11g11b10", "rgb9e5"],
    rounding: Rounding = ...,
    saturate: bool = ...,
    counts: Literal[False] = ...,
) -> npt.NDArray[np.uint32]: ...
@overload
def pack(
    rgb: FloatArray,
    fmt: Literal["r11g11b10", "rgb9e5"],
    rounding: Rounding = ...,
    saturate: bool = ...,
    *,
    counts: Literal[True],
) -> Tuple[npt.NDArray[np.uint32], Counts]: ...
def unpack(
    words: npt.NDArray[np.uint32],
    fmt: Literal["r11g11b10", "rgb9e5"],
    dtype: Optional[Literal["float32", "float64"]] = ...,
) -> FloatArray: ...
@overload
def ulp_distance(
    a: Patterns,
    b: Patterns,
    fmt: str,
    flush_subnormals: bool = ...,
    signed: Literal[False] = ...,
) -> Tuple[npt.NDArray[np.uint64], npt.NDArray[np.bool_]]: ...
@overload
def ulp_distance(
    a: Patterns,
    b: Patterns,
    fmt: str,
    flush_subnormals: bool = ...,
    *,
    signed: Literal[True],
) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]: ...
def classify(bits: Patterns, fmt: str) -> Fields: ...
def read_image(path: Path, max_pixels: int = ...) -> npt.NDArray[Any]: ...
def write_image(
    path: Path,
    array: FloatArray,
    fmt: str = ...,
    rounding: Rounding = ...,
    saturate: bool = ...,
    counts: bool = ...,
    compression: Literal["none", "zip", "piz"] = ...,
    quality: Literal["fast", "normal", "slow"] = ...,
) -> Optional[Counts]: ...
def write_dds(
    path: Path,
    array: FloatArray,
    fmt: str,
    rounding: Rounding = ...,
    saturate: bool = ...,
    counts: bool = ...,
) -> Optional[Counts]: ...
def check(
    op: str,
    operands: Union[Patterns, Sequence[Patterns]],
    result: Patterns,
    fmt: Literal["f32", "f16", "f64"] = ...,
    rules: Literal["d3d11", "d3d10"] = ...,
) -> Tuple[npt.NDArray[np.bool_], Summary]: ...
def allowed(
    op: str,
    operands: Union[Patterns, Sequence[Patterns]],
    fmt: Literal["f32", "f16", "f64"] = ...,
    rules: Literal["d3d11", "d3d10"] = ...,
) -> Bounds: ...
def check_program(
    program: str,
    inputs: Mapping[str, Patterns],
    results: Patterns,
    *,
    fmt: Literal["f32", "f16"] = ...,
    rules: Literal["d3d11", "d3d10"] = ...,
    expr: bool = ...,
    output: Optional[str] = ...,
    limit: int = ...,
) -> Tuple[npt.NDArray[np.bool_], ProgramSummary]: ...
def program_interval(
    program: str,
    inputs: Mapping[str, Union[Sequence[Union[float, str]], npt.NDArray[Any], float, str]],
    *,
    fmt: Literal["f32", "f16"] = ...,
    rules: Literal["d3d11", "d3d10"] = ...,
    expr: bool = ...,
    output: Optional[str] = ...,
) -> list[ComponentInterval]: ...
