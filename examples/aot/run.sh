#!/usr/bin/env bash
# Builds examples/aot/main.c, a plain C program, against add_kernel compiled ahead of time, and runs it
# when there is a GPU. Usage: examples/aot/run.sh [DIR]   (DIR: where the files go; default build/aot-example)
#   1. with a kiln binary ($KILN, default build/kiln): kiln aot writes two variants, kiln aot link the
#      dispatcher, into DIR/gen; without one, the files already in DIR/gen are used (generated elsewhere);
#   2. cc -std=c99 compiles them with main.c against the toolkit's cuda.h and links -lcuda (the toolkit's
#      stub library where the driver's is not installed); without a compiler or cuda.h, a DIR/add_example
#      built before (on another machine) is used;
#   3. runs DIR/add_example where the CUDA driver is installed. Exit 0: ran and exact, or no GPU to run on
#      (it says so; 77 with KILN_AOT_SKIP_STATUS=77, for ctest); 1: a failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-$root/build/aot-example}
kiln=${KILN:-$root/build/kiln}
cuda=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$dir/gen"
skip() {
  echo "aot example: $1: built, not run"
  exit "${KILN_AOT_SKIP_STATUS:-0}"
}

if [ -x "$kiln" ]; then
  # Two specializations of one kernel, then one launch function over both.
  "$kiln" aot "$root/examples/vector_add.py" --kernel add_kernel --name add_aligned \
    --signature "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024" --grid "cdiv(n_elements, BLOCK_SIZE)" -o "$dir/gen"
  "$kiln" aot "$root/examples/vector_add.py" --kernel add_kernel --name add_general \
    --signature "*fp32, *fp32, *fp32, i32, 1024" --grid "cdiv(n_elements, BLOCK_SIZE)" -o "$dir/gen"
  "$kiln" aot link "$dir/gen/add_aligned.h" "$dir/gen/add_general.h" --name add -o "$dir/gen"
elif [ ! -f "$dir/gen/add.c" ]; then
  echo "aot example: no kiln binary at $kiln and no generated files in $dir/gen" >&2
  exit 1
fi

include=$cuda/include
cc=${CC:-cc}
if [ -f "$include/cuda.h" ] && command -v "$cc" >/dev/null; then
  "$cc" -std=c99 -O2 -Wall -Werror -I"$include" -I"$dir/gen" -o "$dir/add_example" "$root/examples/aot/main.c" \
    "$dir/gen/add.c" "$dir/gen/add_aligned.c" "$dir/gen/add_general.c" -L"$cuda/lib64/stubs" -lcuda
  echo "aot example: built $dir/add_example"
elif [ -x "$dir/add_example" ]; then
  # A machine without a compiler or the toolkit runs the program built elsewhere.
  echo "aot example: no $cc or no cuda.h in $include: running the $dir/add_example built before"
else
  echo "aot example: no cuda.h in $include (set CUDA_HOME) or no C compiler ($cc): not built" >&2
  exit "${KILN_AOT_SKIP_STATUS:-1}"
fi

# The stub library only links; running needs the driver's own libcuda.so.1.
have_driver=no
if ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then have_driver=yes; fi
IFS=: read -ra libdirs <<< "${LD_LIBRARY_PATH:-}"
for d in "${libdirs[@]}"; do [ -n "$d" ] && [ -e "$d/libcuda.so.1" ] && have_driver=yes; done
[ "$have_driver" = yes ] || skip "no CUDA driver (libcuda.so.1) on this machine"
status=0
"$dir/add_example" || status=$?
if [ "$status" = 77 ]; then skip "no CUDA device"; fi
exit "$status"
