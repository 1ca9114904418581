#!/usr/bin/env bash
# Installs the Debian packages named after WHO (the installer that asks, for its message)
# that are not installed yet; does nothing when all are. Needs root (or sudo) and the
# Debian package registry when something is missing. Used by the install-*.sh scripts.
set -euo pipefail
who=$1
shift
missing=()
for p in "$@"; do
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
echo "$who: installing ${missing[*]}" >&2
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >&2
