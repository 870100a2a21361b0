// The kernels for any x86-64 CPU (SSE2; see isa-kernels.h): the fallback below AVX2.
#include <immintrin.h>

#include "common.h"
#define DV_ISA base
#include "isa-kernels.h"
