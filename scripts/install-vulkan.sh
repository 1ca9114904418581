#!/usr/bin/env bash
# Installs Debian's Mesa software Vulkan driver (lavapipe) and the Vulkan loader, which the
# probe tests run on. Does nothing when both are already there; needs root (or sudo) and
# the Debian package registry otherwise.
set -euo pipefail
exec bash "$(dirname "$0")/install-debian-packages.sh" install-vulkan mesa-vulkan-drivers libvulkan1
