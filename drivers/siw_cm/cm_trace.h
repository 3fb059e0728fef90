/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of connection setup and teardown: every state machine
 * step with the endpoint, its cm_id, the event and the reason (status),
 * the MPA outcome, and listeners.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM siw_cm

#if !defined(SIW_CM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SIW_CM_TRACE_H

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/tracepoint.h>

#include "cm_fsm.h"

TRACE_EVENT(siw_cm_step,
	    TP_PROTO(u32 cep, const void *cm_id, const struct siw_cm_step *st),
	    TP_ARGS(cep, cm_id, st),
	    TP_STRUCT__entry(__field(u32, cep)
			     __field(const void *, cm_id)
			     __field(u8, from)
			     __field(u8, to)
			     __field(u8, ev)
			     __field(u16, actions)
			     __field(int, status)),
	    TP_fast_assign(__entry->cep = cep;
			   __entry->cm_id = cm_id;
			   __entry->from = st->from;
			   __entry->to = st->to;
			   __entry->ev = st->ev;
			   __entry->actions = st->actions;
			   __entry->status = st->status;),
	    TP_printk("cep %u cm_id %p: %s --%s--> %s actions %#x status %d",
		      __entry->cep, __entry->cm_id,
		      siw_cm_state_name(__entry->from),
		      siw_cm_event_name(__entry->ev),
		      siw_cm_state_name(__entry->to), __entry->actions,
		      __entry->status)
);

TRACE_EVENT(siw_cm_mpa,
	    TP_PROTO(u32 cep, const struct siw_mpa_conn *c),
	    TP_ARGS(cep, c),
	    TP_STRUCT__entry(__field(u32, cep)
			     __field(u8, verdict)
			     __field(u8, reason)
			     __field(u8, term)
			     __field(u8, rev)
			     __field(u8, rtr)
			     __field(bool, crc)
			     __field(bool, txm)
			     __field(bool, rxm)
			     __field(bool, p2p)
			     __field(u16, ird)
			     __field(u16, ord)),
	    TP_fast_assign(__entry->cep = cep;
			   __entry->verdict = c->verdict;
			   __entry->reason = c->reason;
			   __entry->term = c->term;
			   __entry->rev = c->rev;
			   __entry->rtr = c->rtr;
			   __entry->crc = c->crc;
			   __entry->txm = c->tx_markers;
			   __entry->rxm = c->rx_markers;
			   __entry->p2p = c->p2p;
			   __entry->ird = c->ird;
			   __entry->ord = c->ord;),
	    TP_printk("cep %u: %s (%s) term %u rev %u crc %d markers tx %d rx %d p2p %d rtr %u ird %u ord %u",
		      __entry->cep, siw_mpa_verdict_name(__entry->verdict),
		      siw_mpa_reason_name(__entry->reason), __entry->term,
		      __entry->rev, __entry->crc, __entry->txm, __entry->rxm,
		      __entry->p2p, __entry->rtr, __entry->ird, __entry->ord)
);

TRACE_EVENT(siw_cm_listen,
	    TP_PROTO(const void *cm_id, const struct sockaddr *addr,
		     int status),
	    TP_ARGS(cm_id, addr, status),
	    TP_STRUCT__entry(__field(const void *, cm_id)
			     __array(u8, addr, sizeof(struct sockaddr_in6))
			     __field(int, status)),
	    TP_fast_assign(__entry->cm_id = cm_id;
			   memset(__entry->addr, 0, sizeof(__entry->addr));
			   memcpy(__entry->addr, addr,
				  addr->sa_family == AF_INET6 ?
				  sizeof(struct sockaddr_in6) :
				  sizeof(struct sockaddr_in));
			   __entry->status = status;),
	    TP_printk("cm_id %p on %pISpc: status %d", __entry->cm_id,
		      __entry->addr, __entry->status)
);

#endif /* SIW_CM_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE cm_trace

#include <trace/define_trace.h>
