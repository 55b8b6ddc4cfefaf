// family.cc - the xbridge family's nft objects over libmnl (see family.h).
#include "family.h"

#include <libmnl/libmnl.h>
#include <arpa/inet.h>
#include <linux/genetlink.h>
#include <linux/netfilter.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "../../netlink/xbridge.h"

namespace xnft {

namespace {

constexpr size_t kRecvBuf = 1 << 16;

// libmnl's attribute loops are C macros (void * conversions): these are
// the same walks for C++.
template <typename Fn> void each_attr(const void *start, const void *end, Fn fn)
{
	auto *a = static_cast<const nlattr *>(start);
	const char *tail = static_cast<const char *>(end);
	while (mnl_attr_ok(a, static_cast<int>(tail - reinterpret_cast<const char *>(a)))) {
		fn(a);
		a = mnl_attr_next(a);
	}
}

template <typename Fn> void each_attr(const nlmsghdr *nlh, size_t offset, Fn fn)
{
	each_attr(mnl_nlmsg_get_payload_offset(nlh, offset), mnl_nlmsg_get_payload_tail(nlh), fn);
}

template <typename Fn> void each_nested(const nlattr *nest, Fn fn)
{
	const char *p = static_cast<const char *>(mnl_attr_get_payload(nest));
	each_attr(p, p + mnl_attr_get_payload_len(nest), fn);
}

// genlmsghdr + attributes, built with libmnl into a growing buffer.
class Request {
public:
	Request(uint16_t family, uint8_t cmd, uint16_t flags, uint32_t seq, size_t hint)
		: buf_(hint + 4096)
	{
		nlh_ = mnl_nlmsg_put_header(buf_.data());
		nlh_->nlmsg_type = family;
		nlh_->nlmsg_flags = NLM_F_REQUEST | flags;
		nlh_->nlmsg_seq = seq;
		auto *g = static_cast<genlmsghdr *>(mnl_nlmsg_put_extra_header(nlh_, sizeof(genlmsghdr)));
		g->cmd = cmd;
		g->version = XBRIDGE_FAMILY_VERSION;
	}
	void nft_msg(const WireMsg &m)
	{
		// XBRIDGE_NFT_ATTRS and its nest have 16-bit lengths: refuse
		// rather than send a length that wrapped.
		if (m.attrs.size() > 0xffff - 64)
			throw KernelError(EMSGSIZE, "an nf_tables message of " +
						    std::to_string(m.attrs.size()) +
						    " bytes does not fit the xbridge family's carrier");
		nlattr *n = mnl_attr_nest_start(nlh_, XBRIDGE_A_NFT_MSG);
		mnl_attr_put_u16(nlh_, XBRIDGE_NFT_TYPE, m.type);
		mnl_attr_put_u16(nlh_, XBRIDGE_NFT_FLAGS, m.flags);
		mnl_attr_put_u8(nlh_, XBRIDGE_NFT_FAMILY, static_cast<uint8_t>(m.family));
		mnl_attr_put(nlh_, XBRIDGE_NFT_ATTRS, m.attrs.size(), m.attrs.data());
		mnl_attr_nest_end(nlh_, n);
	}
	void flag(uint16_t type) { mnl_attr_put(nlh_, type, 0, nullptr); }
	nlmsghdr *nlh() { return nlh_; }
	std::vector<char> &buf() { return buf_; }

private:
	std::vector<char> buf_;
	nlmsghdr *nlh_;
};

std::string kernel_message(const nlmsghdr *nlh, int *offset)
{
	// NLMSG_ERROR with extended ack: the request follows (capped), then TLVs.
	const auto *e = static_cast<const nlmsgerr *>(mnl_nlmsg_get_payload(nlh));
	size_t hlen = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		hlen += e->msg.nlmsg_len - sizeof(nlmsghdr);
	std::string msg;
	each_attr(nlh, hlen, [&](const nlattr *a) {
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG)
			msg = mnl_attr_get_str(a);
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_OFFS)
			*offset = static_cast<int>(mnl_attr_get_u32(a));
	});
	return msg;
}

} // namespace

