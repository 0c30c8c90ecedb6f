/* unison-plain-c: the CPU peer that every Unison OpenMP figure is first compared with, a plain C
   loop of the same arithmetic on raw arrays: `#pragma omp parallel for simd`, gcc -O3 with the
   build's -march (glibc's vector math for exp and tanh: plain_c_math.c). unison-bench runs it
   beside the Python peers and shows its results in the "plain_c" column.

     unison-plain-c [--scale=F] [--field=FILE.npy] PART... [sizes]

   PART: elementwise (copy, gaussian_pdf and hidden_layer_fused at 1e8), convolve (valid, float32,
   1e8, 5 taps), histogram (1e8 normal float32 values into 100 bins over [-4, 4)),
   diffusion (every step with its Laplacian, from the n x n float32 field in FILE: unison-bench
   writes its jagged field there; the steps it times, 201-500), sizes (the chosen among convolve,
   histogram and diffusion also at the sizes of unison-bench --sizes: 1e5 to 1e8 values; the
   diffusion from a uniform field, 1024^2 to 8192^2 cells). Sizes are unison-bench's at the
   scale F (0 < F <= 1), so that each result lands on its case's row. Each case: two warm-up
   calls, then the median of at least 3 timed calls (more while they take under a second, at
   most 20); its output is checked against a float64 reference in the measure of the Python
   peers (relative error; for the histogram the number of values counted in another bin). A
   line per case on stdout; with UNISON_PEERS_CSV set, the results are appended to that file
   (case,plain_c,seconds,error,tolerance) for unison-bench. The threads: the OpenMP runtime's
   (OMP_NUM_THREADS, OMP_PROC_BIND, OMP_PLACES), as unison-bench's own OpenMP backend.
   Exit status 0, or 2 on a bad argument or file. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "plain_c.h"

static double scale = 1;
static int failed = 0;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* unison::bench::scaled: n times the scale (a side of a square: its square root), rounded to
   nearest, at least `least`. */
static int64_t scaled(int64_t n, int64_t least, int dims) {
  const double f = dims == 1 ? scale : pow(scale, 1.0 / dims);
  const int64_t v = llround((double)n * f);
  return v < least ? least : v;
}

/* unison::bench::size_tag: 100000000 -> "1e8"; other sizes as they are. */
static void size_tag(int64_t n, char* text, size_t size) {
  int e = 0;
  int64_t m = n;
  while (m >= 10 && m % 10 == 0) m /= 10, ++e;
  if (m == 1) snprintf(text, size, "1e%d", e);
  else snprintf(text, size, "%lld", (long long)n);
}

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The median seconds of run(arg): two warm-up calls, then timed calls, at least 3, more while
   they take under a second in all, at most `most` (3 to 20). */
static double median_seconds(void (*run)(void*), void* arg, int most) {
  double times[20];
  int count = 0;
  double spent = 0;
  run(arg);
  run(arg);
  while (count < 3 || (count < most && count < 20 && spent < 1.0)) {
    const double t0 = now();
    run(arg);
    times[count] = now() - t0;
    spent += times[count++];
  }
  qsort(times, (size_t)count, sizeof times[0], compare);
  return count % 2 ? times[count / 2] : 0.5 * (times[count / 2 - 1] + times[count / 2]);
}

static void record(const char* name, double seconds, double error, double tolerance) {
  const int ok = error <= tolerance;
  printf("%-44s plain_c %10.4f ms  error %.3g (tolerance %.3g)%s\n", name, seconds * 1e3, error,
         tolerance, ok ? "" : "  FAIL");
  fflush(stdout);
  failed += !ok;
  const char* path = getenv("UNISON_PEERS_CSV");
  if (!path || !*path) return;
  FILE* f = fopen(path, "a");
  if (!f) {
    fprintf(stderr, "unison-plain-c: cannot append to %s\n", path);
    exit(2);
  }
  fprintf(f, "%s,plain_c,%.6g,%.4g,%.4g\n", name, seconds, error, tolerance);
  fclose(f);
}

/* n floats, 64-byte aligned, first touched by the threads that will use them (static
   schedule, as the loops below). */
static float* floats(int64_t n) {
  const size_t bytes = ((size_t)n * sizeof(float) + 63) / 64 * 64;
  float* p = aligned_alloc(64, bytes > 0 ? bytes : 64);
  if (!p) {
    fprintf(stderr, "unison-plain-c: out of memory (%lld floats)\n", (long long)n);
    exit(2);
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) p[i] = 0;
  return p;
}

/* Random numbers by index (a SplitMix64 hash of seed and i): the same values on any number
   of threads. */
