#!/usr/bin/env bash
# Installs what `probe --via` needs and its tests use, from Debian's packages, when missing:
# - libvkd3d-shader1: vkd3d-shader, which `--via vkd3d-shader` loads at run time;
# - vkd3d-compiler and spirv-tools: the tests' independent checks of the DXBC the probe
#   writes (vkd3d's own command-line compiler accepts every blob; spirv-val validates what
#   the translators return);
# - cmake and libclang-dev: the build of dxil-spirv/dxbc-spirv behind the `dxbc-spirv`
#   cargo feature (cmake compiles the vendored C++, bindgen reads its header via libclang).
# Needs root (or sudo) and the Debian package registry when something is missing.
set -euo pipefail
exec bash "$(dirname "$0")/install-debian-packages.sh" install-translators \
    libvkd3d-shader1 vkd3d-compiler spirv-tools cmake libclang-dev
