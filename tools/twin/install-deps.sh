#!/bin/sh
# Installs what the PyTorch twin (tools/twin) needs, from Debian 12 packages. Not needed to build
# or run Glance; the twin's ctest tests are skipped where these are missing.
set -e
apt-get update
# libopenblas0-pthread: Debian's torch links the generic libblas.so.3; OpenBLAS behind it makes
# training ~10x faster (the reference BLAS runs at ~1 GFLOP/s).
apt-get install -y --no-install-recommends python3 python3-torch python3-numpy python3-pil libopenblas0-pthread
