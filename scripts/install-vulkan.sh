#!/usr/bin/env bash
# Installs Debian's Mesa software Vulkan driver (lavapipe) and the Vulkan loader, which the
# probe tests run on. Does nothing when both are already there; needs root (or sudo) and
# the Debian package registry otherwise.
set -euo pipefail
packages=(mesa-vulkan-drivers libvulkan1)
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
echo "install-vulkan: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >&2
