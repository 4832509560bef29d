#!/bin/sh
# Regenerates the Tile IR of every example kernel at the signatures tests/kernels/*.cpp and
# examples/demo.cpp compile them with; ptxas_examples_test.cpp lowers each to PTX and assembles it.
# Usage: generate.sh BUILD_DIR (which holds the kiln CLI).
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
kiln="${1:?usage: generate.sh BUILD_DIR}/kiln"
for f in "$here"/*.tir; do  # the generated ones; those that say "Hand-written" stay
  head -n 1 "$f" | grep -q '^// Hand-written' || rm -f "$f"
done
gen() {  # gen NAME EXAMPLE.py KERNEL SIGNATURE [kiln options]
  out="$here/$1.tir"; file="$2"; kernel="$3"; sig="$4"; shift 4
  printf '// %s %s "%s"%s\n' "$file" "$kernel" "$sig" "${*:+ $*}" > "$out"
  "$kiln" compile "$root/examples/$file" --kernel "$kernel" --signature "$sig" --emit ir "$@" >> "$out"
}
gen vector_add_1024 vector_add.py add_kernel "*fp32, *fp32, *fp32, i32, 1024"
gen vector_add_64 vector_add.py add_kernel "*fp32, *fp32, *fp32, i32, 64"
gen vector_add_hints vector_add.py add_kernel "*fp32:16, *fp32:16, *fp32:16, i32:16, 1024"
gen vector_add_demo vector_add.py add_kernel "*fp32:16, *fp32:16, *fp32:16, i32, 1024"
gen vector_add_noopt vector_add.py add_kernel "*fp32, *fp32, *fp32, i32, 256" --no-opt
gen vector_add_f16 vector_add.py add_kernel "*fp16, *fp16, *fp16, i32, 128"
gen vector_add_bf16 vector_add.py add_kernel "*bf16, *bf16, *bf16, i32, 128"
gen vector_add_512 vector_add.py add_kernel "*fp32, *fp32, *fp32, i32, 512"
gen collatz control_flow.py collatz_steps_kernel "*i32, *i32, i32"
gen collatz_hints control_flow.py collatz_steps_kernel "*i32:16, *i32:16, i32"
gen capped_collatz control_flow.py capped_collatz_kernel "*i32, *i32, i32, i32, 128"
gen searchsorted control_flow.py searchsorted_kernel "*fp32, i32, *fp32, *i32"
gen searchsorted_hints control_flow.py searchsorted_kernel "*fp32:16, i32, *fp32:16, *i32:16"
gen searchsorted_i32 control_flow.py searchsorted_kernel "*i32, i32, *i32, *i32"
gen polyval_0_16 control_flow.py polyval_kernel "*fp32, *fp32, *fp32, i32, 0, 16"
gen polyval_3_256 control_flow.py polyval_kernel "*fp32, *fp32, *fp32, i32, 3, 256"
gen polyval_7_16 control_flow.py polyval_kernel "*fp32, *fp32, *fp32, i32, 7, 16"
gen polyval_5_64 control_flow.py polyval_kernel "*fp32, *fp32, *fp32, i32, 5, 64"
gen polyval_hints control_flow.py polyval_kernel "*fp32:16, *fp32:16, *fp32:16, i32:16, 4, 128"
gen hash_1_256 integer_ops.py hash_kernel "*u32, *u32, *u32, i32, 1, 256"
gen hash_3_128 integer_ops.py hash_kernel "*u32, *u32, *u32, i32, 3, 128"
gen hash_hints integer_ops.py hash_kernel "*u32:16, *u32:16, *u32:16, i32:16, 2, 1024"
gen int_arith integer_ops.py int_arith_kernel "*i32, *i32, *i32, *i32, *i32, *i32, i32, 512"
gen int_arith_hints integer_ops.py int_arith_kernel "*i32:16, *i32:16, *i32:16, *i32:16, *i32:16, *i32:16, i32:16, 512"
gen add2d grid2d.py add2d_kernel "*fp32, *fp32, *fp32, i32, i32, i32, i32, i32, 16, 32"
gen add2d_hints grid2d.py add2d_kernel "*fp32:16, *fp32:16, *fp32:16, i32, i32, i32:16, i32:16, i32:16, 16, 32"
gen transpose_32_16 grid2d.py transpose_kernel "*fp32, *fp32, i32, i32, i32, i32, i32, i32, 32, 16"
gen transpose_i32 grid2d.py transpose_kernel "*i32, *i32, i32, i32, i32, i32, i32, i32, 8, 64"
gen transpose_hints grid2d.py transpose_kernel "*fp32:16, *fp32:16, i32, i32, 1, i32, i32, 1, 16, 16"
gen argmax_128 reductions.py argmax_kernel "*fp32, *i32, *fp32, i32, i32, 128"
gen argmax_64 reductions.py argmax_kernel "*fp32, *i32, *fp32, i32, i32, 64"
gen argmax_hints reductions.py argmax_kernel "*fp32:16, *i32:16, *fp32:16, i32, i32:16, 64"
gen row_stats reductions.py row_stats_kernel "*fp32, *fp32, *fp32, i32, i32, 256"
gen row_stats_hints reductions.py row_stats_kernel "*fp32:16, *fp32:16, *fp32:16, i32, i32:16, 256"
gen segment_sum reductions.py segment_sum_kernel "*fp32, *i32, *fp32, 64"
gen segment_sum_hints reductions.py segment_sum_kernel "*fp32:16, *i32:16, *fp32:16, 64"
gen softmax_16 softmax.py softmax_kernel "*fp32, *fp32, i32, i32, i32, i32, 16, 2"
gen softmax_1024 softmax.py softmax_kernel "*fp32, *fp32, i32, i32, i32, i32, 1024, 3"
gen softmax_256 softmax.py softmax_kernel "*fp32, *fp32, i32, i32, i32, i32, 256, 2"
gen softmax_hints softmax.py softmax_kernel "*fp32:16, *fp32:16, i32:16, i32:16, i32, i32, 128, 4"
gen softmax_demo softmax.py softmax_kernel "*fp32:16, *fp32:16, i32, i32, i32, i32, 1024, 4"
gen layernorm_128 layernorm.py layer_norm_fwd_kernel "*fp16, *fp16, *fp16, *fp16, *fp32, *fp32, i32, i32, fp32, 128"
gen layernorm_256 layernorm.py layer_norm_fwd_kernel "*fp16, *fp16, *fp16, *fp16, *fp32, *fp32, i32, i32, fp32, 256"
gen layernorm_bf16 layernorm.py layer_norm_fwd_kernel "*bf16, *bf16, *bf16, *bf16, *fp32, *fp32, i32, i32, fp32, 128"
gen layernorm_hints layernorm.py layer_norm_fwd_kernel \
  "*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 64"
gen atomics_histogram atomics.py histogram_kernel "*i32, *i32, i32, 256"
gen atomics_ticket atomics.py ticket_kernel "*i32, *i32"
gen atomics_split atomics.py split_sum_max_kernel "*fp32, *fp32, *fp32, i32, 128"
gen atomics_lock atomics.py locked_add_kernel "*i32, *i32, 128"
mm() {  # mm NAME AB M N K GROUP ACT [hints] [kiln options]
  if [ "${8:-}" = hints ]; then p=":16"; dims="i32, i32, i32, i32:16, 1, 1, i32:16, i32:16, 1"
  else p=""; dims="i32, i32, i32, i32, i32, i32, i32, i32, i32"; fi
  name=$1 ab=$2 m=$3 n=$4 k=$5 group=$6 act=$7; shift 7; [ "${1:-}" = hints ] && shift
  gen "$name" matmul.py matmul_kernel "*$ab$p, *$ab$p, *fp16$p, $dims, $m, $n, $k, $group, \"$act\"" "$@"
}
mm matmul_32 fp16 32 32 32 4 ""
mm matmul_32_leaky fp16 32 32 32 4 leaky_relu
mm matmul_16_64 fp16 16 64 16 2 leaky_relu
mm matmul_128 fp16 128 128 32 8 "" --num-warps 8  # examples/matmul.py's own configuration
mm matmul_f32 fp32 32 32 16 4 ""
mm matmul_f32_leaky fp32 32 32 16 4 leaky_relu
mm matmul_hints fp16 32 32 32 4 leaky_relu hints
mm matmul_group3 fp16 32 32 32 3 ""
# Every size and leading stride a multiple of 16: both tiles load 16 bytes at a time, so they pipeline.
gen matmul_pipelined matmul.py matmul_kernel \
  "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, 1, i32:16, i32:16, 1, 32, 32, 32, 4, \"\""
gen matmul_wide matmul.py matmul_kernel \
  "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, 1, i32:16, i32:16, 1, 16, 128, 32, 1, \"\"" \
  --num-warps 1
# 64x64 tiles on four warps: one warpgroup, so on sm_90a the dot runs on wgmma (B K-major, then N-major).
gen matmul_wgmma_kmajor matmul.py matmul_kernel \
  "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, 1, i32:16, i32:16, 1, 64, 64, 64, 4, \"\""
gen matmul_wgmma_nmajor matmul.py matmul_kernel \
  "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 1, i32:16, 1, i32:16, 1, 64, 64, 32, 4, \"\""
# 128x64 tiles for two warpgroups, A's row stride without a hint (checked for 16 bytes at run time).
gen matmul_wgmma_128 matmul.py matmul_kernel \
  "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32, 1, i32:16, 1, i32:16, 1, 128, 64, 32, 4, \"\""
gen matmul_demo matmul.py matmul_kernel \
  "*fp16, *fp16, *fp16, i32, i32, i32, i32, 1, i32, 1, i32, 1, 32, 32, 32, 4, \"leaky_relu\""
attn() {  # attn NAME D BLOCK_M BLOCK_N CAUSAL [hints [kiln options]]
  if [ "$6" = hints ]; then s="*fp16:16, *fp16:16, *fp16:16, fp32, *fp32:16, *fp16:16"; t=", i32:16, i32:16, i32:16, 1"
  else s="*fp16, *fp16, *fp16, fp32, *fp32, *fp16"; t=", i32, i32, i32, i32"; fi
  name=$1 sig="$s$t$t$t$t, i32, i32, $2, $3, $4, $5"; shift 5; [ $# -gt 0 ] && shift
  gen "$name" flash_attention.py attn_fwd "$sig" "$@"
}
attn attn_16 16 16 16 False
attn attn_16_causal 16 16 16 True
attn attn_32 32 32 16 False
attn attn_32_causal 32 32 16 True
attn attn_16_32 16 16 32 True
attn attn_16_32_plain 16 16 32 False
attn attn_hints 32 16 16 True hints
attn attn_64_hints 32 64 16 False hints  # one warp per 16 rows at 4 warps: no barrier inside the softmax
attn attn_128_hints 32 128 16 False hints  # two 64-row wgmma blocks per warpgroup
attn attn_128_causal_hints 32 128 16 True hints  # and the causal mask: a guarded select (lower_guarded_select.cpp)
attn attn_128_pingpong_hints 64 128 128 False hints --num-warps 8  # at 8 warps the two warpgroups take turns (schedule/pingpong.cpp)
attn attn_128_pingpong_causal_hints 64 128 128 True hints --num-warps 8
attn attn_d128_pingpong_hints 128 128 64 False hints --num-warps 8  # D128 at 128x64: turns, K and V in 128-byte boxes
gen attn_demo flash_attention.py attn_fwd \
  "*fp16, *fp16, *fp16, fp32, *fp32, *fp16, i32, i32, i32, 1, i32, i32, i32, 1, i32, i32, i32, 1, i32, i32, i32, 1, i32, i32, 32, 32, 16, True"
# tl.dot_scaled on 64x64x64 tiles: mma.sync on sm_80, wgmma on sm_90a; e2m1 x e4m3 (bf16 operands) and
# fp16 x e5m2 (f16 operands).
gen block_scaled block_scaled_matmul.py mx_matmul_kernel \
  "*u8, *u8, *u8, *u8, *fp32, i32, i32, i32, i32, i32, i32, 64, 64, 64, \"e2m1\", \"e4m3\""
gen block_scaled_hints block_scaled_matmul.py mx_matmul_kernel \
  "*u8:16, *u8:16, *u8:16, *u8:16, *fp32:16, i32, i32, i32:16, i32:16, i32:16, i32:16, 64, 64, 64, \"e2m1\", \"e4m3\""
gen block_scaled_f16 block_scaled_matmul.py mx_matmul_kernel \
  "*u16, *u8, *u8, *u8, *fp32, i32, i32, i32, i32, i32, i32, 64, 64, 32, \"fp16\", \"e5m2\""
# tf32, fp8 and 8-bit integer dots on 64x64 tiles at four warps (wgmma on sm_90a, K-major operands): B
# K-major (stride_bk = 1) and N-major (stride_bn = 1); BLOCK_K spans 32, 64 and 128 bytes of a row
# (each swizzle width). fp8 stays at BLOCK_K 32: on sm_80 (no fp8 mma.sync) wider K rows spill.
lowp() {  # lowp NAME A_TYPE C_TYPE BLOCK_K ACC_INT MAJOR
  if [ "$6" = k ]; then strides="i32:16, 1, 1, i32:16"; else strides="i32:16, 1, i32:16, 1"; fi
  gen "$1" matmul_lowp.py matmul_lowp_kernel "*$2:16, *$2:16, *$3:16, i32:16, i32:16, i32:16, $strides, i32:16, 1, 64, 64, $4, $5"
}
lowp matmul_lowp_tf32_kmajor fp32 fp32 32 False k
lowp matmul_lowp_tf32_nmajor fp32 fp32 16 False n  # on mma.sync (sm_90a too): at BLOCK_K 32 unpipelined, ptxas for sm_90 spills 16 B
lowp matmul_lowp_e4m3_kmajor fp8e4nv fp32 32 False k
lowp matmul_lowp_e4m3_nmajor fp8e4nv fp32 32 False n
lowp matmul_lowp_e5m2_kmajor fp8e5 fp32 32 False k
lowp matmul_lowp_i8_kmajor i8 i32 64 True k
lowp matmul_lowp_i8_nmajor i8 i32 128 True n
# f32 matmuls whose dots split into tf32 or bf16 dots (passes/split_dots.cpp): 64x64x32 tiles at four
# warps, B K-major (stride_bk = 1) and N-major; on sm_90a the bf16 parts' dots run on wgmma, staged.
split() {  # split NAME PRECISION MAJOR
  if [ "$3" = k ]; then strides="i32:16, 1, 1, i32:16"; else strides="i32:16, 1, i32:16, 1"; fi
  gen "$1" ../bench/kernels/matmul_f32.py matmul_f32_kernel \
    "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, $strides, i32:16, 1, 64, 64, 32, 4, \"$2\""
}
split matmul_split_tf32x3_kmajor tf32x3 k
split matmul_split_tf32x3_nmajor tf32x3 n
split matmul_split_bf16x3_kmajor bf16x3 k
split matmul_split_bf16x6_nmajor bf16x6 n
# The benchmark suite's persistent matmul (bench/kernels/matmul_persistent.py): device-side tensor
# descriptors, 64x64x32 tiles in groups of 2 block-rows, NUM_SMS 1 so one program walks every tile.
gen matmul_persistent ../bench/kernels/matmul_persistent.py matmul_persistent_kernel \
  "*fp16:16, *fp16:16, *fp16:16, i32, i32:8, i32:8, 64, 64, 32, 2, 1"
# The same with WARP_SPECIALIZE: the tile loop on a producer and consumer partitions, slot and phase
# carried across tiles (codegen_sim_persistent_test.cpp).
gen matmul_persistent_ws ../bench/kernels/matmul_persistent.py matmul_persistent_kernel \
  "*fp16:16, *fp16:16, *fp16:16, i32, i32:8, i32:8, 64, 64, 32, 2, 1, True"
# The descriptor matmul (bench/kernels/matmul_descriptor.py) with WARP_SPECIALIZE: small tiles (BLOCK_SIZE_K
# 32) for the simulator, 4 and 8 consumer warps (codegen_sim_warp_specialize_test.cpp).
gen matmul_descriptor_ws_64 ../bench/kernels/matmul_descriptor.py matmul_descriptor_kernel \
  "*fp16:16, *fp16:16, *fp16:16, i32, i32:8, i32:8, 64, 64, 32, 8, True" --num-warps 4
gen matmul_descriptor_ws_128 ../bench/kernels/matmul_descriptor.py matmul_descriptor_kernel \
  "*fp16:16, *fp16:16, *fp16:16, i32, i32:8, i32:8, 128, 64, 32, 8, True" --num-warps 8
