#!/usr/bin/env bash
# Builds Glance's XRT dispatch (the NPU plugin, kernels/npu/xrt_device.cpp) and its tests against
# a real XRT, and runs the no-device test: XRT present, no NPU -> a clear reason, `auto` -> CPU.
#
# Debian 12 ships XRT 2.13, which predates the XDNA NPUs; Debian sid ships XRT 2.25 (libxrt-dev,
# with xrt/xrt_hw_context.h and libxrt_coreutil). So this builds in a Debian sid chroot made with
# debootstrap from Debian's own archive. The chroot is kept at $GLANCE_SID_CHROOT
# (default /var/cache/glance/sid-chroot) and reused when it exists; delete it to start over.
#
# Needs root (debootstrap, chroot, mount /proc) and, the first time, the network. Usage:
#   sudo packaging/check-xrt.sh            # build + test; exit 0 when everything passed
# Measured on the 2-core CI machine: 8–14 min from scratch (debootstrap + XRT's packages, the
# download dominates), about 30 s when the chroot is reused (the two compiles).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CHROOT="${GLANCE_SID_CHROOT:-/var/cache/glance/sid-chroot}"
MIRROR="${GLANCE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# What the build needs inside sid: the compiler, XRT's headers and libxrt_coreutil, and
# uuid-dev (xrt/xrt_uuid.h includes <uuid/uuid.h>; libxrt-dev does not depend on it).
PACKAGES=(g++ libxrt-dev uuid-dev)
STAMP="$CHROOT/.glance-packages"

start=$(date +%s)
say() { echo "check-xrt: $*"; }

if [ "$(id -u)" -ne 0 ]; then
  echo "check-xrt: must run as root (debootstrap and chroot)" >&2
  exit 2
fi

if [ ! -x "$CHROOT/usr/bin/g++" ] || [ "$(cat "$STAMP" 2>/dev/null)" != "${PACKAGES[*]}" ]; then
  command -v debootstrap >/dev/null || {
    say "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -o DPkg::Lock::Timeout=900 -y -qq --no-install-recommends debootstrap >/dev/null
  }
  if [ ! -x "$CHROOT/usr/bin/apt-get" ]; then
    say "creating a Debian sid chroot in $CHROOT (from $MIRROR)"
    rm -rf "$CHROOT"
    mkdir -p "$(dirname "$CHROOT")"
    debootstrap --variant=minbase sid "$CHROOT" "$MIRROR" >/dev/null
  fi
  # sid's Release file can read as expired on a machine whose clock is ahead of the archive.
  echo 'Acquire::Check-Valid-Until "false";' >"$CHROOT/etc/apt/apt.conf.d/99glance-no-valid-until"
  say "installing ${PACKAGES[*]} in the chroot"
  chroot "$CHROOT" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  chroot "$CHROOT" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >/dev/null
  chroot "$CHROOT" apt-get clean
  echo "${PACKAGES[*]}" >"$STAMP"
  say "chroot ready after $(($(date +%s) - start)) s"
else
  say "reusing the chroot in $CHROOT"
fi

# ---- build: the plugin and the no-device check, with the project's warning flags
WARN=$(sed -n '/target_compile_options/,/)/p' "$ROOT/cmake/GlanceWarnings.cmake" | grep -o -- '-W[^ )]*' | tr '\n' ' ')
SRC="$CHROOT/tmp/glance-xrt-src"
rm -rf "$SRC"
mkdir -p "$SRC/tests"
cp -r "$ROOT/kernels" "$ROOT/core" "$SRC/"
cp -r "$ROOT/tests/npu" "$SRC/tests/"
XRT_VERSION=$(chroot "$CHROOT" dpkg-query -W -f='${Version}' libxrt-dev | sed 's/^[0-9]*://; s/-[^-]*$//')
t0=$(date +%s)
say "compiling the plugin against XRT $XRT_VERSION ($WARN)"
chroot "$CHROOT" sh -c "cd /tmp/glance-xrt-src && \
  g++ -std=c++20 -O2 -fPIC -shared $WARN -Werror -I. -DGLANCE_XRT_VERSION='\"$XRT_VERSION\"' \
      kernels/npu/xrt_device.cpp kernels/npu/xrt_sequence.cpp -o libglance_npu_xrt.so -Wl,--no-undefined -lxrt_coreutil && \
  g++ -std=c++20 -O2 $WARN -Werror -I. tests/npu/xrt_plugin_check.cpp kernels/npu/xrt_loader.cpp \
      -o xrt_plugin_check -ldl"
say "built in $(($(date +%s) - t0)) s; libglance_npu_xrt.so needs: $(chroot "$CHROOT" sh -c \
  'cd /tmp/glance-xrt-src && objdump -p libglance_npu_xrt.so | grep NEEDED | grep -o "libxrt[^ ]*" | tr "\n" " "')"

# ---- test: XRT present, no NPU
mountpoint -q "$CHROOT/proc" || { mount -t proc proc "$CHROOT/proc"; trap 'umount "$CHROOT/proc"' EXIT; }
status=0
chroot "$CHROOT" env GLANCE_NPU_XRT_PLUGIN=/tmp/glance-xrt-src/libglance_npu_xrt.so \
  /tmp/glance-xrt-src/xrt_plugin_check present || status=1
chroot "$CHROOT" env GLANCE_NPU_XRT_PLUGIN=/tmp/glance-xrt-src/nonexistent.so \
  /tmp/glance-xrt-src/xrt_plugin_check missing || status=1
say "$([ $status = 0 ] && echo passed || echo FAILED) after $(($(date +%s) - start)) s"
exit $status
