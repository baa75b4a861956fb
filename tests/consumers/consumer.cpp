// An application outside the ossa tree, in C++17: builds a two-joint skeleton and a one-second
// clip through the offline library, bakes both into a .ossa archive in memory, loads it with
// the runtime, samples half-way and checks the tip's model-space position. Exit status 0 when
// it matches, 1 otherwise. Built by tests/consumers.sh through CMake (find_package) and
// pkg-config against an installed ossa.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include <ossa/archive.h>
#include <ossa/local_to_model_job.h>
#include <ossa/offline/archive_writer.h>
#include <ossa/offline/builders.h>
#include <ossa/sampling_job.h>

namespace
{

struct blob_owner {
    ossa_blob blob{};
    ~blob_owner() { ossa_blob_destroy(&blob); }
};

bool check(ossa_result r, const ossa_diag &diag, const char *what)
{
    if (r == OSSA_OK) return true;
    std::fprintf(stderr, "%s: %s (%s)\n", what, ossa_result_name(r), diag.message);
    return false;
}

} // namespace

int main()
{
    ossa_diag diag{};
    // Skeleton: "root" and "tip" one unit above it.
    ossa_raw_skeleton raw_skel{};
    ossa_raw_skeleton_create(&raw_skel, 2, nullptr);
    ossa_raw_skeleton_set_name(&raw_skel, 0, "root");
    ossa_raw_skeleton_set_name(&raw_skel, 1, "tip");
    raw_skel.joints[1].parent = 0;
    raw_skel.joints[1].rest.translation.y = 1.f;

    // Clip: the root moves from 0 to x = 2 and turns 90 degrees about z in one second; the tip
    // keeps its rest translation (a channel without keys would be the identity).
    ossa_raw_animation raw_anim{};
    ossa_raw_animation_create(&raw_anim, 2, nullptr);
    raw_anim.duration = 1.f;
    ossa_raw_joint_track_resize(&raw_anim, 0, 2, 2, 0);
    ossa_raw_joint_track_resize(&raw_anim, 1, 1, 0, 0);
    const float s = std::sqrt(.5f);
    raw_anim.tracks[0].translations[0] = {0.f, {0.f, 0.f, 0.f}};
    raw_anim.tracks[0].translations[1] = {1.f, {2.f, 0.f, 0.f}};
    raw_anim.tracks[0].rotations[0] = {0.f, {0.f, 0.f, 0.f, 1.f}};
    raw_anim.tracks[0].rotations[1] = {1.f, {0.f, 0.f, s, s}};
    raw_anim.tracks[1].translations[0] = {0.f, {0.f, 1.f, 0.f}};

    blob_owner skel_blob, anim_blob, file;
    bool ok = check(ossa_raw_animation_validate(&raw_anim, &diag), diag, "validate") &&
              check(ossa_skeleton_build(&raw_skel, nullptr, &skel_blob.blob, &diag), diag, "skeleton") &&
              check(ossa_animation_build(&raw_anim, nullptr, &anim_blob.blob, &diag), diag, "animation");
    ossa_raw_animation_destroy(&raw_anim);
    ossa_raw_skeleton_destroy(&raw_skel);
    if (!ok) return 1;
    const ossa_archive_entry entries[] = {
        {OSSA_TAG_SKELETON, OSSA_SKELETON_BLOB_VERSION, skel_blob.blob.data, skel_blob.blob.size},
        {OSSA_TAG_ANIMATION, OSSA_ANIMATION_BLOB_VERSION, anim_blob.blob.data, anim_blob.blob.size}};
    if (!check(ossa_archive_write(entries, 2, nullptr, &file.blob, &diag), diag, "archive")) return 1;

    // The runtime side: views over the archive's bytes.
    ossa_archive ar{};
    ossa_skeleton skel{};
    ossa_animation anim{};
    if (!check(ossa_archive_init(&ar, file.blob.data, file.blob.size), diag, "load") ||
        !check(ossa_archive_skeleton(&ar, &skel), diag, "load skeleton") ||
        !check(ossa_archive_animation(&ar, 0, &anim), diag, "load animation"))
        return 1;
    const size_t ctx_size = ossa_sampling_context_size(skel.joint_count);
    std::unique_ptr<void, decltype(&std::free)> ctx_mem(std::aligned_alloc(16, (ctx_size + 15) / 16 * 16), &std::free);
    ossa_sampling_context *ctx = ossa_sampling_context_init(ctx_mem.get(), ctx_size, skel.joint_count);
    std::vector<ossa_soa_transform> pose(skel.soa_count);
    std::vector<ossa_float4x4> models(skel.joint_count);
    const ossa_sampling_job sampling{&anim, ctx, .5f, pose.data(), pose.size(), skel.rest_pose, skel.soa_count};
    const ossa_local_to_model_job l2m{&skel, nullptr, 0, 0, pose.data(), pose.size(), models.data(), models.size()};
    if (!check(ossa_sampling_job_run(&sampling), diag, "sampling") ||
        !check(ossa_local_to_model_job_run(&l2m), diag, "local to model"))
        return 1;

    // Half-way: the root at x = 1 turned 45 degrees, so the tip is at (1 - sin 45, cos 45, 0).
    const float expected[3] = {1.f - s, s, 0.f};
    const float *tip = models[1].cols[3];
    const float error = std::hypot(tip[0] - expected[0], tip[1] - expected[1], tip[2] - expected[2]);
    std::printf("ossa %d.%d.%d: %zu joints, %.3g s, tip at (%.4f, %.4f, %.4f), error %.2g\n", OSSA_VERSION_MAJOR,
                OSSA_VERSION_MINOR, OSSA_VERSION_PATCH, skel.joint_count, static_cast<double>(anim.duration),
                static_cast<double>(tip[0]), static_cast<double>(tip[1]), static_cast<double>(tip[2]),
                static_cast<double>(error));
    return skel.joint_count == 2 && error < 1e-3f ? 0 : 1;
}
