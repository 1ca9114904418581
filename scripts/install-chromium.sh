#!/usr/bin/env bash
# Installs Debian's Chromium, which the report tests (tests/report_browser.rs) open the HTML
# reports in, headless, to check that they render offline. Does nothing when it is already
# there; needs root (or sudo) and the Debian package registry otherwise. The fonts come in
# with the package (fonts-liberation is one of its dependencies).
set -euo pipefail
if command -v chromium > /dev/null; then
    exit 0
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
    sudo=(sudo)
fi
echo "install-chromium: installing chromium" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq chromium >&2
