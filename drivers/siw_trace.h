/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the device (system "siw"): QP state changes,
 * Terminates sent and received with their layer, type and code, why a
 * stream failed or was lost, and how each connection setup ended. The
 * CM's own steps are in system siw_cm (siw_cm/cm_trace.h). Enable with
 *	echo 1 > /sys/kernel/tracing/events/siw/enable
 * (Documentation/observability.rst).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM siw

#if !defined(SIW_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SIW_TRACE_H

#include <linux/tracepoint.h>

#include "siw_ddp/siw_ddp.h"
#include "siw_qp/siw_qp.h"

TRACE_EVENT(siw_qp_state,
	    TP_PROTO(u32 qpn, enum siw_qp_state from, enum siw_qp_state to),
	    TP_ARGS(qpn, from, to),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u8, from)
			     __field(u8, to)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->from = from;
			   __entry->to = to;),
	    TP_printk("qp %u: %s -> %s", __entry->qpn,
		      siw_qp_state_name(__entry->from),
		      siw_qp_state_name(__entry->to))
);

/* An error of a Terminate or a stream: enum siw_ddp_err and its triple */
DECLARE_EVENT_CLASS(siw_err_class,
		    TP_PROTO(u32 qpn, enum siw_ddp_err err, u8 layer, u8 etype,
			     u8 ecode),
		    TP_ARGS(qpn, err, layer, etype, ecode),
		    TP_STRUCT__entry(__field(u32, qpn)
				     __field(u8, err)
				     __field(u8, layer)
				     __field(u8, etype)
				     __field(u8, ecode)),
		    TP_fast_assign(__entry->qpn = qpn;
				   __entry->err = err;
				   __entry->layer = layer;
				   __entry->etype = etype;
				   __entry->ecode = ecode;),
		    TP_printk("qp %u: layer %u type %u code %#x (%s)",
			      __entry->qpn, __entry->layer, __entry->etype,
			      __entry->ecode, siw_ddp_err_name(__entry->err))
);

/* Our Terminate went to TCP, the stream's last FPDU */
DEFINE_EVENT(siw_err_class, siw_term_tx,
	     TP_PROTO(u32 qpn, enum siw_ddp_err err, u8 layer, u8 etype,
		      u8 ecode),
	     TP_ARGS(qpn, err, layer, etype, ecode));

/* The peer's Terminate arrived, with the triple it carried */
DEFINE_EVENT(siw_err_class, siw_term_rx,
	     TP_PROTO(u32 qpn, enum siw_ddp_err err, u8 layer, u8 etype,
		      u8 ecode),
	     TP_ARGS(qpn, err, layer, etype, ecode));

/* A received FPDU, a local error or the peer's Terminate stopped the stream */
DEFINE_EVENT(siw_err_class, siw_stream_fail,
	     TP_PROTO(u32 qpn, enum siw_ddp_err err, u8 layer, u8 etype,
		      u8 ecode),
	     TP_ARGS(qpn, err, layer, etype, ecode));

/* The connection ended under the stream: the peer's FIN, RST, an error */
TRACE_EVENT(siw_stream_lost,
	    TP_PROTO(u32 qpn, int err, bool markers_refused),
	    TP_ARGS(qpn, err, markers_refused),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(int, err)
			     __field(bool, markers_refused)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->err = err;
			   __entry->markers_refused = markers_refused;),
	    TP_printk("qp %u: connection ended: %d%s", __entry->qpn,
		      __entry->err, __entry->markers_refused ?
		      " (before any FPDU; our Reply asked for markers)" : "")
);

/* A connection setup ended: established, or failed with the step's status */
TRACE_EVENT(siw_conn_setup,
	    TP_PROTO(u32 cep, bool initiator, bool established, int status),
	    TP_ARGS(cep, initiator, established, status),
	    TP_STRUCT__entry(__field(u32, cep)
			     __field(bool, initiator)
			     __field(bool, established)
			     __field(int, status)),
	    TP_fast_assign(__entry->cep = cep;
			   __entry->initiator = initiator;
			   __entry->established = established;
			   __entry->status = status;),
	    TP_printk("cep %u (%s): %s, status %d", __entry->cep,
		      __entry->initiator ? "initiator" : "responder",
		      __entry->established ? "established" : "failed",
		      __entry->status)
);

/* A CQ overflowed: its QPs move to ERROR */
TRACE_EVENT(siw_cq_overflow,
	    TP_PROTO(u32 qpn),
	    TP_ARGS(qpn),
	    TP_STRUCT__entry(__field(u32, qpn)),
	    TP_fast_assign(__entry->qpn = qpn;),
	    TP_printk("qp %u: CQ overflow, to ERROR", __entry->qpn)
);

#endif /* SIW_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE siw_trace

#include <trace/define_trace.h>
