// ACL's side of bench/compare.sh, built against an ACL 2.1 source tree (header-only, with its
// rtm) and the ozz-animation tree the user names (never part of ossa; ozz's io reads the raw
// clips, so ACL compresses the very clip the other two bake).
//
//   acl-compare compress RAW.ozz SKELETON.ozz RATE UNIT OUT.acl
//     samples the RawAnimation (ozz's SampleAnimation: lerp and nlerp between its keys) at
//     every frame of RATE (Hz), converts translations to centimetres (UNIT: metres per source
//     unit) and compresses with ACL's defaults: get_default_compression_settings() (level
//     automatic, variable bit rates), the qvvf transform error metric, precision 0.01 cm at a
//     3 cm shell, identity default sub-tracks (no bind pose); prints its bytes and time
//   acl-compare run forward|random CALLS IN.acl
//     the loops of ossa_side.c, each call one seek + decompress_tracks of the whole pose into a
//     writer storing qvv transforms (default_transform_decompression_settings); prints "calls
//     N", "ns X" (thread CPU time per call of the measured loop), the decompression context
//     bytes and the per-character state bytes
#include <time.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <acl/compression/compress.h>
#include <acl/compression/track_array.h>
#include <acl/compression/transform_error_metrics.h>
#include <acl/core/ansi_allocator.h>
#include <acl/decompression/decompress.h>

#include "ozz/animation/offline/raw_animation.h"
#include "ozz/animation/offline/raw_animation_utils.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/io/archive.h"
#include "ozz/base/io/stream.h"
#include "ozz/base/maths/transform.h"

#include "reference_common.h"