Family::Family()
{
	sock_ = mnl_socket_open(NETLINK_GENERIC);
	// A constructor that throws runs no destructor: the socket is closed
	// here (xnft -c without the module constructs one and goes on).
	try {
		resolve();
	} catch (...) {
		if (sock_)
			mnl_socket_close(sock_);
		sock_ = nullptr;
		throw;
	}
}

// Bind the socket and look the family and its nft group up.
void Family::resolve()
{
	if (!sock_ || mnl_socket_bind(sock_, 0, MNL_SOCKET_AUTOPID) < 0)
		throw KernelError(errno, std::string("netlink: ") + strerror(errno));
	portid_ = mnl_socket_get_portid(sock_);
	int one = 1;
	mnl_socket_setsockopt(sock_, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(sock_, NETLINK_CAP_ACK, &one, sizeof(one));

	char buf[MNL_SOCKET_BUFFER_SIZE];
	nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq_++;
	auto *g = static_cast<genlmsghdr *>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, XBRIDGE_FAMILY_NAME);
	if (mnl_socket_sendto(sock_, nlh, nlh->nlmsg_len) < 0)
		throw KernelError(errno, std::string("netlink: ") + strerror(errno));
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(sock_, buf, sizeof(buf));
		if (n <= 0)
			throw KernelError(errno, std::string("netlink: ") + strerror(errno));
		auto *h = reinterpret_cast<nlmsghdr *>(buf);
		for (; mnl_nlmsg_ok(h, static_cast<int>(n)); h = mnl_nlmsg_next(h, reinterpret_cast<int *>(&n))) {
			if (h->nlmsg_type == NLMSG_ERROR) {
				const auto *e = static_cast<const nlmsgerr *>(mnl_nlmsg_get_payload(h));
				if (e->error == -ENOENT)
					throw KernelError(ENOENT, "the xbridge module is not loaded "
								  "(modprobe xbridge)");
				if (e->error)
					throw KernelError(-e->error, std::string("netlink: ") +
									 strerror(-e->error));
				if (family_id_)
					return;
				continue;
			}
			each_attr(h, sizeof(genlmsghdr), [&](const nlattr *a) {
				if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
					family_id_ = mnl_attr_get_u16(a);
				if (mnl_attr_get_type(a) != CTRL_ATTR_MCAST_GROUPS)
					return;
				each_nested(a, [&](const nlattr *grp) {
					std::string name;
					uint32_t id = 0;
					each_nested(grp, [&](const nlattr *f) {
						if (mnl_attr_get_type(f) == CTRL_ATTR_MCAST_GRP_NAME)
							name = mnl_attr_get_str(f);
						if (mnl_attr_get_type(f) == CTRL_ATTR_MCAST_GRP_ID)
							id = mnl_attr_get_u32(f);
					});
					if (name == XBRIDGE_MCGRP_NFT)
						nft_group_ = id;
				});
			});
		}
	}
}

Family::~Family()
{
	if (sock_)
		mnl_socket_close(sock_);
}

void Family::run(std::vector<char> &req, const ObjFn *fn, const MsgFn *raw)
{
	auto *nlh = reinterpret_cast<nlmsghdr *>(req.data());
	// A batch is one message: let the socket send it whole (nft raises its
	// buffer the same way; SO_SNDBUFFORCE needs CAP_NET_ADMIN, as the
	// request does).
	int size = static_cast<int>(nlh->nlmsg_len) + 65536;
	setsockopt(mnl_socket_get_fd(sock_), SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size));
	if (mnl_socket_sendto(sock_, nlh, nlh->nlmsg_len) < 0)
		throw KernelError(errno, std::string("netlink: ") + strerror(errno));
	const uint32_t seq = nlh->nlmsg_seq;
	std::vector<char> buf(kRecvBuf);
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(sock_, buf.data(), buf.size());
		if (n < 0)
			throw KernelError(errno, std::string("netlink: ") + strerror(errno));
		int left = static_cast<int>(n);
		for (auto *h = reinterpret_cast<nlmsghdr *>(buf.data()); mnl_nlmsg_ok(h, left);
		     h = mnl_nlmsg_next(h, &left)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const auto *e = static_cast<const nlmsgerr *>(mnl_nlmsg_get_payload(h));
				if (!e->error)
					return;
				int off = -1;
				std::string msg = kernel_message(h, &off);
				throw KernelError(-e->error, msg, off);
			}
			if (h->nlmsg_type != family_id_)
				continue;
			if (raw)
				(*raw)(h);
			else if (fn)
				deliver(h, [fn](uint16_t type, uint16_t, uint32_t family,
						const uint8_t *attrs, size_t len) {
					(*fn)(type, family, attrs, len);
				});
		}
	}
}