static uint64_t hash(uint64_t seed, uint64_t i) {
  uint64_t z = seed * 0x9E3779B97F4A7C15ULL + i + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
static double uniform01(uint64_t seed, uint64_t i) { return (double)(hash(seed, i) >> 11) * 0x1p-53; }
static void fill_uniform(float* x, int64_t n, uint64_t seed, double lo, double hi) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) x[i] = (float)(lo + (hi - lo) * uniform01(seed, (uint64_t)i));
}
static void fill_normal(float* x, int64_t n, uint64_t seed, double mean, double sigma) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const double u = 1.0 - uniform01(seed, 2 * (uint64_t)i), v = uniform01(seed, 2 * (uint64_t)i + 1);
    x[i] = (float)(mean + sigma * sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v));
  }
}

/* ||y - ref|| / ||ref|| over i < n, ref(i) in float64. */
#define RELATIVE_ERROR(result, n, y, ref_expression)             \
  do {                                                            \
    double diff_ = 0, norm_ = 0;                                  \
    _Pragma("omp parallel for reduction(+ : diff_, norm_)")       \
    for (int64_t i = 0; i < (n); ++i) {                           \
      const double r_ = (ref_expression), d_ = (double)(y)[i] - r_; \
      diff_ += d_ * d_;                                           \
      norm_ += r_ * r_;                                           \
    }                                                             \
    (result) = norm_ > 0 ? sqrt(diff_ / norm_) : sqrt(diff_);     \
  } while (0)

/* ---- elementwise ------------------------------------------------------------------------- */
struct Elementwise {
  const float *x, *w;
  float* y;
  int64_t n;
};
static void copy_run(void* a) {
  const struct Elementwise* e = a;
  const float* restrict x = e->x;
  float* restrict y = e->y;
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < e->n; ++i) y[i] = x[i];
}
static void gaussian_run(void* a) {
  const struct Elementwise* e = a;
  plain_c_gaussian_pdf(e->x, e->y, e->n, 0.0f, 1.0f);
}
static void hidden_run(void* a) {
  const struct Elementwise* e = a;
  plain_c_hidden_layer(e->x, e->w, e->y, e->n);
}

static void elementwise(void) {
  const int64_t n = scaled(100000000, 1, 1);
  char tag[32], name[96];
  size_tag(n, tag, sizeof tag);
  float *x = floats(n), *w = floats(n), *y = floats(n);
  struct Elementwise e = {x, w, y, n};
  double error, s;

  fill_uniform(x, n, 1, -1e3, 1e3);
  s = median_seconds(copy_run, &e, 20);
  int64_t wrong = 0;
#pragma omp parallel for reduction(+ : wrong)
  for (int64_t i = 0; i < n; ++i) wrong += y[i] != x[i];
  snprintf(name, sizeof name, "copy/%s/device", tag);
  record(name, s, (double)wrong, 0);

  fill_uniform(x, n, 2, -5, 5);
  s = median_seconds(gaussian_run, &e, 20);
  RELATIVE_ERROR(error, n, y, exp(-0.5 * (double)x[i] * x[i]) / 2.5066282746310002);
  snprintf(name, sizeof name, "gaussian_pdf/%s/device", tag);
  record(name, s, error, 1e-5);

  fill_uniform(x, n, 3, 0, 255);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) x[i] = floorf(x[i]);
  fill_normal(w, n, 4, 0.5, 0.1);
  s = median_seconds(hidden_run, &e, 20);
  RELATIVE_ERROR(error, n, y, tanh((double)x[i] / 255 * w[i]));
  snprintf(name, sizeof name, "hidden_layer_fused/%s/device", tag);
  record(name, s, error, 1e-5);
  free(x);
  free(w);
  free(y);
}

/* ---- convolve ---------------------------------------------------------------------------- */
#define TAPS 5
struct Convolve {
  const float* x;
  float k[TAPS];
  float* y;
  int64_t outputs;
};
static void convolve_run(void* a) {
  const struct Convolve* c = a;
  const float* restrict x = c->x;
  float* restrict y = c->y;
  float k[TAPS];
  memcpy(k, c->k, sizeof k);
#pragma omp parallel for simd schedule(static)
  for (int64_t i = 0; i < c->outputs; ++i) {
    float acc = 0;
    for (int j = 0; j < TAPS; ++j) acc += x[i + TAPS - 1 - j] * k[j];
    y[i] = acc;
  }
}

