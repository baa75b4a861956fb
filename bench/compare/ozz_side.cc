// ozz-animation's side of bench/compare.sh, built against an ozz-animation 0.16 source tree the
// user names (never part of ossa). It runs ossa_side.c's loops with ozz's jobs, and prepares
// the clips all three libraries read:
//
//   ozz-compare run MEASURE CALLS SKELETON.ozz A.ozz [B.ozz C.ozz]
//     MEASURE: forward | random | l2m | blend | frame, the loops defined in ossa_side.c, over
//     runtime animations; prints "calls N", "ns X" (thread CPU time per call of the measured
//     loop), the SamplingJob::Context bytes and the per-character state bytes
//   ozz-compare build RAW.ozz SKELETON.ozz UNIT OUT.ozz
//     ozz's AnimationOptimizer then AnimationBuilder with their default settings; the
//     optimizer's defaults are metres (1 mm tolerance at 10 cm), so they are divided by UNIT,
//     the clip's metres per source unit (1 but for CMU 01_01)
//   ozz-compare resample ANIMATION.ozz SKELETON.ozz RATE OUT_raw.ozz
//     samples a runtime animation at every frame of RATE (Hz), from 0 to its duration, into a
//     RawAnimation with a key per frame on every channel (ozz ships ruby and baked only as
//     runtime animations)
//   ozz-compare from-keys IN.keys OUT_raw.ozz OUT_skeleton.ozz
//     the skeleton and keys ossa-compare dump wrote (clips ozz has no importer for: BVH, the
//     synthetic character) as a RawAnimation and a runtime Skeleton, written with ozz's io
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ozz/animation/offline/animation_builder.h"
#include "ozz/animation/offline/animation_optimizer.h"
#include "ozz/animation/offline/raw_animation.h"
#include "ozz/animation/offline/raw_skeleton.h"
#include "ozz/animation/offline/skeleton_builder.h"
#include "ozz/animation/runtime/animation.h"
#include "ozz/animation/runtime/blending_job.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/sampling_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/io/archive.h"
#include "ozz/base/io/stream.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/memory/allocator.h"

#include "reference_common.h"

