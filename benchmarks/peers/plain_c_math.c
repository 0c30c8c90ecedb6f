/* unison-plain-c's transcendental loops. This file alone is compiled with -ffast-math: under it
   glibc's <math.h> declares the vector variants of expf and tanhf (libmvec), which the loops
   below then call a register at a time, as a C programmer's `gcc -O3 -march=native -ffast-math`
   loop does. The program is linked without -ffast-math, so the processor's flush-to-zero mode
   stays off for the other loops (diffusion's subnormal numbers cost what they cost). */
#include <math.h>

#include "plain_c.h"

void plain_c_gaussian_pdf(const float* x, float* y, int64_t n, float mean, float sigma) {
  const float scale = 1.0f / (sigma * 2.50662827463100050242f);
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float z = (x[i] - mean) / sigma;
    y[i] = expf(-0.5f * z * z) * scale;
  }
}

void plain_c_hidden_layer(const float* g, const float* w, float* y, int64_t n) {
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < n; ++i) y[i] = tanhf(g[i] / 255.0f * w[i]);
}
