#!/usr/bin/env bash
# Installs everything Glance needs to build and test, from Debian 12 packages only.
# Idempotent: packages already present are left alone. Run as root (or through sudo).
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config git
  # Qt 6.4 (widgets, charts, network, test, svg, image formats)
  qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev qt6-image-formats-plugins
  libqt6svg6 libqt6opengl6-dev libgl-dev libxkbcommon-dev
  # translations: lupdate/lrelease (qt6-l10n-tools), their CMake package Qt6LinguistTools
  # (qt6-tools-dev), and Qt's own German etc. for its dialogs' buttons (qt6-translations-l10n)
  qt6-l10n-tools qt6-tools-dev qt6-translations-l10n
  # engine
  libopencv-core-dev libopencv-imgproc-dev libopencv-imgcodecs-dev
  nlohmann-json3-dev libhwy-dev libpcre2-dev libicu-dev
  # glance-cli serve (HTTP; pulls in libssl-dev, zlib1g-dev, libbrotli-dev for its shared library)
  libcpp-httplib-dev
  # tests, screenshots and packaging checks
  libgtest-dev xvfb xauth desktop-file-utils appstream dpkg-dev file
  # fuzzing (tests/fuzz, the `fuzz` preset): clang with libFuzzer and the sanitizer runtimes
  clang-14 libclang-rt-14-dev
  # the server's tests: the official openai npm client (installed into the build folder by the
  # test setup) runs on Node.js; curl for the bad-request tests
  nodejs curl
)
# A Node.js from elsewhere (NodeSource) carries its own npm and conflicts with Debian's npm
# package: ask Debian for npm only when there is none on PATH.
if ! command -v npm >/dev/null 2>&1; then packages+=(npm); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
