"""Pillow's reading of a DDS file that d3dfloat wrote: prints "right pixels" when the
pixels Pillow gives are the expected ones, "refused: ..." when Pillow declines the file
with an error, and exits 1 with "wrong pixels: ..." when Pillow gives anything else (the
float texture read as 8-bit pixels, say). Exits 2 when Pillow is missing.

Usage: pillow_reads_dds.py FILE.dds V0,V1,... (the RGBA values in texel order)
"""

import sys
import warnings

# getdata() is deprecated in new Pillow; its answer is still the one to judge.
warnings.simplefilter("ignore", DeprecationWarning)

try:
    from PIL import Image
except ImportError as e:
    print(f"Pillow is missing ({e}): scripts/test installs it", file=sys.stderr)
    sys.exit(2)

path, expected_text = sys.argv[1], sys.argv[2]
expected = [float(v) for v in expected_text.split(",")]
try:
    with Image.open(path) as img:
        img.load()
        mode, size = img.mode, img.size
        data = list(img.getdata())
except Exception as e:  # Pillow's refusal: any error it raises on this file
    print(f"refused: {type(e).__name__}: {e}")
    sys.exit(0)

flat = []
for px in data:
    flat.extend(px if isinstance(px, tuple) else (px,))
if [float(v) for v in flat] == expected:
    print("right pixels")
    sys.exit(0)
print(f"wrong pixels: mode {mode}, size {size}, first {flat[:8]}, expected {expected[:8]}")
sys.exit(1)
