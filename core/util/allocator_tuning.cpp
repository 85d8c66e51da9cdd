#include "core/util/allocator_tuning.h"

#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace glance {

void TuneAllocatorForInference() {
  static std::once_flag once;
  std::call_once(once, [] {
#if defined(__GLIBC__)
    // 32 MiB is glibc's ceiling for the mmap threshold (DEFAULT_MMAP_THRESHOLD_MAX on 64-bit):
    // anything below comes from the heap. Trimming only above 1 GiB of free heap top.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  });
}

}  // namespace glance