/* At seed_n values (scaled); `sweep`: named as the sweep past the caches' case. */
static void convolve(int64_t seed_n, int sweep) {
  const int64_t n = scaled(seed_n, TAPS, 1);
  char tag[32], name[96];
  size_tag(n, tag, sizeof tag);
  struct Convolve c = {floats(n), {0}, floats(n - TAPS + 1), n - TAPS + 1};
  fill_uniform((float*)c.x, n, 5, -1, 1);
  for (int j = 0; j < TAPS; ++j) c.k[j] = (float)(2 * uniform01(6, (uint64_t)j) - 1);
  const double s = median_seconds(convolve_run, &c, 20);
  double error;
  const float* x = c.x;
  const float* k = c.k;
  RELATIVE_ERROR(error, c.outputs, c.y,
                 (double)x[i + 4] * k[0] + (double)x[i + 3] * k[1] + (double)x[i + 2] * k[2] +
                     (double)x[i + 1] * k[3] + (double)x[i] * k[4]);
  snprintf(name, sizeof name, sweep ? "convolve/sizes/f32/%s/taps%d" : "convolve/valid/f32/%s/taps%d/direct",
           tag, TAPS);
  record(name, s, error, 1e-5 * sqrt((double)TAPS));
  free((float*)c.x);
  free(c.y);
}

/* ---- histogram --------------------------------------------------------------------------- */
#define BINS 100
static const double xmin = -4, xmax = 4;
struct Histogram {
  const float* x;
  int64_t n;
  int64_t counts[BINS];
};
static void histogram_run(void* a) {
  struct Histogram* h = a;
  const float* restrict x = h->x;
  const double inverse_width = BINS / (xmax - xmin);
  memset(h->counts, 0, sizeof h->counts);
#pragma omp parallel
  {
    int64_t mine[BINS] = {0};
#pragma omp for schedule(static)
    for (int64_t i = 0; i < h->n; ++i) {
      const double v = x[i];
      if (v >= xmin && v < xmax) {
        const int k = (int)((v - xmin) * inverse_width);
        ++mine[k < BINS ? k : BINS - 1];
      }
    }
#pragma omp critical
    for (int k = 0; k < BINS; ++k) h->counts[k] += mine[k];
  }
}

static void histogram(int64_t seed_n, int sweep) {
  struct Histogram h = {NULL, scaled(seed_n, 1, 1), {0}};
  char tag[32], name[96];
  size_tag(h.n, tag, sizeof tag);
  float* x = floats(h.n);
  fill_normal(x, h.n, 7, 0, 1);
  h.x = x;
  const double s = median_seconds(histogram_run, &h, 20);
  /* The reference: bin k holds xmin + k width <= v < xmin + (k + 1) width, the edges in double. */
  const double width = (xmax - xmin) / BINS;
  int64_t reference[BINS] = {0};
#pragma omp parallel
  {
    int64_t mine[BINS] = {0};
#pragma omp for schedule(static)
    for (int64_t i = 0; i < h.n; ++i) {
      const double v = x[i];
      if (!(v >= xmin && v < xmax)) continue;
      int k = (int)floor((v - xmin) / width);
      k = k < 0 ? 0 : k >= BINS ? BINS - 1 : k;
      while (k > 0 && v < fma(k, width, xmin)) --k;
      while (k + 1 < BINS && v >= fma(k + 1, width, xmin)) ++k;
      ++mine[k];
    }
#pragma omp critical
    for (int k = 0; k < BINS; ++k) reference[k] += mine[k];
  }
  int64_t off = 0;
  for (int k = 0; k < BINS; ++k) off += llabs(h.counts[k] - reference[k]);
  snprintf(name, sizeof name, sweep ? "histogram/sizes/f32/%s/bins%d" : "histogram/f32/%s/bins%d", tag, BINS);
  record(name, s, (double)off, 0);
  free(x);
}

