// DLPack's header (dlpack/dlpack.h), with the versioned capsule's types where the header
// predates them (DLPack 1.0 added them; Debian 12 ships 0.6): their layout, from the DLPack
// specification.
#pragma once

#include <dlpack/dlpack.h>

#include <cstdint>

#if !defined(DLPACK_MAJOR_VERSION)
extern "C" {
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;
}
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#endif
