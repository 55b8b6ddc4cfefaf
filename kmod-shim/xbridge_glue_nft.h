/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xbridge_glue_nft.h - the C view of the core's nf_tables ruleset
 * (core/nft_ruleset.h) for the shim: one opaque ruleset per network
 * namespace, its batches and its dumps. Implemented by xbridge_glue_nft.cc.
 *
 * Contexts: every call is a control call, serialised by RTNL; commit
 * sleeps (it waits for the datapath's readers of the old generation).
 * Messages (@msg) are static strings from the core.
 */
#ifndef XBRIDGE_GLUE_NFT_H
#define XBRIDGE_GLUE_NFT_H

#ifdef __cplusplus
#include <stddef.h>
#include <stdint.h>
extern "C" {
#else
#include <linux/types.h>
#endif

struct xbg_nft;

/* NULL on allocation failure. */
struct xbg_nft *xbg_nft_create(void);
/* The datapath no longer reads it (its namespace is going away). */
void xbg_nft_destroy(struct xbg_nft *rs);

/*
 * One request of the current batch (core Ruleset::apply). On failure *@msg
 * is the extack message and *@bad_attr the payload of the attribute at
 * fault (inside @attrs), as nf_tables names it; NULL: the request.
 */
int xbg_nft_apply(struct xbg_nft *rs, uint16_t type, uint16_t nlflags, uint32_t family,
		  const void *attrs, size_t len, const char **msg, const void **bad_attr);
/* nft --check: validate the batch as a commit would, then abort it. */
int xbg_nft_check(struct xbg_nft *rs, const char **msg);
/* The batch's validation alone (core Ruleset::validate). */
int xbg_nft_validate(struct xbg_nft *rs, const char **msg);
/* nf_tables' replay after a failed validation: each NEWRULE/NEWSETELEM
 * applied from now on validates its table (core validate_each_request). */
void xbg_nft_validate_each_request(struct xbg_nft *rs);
/*
 * Commit the batch. With @events, once the new generation is published
 * (never for a failed or aborted batch), @events(@ctx, ev) is called for
 * each object of the batch in order and last for the new generation, as
 * nf_tables_commit notifies them (core/nft_ruleset.h CommitEvent); inside
 * the call xbg_nft_event_fill() writes the event's message.
 */
struct xbg_nft_event;
typedef void (*xbg_nft_event_fn)(void *ctx, const struct xbg_nft_event *ev);
int xbg_nft_commit(struct xbg_nft *rs, xbg_nft_event_fn events, void *ctx, const char **msg);
/* The event's NFT_MSG_* type. */
uint16_t xbg_nft_event_type(const struct xbg_nft_event *ev);
/* The event message's NLM_F_* flags (a rule's: APPEND unless inserted). */
uint16_t xbg_nft_event_flags(const struct xbg_nft_event *ev);
/* Whether the requester asked for the event too (NLM_F_ECHO: nft --echo);
 * NEWGEN: the batch's first request did. */
bool xbg_nft_event_report(const struct xbg_nft_event *ev);
/*
 * Write the event's NFTA_* attributes into @buf (@cap bytes); NEWGEN also
 * carries @pid and @comm (the committer). Returns the length, or -EMSGSIZE
 * when it does not fit.
 */
long xbg_nft_event_fill(const struct xbg_nft_event *ev, uint32_t pid, const char *comm,
			void *buf, size_t cap);
void xbg_nft_abort(struct xbg_nft *rs);
uint32_t xbg_nft_generation(const struct xbg_nft *rs);

/*
 * Dumps. @get_type is the GET* message of the request; @table, when not
 * NULL, keeps only that table's objects; @name, when not NULL, only the
 * named objects of that name (GETOBJ, GETOBJ_RESET: the latter resets the
 * counters and quotas it returns), and @obj_filter, when not 0, only the
 * objects of that NFT_OBJECT_* type. @pos (XBG_NFT_DUMP_POS words,
 * zero at the start) is the position, advanced past each object written;
 * it also saves the next object, so that a dump resumes in O(1) while the
 * ruleset does not change (core/nft_dump.h, dump_next). Writes the next
 * object's NFTA_* attributes into @buf (@cap bytes) with its NEW* message
 * type in @obj_type. Returns its length (> 0), 0 when the dump is done,
 * -EMSGSIZE when it does not fit in @cap, -EOPNOTSUPP for another type.
 */
#define XBG_NFT_DUMP_POS 5
long xbg_nft_dump_next(struct xbg_nft *rs, uint16_t get_type, const char *table,
		       const char *name, uint32_t obj_filter, unsigned long *pos, void *buf,
		       size_t cap, uint16_t *obj_type);

/*
 * Bridges. xbg_nft_attach() points @br's frames at @rs (its namespace's);
 * when @rs's rules use ct it turns the bridge's conntrack on, as a ct
 * expression makes nf_tables take nf_conntrack (nf_ct_netns_get): returns 1
 * then, 0 when nothing changed, or a negative errno. When tracking comes
 * back after a spell without it, the established TCP connections forget
 * their windows, as nf_ct_netns_get's fixup does
 * (Bridge::nft_ruleset_committed). Call it at bridge creation and after
 * every commit (RTNL).
 */
struct xbg_bridge;
struct xbg_port;
int xbg_nft_attach(struct xbg_bridge *br, struct xbg_nft *rs);
/* The name nft's iifname/oifname match for @port (a net_device's name,
 * valid while the port exists) and the kind iifkind/oifkind match (its
 * rtnl_link_ops->kind, or NULL). */
void xbg_nft_port_name(struct xbg_bridge *br, struct xbg_port *port, const char *name,
		       const char *kind);
/* Datapath: the ruleset has chains at some bridge hook (they read the
 * whole frame). */
bool xbg_nft_active(struct xbg_bridge *br);
/* Datapath: some prerouting chain writes frames (payload statements). */
bool xbg_nft_writes(struct xbg_bridge *br);

#ifdef __cplusplus
}
#endif

#endif /* XBRIDGE_GLUE_NFT_H */
