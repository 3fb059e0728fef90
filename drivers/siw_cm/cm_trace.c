// SPDX-License-Identifier: GPL-2.0
/*
 * The CM's tracepoints are instantiated here.
 */
#define CREATE_TRACE_POINTS
#include "cm_trace.h"
