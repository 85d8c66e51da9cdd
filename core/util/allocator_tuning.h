#pragma once
// Keeps freed activation buffers in the heap instead of returning them to the kernel.
//
// A forward pass allocates and frees buffers of megabytes per layer (prefill at 512 tokens:
// 12.6 MB for each MLP intermediate; the vision tower's blocks alike). glibc serves those
// with fresh mmap()s or trims them off the heap top after free, so every layer pays page
// faults and the kernel's page zeroing again: measured on the 2B-shaped model, one thread,
// prefill @64 went from 14.0 to 20.3 tok/s and @512 from 31.3 to 36.5 tok/s with the
// thresholds below (the memory stays mapped for the next pass, bounded by the largest pass).
// Process-wide and idempotent; a no-op outside glibc.
namespace glance {

void TuneAllocatorForInference();

}  // namespace glance
