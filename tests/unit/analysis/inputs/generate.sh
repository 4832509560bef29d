#!/bin/sh
# Regenerates the example kernels' Tile IR that tests/unit/analysis reads (the analysis must run
# over every example without a crash). Usage: generate.sh BUILD_DIR (which holds the kiln CLI).
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
kiln="${1:?usage: generate.sh BUILD_DIR}/kiln"
gen() {  # gen OUT.tir EXAMPLE.py KERNEL SIGNATURE
  "$kiln" compile "$root/examples/$2" --kernel "$3" --signature "$4" --emit ir -o "$here/$1"
}
gen vector_add_hints.tir vector_add.py add_kernel "*fp32:16, *fp32:16, *fp32:16, i32, 1024"
gen vector_add_plain.tir vector_add.py add_kernel "*fp16, *fp16, *fp16, i32, 128"
gen softmax.tir softmax.py softmax_kernel "*fp32:16, *fp32:16, i32:16, i32:16, i32, i32, 128, 4"
gen layernorm.tir layernorm.py layer_norm_fwd_kernel \
  "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 64"
gen matmul_hints.tir matmul.py matmul_kernel \
  "*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, 1, 1, i32:16, i32:16, 1, 64, 64, 32, 8, \"leaky_relu\""
gen matmul_plain.tir matmul.py matmul_kernel \
  "*fp32, *fp32, *fp16, i32, i32, i32, i32, i32, i32, i32, i32, i32, 32, 32, 32, 4, \"\""
gen flash_attention.tir flash_attention.py attn_fwd \
  "*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16, i32:16, i32:16, i32:16, 1, i32:16, i32:16, i32:16, 1, i32:16, i32:16, i32:16, 1, i32:16, i32:16, i32:16, 1, i32, i32, 64, 64, 32, True"
gen grid2d_add.tir grid2d.py add2d_kernel "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32:16, i32:16, i32:16, 16, 32"
gen grid2d_transpose.tir grid2d.py transpose_kernel "*fp32:16, *fp32:16, i32, i32, 1, i32, i32, 1, 16, 16"
gen integer_hash.tir integer_ops.py hash_kernel "*u32:16, *u32:16, *u32:16, i32:16, 3, 256"
gen integer_arith.tir integer_ops.py int_arith_kernel "*i32:16, *i32:16, *i32:16, *i32:16, *i32:16, *i32:16, i32:16, 512"
gen reductions_argmax.tir reductions.py argmax_kernel "*fp32:16, *i32:16, *fp32:16, i32, i32:16, 64"
gen reductions_row_stats.tir reductions.py row_stats_kernel "*fp32:16, *fp32:16, *fp32:16, i32, i32:16, 256"
gen reductions_segment_sum.tir reductions.py segment_sum_kernel "*fp32:16, *i32:16, *fp32:16, 64"
gen control_flow_collatz.tir control_flow.py collatz_steps_kernel "*i32:16, *i32:16, i32"
gen control_flow_searchsorted.tir control_flow.py searchsorted_kernel "*fp32:16, i32, *fp32:16, *i32:16"
gen control_flow_polyval.tir control_flow.py polyval_kernel "*fp32:16, *fp32:16, *fp32:16, i32:16, 5, 64"
