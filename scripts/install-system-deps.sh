#!/usr/bin/env bash
# The Debian packages the test suite uses beyond the language toolchains: a Redis 7 server (the
# external-Redis tests), the gRPC C++ toolchain (the C++ starter kit), Chromium (the web site's
# browser tests drive /usr/bin/chromium with Playwright, which never downloads a browser) and promtool
# (prometheus: the alerting rules' checks and unit tests). Installs
# only what is missing; as root it uses apt-get, otherwise it says what to install and carries on (the tests
# that need a missing package then fail with a clear message).
set -euo pipefail

packages=(redis-server protobuf-compiler protobuf-compiler-grpc libprotobuf-dev libgrpc++-dev pkg-config
          cmake ninja-build g++ libgtest-dev chromium prometheus)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "note: missing Debian packages (install them as root): ${missing[*]}" >&2
  exit 0
fi
echo "installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Another apt may hold the lock (a kit's own installer): wait for it.
for _ in $(seq 1 60); do
  if apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
    exit 0
  fi
  sleep 5
done
echo "could not install: ${missing[*]}" >&2
exit 1