// Each XBRIDGE_A_NFT_MSG of a family message (a dump's or a notification).
void Family::deliver(const nlmsghdr *h, const EventFn &fn)
{
	each_attr(h, sizeof(genlmsghdr), [&](const nlattr *a) {
		if (mnl_attr_get_type(a) != XBRIDGE_A_NFT_MSG)
			return;
		uint16_t type = 0, flags = 0;
		uint32_t family = 0;
		const uint8_t *attrs = nullptr;
		size_t len = 0;
		each_nested(a, [&](const nlattr *f) {
			switch (mnl_attr_get_type(f)) {
			case XBRIDGE_NFT_TYPE:
				type = mnl_attr_get_u16(f);
				break;
			case XBRIDGE_NFT_FLAGS:
				flags = mnl_attr_get_u16(f);
				break;
			case XBRIDGE_NFT_FAMILY:
				family = mnl_attr_get_u8(f);
				break;
			case XBRIDGE_NFT_ATTRS:
				attrs = static_cast<const uint8_t *>(mnl_attr_get_payload(f));
				len = mnl_attr_get_payload_len(f);
				break;
			}
		});
		fn(type, flags, family, attrs, len);
	});
}

void Family::subscribe()
{
	if (!nft_group_)
		throw KernelError(EOPNOTSUPP, "the xbridge module has no nft event group "
					      "(an older module?)");
	int group = static_cast<int>(nft_group_);
	if (mnl_socket_setsockopt(sock_, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)) < 0)
		throw KernelError(errno, std::string("netlink: ") + strerror(errno));
}

void Family::listen(const EventFn &fn, const volatile int &stop)
{
	std::vector<char> buf(kRecvBuf);
	while (!stop) {
		ssize_t n = mnl_socket_recvfrom(sock_, buf.data(), buf.size());
		if (n < 0) {
			if (errno == EINTR)
				continue;
			throw KernelError(errno, std::string("netlink: ") + strerror(errno));
		}
		int left = static_cast<int>(n);
		for (auto *h = reinterpret_cast<nlmsghdr *>(buf.data()); mnl_nlmsg_ok(h, left);
		     h = mnl_nlmsg_next(h, &left))
			if (h->nlmsg_type == family_id_ && h->nlmsg_seq == 0)
				deliver(h, fn);
	}
}