/* ---- diffusion --------------------------------------------------------------------------- */
/* The n x n float32 array of a .npy file (C order, little-endian), or NULL with a message. */
static float* read_field(const char* path, int64_t* side) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "unison-plain-c: cannot open %s\n", path);
    return NULL;
  }
  unsigned char head[12];
  char header[4096];
  size_t length = 0, prefix = 0;
  float* field = NULL;
  if (fread(head, 1, 10, f) == 10 && memcmp(head, "\x93NUMPY", 6) == 0) {
    if (head[6] == 1) {
      length = head[8] | (size_t)head[9] << 8;
      prefix = 10;
    } else if (fread(head + 10, 1, 2, f) == 2) {
      length = head[8] | (size_t)head[9] << 8 | (size_t)head[10] << 16 | (size_t)head[11] << 24;
      prefix = 12;
    }
  }
  long long rows = 0, cols = 0;
  const char* shape = NULL;
  if (prefix && length < sizeof header && fread(header, 1, length, f) == length) {
    header[length] = '\0';
    shape = strstr(header, "'shape': (");
  }
  if (!shape || !strstr(header, "'descr': '<f4'") || !strstr(header, "'fortran_order': False") ||
      sscanf(shape, "'shape': (%lld, %lld)", &rows, &cols) != 2 || rows != cols || rows < 3) {
    fprintf(stderr, "unison-plain-c: %s is not an n x n float32 .npy array (n >= 3, C order)\n", path);
  } else {
    field = floats(rows * cols);
    if (fread(field, sizeof(float), (size_t)(rows * cols), f) != (size_t)(rows * cols)) {
      fprintf(stderr, "unison-plain-c: %s ends before its %lld x %lld values\n", path, rows, cols);
      free(field);
      field = NULL;
    }
  }
  fclose(f);
  *side = rows;
  return field;
}

struct Diffusion {
  float *a, *b, *lapl;
  const float* zeros; /* a row of n zeros: the neighbours outside the field */
  int64_t n;
  int steps;
};
static const float coeff = 0.25f;
/* One row of a step: next = f - coeff lapl, lapl = 4 f - ((up + down) + (left + right)). */
static void diffusion_row(const float* restrict up, const float* restrict mid, const float* restrict down,
                          float* restrict next, float* restrict lapl, int64_t n) {
  float l = 4.0f * mid[0] - ((up[0] + down[0]) + mid[1]);
  lapl[0] = l;
  next[0] = mid[0] - coeff * l;
#pragma omp simd
  for (int64_t j = 1; j < n - 1; ++j) {
    const float m = 4.0f * mid[j] - ((up[j] + down[j]) + (mid[j - 1] + mid[j + 1]));
    lapl[j] = m;
    next[j] = mid[j] - coeff * m;
  }
  l = 4.0f * mid[n - 1] - ((up[n - 1] + down[n - 1]) + mid[n - 2]);
  lapl[n - 1] = l;
  next[n - 1] = mid[n - 1] - coeff * l;
}
/* `steps` steps, zero outside the field; the field is in d->a after the call. */
static void diffusion_run(void* arg) {
  struct Diffusion* d = arg;
  const int64_t n = d->n;
  for (int s = 0; s < d->steps; ++s) {
    const float* f = d->a;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i)
      diffusion_row(i > 0 ? f + (i - 1) * n : d->zeros, f + i * n, i + 1 < n ? f + (i + 1) * n : d->zeros,
                    d->b + i * n, d->lapl + i * n, n);
    float* t = d->a;
    d->a = d->b;
    d->b = t;
  }
}

/* The float64 reference: the n x n field after `steps` steps from `start` (zero outside it). */
static double* reference_field(const float* start, int64_t n, int steps) {
  double* r = malloc(sizeof(double) * (size_t)(n * n));
  double* q = malloc(sizeof(double) * (size_t)(n * n));
  if (!r || !q) {
    fprintf(stderr, "unison-plain-c: out of memory (the reference of %lld x %lld)\n", (long long)n, (long long)n);
    exit(2);
  }
  for (int64_t i = 0; i < n * n; ++i) r[i] = start[i];
  for (int step = 0; step < steps; ++step) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        const double c = r[i * n + j];
        const double l = 4 * c - (i > 0 ? r[(i - 1) * n + j] : 0) - (i + 1 < n ? r[(i + 1) * n + j] : 0) -
                         (j > 0 ? r[i * n + j - 1] : 0) - (j + 1 < n ? r[i * n + j + 1] : 0);
        q[i * n + j] = c - 0.25 * l;
      }
    double* t = r;
    r = q;
    q = t;
  }
  free(q);
  return r;
}

static int diffusion(const char* path) {
  int64_t n = 0;
  float* field = read_field(path, &n);
  if (!field) return 2;
  float* zeros = floats(n);
  struct Diffusion d = {field, floats(n * n), floats(n * n), zeros, n, 100};
  /* Steps 1-200 (the two untimed calls), then three timed calls of 100: steps 201-500, the
     window unison-bench times (the cost of a step changes while the diffusion fronts enter the
     field's zero regions as subnormal numbers). */
  const double s = median_seconds(diffusion_run, &d, 3) / d.steps;
  /* The float64 reference of the same 500 steps from the file's field. */
  int64_t m = 0;
  float* start = read_field(path, &m);
  if (!start) return 2;
  double* r = reference_field(start, n, 500);
  double error;
  RELATIVE_ERROR(error, n * n, d.a, r[i]);
  char name[96];
  snprintf(name, sizeof name, "diffusion/every_step/streaming/%lldx%lld", (long long)n, (long long)n);
  record(name, s, error, 1e-5 * sqrt(500.0));
  free(d.a);
  free(d.b);
  free(d.lapl);
  free(zeros);
  free(start);
  free(r);
  return 0;
}

