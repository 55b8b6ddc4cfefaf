// genl_client.cc - see genl_client.h.
#include "genl_client.h"

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "../../netlink/xbridge.h"
#include "errors.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

namespace xbridge {

void NlSockDeleter::operator()(nl_sock *s) const
{
	nl_socket_free(s);
}

void NlMsgDeleter::operator()(nl_msg *m) const
{
	nlmsg_free(m);
}

struct NlCbDeleter {
	void operator()(nl_cb *c) const { nl_cb_put(c); }
};

NlSock open_nl_socket(int protocol)
{
	NlSock sk(nl_socket_alloc());
	if (!sk)
		throw Error("Cannot allocate a netlink socket");
	int err = nl_connect(sk.get(), protocol);
	if (err < 0)
		throw Error(std::string("Cannot open netlink socket: ") + nl_geterror(err));
	int one = 1;
	setsockopt(nl_socket_get_fd(sk.get()), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_socket_get_fd(sk.get()), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	nl_socket_enable_msg_peek(sk.get());
	nl_socket_set_buffer_size(sk.get(), 1 << 20, 1 << 20);
	return sk;
}

namespace {

struct Transaction {
	const MsgFn *cb;
	bool done = false;
	int error = 0;
	std::string extack;
	std::string cb_error;
	int cb_code = 0;
	bool cb_failed = false;
};

// The extack message of an NLMSG_ERROR, bounds-checked.
std::string extack_msg(nlmsgerr *e)
{
	auto *nlh = reinterpret_cast<nlmsghdr *>(reinterpret_cast<char *>(e) - NLMSG_HDRLEN);
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return {};
	size_t len = nlh->nlmsg_len;
	size_t off = NLMSG_HDRLEN + sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return {};
		off += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
	}
	if (off >= len)
		return {};
	nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      reinterpret_cast<nlattr *>(reinterpret_cast<char *>(nlh) + off),
		      static_cast<int>(len - off), nullptr) < 0)
		return {};
	nlattr *m = tb[NLMSGERR_ATTR_MSG];
	if (!m || nla_len(m) <= 0)
		return {};
	const char *s = static_cast<const char *>(nla_data(m));
	return std::string(s, strnlen(s, nla_len(m)));
}

int on_valid(nl_msg *msg, void *arg)
{
	auto *t = static_cast<Transaction *>(arg);
	if (t->cb && *t->cb && !t->cb_failed) {
		try {
			(*t->cb)(nlmsg_hdr(msg));
		} catch (const Error &e) {
			t->cb_failed = true;
			t->cb_error = e.what();
			t->cb_code = e.code();
		}
	}
	return NL_OK;
}

int on_finish(nl_msg *, void *arg)
{
	static_cast<Transaction *>(arg)->done = true;
	return NL_STOP;
}

int on_error(sockaddr_nl *, nlmsgerr *e, void *arg)
{
	auto *t = static_cast<Transaction *>(arg);
	t->done = true;
	t->error = e->error;
	if (e->error)
		t->extack = extack_msg(e);
	return NL_STOP;
}

}  // namespace

void nl_transact(nl_sock *sk, nl_msg *msg, const MsgFn &cb)
{
	std::unique_ptr<nl_cb, NlCbDeleter> c(nl_cb_alloc(NL_CB_DEFAULT));
	if (!c)
		throw Error("Cannot allocate netlink callbacks");
	Transaction t;
	t.cb = &cb;
	nl_cb_set(c.get(), NL_CB_VALID, NL_CB_CUSTOM, on_valid, &t);
	nl_cb_set(c.get(), NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &t);
	nl_cb_set(c.get(), NL_CB_ACK, NL_CB_CUSTOM, on_finish, &t);
	nl_cb_err(c.get(), NL_CB_CUSTOM, on_error, &t);

	int err = nl_send_auto(sk, msg);
	if (err < 0)
		throw Error(std::string("Cannot talk to the kernel: ") + nl_geterror(err));
	while (!t.done) {
		err = nl_recvmsgs(sk, c.get());
		if (err < 0 && !t.done)
			throw Error(std::string("Cannot receive the kernel's reply: ") +
				    nl_geterror(err), EXIT_DUMP);
	}
	if (t.error) {
		int e = -t.error;
		if (!t.extack.empty())
			throw KernelError("Error: " + t.extack + (t.extack.back() == '.' ? "" : "."), e);
		throw KernelError(std::string("RTNETLINK answers: ") + strerror(e), e);
	}
	if (t.cb_failed)
		throw Error(t.cb_error, t.cb_code);
}

GenlClient::GenlClient() : sk_(open_nl_socket(NETLINK_GENERIC))
{
	family_ = genl_ctrl_resolve(sk_.get(), XBRIDGE_FAMILY_NAME);
	if (family_ < 0)
		throw Error("Error: the \"" XBRIDGE_FAMILY_NAME
			    "\" generic netlink family is not registered (is the xbridge "
			    "module loaded?)");
}

NlMsg GenlClient::request(uint8_t cmd, int flags)
{
	NlMsg m(nlmsg_alloc());
	if (!m || !genlmsg_put(m.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family_, 0, flags, cmd,
			       XBRIDGE_FAMILY_VERSION))
		throw Error("Cannot allocate a netlink message");
	return m;
}

void GenlClient::run(nl_msg *msg, const MsgFn &cb)
{
	nl_transact(sk_.get(), msg, cb);
}

namespace {
int on_notify(nl_msg *msg, void *arg)
{
	(*static_cast<const MsgFn *>(arg))(nlmsg_hdr(msg));
	return NL_OK;
}
int no_seq(nl_msg *, void *)
{
	return NL_OK;
}
}  // namespace

void GenlClient::monitor(const MsgFn &cb, bool monitor_group, bool ct_group)
{
	auto join = [&](const char *name) {
		int grp = genl_ctrl_resolve_grp(sk_.get(), XBRIDGE_FAMILY_NAME, name);
		if (grp < 0)
			throw Error(std::string("Error: the xbridge family has no \"") + name +
				    "\" group");
		int e = nl_socket_add_membership(sk_.get(), grp);
		if (e < 0)
			throw Error(std::string("Cannot join the ") + name + " group: " +
				    nl_geterror(e));
	};
	if (monitor_group)
		join(XBRIDGE_MCGRP_MONITOR);
	if (ct_group)
		join(XBRIDGE_MCGRP_CT);
	int err;
	std::unique_ptr<nl_cb, NlCbDeleter> c(nl_cb_alloc(NL_CB_DEFAULT));
	if (!c)
		throw Error("Cannot allocate netlink callbacks");
	nl_cb_set(c.get(), NL_CB_VALID, NL_CB_CUSTOM, on_notify, const_cast<MsgFn *>(&cb));
	nl_cb_set(c.get(), NL_CB_SEQ_CHECK, NL_CB_CUSTOM, no_seq, nullptr);
	for (;;) {
		err = nl_recvmsgs(sk_.get(), c.get());
		if (err < 0 && err != -NLE_INTR && err != -NLE_NOMEM)
			throw Error(std::string("Monitor: receive failed: ") + nl_geterror(err), 1);
	}
}

}  // namespace xbridge