namespace {

using compare::next_random;
using compare::thread_ns;

template <typename T>
bool load(const char* path, T* out) {
  return compare::load("acl-compare", path, out);
}

int Compress(const char* raw_path, const char* skeleton_path, float rate, float unit, const char* out) {
  ozz::animation::offline::RawAnimation raw;
  ozz::animation::Skeleton skeleton;
  if (!load(raw_path, &raw) || !load(skeleton_path, &skeleton)) return 1;
  const uint32_t joints = uint32_t(skeleton.num_joints());
  if (raw.num_tracks() != int(joints)) return std::fprintf(stderr, "acl-compare: tracks and joints differ\n"), 1;
  const uint32_t samples = uint32_t(raw.duration * rate + .5f) + 1;
  const float to_cm = unit * 100.f;
  acl::ansi_allocator allocator;
  acl::track_array_qvvf tracks(allocator, joints);
  for (uint32_t j = 0; j < joints; ++j) {
    acl::track_desc_transformf desc;  // precision 0.01 cm, shell 3 cm: ACL's defaults
    desc.output_index = j;
    const int16_t parent = skeleton.joint_parents()[j];
    desc.parent_index = parent < 0 ? acl::k_invalid_track_index : uint32_t(parent);
    tracks[j] = acl::track_qvvf::make_reserve(desc, allocator, samples, rate);
  }
  std::vector<ozz::math::Transform> pose(joints);
  for (uint32_t s = 0; s < samples; ++s) {
    const float time = s + 1 == samples ? raw.duration : float(s) / rate;
    if (!ozz::animation::offline::SampleAnimation(raw, time, ozz::make_span(pose)))
      return std::fprintf(stderr, "acl-compare: %s could not be sampled\n", raw_path), 1;
    for (uint32_t j = 0; j < joints; ++j) {
      const ozz::math::Transform& t = pose[j];
      tracks[j][s] = rtm::qvv_set(rtm::quat_normalize(rtm::quat_set(t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w)),
                                  rtm::vector_set(t.translation.x * to_cm, t.translation.y * to_cm, t.translation.z * to_cm),
                                  rtm::vector_set(t.scale.x, t.scale.y, t.scale.z));
    }
  }
  acl::compression_settings settings = acl::get_default_compression_settings();
  acl::qvvf_transform_error_metric metric;
  settings.error_metric = &metric;
  acl::output_stats stats;
  acl::compressed_tracks* compressed = nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  const acl::error_result result = acl::compress_track_list(allocator, tracks, settings, compressed, stats);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (result.any()) return std::fprintf(stderr, "acl-compare: compression failed: %s\n", result.c_str()), 1;
  FILE* f = std::fopen(out, "wb");
  const bool ok = f && std::fwrite(compressed, 1, compressed->get_size(), f) == compressed->get_size();
  if (f) std::fclose(f);
  std::printf("bytes %u\nsamples %u\ncompress_ms %.1f\n", compressed->get_size(), samples, ms);
  allocator.deallocate(compressed, compressed->get_size());
  return ok ? 0 : 1;
}

// Stores the decompressed pose as qvv transforms, as a runtime would before blending.
struct PoseWriter : acl::track_writer {
  rtm::qvvf* pose;
  void RTM_SIMD_CALL write_rotation(uint32_t i, rtm::quatf_arg0 r) { pose[i].rotation = r; }
  void RTM_SIMD_CALL write_translation(uint32_t i, rtm::vector4f_arg0 t) { pose[i].translation = t; }
  void RTM_SIMD_CALL write_scale(uint32_t i, rtm::vector4f_arg0 s) { pose[i].scale = s; }
};

using Context = acl::decompression_context<acl::default_transform_decompression_settings>;

int Run(bool random, size_t calls, const char* path) {
  FILE* f = std::fopen(path, "rb");
  if (!f) return std::perror(path), 1;
  std::fseek(f, 0, SEEK_END);
  const long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  void* buffer = std::aligned_alloc(16, (size_t(size) + 15) & ~size_t(15));
  const bool read = std::fread(buffer, 1, size_t(size), f) == size_t(size);
  std::fclose(f);
  acl::error_result error;
  const acl::compressed_tracks* tracks = read ? acl::make_compressed_tracks(buffer, &error) : nullptr;
  if (!tracks) return std::fprintf(stderr, "acl-compare: %s is not an ACL buffer\n", path), 1;
  Context context;
  if (!context.initialize(*tracks)) return std::fprintf(stderr, "acl-compare: context failed\n"), 1;
  const uint32_t joints = tracks->get_num_tracks();
  std::vector<rtm::qvvf> pose(joints);
  PoseWriter writer;
  writer.pose = pose.data();
  const float duration = tracks->get_duration();
  const size_t steps = size_t(duration * 60.f) + 1;
  double ns = 0.0;
  for (int pass = 0; pass < 2; ++pass) {  // 0: warm-up, 1: measured
    uint32_t seed = 12345;
    const double t0 = thread_ns();
    if (pass == 1) MEASURE_START();
    for (size_t i = 0; i < calls; ++i) {
      const float ratio = random ? float(next_random(&seed) >> 8) * (1.f / 16777216.f)
                                 : float(i % steps) / float(steps - 1);
      context.seek(ratio * duration, acl::sample_rounding_policy::none);
      context.decompress_tracks(writer);
    }
    if (pass == 1) MEASURE_STOP();
    ns = (thread_ns() - t0) / double(calls);
  }
  // A character playing 3 clips: 3 contexts, 4 qvv poses (3 decoded, 1 blended), models.
  const size_t state = 3 * sizeof(Context) + 4 * joints * sizeof(rtm::qvvf) + joints * sizeof(rtm::matrix3x4f);
  std::printf("calls %zu\nns %.3f\njoints %u\ncontext_bytes %zu\nstate_bytes %zu\nbytes %u\n", calls, ns, joints,
              sizeof(Context), state, tracks->get_size());
  std::free(buffer);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 7 && !std::strcmp(argv[1], "compress"))
    return Compress(argv[2], argv[3], std::strtof(argv[4], nullptr), std::strtof(argv[5], nullptr), argv[6]);
  if (argc == 5 && !std::strcmp(argv[1], "run") && (!std::strcmp(argv[2], "forward") || !std::strcmp(argv[2], "random")))
    return Run(!std::strcmp(argv[2], "random"), std::strtoul(argv[3], nullptr, 10), argv[4]);
  std::fprintf(stderr,
               "usage: acl-compare compress RAW.ozz SKELETON.ozz RATE UNIT OUT.acl\n"
               "       acl-compare run forward|random CALLS IN.acl\n");
  return 2;
}
