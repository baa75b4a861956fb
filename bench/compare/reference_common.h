// What the two reference harnesses (ozz_side.cc, acl_side.cc) share: callgrind's measurement
// brackets, the ratio stream of bench/ (xorshift32), thread CPU time, and reading an ozz
// archive object. Header-only; each harness includes it once.
#ifndef OSSA_BENCH_COMPARE_REFERENCE_COMMON_H
#define OSSA_BENCH_COMPARE_REFERENCE_COMMON_H

#include <cstdint>
#include <cstdio>
#include <ctime>

#include "ozz/base/io/archive.h"
#include "ozz/base/io/stream.h"

#if defined(OSSA_HAVE_CALLGRIND)
#include <valgrind/callgrind.h>
#define MEASURE_START() CALLGRIND_START_INSTRUMENTATION
#define MEASURE_STOP() CALLGRIND_STOP_INSTRUMENTATION
#else
#define MEASURE_START() ((void)0)
#define MEASURE_STOP() ((void)0)
#endif

namespace compare {

// xorshift32, the ratio stream bench/bench.c uses (seeded 12345).
inline uint32_t next_random(uint32_t* s) {
  *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
  return *s;
}

// Nanoseconds of this thread's CPU time.
inline double thread_ns() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e9 + double(t.tv_nsec);
}

// Reads the ozz object of type T from the archive at `path`; prints why not (prefixed with
// `program`) and returns false on failure.
template <typename T>
bool load(const char* program, const char* path, T* out) {
  ozz::io::File file(path, "rb");
  if (!file.opened()) return std::fprintf(stderr, "%s: cannot open %s\n", program, path), false;
  ozz::io::IArchive archive(&file);
  if (!archive.TestTag<T>()) return std::fprintf(stderr, "%s: %s holds no such ozz object\n", program, path), false;
  archive >> *out;
  return true;
}

}  // namespace compare

#endif  // OSSA_BENCH_COMPARE_REFERENCE_COMMON_H
