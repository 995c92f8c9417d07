#!/bin/sh
# Builds htsim's library from a source tree and links tools/htsim/dumbbell.cpp against it.
#
#   tools/htsim/build.sh HTSIM_SOURCE [OUTPUT_DIR]
#
# HTSIM_SOURCE is a checkout of Broadcom/csg-htsim (the folder that holds sim/). The library
# is built inside that tree with htsim's own Makefile and flags (make libhtsim.a: -O3); the
# benchmark goes to OUTPUT_DIR/htsim-dumbbell (default: target/side-by-side, which git
# ignores). Nothing is written into this repository's tracked files.
set -eu

if [ $# -lt 1 ] || [ ! -f "$1/sim/Makefile" ]; then
    echo "usage: $0 HTSIM_SOURCE [OUTPUT_DIR]  (HTSIM_SOURCE/sim/Makefile must exist)" >&2
    exit 2
fi
src=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$here/../../target/side-by-side}
mkdir -p "$out"
out=$(cd "$out" && pwd)

make -C "$src/sim" -j"${JOBS:-1}" libhtsim.a >"$out/htsim-lib-build.log" 2>&1 || {
    echo "building libhtsim.a failed; see $out/htsim-lib-build.log" >&2
    exit 1
}
# The same optimisation as the library (htsim's Makefile: -O3).
${CXX:-g++} -O3 -std=c++17 -I"$src/sim" -o "$out/htsim-dumbbell" "$here/dumbbell.cpp" \
    "$src/sim/libhtsim.a"
echo "$out/htsim-dumbbell"
