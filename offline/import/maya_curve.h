/* Private to the Maya .anim importer: constants and span queries of the curve evaluator
 * (maya_curve.c), shared with the parser (maya_anim.c) and the resampler (maya_resample.c). */
#ifndef OSSA_OFFLINE_IMPORT_MAYA_CURVE_H
#define OSSA_OFFLINE_IMPORT_MAYA_CURVE_H

#include "ossa/offline/import_maya.h"

/* Largest tangent slope Maya represents (tan of 89.99999 degrees); used for vertical tangents
 * and for spline slopes between neighbours closer than 1e-4 input units. */
#define OSSA__MAYA_MAX_TAN 5729577.9485111479

/* Maya's time resolution since 2017 Update 3 (Autodesk/animx src/internal/math.h). */
#define OSSA__MAYA_TICKS_PER_SECOND 141120000.0

/* True when `time` lies in [t_k, t_k+1) of a span that holds key k's value (out type STEP).
 * Times outside the keys give false. */
bool ossa__maya_curve_in_step_span(const ossa_maya_curve *curve, double time);

#endif
