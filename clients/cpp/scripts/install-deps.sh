#!/bin/sh
# Installs what the C++ kit needs to build, from Debian's packages (Debian 12 / Ubuntu 22.04+).
# Does nothing when everything is there already, so `make build` stays fast; otherwise runs apt-get
# (as root, or through sudo).
set -eu

PACKAGES="g++ make cmake ninja-build pkg-config protobuf-compiler protobuf-compiler-grpc libprotobuf-dev libgrpc++-dev libgtest-dev"

# Not a Debian-like system: leave it to CMake to say what is missing.
command -v dpkg-query >/dev/null 2>&1 || exit 0

missing=""
for package in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $package"
    fi
done
[ -z "$missing" ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: missing$missing, and there is no apt-get here: install them by hand" >&2
    exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
        echo "install-deps: missing$missing; run as root or install them by hand" >&2
        exit 1
    fi
fi
echo "install-deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# Another apt-get (a parallel build) may hold the dpkg lock: wait for it rather than fail.
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -q
# shellcheck disable=SC2086
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends $missing
