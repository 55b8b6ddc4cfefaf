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
 * bridge's delayed work and touches only the FDB.
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

enum xbg_kind {
	XBG_DROP = 0,
	XBG_LOCAL = 1,
	XBG_FORWARD = 2,
	XBG_FLOOD = 3,
	XBG_PORT_STACK = 4,
};

enum xbg_tag {
	XBG_TAG_KEEP = 0,
	XBG_TAG_UNTAG = 1,
	XBG_TAG_TAG = 2,
};

struct xbg_frame {
	const uint8_t *data;	/* the Ethernet header */
	uint32_t len;		/* linear bytes from data */
	bool vlan_present;	/* out-of-band (hwaccel) tag */
	uint16_t vlan_proto;	/* host order */
	uint16_t vlan_tci;
};

struct xbg_verdict {
	uint8_t kind;		/* enum xbg_kind */
	uint8_t drop_reason;
	uint8_t flood_class;
	bool local_too;
	uint16_t vid;
	uint16_t tag_proto;	/* host order */
	uint8_t pcp;
	bool src_isolated;
	uint8_t out_tag;	/* XBG_FORWARD */
	uint8_t local_tag;	/* XBG_LOCAL or local_too */
	void *out_priv;		/* XBG_FORWARD: the egress port's priv */
	struct xbg_port *ingress;
};

typedef void (*xbg_flood_fn)(void *ctx, void *port_priv, uint8_t tag);
typedef void (*xbg_fdb_fn)(void *ctx, const uint8_t mac[6], uint16_t vid,
			   void *port_priv, bool is_host, uint16_t flags);
typedef void (*xbg_vlan_fn)(void *ctx, uint16_t vid, bool pvid, bool untagged);

/* Flags of xbg_fdb_fn, as the core's FdbFlag. */
#define XBG_FDB_LOCAL		(1u << 0)
#define XBG_FDB_STATIC		(1u << 1)
#define XBG_FDB_STICKY		(1u << 2)

/* Flags of xbg_vlan_add(). */
#define XBG_VLAN_PVID		(1u << 0)
#define XBG_VLAN_UNTAGGED	(1u << 1)

struct xbg_bridge *xbg_bridge_create(const uint8_t addr[6], uint32_t ifindex, void *priv,
				     int *err);
void xbg_bridge_destroy(struct xbg_bridge *br);
int xbg_set_addr(struct xbg_bridge *br, const uint8_t addr[6]);
bool xbg_vlan_filtering(const struct xbg_bridge *br);
uint16_t xbg_vlan_proto(const struct xbg_bridge *br);
int xbg_set_vlan_filtering(struct xbg_bridge *br, bool on);
int xbg_set_ageing_ms(struct xbg_bridge *br, uint32_t ms);
void xbg_set_promisc(struct xbg_bridge *br, bool on);

struct xbg_port *xbg_host_port(struct xbg_bridge *br);
int xbg_port_add(struct xbg_bridge *br, const uint8_t addr[6], uint32_t ifindex, void *priv,
		 struct xbg_port **out);
void xbg_port_remove(struct xbg_bridge *br, struct xbg_port *port);
void xbg_port_link(struct xbg_bridge *br, struct xbg_port *port, bool up);

int xbg_vlan_add(struct xbg_bridge *br, struct xbg_port *port, uint16_t start, uint16_t end,
		 uint8_t flags, const char **msg);
int xbg_vlan_del(struct xbg_bridge *br, struct xbg_port *port, uint16_t start, uint16_t end,
		 const char **msg);
void xbg_vlan_dump(struct xbg_port *port, xbg_vlan_fn fn, void *ctx);

/* Datapath. */
void xbg_decide(struct xbg_bridge *br, struct xbg_port *in, const struct xbg_frame *frame,
		struct xbg_verdict *out);
void xbg_flood(struct xbg_bridge *br, const struct xbg_verdict *v, xbg_flood_fn fn, void *ctx);

/* FDB. */
void xbg_fdb_dump(struct xbg_bridge *br, xbg_fdb_fn fn, void *ctx);
unsigned int xbg_run_ageing(struct xbg_bridge *br);

#ifdef __cplusplus
}
#endif

#endif /* XBRIDGE_GLUE_H */
