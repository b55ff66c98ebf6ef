#!/bin/bash
# Installs a built tree into a scratch prefix and builds the README example
# against it with CMake (find_package, shared and static) and with
# pkg-config, then runs each on the test device. usage: install-check.sh BUILD_DIR
set -euo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S examples -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/cmake.log"
make -C "$work/cmake" > "$work/make.log"
cc -std=c11 -Wall -Wextra -Werror examples/saxpy_plan.c -o "$work/saxpy_pc" \
   $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs streamcl)
export STREAMCL_DEVICE=${STREAMCL_DEVICE:-cpu} STREAMCL_CACHE_DIR="$work/cache"
"$work/cmake/saxpy_plan"
"$work/cmake/saxpy_plan_static"
LD_LIBRARY_PATH="$work/prefix/lib" "$work/saxpy_pc"
readelf -d "$work/prefix/lib/libstreamcl.so" | grep -q 'SONAME.*libstreamcl.so.0' ||
  { echo "libstreamcl.so has no soname libstreamcl.so.0"; exit 1; }
echo "install check: the example builds and runs against the installed tree (CMake shared + static, pkg-config)"
