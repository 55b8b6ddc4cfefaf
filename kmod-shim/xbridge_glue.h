/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xbridge_glue.h - the C view of the C++ forwarding core, for the kernel
 * shim. The shim never sees a C++ type: bridges and ports are opaque, and
 * a verdict is a plain struct. Implemented by xbridge_glue.cc, which is
 * compiled with the core.
 *
 * Contexts follow core/bridge.h: xbg_decide() and xbg_flood() are datapath
 * calls (RCU read section held, bh disabled); everything else is a control
 * call made under RTNL, except xbg_run_ageing(), which runs from the
 * bridge's delayed work and touches only the FDB, and xbg_ct_gc(), which
 * runs from the conntrack GC work inside an RCU read section of its own.
 */
#ifndef XBRIDGE_GLUE_H
#define XBRIDGE_GLUE_H

#ifdef __cplusplus
#include <stddef.h>
#include <stdint.h>
extern "C" {
#else
#include <linux/types.h>
#endif

struct xbg_bridge;
struct xbg_port;
struct xbg_ct_entry;

enum xbg_kind {
	XBG_DROP = 0,
	XBG_LOCAL = 1,
	XBG_FORWARD = 2,
	XBG_FLOOD = 3,
	XBG_PORT_STACK = 4,
};

/* xbg_verdict::local_pkttype when no chain set the frame's pkt_type */
#define XBG_PKTTYPE_KEEP 0xff

enum xbg_tag {
	XBG_TAG_KEEP = 0,
	XBG_TAG_UNTAG = 1,
	XBG_TAG_TAG = 2,
};

/*
 * What the chains after prerouting wrote into one copy of a frame
 * (core/nft_payload_write.h CopyWrite, the same layout): the shim makes
 * each record on that copy alone. Room for them is the shim's, for one
 * decision and its delivery.
 */
#define XBG_COPY_WRITE_MAX	16
struct xbg_copy_write {
	const void *copy;	/* the copy's port (xbr_port.core); NULL: the
				 * copy that goes up */
	uint16_t offset;	/* from the Ethernet header */
	uint8_t len;		/* bytes of @after; 0: the copy's hwaccel tag */
	bool tag_present;	/* len 0: the tag the copy leaves with */
	uint16_t tag_proto;	/* host order */
	uint16_t tag_tci;
	uint8_t before[XBG_COPY_WRITE_MAX];
	uint8_t after[XBG_COPY_WRITE_MAX];
};

struct xbg_copy_writes {
	struct xbg_copy_write *entries;
	uint32_t cap;
	uint32_t count;
};

struct xbg_frame {
	const uint8_t *data;	/* the Ethernet header */
	uint32_t len;		/* linear bytes from data */
	bool vlan_present;	/* out-of-band (hwaccel) tag */
	uint16_t vlan_proto;	/* host order */
	uint16_t vlan_tci;
	bool csum_ok;		/* layer-4 checksum verified or to be offloaded */
	bool csum_partial;	/* CHECKSUM_PARTIAL: the device finishes it */
	uint8_t *writable;	/* @data, made writable for the ruleset's
				 * payload statements (xbg_nft_writes), or NULL */
	struct xbg_copy_writes *copy_writes;	/* with @writable: room for
				 * the later hooks' writes into each copy */
	uint32_t mark;		/* skb->mark as it arrived */
	uint32_t priority;	/* skb->priority as it arrived */
	uint32_t wire_len;	/* the whole frame's length (skb->len; @len is
				 * what is linear) */
	bool host_stack;	/* sent by the bridge device's IP stack, not a
				 * packet socket (core/forward.h RxFrame) */
	const void *skb;	/* the sk_buff, for nft's log (xb_nft_log) */
};

/* A flood's ports, decided with the verdict (core/forward.h FloodSet):
 * bits over the port table the decision read, valid in the same RCU read
 * section. Only the first @words words are written. */
#define XBG_PORT_WORDS		16	/* 1024 ports */
struct xbg_flood_set {
	const void *table;
	uint16_t words;
	bool keep_tags;
	uint64_t pass[XBG_PORT_WORDS];
	uint64_t untag[XBG_PORT_WORDS];
};

struct xbg_verdict {
	uint8_t kind;		/* enum xbg_kind */
	uint8_t drop_reason;
	uint8_t flood_class;
	bool local_too;
	uint16_t vid;
	uint16_t tag_proto;	/* host order */
	uint8_t pcp_dei;	/* TCI >> 12 */
	bool src_isolated;
	uint8_t out_tag;	/* XBG_FORWARD */
	uint8_t local_tag;	/* XBG_LOCAL or local_too */
	void *out_priv;		/* XBG_FORWARD: the egress port's priv */
	struct xbg_port *ingress;
	uint32_t mark;		/* skb->mark of the copies sent through ports:
				 * the arriving mark unless a chain set it */
	uint32_t local_mark;	/* the same for the copy that goes up */
	uint32_t priority;	/* skb->priority, as mark */
	uint32_t local_priority;
	uint8_t local_pkttype;	/* skb->pkt_type a prerouting chain set for the
				 * copy that goes up; XBG_PKTTYPE_KEEP: none */
	bool frame_written;	/* a prerouting payload statement wrote the
				 * frame's bytes (through xbg_frame.writable) */
	bool rx_tag_written;	/* ... or its hwaccel tag: now @rx_tag_* */
	bool rx_tag_present;
	uint16_t rx_tag_proto;	/* host order */
	uint16_t rx_tag_tci;
	/* The frame's xbg_frame.copy_writes, filled in: each copy's own
	 * writes (NULL: none can have been made). */
	const struct xbg_copy_writes *copy_writes;
	struct xbg_flood_set flood;	/* XBG_FLOOD */
};

typedef void (*xbg_flood_fn)(void *ctx, void *port_priv, uint8_t tag);

/*
 * The glue's vocabularies are the core's own values (FdbFlag, FdbEventType,
 * FdbReason, PortFlag, VlanFlag, DropReason), checked by static_asserts in
 * xbridge_glue.cc; the uAPI's are mapped onto them in one place each in the
 * family's handlers (xbridge_genl_*.c, with static_asserts too).
 */

/* FDB entry flags (struct xbg_fdb_entry), as the core's FdbFlag. */
#define XBG_FDB_LOCAL		(1u << 0)
#define XBG_FDB_STATIC		(1u << 1)
#define XBG_FDB_STICKY		(1u << 2)
#define XBG_FDB_ADDED_BY_USER	(1u << 3)
#define XBG_FDB_EXT_LEARN	(1u << 4)
#define XBG_FDB_LOCKED		(1u << 5)
#define XBG_FDB_DYNAMIC_LEARNED	(1u << 6)

/* FDB event types and reasons, as the core's FdbEventType and FdbReason. */
enum xbg_fdb_event_type {
	XBG_FDB_EV_CREATED = 0,
	XBG_FDB_EV_CHANGED = 1,
	XBG_FDB_EV_DELETED = 2,
};

enum xbg_fdb_reason {
	XBG_FDB_R_LEARNED = 0,
	XBG_FDB_R_USER = 1,
	XBG_FDB_R_AGED = 2,
	XBG_FDB_R_FLUSHED = 3,
	XBG_FDB_R_PORT_REMOVED = 4,
	XBG_FDB_R_VLAN_REMOVED = 5,
};

/* An FDB entry as dumps and events see it. */
struct xbg_fdb_entry {
	uint8_t mac[6];
	uint16_t vid;
	uint16_t flags;		/* XBG_FDB_* */
	bool is_host;		/* on the bridge device itself */
	void *port_priv;	/* the port's priv (the bridge's for the host port) */
	uint32_t used;		/* ticks */
	uint32_t updated;	/* ticks */
};

/*
 * The FDB event sink: called under the FDB lock, possibly from the
 * datapath (softirq): must not sleep. @e->used/updated are not set.
 */
typedef void (*xbg_fdb_event_fn)(void *ctx, uint8_t type, uint8_t reason,
				 const struct xbg_fdb_entry *e);
/* Connection events, as the core's CtEventType. */
enum xbg_ct_event_type {
	XBG_CT_EV_NEW = 0,
	XBG_CT_EV_DESTROY = 1,
	XBG_CT_EV_UPDATE = 2,
	XBG_CT_EV_FLOW_TEARDOWN = 3,	/* @detail: enum xbridge_flow_teardown */
};
/*
 * The ct event sink (core/ct_table.h CtEventType says where each comes
 * from): under the conntrack or flowtable lock, or none (updates), possibly
 * in softirq: must not sleep. @detail is 0 but for FLOW_TEARDOWN.
 */
typedef void (*xbg_ct_event_fn)(void *ctx, uint8_t type, uint8_t detail,
				const struct xbg_ct_entry *e);

/* Resumable dumps: return false to stop (the entry was not taken). */
typedef bool (*xbg_fdb_entry_fn)(void *ctx, const struct xbg_fdb_entry *e);

/* Port flags and drop counters, as the core's PortFlag and DropReason. */
#define XBG_PORT_LEARNING	(1u << 0)
#define XBG_PORT_FLOOD		(1u << 1)
#define XBG_PORT_MCAST_FLOOD	(1u << 2)
#define XBG_PORT_BCAST_FLOOD	(1u << 3)
#define XBG_PORT_HAIRPIN	(1u << 4)
#define XBG_PORT_ISOLATED	(1u << 5)
#define XBG_PORT_LOCKED		(1u << 6)
#define XBG_PORT_MAB		(1u << 7)
#define XBG_PORT_NEIGH_SUPPRESS	(1u << 8)
#define XBG_PORT_FLAGS_ALL	((1u << 9) - 1)
#define XBG_DROP_REASONS	16	/* room for every DropReason */

struct xbg_port_info {
	uint32_t flags;		/* XBG_PORT_* */
	uint8_t state;		/* 0..4 */
	uint8_t n_drops;	/* valid entries of drops[], index = DropReason */
	uint64_t drops[XBG_DROP_REASONS];
};

/* Bridge options; the read-only counters are ignored by xbg_bridge_set(). */
struct xbg_bridge_opts {
	bool vlan_filtering;
	uint16_t vlan_protocol;
	uint16_t default_pvid;
	uint32_t ageing_ms;
	uint32_t fdb_max_learned;
	uint16_t group_fwd_mask;
	bool conntrack;
	uint32_t conntrack_max;	/* 0: no bound */
	bool vlan_stats;
	bool vlan_stats_per_port;
	uint32_t fdb_n_learned;
	uint32_t fdb_n_entries;
};

/* Which options xbg_bridge_set() changes. */
#define XBG_OPT_VLAN_FILTERING	(1u << 0)
#define XBG_OPT_VLAN_PROTOCOL	(1u << 1)
#define XBG_OPT_DEFAULT_PVID	(1u << 2)
#define XBG_OPT_AGEING		(1u << 3)
#define XBG_OPT_FDB_MAX_LEARNED	(1u << 4)
#define XBG_OPT_GROUP_FWD_MASK	(1u << 5)
#define XBG_OPT_CONNTRACK	(1u << 6)
#define XBG_OPT_CONNTRACK_MAX	(1u << 7)
#define XBG_OPT_VLAN_STATS	(1u << 8)
#define XBG_OPT_VLAN_STATS_PER_PORT	(1u << 9)

struct xbg_vlan_info {
	uint16_t vid;
	bool pvid;
	bool untagged;
	uint8_t state;
	uint64_t rx_packets, rx_bytes, tx_packets, tx_bytes;
};

typedef bool (*xbg_vlan_info_fn)(void *ctx, const struct xbg_vlan_info *v);

/* Flags of xbg_vlan_add(), as the core's VlanFlag. */
#define XBG_VLAN_PVID		(1u << 0)
#define XBG_VLAN_UNTAGGED	(1u << 1)

/*
 * Whether a ct event of the bridge whose events_ctx is @ctx has listeners:
 * asked before the event's entry is copied out of the core, so that a
 * state change costs nothing more without a monitor. Module-wide, set once
 * before any bridge exists; NULL: always.
 */
typedef bool (*xbg_ct_listening_fn)(void *ctx);
void xbg_set_ct_listening(xbg_ct_listening_fn fn);

/*
 * Module exit, once every bridge is gone and rcu_barrier() has run the
 * core's call_rcu frees: free what the core keeps module-wide (the
 * conntrack entries' kmem_cache, which the first table created).
 */
void xbg_module_exit(void);

/* @events_ctx is handed to both sinks and to @fdb_grow; the sinks are the
 * same for every bridge (kept module-wide). @fdb_grow: the FDB outgrew its
 * table (softirq, under the FDB lock): run xbg_run_ageing() soon. */
typedef void (*xbg_fdb_grow_fn)(void *ctx);
struct xbg_bridge *xbg_bridge_create(const uint8_t addr[6], uint32_t ifindex, void *priv,
				     xbg_fdb_event_fn events, xbg_ct_event_fn ct_events,
				     xbg_fdb_grow_fn fdb_grow, void *events_ctx, int *err);
void xbg_bridge_destroy(struct xbg_bridge *br);
int xbg_set_addr(struct xbg_bridge *br, const uint8_t addr[6]);
/* The bridge has no address (its last port left): its local entries go. */
void xbg_clear_addr(struct xbg_bridge *br);
/* A port's address changed (NETDEV_CHANGEADDR): its local entries follow. */
void xbg_port_set_addr(struct xbg_bridge *br, struct xbg_port *port, const uint8_t addr[6]);
bool xbg_vlan_filtering(const struct xbg_bridge *br);
uint16_t xbg_vlan_proto(const struct xbg_bridge *br);
uint32_t xbg_ageing_ms(const struct xbg_bridge *br);
void xbg_set_promisc(struct xbg_bridge *br, bool on);

struct xbg_port *xbg_host_port(struct xbg_bridge *br);
/* Control: the bridge device's ifindex, known once it is registered. */
void xbg_set_host_ifindex(struct xbg_bridge *br, uint32_t ifindex);
/* Datapath: a frame to @dest (its Ethernet header) is link-local and goes up the ingress port's
 * own stack, unforwarded (core/forward.h link_local_stays_on_port). */
bool xbg_link_local_to_port(const struct xbg_bridge *br, const uint8_t dest[6]);
int xbg_port_add(struct xbg_bridge *br, const uint8_t addr[6], uint32_t ifindex, void *priv,
		 struct xbg_port **out);
void xbg_port_remove(struct xbg_bridge *br, struct xbg_port *port);
void xbg_port_link(struct xbg_bridge *br, struct xbg_port *port, bool up);

int xbg_vlan_add(struct xbg_bridge *br, struct xbg_port *port, uint16_t start, uint16_t end,
		 uint8_t flags, const char **msg);
int xbg_vlan_del(struct xbg_bridge *br, struct xbg_port *port, uint16_t start, uint16_t end,
		 const char **msg);

/* Control: options. xbg_bridge_set() applies the options in @mask, or on
 * failure (the core's error and static message in @msg) none of them. */
void xbg_bridge_get(const struct xbg_bridge *br, struct xbg_bridge_opts *out);
int xbg_bridge_set(struct xbg_bridge *br, const struct xbg_bridge_opts *o, uint32_t mask,
		   const char **msg);

/* Control: ports. xbg_port_set() applies flags and state (@state < 0: keep)
 * together or not at all. */
void xbg_port_get(const struct xbg_port *port, struct xbg_port_info *out);
int xbg_port_set(struct xbg_bridge *br, struct xbg_port *port, uint32_t set, uint32_t clear,
		 int state, const char **msg);

/* Control: VLANs. */
bool xbg_vlan_get(const struct xbg_port *port, uint16_t vid, struct xbg_vlan_info *out);
int xbg_vlan_set_state(struct xbg_bridge *br, struct xbg_port *port, uint16_t vid,
		       uint8_t state, const char **msg);
/* Visit the port's VLANs from @from_vid on, in VID order, until @fn
 * returns false; returns the VID to resume at (0: done). */
uint16_t xbg_vlan_dump_from(const struct xbg_port *port, uint16_t from_vid,
			    xbg_vlan_info_fn fn, void *ctx);

/* Control: FDB. @vid < 0: VID 0 and every VLAN of the port. */
int xbg_fdb_add(struct xbg_bridge *br, struct xbg_port *port, const uint8_t mac[6],
		int32_t vid, uint16_t flags, bool create, const char **msg);
int xbg_fdb_del(struct xbg_bridge *br, struct xbg_port *port, const uint8_t mac[6],
		int32_t vid, const char **msg);
/* One entry, 0 or -ENOENT. */
int xbg_fdb_get(struct xbg_bridge *br, const uint8_t mac[6], uint16_t vid,
		struct xbg_fdb_entry *out);
/* Delete matching entries (@port NULL: any; @vid < 0: any); returns how many. */
unsigned int xbg_fdb_flush(struct xbg_bridge *br, struct xbg_port *port, int32_t vid,
			   uint16_t flags_set, uint16_t flags_clear);
/* Visit entries in hash order from the position @pos (the hash of the
 * first entry not yet taken; start at 0) until @fn returns false; the entry
 * @fn refused is not taken. Updates @pos; returns true when the walk ended.
 * Changes between calls make no entry repeat or one that stays go missing;
 * see Fdb::for_each_from. */
bool xbg_fdb_dump_from(struct xbg_bridge *br, uint64_t *pos, xbg_fdb_entry_fn fn, void *ctx);
uint32_t xbg_now_ticks(void);

/* Datapath. */
void xbg_decide(struct xbg_bridge *br, struct xbg_port *in, const struct xbg_frame *frame,
		struct xbg_verdict *out);
/*
 * The bridge flowtable's hit alone, on a frame whose headers are linear
 * but whose payload may not be: true with @out filled (a forward) if it
 * hits a live flow; false: linearize and xbg_decide() it.
 */
bool xbg_flow_fast_path(struct xbg_bridge *br, struct xbg_port *in, const struct xbg_frame *frame,
			struct xbg_verdict *out);
/* Visit the ports of an XBG_FLOOD verdict: no decision is made again. */
void xbg_flood(const struct xbg_verdict *v, xbg_flood_fn fn, void *ctx);

/* FDB ageing. */
unsigned int xbg_run_ageing(struct xbg_bridge *br);

/*
 * Conntrack (the bridge's `conntrack` option, core/bridge_ct.h). Tuples
 * are the core's: l3 4 or 6, addresses in network order (IPv4 in the
 * first 4 bytes), ports in host order; ICMP's sport is its identifier and
 * dport type << 8 | code. Status bits are IPS_*, TCP states
 * TCP_CONNTRACK_* (static_asserts in xbridge_glue.cc and the handlers).
 */
struct xbg_ct_tuple {
	uint8_t l3;
	uint8_t proto;
	uint16_t zone;
	uint16_t sport;
	uint16_t dport;
	uint8_t src[16];
	uint8_t dst[16];
};

struct xbg_ct_entry {
	struct xbg_ct_tuple orig;
	struct xbg_ct_tuple reply;
	uint16_t status;
	uint8_t tcp_state;	/* 0 unless TCP */
	uint8_t sctp_state;	/* 0 unless SCTP */
	uint8_t dccp_state;	/* 0 unless DCCP (0 is also NONE) */
	uint32_t timeout_s;
	uint32_t mark;
	uint64_t packets[2];	/* original, reply */
	uint64_t bytes[2];
};

struct xbg_ct_stats {
	uint32_t count, max, buckets;
	uint64_t found, invalid, insert, insert_failed, drop, early_drop, error;
	uint64_t search_restart, clash_resolve, chaintoolong;
	/* The bridge flowtable (core/bridge_flow.h). */
	uint32_t flows;
	uint64_t flow_hits, flow_adds, flow_add_failed;
	uint64_t flow_teardown_stale, flow_teardown_fin_rst, flow_teardown_timeout,
		 flow_teardown_conntrack;
};

/* The GC work's period: one slice of the table each run. */
#define XBG_CT_GC_INTERVAL_MS	100

typedef bool (*xbg_ct_entry_fn)(void *ctx, const struct xbg_ct_entry *e);


bool xbg_conntrack_on(const struct xbg_bridge *br);
/* Datapath (RCU): frames are tracked - the bridge's conntrack option, or a
 * ct expression in the ruleset (nf_ct_netns_get) - so they are reassembled
 * first, as nf_conntrack_bridge's prerouting hook does only while it is
 * registered. The table may outlive the last ct user (it ages): that alone
 * reassembles nothing. */
bool xbg_conntrack_tracking(const struct xbg_bridge *br);
/* Deferred context: one GC slice; false when conntrack is off (stop). */
bool xbg_ct_gc(struct xbg_bridge *br);
/* Control. -ENOENT (with @msg) when conntrack is off or there is no such
 * entry; -EINVAL for a tuple that cannot name a connection. */
int xbg_ct_get(struct xbg_bridge *br, const struct xbg_ct_tuple *t, struct xbg_ct_entry *out,
	       const char **msg);
int xbg_ct_del(struct xbg_bridge *br, const struct xbg_ct_tuple *t, const char **msg);
/* Remove every entry, or those of @zone (>= 0) and, with @match_mark,
 * those whose mark & @mark_mask equals @mark; returns how many. */
unsigned int xbg_ct_flush(struct xbg_bridge *br, int32_t zone, bool match_mark, uint32_t mark,
			  uint32_t mark_mask);
int xbg_ct_stats(const struct xbg_bridge *br, struct xbg_ct_stats *out, const char **msg);
/* As xbg_fdb_dump_from, over live entries of @zone (< 0: all); true at
 * the end (also when conntrack is off). */
bool xbg_ct_dump_from(struct xbg_bridge *br, int32_t zone, uint32_t *bucket, uint32_t *skip,
		      xbg_ct_entry_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* XBRIDGE_GLUE_H */