namespace {

using namespace ozz::animation;
using ozz::animation::offline::RawAnimation;
using ozz::animation::offline::RawSkeleton;

using compare::next_random;
using compare::thread_ns;

template <typename T>
bool load(const char* path, T* out) {
  return compare::load("ozz-compare", path, out);
}

template <typename T>
bool save(const char* path, const T& object) {
  ozz::io::File file(path, "wb");
  if (!file.opened()) return std::fprintf(stderr, "ozz-compare: cannot write %s\n", path), false;
  ozz::io::OArchive archive(&file);
  archive << object;
  return true;
}

// Counts the bytes ozz allocates while a SamplingJob::Context is sized: its whole state.
struct CountingAllocator : ozz::memory::Allocator {
  ozz::memory::Allocator* inner;
  size_t bytes = 0;
  explicit CountingAllocator(ozz::memory::Allocator* i) : inner(i) {}
  void* Allocate(size_t size, size_t alignment) override {
    bytes += size;
    return inner->Allocate(size, alignment);
  }
  void Deallocate(void* block) override { inner->Deallocate(block); }
};

enum Mode { kForward, kRandom, kLocalToModel, kBlend, kFrame };

int Run(Mode mode, size_t calls, const char* skeleton_path, int clip_count, char** paths) {
  const int n = (mode == kBlend || mode == kFrame) ? 3 : 1;
  if (clip_count != n) return std::fprintf(stderr, "ozz-compare: this measure takes %d animation(s)\n", n), 2;
  Skeleton skeleton;
  Animation animations[3];
  if (!load(skeleton_path, &skeleton)) return 1;
  for (int i = 0; i < n; ++i)
    if (!load(paths[i], &animations[i])) return 1;
  const int soa = skeleton.num_soa_joints();
  CountingAllocator counter(ozz::memory::default_allocator());
  ozz::memory::SetDefaulAllocator(&counter);
  SamplingJob::Context contexts[3];
  for (int i = 0; i < 3; ++i) contexts[i].Resize(skeleton.num_joints());
  ozz::memory::SetDefaulAllocator(counter.inner);
  const size_t context_bytes = counter.bytes / 3;
  std::vector<ozz::math::SoaTransform> poses[3], blended(soa);
  std::vector<ozz::math::Float4x4> models(skeleton.num_joints());
  SamplingJob jobs[3];
  for (int i = 0; i < n; ++i) {
    poses[i].resize(soa);
    jobs[i].animation = &animations[i];
    jobs[i].context = &contexts[i];
    jobs[i].ratio = 0.f;
    jobs[i].output = ozz::make_span(poses[i]);
    if (!jobs[i].Run()) return std::fprintf(stderr, "ozz-compare: sampling failed\n"), 1;
  }
  BlendingJob::Layer layers[3];
  const float weights[3] = {.3f, .3f, .4f};
  for (int i = 0; i < 3; ++i) {
    layers[i].weight = weights[i];
    layers[i].transform = ozz::make_span(poses[n > i ? i : 0]);
  }
  BlendingJob blend;
  blend.layers = layers;
  blend.rest_pose = skeleton.joint_rest_poses();
  blend.output = ozz::make_span(blended);
  LocalToModelJob l2m;
  l2m.skeleton = &skeleton;
  l2m.input = ozz::make_span(mode == kFrame ? blended : poses[0]);
  l2m.output = ozz::make_span(models);
  const size_t steps = size_t(animations[0].duration() * 60.f) + 1;
  double ns = 0.0;
  for (int pass = 0; pass < 2; ++pass) {  // 0: warm-up, 1: measured
    uint32_t seed = 12345;
    const double t0 = thread_ns();
    if (pass == 1) MEASURE_START();
    for (size_t i = 0; i < calls; ++i) {
      switch (mode) {
        case kForward:
          jobs[0].ratio = float(i % steps) / float(steps - 1);
          jobs[0].Run();
          break;
        case kRandom:
          jobs[0].ratio = float(next_random(&seed) >> 8) * (1.f / 16777216.f);
          jobs[0].Run();
          break;
        case kLocalToModel:
          l2m.Run();
          break;
        case kBlend:
          blend.Run();
          break;
        case kFrame:
          for (int k = 0; k < 3; ++k) {
            jobs[k].ratio = float(i % steps) / float(steps - 1);
            jobs[k].Run();
          }
          blend.Run();
          l2m.Run();
          break;
      }
    }
    if (pass == 1) MEASURE_STOP();
    ns = (thread_ns() - t0) / double(calls);
  }
  // The same character as ossa_side.c's: 3 contexts, 4 poses (3 sampled, 1 blended), models.
  const size_t state = 3 * context_bytes + 4 * size_t(soa) * sizeof(ozz::math::SoaTransform) +
                       size_t(skeleton.num_joints()) * sizeof(ozz::math::Float4x4);
  std::printf("calls %zu\nns %.3f\njoints %d\ncontext_bytes %zu\nstate_bytes %zu\nbytes %zu\n", calls, ns,
              skeleton.num_joints(), context_bytes, state, animations[0].size());
  return 0;
}

int Build(const char* raw_path, const char* skeleton_path, float unit, const char* out) {
  RawAnimation raw, optimized;
  Skeleton skeleton;
  if (!load(raw_path, &raw) || !load(skeleton_path, &skeleton)) return 1;
  offline::AnimationOptimizer optimizer;  // default settings, in the clip's unit
  optimizer.setting.tolerance /= unit;
  optimizer.setting.distance /= unit;
  if (!optimizer(raw, skeleton, &optimized)) return std::fprintf(stderr, "ozz-compare: optimizer failed\n"), 1;
  const offline::AnimationBuilder builder;
  ozz::unique_ptr<Animation> animation = builder(optimized);
  if (!animation) return std::fprintf(stderr, "ozz-compare: builder failed\n"), 1;
  return save(out, *animation) ? 0 : 1;
}

// Lane `lane` of a SoA vector.
float Lane(const ozz::math::SimdFloat4& v, int lane) {
  float f[4];
  ozz::math::StorePtrU(v, f);
  return f[lane];
}

int Resample(const char* animation_path, const char* skeleton_path, float rate, const char* out) {
  Animation animation;
  Skeleton skeleton;
  if (!load(animation_path, &animation) || !load(skeleton_path, &skeleton)) return 1;
  const int joints = skeleton.num_joints();
  SamplingJob::Context context(joints);
  std::vector<ozz::math::SoaTransform> pose(skeleton.num_soa_joints());
  RawAnimation raw;
  raw.duration = animation.duration();
  raw.name = animation.name();
  raw.tracks.resize(joints);
  const int frames = int(raw.duration * rate + .5f);
  for (int k = 0; k <= frames; ++k) {
    const float time = k == frames ? raw.duration : float(k) / rate;
    SamplingJob job;
    job.animation = &animation;
    job.context = &context;
    job.ratio = time / raw.duration;
    job.output = ozz::make_span(pose);
    if (!job.Run()) return std::fprintf(stderr, "ozz-compare: sampling failed\n"), 1;
    for (int j = 0; j < joints; ++j) {
      const ozz::math::SoaTransform& s = pose[j / 4];
      const int l = j % 4;
      RawAnimation::JointTrack& t = raw.tracks[j];
      t.translations.push_back({time, {Lane(s.translation.x, l), Lane(s.translation.y, l), Lane(s.translation.z, l)}});
      t.rotations.push_back({time,
                             {Lane(s.rotation.x, l), Lane(s.rotation.y, l), Lane(s.rotation.z, l), Lane(s.rotation.w, l)}});
      t.scales.push_back({time, {Lane(s.scale.x, l), Lane(s.scale.y, l), Lane(s.scale.z, l)}});
    }
  }
  if (!raw.Validate()) return std::fprintf(stderr, "ozz-compare: resampled animation is not valid\n"), 1;
  return save(out, raw) ? 0 : 1;
}

int FromKeys(const char* keys_path, const char* raw_out, const char* skeleton_out) {
  FILE* f = std::fopen(keys_path, "rb");
  if (!f) return std::perror(keys_path), 1;
  bool ok = true;
  auto get = [&](void* p, size_t bytes) { ok = ok && std::fread(p, 1, bytes, f) == bytes; };
  char magic[8];
  uint32_t joints = 0;
  float duration = 0.f;
  get(magic, 8), get(&joints, 4), get(&duration, 4);
  ok = ok && !std::memcmp(magic, "OSSAKEYS", 8) && joints > 0 && joints <= 4096;
  std::vector<int32_t> parents(ok ? joints : 0);
  std::vector<std::string> names(parents.size());
  std::vector<ozz::math::Transform> rests(parents.size());
  for (uint32_t j = 0; ok && j < joints; ++j) {
    uint32_t len = 0;
    float rest[10];
    get(&parents[j], 4), get(&len, 4);
    ok = ok && len < 4096 && parents[j] < int32_t(j);
    names[j].resize(ok ? len : 0);
    get(&names[j][0], names[j].size()), get(rest, sizeof rest);
    rests[j].translation = {rest[0], rest[1], rest[2]};
    rests[j].rotation = {rest[3], rest[4], rest[5], rest[6]};
    rests[j].scale = {rest[7], rest[8], rest[9]};
  }
  // Children in index order, so that ozz's depth-first order is the dump's (checked below).
  RawSkeleton raw_skeleton;
  struct Tree {
    const std::vector<int32_t>& parents;
    const std::vector<std::string>& names;
    const std::vector<ozz::math::Transform>& rests;
    void Add(RawSkeleton::Joint::Children* out, int32_t parent) const {
      for (size_t k = 0; k < parents.size(); ++k) {
        if (parents[k] != parent) continue;
        out->emplace_back();
        out->back().name = names[k].c_str();
        out->back().transform = rests[k];
        Add(&out->back().children, int32_t(k));
      }
    }
  };
  if (ok) Tree{parents, names, rests}.Add(&raw_skeleton.roots, -1);
  RawAnimation raw;
  raw.duration = duration;
  raw.tracks.resize(ok ? joints : 0);
  for (uint32_t j = 0; ok && j < joints; ++j) {
    RawAnimation::JointTrack& t = raw.tracks[j];
    uint32_t n = 0;
    get(&n, 4);
    for (uint32_t k = 0; ok && k < n; ++k) {
      float v[4];
      get(v, sizeof v);
      t.translations.push_back({v[0], {v[1], v[2], v[3]}});
    }
    get(&n, 4);
    for (uint32_t k = 0; ok && k < n; ++k) {
      float v[5];
      get(v, sizeof v);
      t.rotations.push_back({v[0], {v[1], v[2], v[3], v[4]}});
    }
    get(&n, 4);
    for (uint32_t k = 0; ok && k < n; ++k) {
      float v[4];
      get(v, sizeof v);
      t.scales.push_back({v[0], {v[1], v[2], v[3]}});
    }
  }
  std::fclose(f);
  if (!ok || !raw_skeleton.Validate() || !raw.Validate())
    return std::fprintf(stderr, "ozz-compare: %s: not a valid keys file\n", keys_path), 1;
  ozz::unique_ptr<Skeleton> skeleton = offline::SkeletonBuilder()(raw_skeleton);
  if (!skeleton || skeleton->num_joints() != int(joints))
    return std::fprintf(stderr, "ozz-compare: skeleton build failed\n"), 1;
  for (uint32_t j = 0; j < joints; ++j)
    if (skeleton->joint_parents()[j] != (parents[j] < 0 ? Skeleton::kNoParent : parents[j]))
      return std::fprintf(stderr, "ozz-compare: joint %u moved in ozz's order\n", j), 1;
  return save(raw_out, raw) && save(skeleton_out, *skeleton) ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  static const char* const names[] = {"forward", "random", "l2m", "blend", "frame"};
  if (argc >= 6 && !std::strcmp(argv[1], "run")) {
    for (int m = 0; m < 5; ++m)
      if (!std::strcmp(argv[2], names[m]))
        return Run(Mode(m), std::strtoul(argv[3], nullptr, 10), argv[4], argc - 5, argv + 5);
  }
  if (argc == 6 && !std::strcmp(argv[1], "build"))
    return Build(argv[2], argv[3], std::strtof(argv[4], nullptr), argv[5]);
  if (argc == 6 && !std::strcmp(argv[1], "resample"))
    return Resample(argv[2], argv[3], std::strtof(argv[4], nullptr), argv[5]);
  if (argc == 5 && !std::strcmp(argv[1], "from-keys")) return FromKeys(argv[2], argv[3], argv[4]);
  std::fprintf(stderr,
               "usage: ozz-compare run forward|random|l2m|blend|frame CALLS SKELETON.ozz A.ozz [B.ozz C.ozz]\n"
               "       ozz-compare build RAW.ozz SKELETON.ozz UNIT OUT.ozz\n"
               "       ozz-compare resample ANIMATION.ozz SKELETON.ozz RATE OUT_raw.ozz\n"
               "       ozz-compare from-keys IN.keys OUT_raw.ozz OUT_skeleton.ozz\n");
  return 2;
}
