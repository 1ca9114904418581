"""Reads an image that d3dfloat wrote with an independent reader and prints what it
found as one JSON object, the values as bit patterns (so a comparison is exact):

  read_containers.py exr FILE   OpenEXR's own Python binding (the `OpenEXR` package):
                                {"width", "height", "compression", "channels":
                                 {name: {"type": "half"|"float", "bits": [...]}}}
  read_containers.py pfm FILE   numpy, from the PFM layout (header, then float32 rows
                                from the bottom up, byte order by the scale's sign):
                                {"width", "height", "channels", "bits": [...] top row first}

Exits 2, saying which, when the package is missing (scripts/test installs both).
"""

import json
import sys

try:
    import numpy as np
except ImportError as e:
    print(f"numpy is missing ({e}): scripts/test installs it", file=sys.stderr)
    sys.exit(2)

mode, path = sys.argv[1], sys.argv[2]

if mode == "exr":
    try:
        import OpenEXR
    except ImportError as e:
        print(f"OpenEXR is missing ({e}): scripts/test installs it", file=sys.stderr)
        sys.exit(2)
    with OpenEXR.File(path, separate_channels=True) as f:
        header = f.header()
        lo, hi = header["dataWindow"]
        channels = {}
        for name, ch in f.channels().items():
            px = np.ascontiguousarray(ch.pixels)
            kind = {np.dtype("float16"): "half", np.dtype("float32"): "float"}[px.dtype]
            bits = px.view(np.uint16 if kind == "half" else np.uint32)
            channels[name] = {"type": kind, "bits": [int(b) for b in bits.ravel()]}
        print(json.dumps({
            "width": int(hi[0] - lo[0] + 1),
            "height": int(hi[1] - lo[1] + 1),
            "compression": str(header["compression"]),
            "channels": channels,
        }))
elif mode == "pfm":
    with open(path, "rb") as f:
        data = f.read()
    fields, at = [], 0
    while len(fields) < 4:
        while data[at:at + 1].isspace():
            at += 1
        start = at
        while not data[at:at + 1].isspace():
            at += 1
        fields.append(data[start:at].decode())
    at += 1  # the one white-space byte before the floats
    kind, width, height, scale = fields[0], int(fields[1]), int(fields[2]), float(fields[3])
    channels = 3 if kind == "PF" else 1
    dtype = np.dtype("<f4") if scale < 0 else np.dtype(">f4")
    values = np.frombuffer(data, dtype=dtype, offset=at).reshape(height, width, channels)
    top_down = np.flipud(values).astype("<f4")
    print(json.dumps({
        "width": width,
        "height": height,
        "channels": channels,
        "bits": [int(b) for b in top_down.view(np.uint32).ravel()],
    }))
else:
    sys.exit(f"unknown mode {mode}")
