#!/usr/bin/env bash
# kiln as a C++ package, used the way another project would (ctest `cpp_package`):
#   1. `cmake --install` the build into a fresh prefix (libraries, headers, CMake package, CLI);
#   2. build examples/cpp against it with find_package(kiln) and run it (vector_add on the interpreter,
#      and on the GPU where there is one), and run the installed CLI;
#   3. configure examples/cpp with kiln added by add_subdirectory (configure only: the stage globs and
#      include paths must resolve from a parent project; building would compile kiln a second time).
# Usage: cpp_package.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=$build/package-test
rm -rf "$work"
mkdir -p "$work"

cmake --install "$build" --prefix "$work/prefix" --component kiln_dev >/dev/null
cmake --install "$build" --prefix "$work/prefix" --component kiln_cli >/dev/null
test -f "$work/prefix/include/kiln/kiln.h"
ir=$("$work/prefix/bin/kiln" compile "$src/examples/vector_add.py" --kernel add_kernel \
  --signature "*fp32:16, *fp32:16, *fp32:16, i32, 1024" --emit ir)
grep -q "^func @add_kernel(" <<<"$ir"
usage=$("$work/prefix/bin/kiln" --help)
grep -q "usage: kiln compile" <<<"$usage"
echo "installed CLI: compiles"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$src/examples/cpp" -B "$work/installed" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/installed" >/dev/null
"$work/installed/vector_add_host" "$src/examples/vector_add.py"

cmake -S "$src/examples/cpp" -B "$work/subdirectory" "${generator[@]}" -DKILN_SOURCE_DIR="$src" >/dev/null
echo "add_subdirectory: configured"
