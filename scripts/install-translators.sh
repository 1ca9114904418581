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
packages=(libvkd3d-shader1 vkd3d-compiler spirv-tools cmake libclang-dev)
missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$p")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
    sudo=(sudo)
fi
echo "install-translators: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >&2
