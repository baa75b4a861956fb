/* Private: the animation builder's pieces. A clip resampled at its time points, the encoding
 * of one sub-track (kind, keys, rotation format, ranges, widths, quantised values) at a local
 * tolerance, its error as the runtime decodes it, the blob writer, and the search that picks
 * local tolerances against the measured model-space error (animation_search.c). */
#ifndef OSSA_OFFLINE_ANIMATION_CODEC_H
#define OSSA_OFFLINE_ANIMATION_CODEC_H

#include "ossa/offline/builders.h"
#include "ossa/offline/raw_animation.h"
#include "ossa/offline/raw_skeleton.h"
#include "internal.h"

/* A raw animation sampled at every time point (the union of its key times, plus 0 and the
 * duration). Sub-track s = joint * 3 + channel has its samples (x, y, z, w; w unused for
 * translations and scales) at samples + row[s] * 4, one row per time point, except a held
 * sub-track, which the source gives one value at every time point (a translation or scale
 * without keys or whose keys are all equal, a rotation without keys: most of a BVH's
 * translations and all its scales): it has one row, the value at time 0, which equals every
 * other (as == compares them). Rotations are normalised and kept in one hemisphere from sample
 * to sample. */
typedef struct ossa__clip {
    const ossa_allocator *allocator;
    size_t joints, frames;
    float duration;
    float *ratios;  /* [frames] time / duration, 0 first, 1 last */
    bool uniform;   /* ratios[f] == f / (frames - 1) for every f (no time point table needed) */
    float *samples; /* [4 * rows] */
    size_t *row;    /* [3 * joints + 1] each sub-track's first row; row[3 * joints] = rows */
    uint8_t *held;  /* [3 * joints] 1: one row (see above) */
    float *rest;    /* [3 * joints * 4] each sub-track's rest-pose value (the skeleton's, rotations
                       normalised as the skeleton builder does); NULL without a skeleton */
    uint8_t *own;   /* [rows]: at own + row[s], 1 where the sub-track has a key of its own (and at
                       the first and last time points); lossless builds keep exactly these (a
                       held sub-track's one flag is never read: it is stored without keys) */
    bool midpoints; /* rotation keys are also checked half-way between time points (the
                       search's second pass, when no encoding passed without it) */
    /* [3 * joints] what every error-bounded encoding of a sub-track starts from
     * (ossa__clip_facts_init); NULL: each encoding finds it again. */
    struct ossa__subtrack_facts *facts;
} ossa__clip;

/* What an error-bounded encoding of a sub-track finds in its samples before any tolerance
 * enters (ossa__subtrack_encode), the same at every tolerance, so the search finds it once. */
typedef struct ossa__subtrack_facts {
    float lo[4], hi[4]; /* each component's least and largest sample */
    float held[4];      /* the value a constant sub-track holds */
    /* The largest local error, at radius 1, of holding the channel's default, the rest pose
     * (INFINITY without one) and the decoded held value over the samples. A local error at
     * radius r is the one at radius 1 times r (translations: not scaled), rounded, and
     * rounding keeps the order, so these times r are the largest at r too. */
    float hold_default, hold_rest, hold_held;
    float sign;          /* a rotation's: the sign of its dropped component */
    int format;          /* a rotation's format: dropped component 0..3 or OSSA__ROT_FULL */
    bool exact_default;  /* every sample is the channel's default */
    bool exact_constant; /* every sample is the first */
} ossa__subtrack_facts;

/* The facts of every sub-track of the clip (after ossa__clip_set_rest when it has a rest
 * pose), for error-bounded encodings; false when out of memory. Freed with the clip. */
bool ossa__clip_facts_init(ossa__clip *clip);

