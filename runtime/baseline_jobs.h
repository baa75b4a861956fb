/* Private: the sampling and local-to-model jobs' baseline copies, whichever copy the dispatch
 * picked for this process (runtime/dispatch.h). The offline builder measures error through
 * them, so its choices, and the bytes of a bake, do not depend on the CPU: a fused
 * multiply-add in the x86-64-v3 copy rounds once where SSE2 rounds twice, which can move a
 * measured error across the tolerance and keep another key. In builds with one copy they are
 * the public `_run`. Same contract as the public functions. */
#ifndef OSSA_RUNTIME_BASELINE_JOBS_H
#define OSSA_RUNTIME_BASELINE_JOBS_H

#include "ossa/local_to_model_job.h"
#include "ossa/sampling_job.h"

#ifdef __cplusplus
extern "C" {
#endif

OSSA_API ossa_result ossa__sampling_job_run_baseline(const ossa_sampling_job *job);
OSSA_API ossa_result ossa__local_to_model_job_run_baseline(const ossa_local_to_model_job *job);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_RUNTIME_BASELINE_JOBS_H */