void Family::batch(const std::vector<WireMsg> &msgs, bool check, const EventFn *echo)
{
	size_t total = 0;
	for (const WireMsg &m : msgs)
		total += m.attrs.size() + 64;
	Request r(family_id_, XBRIDGE_CMD_NFT_BATCH, NLM_F_ACK, seq_++, total);
	for (const WireMsg &m : msgs)
		r.nft_msg(m);
	if (check)
		r.flag(XBRIDGE_A_NFT_CHECK);
	// The refusals the module lists before its error ack (one
	// XBRIDGE_A_NFT_ERROR each, offsets into the request).
	struct Listed {
		int err, offset;
		std::string msg;
	};
	std::vector<Listed> listed;
	if (echo) {
		// The echoed notifications arrive before the ack: room for
		// all of them (nft sizes its buffer for --echo the same way).
		int size = static_cast<int>(std::min<size_t>(total * 4 + (1 << 20), 1u << 30));
		setsockopt(mnl_socket_get_fd(sock_), SOL_SOCKET, SO_RCVBUFFORCE, &size,
			   sizeof(size));
	}
	const MsgFn collect = [&](const nlmsghdr *h) {
		const auto *g = static_cast<const genlmsghdr *>(mnl_nlmsg_get_payload(h));
		if (g->cmd == XBRIDGE_CMD_NFT_GET) {
			if (echo)
				deliver(h, *echo);
			return;
		}
		each_attr(h, sizeof(genlmsghdr), [&](const nlattr *a) {
			if (mnl_attr_get_type(a) != XBRIDGE_A_NFT_ERROR)
				return;
			Listed l{0, -1, {}};
			each_nested(a, [&](const nlattr *f) {
				switch (mnl_attr_get_type(f)) {
				case XBRIDGE_NFT_ERROR_ERRNO:
					l.err = static_cast<int>(mnl_attr_get_u32(f));
					break;
				case XBRIDGE_NFT_ERROR_OFFSET:
					l.offset = static_cast<int>(mnl_attr_get_u32(f));
					break;
				case XBRIDGE_NFT_ERROR_MSG:
					l.msg = mnl_attr_get_str(f);
					break;
				}
			});
			listed.push_back(std::move(l));
		});
	};
	try {
		run(r.buf(), nullptr, &collect);
	} catch (KernelError &e) {
		// An offset the kernel names points into the request: find the
		// message it falls in, and the attribute of that message's own.
		auto refusal = [&](int err, int offset, const std::string &msg) {
			Refusal f{-1, err, -1, msg};
			if (offset < 0)
				return f;
			int i = 0;
			each_attr(r.nlh(), sizeof(genlmsghdr), [&](const nlattr *a) {
				if (mnl_attr_get_type(a) != XBRIDGE_A_NFT_MSG)
					return;
				const char *base = r.buf().data();
				const int start = static_cast<int>(reinterpret_cast<const char *>(a) - base);
				if (offset >= start && offset < start + a->nla_len) {
					f.index = i;
					each_nested(a, [&](const nlattr *inner) {
						if (mnl_attr_get_type(inner) != XBRIDGE_NFT_ATTRS)
							return;
						const int p = static_cast<int>(
							static_cast<const char *>(mnl_attr_get_payload(inner)) - base);
						const int len = static_cast<int>(mnl_attr_get_payload_len(inner));
						if (offset >= p && offset < p + len)
							f.attr_offset = offset - p;
					});
				}
				i++;
			});
			return f;
		};
		const Refusal first = refusal(e.err, e.failed_msg, e.what());
		KernelError out(e.err, e.what(), first.index);
		for (const Listed &l : listed)
			out.refusals.push_back(refusal(l.err, l.offset, l.msg));
		if (out.refusals.empty())	// a module that lists none
			out.refusals.push_back(first);
		throw out;
	}
}

void Family::dump(uint16_t get_type, const std::string &table, const ObjFn &fn,
		  const std::string &name, uint32_t obj_type)
{
	Request r(family_id_, XBRIDGE_CMD_NFT_GET, NLM_F_DUMP, seq_++, 512);
	WireMsg m{get_type, 0, NFPROTO_BRIDGE, {}};
	// The filters: attribute 1 (NFTA_*_TABLE; the table's NAME) and, for
	// objects, 2 (NFTA_OBJ_NAME), as strings, and 3 (NFTA_OBJ_TYPE), a
	// big-endian u32.
	auto put_str = [&](uint16_t type, const std::string &s) {
		const uint16_t len = static_cast<uint16_t>(MNL_ATTR_HDRLEN + s.size() + 1);
		const size_t at = m.attrs.size();
		m.attrs.resize(at + 4);
		memcpy(m.attrs.data() + at, &len, 2);
		memcpy(m.attrs.data() + at + 2, &type, 2);
		m.attrs.insert(m.attrs.end(), s.begin(), s.end());
		m.attrs.push_back(0);
		while (m.attrs.size() % 4)
			m.attrs.push_back(0);
	};
	if (!table.empty())
		put_str(1, table);
	if (!name.empty())
		put_str(2, name);
	if (obj_type) {
		const uint16_t len = MNL_ATTR_HDRLEN + 4, type = 3;
		const uint32_t be = htonl(obj_type);
		const size_t at = m.attrs.size();
		m.attrs.resize(at + 8);
		memcpy(m.attrs.data() + at, &len, 2);
		memcpy(m.attrs.data() + at + 2, &type, 2);
		memcpy(m.attrs.data() + at + 4, &be, 4);
	}
	r.nft_msg(m);
	run(r.buf(), &fn);
}

} // namespace xnft