/* The sweep past the caches (unison-bench --sizes): every step with its Laplacian from a field
   uniform in [0.5, 1) of side n (scaled), in calls of unison-bench's steps for the size; checked
   over 4 steps from the same field against the float64 reference. */
static void diffusion_uniform(int64_t side) {
  const int64_t n = scaled(side, 3, 2);
  const double wanted = 100 * (2000.0 / (double)n) * (2000.0 / (double)n);
  int steps = (int)llround(wanted < 8 ? 8 : wanted > 100 ? 100 : wanted);
  steps = (steps + 3) / 4 * 4;
  float* zeros = floats(n);
  float* start = floats(n * n);
  fill_uniform(start, n * n, 11, 0.5, 1.0);
  struct Diffusion d = {floats(n * n), floats(n * n), floats(n * n), zeros, n, steps};
  memcpy(d.a, start, sizeof(float) * (size_t)(n * n));
  const double s = median_seconds(diffusion_run, &d, 3) / steps;
  memcpy(d.a, start, sizeof(float) * (size_t)(n * n));
  d.steps = 4;
  diffusion_run(&d);
  double* r = reference_field(start, n, 4);
  double error;
  RELATIVE_ERROR(error, n * n, d.a, r[i]);
  char name[96];
  snprintf(name, sizeof name, "diffusion/sizes/every_step/%lldx%lld", (long long)n, (long long)n);
  record(name, s, error, 1e-5 * sqrt(4.0));
  free(d.a);
  free(d.b);
  free(d.lapl);
  free(zeros);
  free(start);
  free(r);
}

/* The sweep's sizes: unison::bench::sizes_cpu_sides and sizes_counts (benchmarks/cases/common.hpp). */
static const int64_t sizes_sides[4] = {1024, 2000, 4096, 8192};
static const int64_t sizes_counts[4] = {100000, 1000000, 10000000, 100000000};

int main(int argc, char** argv) {
  const char* field = NULL;
  int parts[5] = {0};
  static const char* const names[5] = {"elementwise", "convolve", "histogram", "diffusion", "sizes"};
  for (int a = 1; a < argc; ++a) {
    int known = 0;
    for (int p = 0; p < 5; ++p)
      if (strcmp(argv[a], names[p]) == 0) parts[p] = known = 1;
    if (known) continue;
    if (strncmp(argv[a], "--scale=", 8) == 0) {
      char* end = NULL;
      scale = strtod(argv[a] + 8, &end);
      if (end == argv[a] + 8 || *end != '\0' || !(scale > 0 && scale <= 1)) {
        fprintf(stderr, "unison-plain-c: --scale: '%s' is not a number above 0 and at most 1\n", argv[a] + 8);
        return 2;
      }
    } else if (strncmp(argv[a], "--field=", 8) == 0) {
      field = argv[a] + 8;
    } else {
      fprintf(stderr, "unison-plain-c: unknown argument '%s' (--scale=F, --field=FILE.npy, elementwise, convolve, histogram, diffusion, sizes)\n", argv[a]);
      return 2;
    }
  }
  if (parts[3] && !field) {
    fprintf(stderr, "unison-plain-c: diffusion needs --field=FILE.npy (the start field)\n");
    return 2;
  }
#if defined(__x86_64__)
  printf("unison-plain-c: %d threads, scale %g, flush-to-zero %s\n", omp_get_max_threads(), scale,
         (_mm_getcsr() & 0x8040) ? "ON" : "off");
#else
  printf("unison-plain-c: %d threads, scale %g\n", omp_get_max_threads(), scale);
#endif
  if (parts[0]) elementwise();
  if (parts[1]) convolve(100000000, 0);
  if (parts[2]) histogram(100000000, 0);
  if (parts[3] && diffusion(field) != 0) return 2;
  for (int k = 0; parts[4] && k < 4; ++k) {
    if (parts[1]) convolve(sizes_counts[k], 1);
    if (parts[2]) histogram(sizes_counts[k], 1);
  }
  for (int k = 0; parts[4] && parts[3] && k < 4; ++k) diffusion_uniform(sizes_sides[k]);
  return 0;
}
