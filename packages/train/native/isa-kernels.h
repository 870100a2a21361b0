// The kernel sources (kernels/*.inc) compiled once per instruction set, each copy in its own
// namespace dv::<isa> with the matching `#pragma GCC target`: isa-avx512.cc, isa-avx2.cc and
// isa-base.cc include this file after defining DV_ISA. register.cc picks one copy at load time
// with __builtin_cpu_supports (DV_FUSED_ISA=avx512|avx2|base forces one the CPU has), so one
// binary runs on AVX2-only CPUs (AMD EPYC of this project) and uses AVX-512 on the Intel Xeons.
//
// common.h, <immintrin.h> and the standard headers are included before the target pragma, so
// every inline helper and library template outside the kernels stays baseline x86-64 code: a
// copy the linker merges across the three units can never carry an instruction the CPU lacks.
// The pragma does not define `__AVX512F__` / `__AVX2__` for the preprocessor, so each unit sets
// DV_ISA_AVX512 or DV_ISA_AVX2, which select the kernels' intrinsic (register-blocked) paths.
#pragma once
#ifndef DV_ISA
#error "define DV_ISA (avx512, avx2 or base) before including isa-kernels.h"
#endif
#ifndef DV_ISA_AVX512
#define DV_ISA_AVX512 0
#endif
#ifndef DV_ISA_AVX2
#define DV_ISA_AVX2 0
#endif
#include "kernels/gelu.inc"
#include "kernels/layer_norm.inc"
#include "kernels/residual_layer_norm.inc"
#include "kernels/softmax_grad.inc"
#include "kernels/attention.inc"
#include "kernels/adamw.inc"

namespace dv {
namespace DV_ISA {
bool RegisterAllOps(TF_Status* st) {
  return RegisterGeluOps(st) && RegisterLayerNormOps(st) && RegisterResidualLayerNormOps(st) &&
         RegisterSoftmaxGradOps(st) &&
         RegisterAttentionOps(st) && RegisterAdamWOps(st);
}
}  // namespace DV_ISA
}  // namespace dv
