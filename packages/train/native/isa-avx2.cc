// The kernels for CPUs with AVX2 and FMA (256-bit vectors; see isa-kernels.h).
#include <immintrin.h>

#include "common.h"
#pragma GCC push_options
#pragma GCC target("avx2,fma,bmi2")
#define DV_ISA avx2
#define DV_ISA_AVX2 1
#include "isa-kernels.h"
#pragma GCC pop_options
