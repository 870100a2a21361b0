// The kernels for CPUs with AVX-512 (F, BW, DQ, VL) and FMA: 512-bit vectors (see isa-kernels.h).
#include <immintrin.h>

#include "common.h"
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma,bmi2,prefer-vector-width=512")
#define DV_ISA avx512
#define DV_ISA_AVX512 1
#include "isa-kernels.h"
#pragma GCC pop_options
