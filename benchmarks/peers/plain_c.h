/* What the two files of unison-plain-c share (plain_c.c, and plain_c_math.c: the functions of
   glibc's vector math, compiled with -ffast-math). */
#ifndef UNISON_PLAIN_C_H
#define UNISON_PLAIN_C_H

#include <stdint.h>

/* y[i] = exp(-((x[i] - mean) / sigma)^2 / 2) / (sigma sqrt(2 pi)), i < n. */
void plain_c_gaussian_pdf(const float* x, float* y, int64_t n, float mean, float sigma);
/* y[i] = tanh(g[i] / 255 w[i]), i < n. */
void plain_c_hidden_layer(const float* g, const float* w, float* y, int64_t n);

#endif
