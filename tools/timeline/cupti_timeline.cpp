// A timeline of a CUDA program's GPU work, for reading a step of the distributed diffusion: every
// kernel, copy and fill that ran on the GPU, with its stream and its start and end on the GPU's
// clock, from CUPTI's activity records. Loaded into any CUDA program without changing it, through
// the CUDA driver's injection hook:
//   g++ -O2 -shared -fPIC -I$CUDA/include tools/timeline/cupti_timeline.cpp
//       -L$CUDA/lib64 -lcupti -o libunison_timeline.so   (one command)
//   UNISON_TIMELINE=trace CUDA_INJECTION64_PATH=$PWD/libunison_timeline.so program ...
// writes trace.<rank>.csv (the rank from Open MPI's or PMI's environment, else the process id):
// kind, stream, start and end in ns, and the kernel's demangled name. The GPU clock is the
// same for every process of one host, so the ranks' files line up.
// tools/timeline/plot_timeline.py draws them.
#include <cupti.h>
#include <cxxabi.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>

namespace {

std::FILE* out = nullptr;
std::mutex lock;

void check(CUptiResult r, const char* what) {
  if (r == CUPTI_SUCCESS) return;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  std::fprintf(stderr, "unison timeline: %s failed: %s\n", what, text ? text : "?");
}

std::string demangle(const char* name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                           std::free);
  std::string s = status == 0 && d ? d.get() : name;
  for (char& c : s)
    if (c == ',' || c == '\n') c = ';';  // one CSV field
  return s;
}

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  constexpr size_t bytes = 8 << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, bytes));
  *size = bytes;
  *max_records = 0;
}

void CUPTIAPI completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> guard(lock);
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (!out) break;
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        std::fprintf(out, "kernel,%u,%llu,%llu,%s\n", k->streamId, (unsigned long long)k->start,
                     (unsigned long long)k->end, demangle(k->name).c_str());
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        const char* kind = m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD   ? "copy host to device"
                           : m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH ? "copy device to host"
                                                                            : "copy";
        std::fprintf(out, "copy,%u,%llu,%llu,%s %llu bytes\n", m->streamId,
                     (unsigned long long)m->start, (unsigned long long)m->end, kind,
                     (unsigned long long)m->bytes);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        std::fprintf(out, "fill,%u,%llu,%llu,fill %llu bytes\n", m->streamId,
                     (unsigned long long)m->start, (unsigned long long)m->end,
                     (unsigned long long)m->bytes);
        break;
      }
      default:
        break;
    }
  }
  std::free(buffer);
}

void finish() {
  cuptiActivityFlushAll(1);
  std::lock_guard<std::mutex> guard(lock);
  if (out) std::fclose(out);
  out = nullptr;
}

}  // namespace

extern "C" int InitializeInjection() {
  const char* base = std::getenv("UNISON_TIMELINE");
  std::string rank;
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* r = std::getenv(var)) {
      rank = r;
      break;
    }
  if (rank.empty()) rank = std::to_string(getpid());
  const std::string path = std::string(base ? base : "timeline") + "." + rank + ".csv";
  out = std::fopen(path.c_str(), "w");
  if (!out) {
    std::fprintf(stderr, "unison timeline: cannot write %s\n", path.c_str());
    return 0;
  }
  std::fprintf(out, "kind,stream,start_ns,end_ns,name\n");
  check(cuptiActivityRegisterCallbacks(requested, completed), "cuptiActivityRegisterCallbacks");
  check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "enable kernels");
  check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "enable copies");
  check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET), "enable fills");
  std::atexit(finish);
  return 1;
}
