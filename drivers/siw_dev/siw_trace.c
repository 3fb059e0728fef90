// SPDX-License-Identifier: GPL-2.0
/*
 * The device's tracepoints (system "siw", siw_trace.h) are
 * instantiated here.
 */
#define CREATE_TRACE_POINTS
#include "siw_trace.h"
