#!/usr/bin/env bash
# Builds KTX-Software 4.0.0, Khronos' reference KTX 2.0 library, with its validator
# ktx2check, and links tests/ktx_software/ktx_tool.c (a driver that writes and reads KTX2
# files through libktx) against it, into target/ktx-software/bin: tests/container_interop.rs
# validates every KTX2 file `convert` writes with ktx2check, reads them with libktx, and
# reads the files libktx writes.
#
# Where the source comes from: Debian 12 does not package KTX-Software, PyPI's pyktx has
# no Linux wheel (and needs libktx), and GitHub is not reachable from every machine this
# runs on. The crates.io package libktx-rs-sys 0.3.3+v4.0.0 carries the KTX-Software
# v4.0.0 source tree (Apache-2.0); cargo fetches it (checking it against the crates.io
# index's checksum, and here against the SHA-256 below), and cmake builds it. Needs cmake
# and a C++ compiler (scripts/install-translators.sh installs cmake). About 3 minutes on
# 2 cores; skipped when the tools are built and this script and ktx_tool.c are unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/ktx-software
crate=libktx-rs-sys
version=0.3.3+v4.0.0
sha256=e31f79d7157896e5b3140fc210bfcb033a8271d0d6af32e0e4fcc7761d10cb32
stamp="$out/stamp"
want="$version $(sha256sum "$0" tests/ktx_software/ktx_tool.c | cut -c1-64 | tr '\n' ' ')"
if [ -x "$out/bin/ktx2check" ] && [ -x "$out/bin/ktx_tool" ] && [ -e "$stamp" ] &&
    [ "$(cat "$stamp")" = "$want" ]; then
    exit 0
fi
for tool in cmake c++ cc; do
    if ! command -v "$tool" > /dev/null; then
        echo "install-ktx-software: $tool is missing; KTX-Software's tests will be skipped" >&2
        exit 0
    fi
done
echo "install-ktx-software: building KTX-Software $version into $out (a few minutes)" >&2
rm -rf "$out"
mkdir -p "$out/fetch/src" "$out/bin"
cat > "$out/fetch/Cargo.toml" << EOF
[package]
name = "ktx-software-source"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
$crate = { version = "=$version", default-features = false }

[workspace]
EOF
: > "$out/fetch/src/lib.rs"
cargo fetch --quiet --manifest-path "$out/fetch/Cargo.toml"
archive=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/"$crate-$version.crate" | head -n1)
if [ "$(sha256sum "$archive" | cut -c1-64)" != "$sha256" ]; then
    echo "install-ktx-software: $archive is not the archive this script was written for" >&2
    exit 1
fi
tar -xzf "$archive" -C "$out"
src="$out/$crate-$version/build/KTX-Software"
jobs=$(nproc 2> /dev/null || echo 2)
cmake -S "$src" -B "$out/build" -DCMAKE_BUILD_TYPE=Release -DKTX_FEATURE_TESTS=OFF \
    -DKTX_FEATURE_DOC=OFF -DKTX_FEATURE_STATIC_LIBRARY=ON > "$out/cmake.log" 2>&1 ||
    { tail -n 30 "$out/cmake.log" >&2; exit 1; }
cmake --build "$out/build" --parallel "$jobs" --target ktx2check > "$out/build.log" 2>&1 ||
    { tail -n 30 "$out/build.log" >&2; exit 1; }
cp "$out/build/tools/ktx2check/ktx2check" "$out/bin/"
cc -O1 -I"$src/include" tests/ktx_software/ktx_tool.c "$out/build/libktx.a" \
    -lstdc++ -lm -lpthread -o "$out/bin/ktx_tool"
# The source tree and objects are not needed any more: only the two tools are kept.
rm -rf "$out/build" "$out/$crate-$version" "$out/fetch"
echo "$want" > "$stamp"