/* One sub-track's encoding. */
typedef struct ossa__subtrack {
    int kind;          /* OSSA__KIND_DEFAULT, _REST, _CONSTANT or _ANIMATED */
    int format;        /* rotation: dropped component 0..3 or OSSA__ROT_FULL; else 0 */
    int n;             /* stored components, 3 or 4 */
    float constant[4]; /* the value of a constant sub-track */
    uint8_t bits[4];
    float min[4], step[4];
    uint8_t *keys; /* [frames] 1 where the time point is a key */
    uint32_t *q;   /* [4 * frames] quantised components at the keys */
    size_t key_count;
} ossa__subtrack;

/* Working memory of one encoding at a time (one per encoding thread). */
typedef struct ossa__encode_scratch {
    float *values; /* [4 * frames] the values encoded at the keys */
    float *refit;  /* [18 * frames] the key value refit's weights, errors, fit and sums */
} ossa__encode_scratch;

/* Whether channel c (OSSA__CH_*) of track t is held in a clip (see ossa__clip). */
bool ossa__raw_channel_held(const ossa_raw_joint_track *t, int c);

ossa_result ossa__clip_init(ossa__clip *clip, const ossa_raw_animation *raw, const ossa_allocator *allocator,
                            ossa_diag *diag);
/* Records the rest pose of `skeleton` (one joint per track) for rest-pose sub-tracks. */
ossa_result ossa__clip_set_rest(ossa__clip *clip, const ossa_raw_skeleton *skeleton, ossa_diag *diag);
void ossa__clip_destroy(ossa__clip *clip);

static inline const float *ossa__clip_samples(const ossa__clip *clip, size_t subtrack)
{
    return clip->samples + clip->row[subtrack] * 4;
}

/* The rows of sub-track s's samples: clip->frames, or 1 for a held one. */
static inline size_t ossa__clip_rows(const ossa__clip *clip, size_t subtrack)
{
    return clip->held[subtrack] ? 1 : clip->frames;
}

/* Allocates the key and quantised-key arrays of `count` sub-tracks; false when out of memory. */
bool ossa__subtracks_alloc(const ossa__clip *clip, ossa__subtrack *subtracks, size_t count);
/* The same for every sub-track of `clip` (subtracks [3 * joints], sub-track i at i), except
 * those no encoding stores as keys (exactly default ones, exactly constant translations and
 * scales), whose arrays stay NULL: most of a motion-capture clip's translations and scales. */
bool ossa__clip_subtracks_alloc(const ossa__clip *clip, ossa__subtrack *subtracks);
void ossa__subtracks_free(const ossa__clip *clip, ossa__subtrack *subtracks, size_t count);
/* Allocates (false when out of memory) and frees `count` encoding scratches. */
bool ossa__encode_scratch_alloc(const ossa__clip *clip, ossa__encode_scratch *scratch, size_t count);
void ossa__encode_scratch_free(const ossa__clip *clip, ossa__encode_scratch *scratch, size_t count);

/* Whether a rotation `value`'s local error against the sample `ref` (unit quaternions near
 * enough) at `radius` is at most `tolerance` (> 0), as the encoder's checks answer it: on
 * 1 - dot^2 / (|ref|^2 |value|^2) against its bisected limit, without a square root and
 * mostly without the division. The same answer as the error itself; for tests. */
bool ossa__rotation_within_tolerance(const float ref[4], const float value[4], float tolerance, float radius);

/* Encodes sub-track s so that its local error (translation: distance; rotation: chord of a
 * point at `radius`; scale: largest component error times `radius`) stays within
 * `tolerance`; tolerance 0 keeps every time point at the widest quantisation and only
 * exactly default or constant sub-tracks are stored as such. */
void ossa__subtrack_encode(const ossa__clip *clip, size_t s, float tolerance, float radius, ossa__subtrack *out,
                           ossa__encode_scratch *scratch);

/* The keys the last decode of one sub-track interpolated (see ossa__subtrack_decode_ratio);
 * zero-initialised before a sweep. */
typedef struct ossa__decode_cursor {
    size_t a, b; /* keys a < b, valid when b > 0 */
    float va[4], vb[4];
} ossa__decode_cursor;

/* The value the runtime decodes for sub-track `st` at `ratio` (in [0, 1]), 4 floats. With a
 * cursor (NULL: none), a ratio between the same two keys as the last one reuses their values:
 * the same floats, without decoding the keys again (a sweep in ascending ratios). */
void ossa__subtrack_decode_ratio(const ossa__clip *clip, size_t s, const ossa__subtrack *st, float ratio, float out[4],
                                 ossa__decode_cursor *cursor);

/* Constant rotation q (4 floats) packed as the blob stores it (see ossa/animation.h). */
void ossa__pack_constant_quat(const float *q, uint32_t out[2]);

/* Writes the blob of `subtracks` ([3 * clip->joints]). */
ossa_result ossa__animation_write(const ossa__clip *clip, const ossa__subtrack *subtracks, const char *name,
                                  const ossa_allocator *allocator, ossa_blob *out, ossa_diag *diag);

/* Writes the sorted-key blob of `subtracks` (animation_sorted.c): the same keys, values
 * re-encoded on 16 bits. */
ossa_result ossa__animation_write_sorted(const ossa__clip *clip, const ossa__subtrack *subtracks, const char *name,
                                         const ossa_allocator *allocator, ossa_blob *out, ossa_diag *diag);

/* A build's progress report (ossa_animation_build_desc.progress): the last fraction reported
 * and the smallest step worth another call. */
typedef struct ossa__progress {
    ossa_build_progress_fn fn; /* NULL: no report */
    void *user;
    float done;
    const char *stage;
} ossa__progress;

/* Reports `fraction` (clamped to [done, 1]) of `stage` when it is a new stage, the first
 * arrival at 1, or at least 1/512 past the last report. */
static inline void ossa__progress_report(ossa__progress *p, float fraction, const char *stage)
{
    if (!p->fn) return;
    if (!(fraction >= p->done)) fraction = p->done;
    if (fraction > 1.f) fraction = 1.f;
    const bool end = fraction == 1.f && p->done < 1.f;
    if (stage == p->stage && !end && fraction - p->done < 1.f / 512.f) return;
    p->done = fraction;
    p->stage = stage;
    p->fn(fraction, stage, p->user);
}

/* Where a build's time goes (ossa_animation_build_stats): the stage running since `at`, and
 * the seconds each stage took before. */
enum { OSSA__STAGE_PREPARE, OSSA__STAGE_SEARCH, OSSA__STAGE_VERIFY, OSSA__STAGE_WRITE, OSSA__STAGE_COUNT };
typedef struct ossa__clock {
    double at, cpu_at; /* ossa__seconds, ossa__cpu_seconds */
    int stage;
    double seconds[OSSA__STAGE_COUNT], cpu_seconds[OSSA__STAGE_COUNT];
} ossa__clock;

static inline ossa__clock ossa__clock_start(void)
{
    return (ossa__clock){.at = ossa__seconds(), .cpu_at = ossa__cpu_seconds(), .stage = OSSA__STAGE_PREPARE};
}

/* Ends the running stage and starts `stage`; returns the one that was running. */
static inline int ossa__clock_switch(ossa__clock *c, int stage)
{
    const double now = ossa__seconds(), cpu = ossa__cpu_seconds();
    const int was = c->stage;
    c->seconds[was] += now > c->at ? now - c->at : 0.0;
    c->cpu_seconds[was] += cpu > c->cpu_at ? cpu - c->cpu_at : 0.0;
    c->at = now, c->cpu_at = cpu;
    c->stage = stage;
    return was;
}

/* Error-driven search (animation_search.c): encodes every sub-track of `clip` so that the
 * model-space error measured on the blob the runtime decodes stays within the desc's
 * tolerances, and writes that blob to `out`. */
ossa_result ossa__animation_search(ossa__clip *clip, const ossa_raw_animation *raw, const ossa_raw_skeleton *skeleton,
                                   const ossa_animation_build_desc *desc, const char *name, ossa__clock *clock,
                                   ossa_blob *out, ossa_diag *diag);

#endif /* OSSA_OFFLINE_ANIMATION_CODEC_H */
