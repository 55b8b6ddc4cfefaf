// genl_client.h - the client of the `xbridge` generic netlink family over
// libnl-3/libnl-genl-3: resolves the family (a clear error when the module
// is not loaded), builds requests, runs do/dump requests with extended-ack
// error reporting, and subscribes to the monitor group. RAII throughout.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

struct nl_sock;
struct nl_msg;
struct nlmsghdr;

namespace xbridge {

struct NlSockDeleter {
	void operator()(nl_sock *s) const;
};
struct NlMsgDeleter {
	void operator()(nl_msg *m) const;
};
using NlSock = std::unique_ptr<nl_sock, NlSockDeleter>;
using NlMsg = std::unique_ptr<nl_msg, NlMsgDeleter>;

// Open a libnl socket on PROTOCOL with extended acks enabled.
NlSock open_nl_socket(int protocol);

// Run a request already built in MSG on SK: each reply message goes to
// CB (if given); returns after the ACK or NLMSG_DONE. A kernel error
// throws KernelError with "Error: <extack>" or "RTNETLINK answers: ...".
using MsgFn = std::function<void(nlmsghdr *)>;
void nl_transact(nl_sock *sk, nl_msg *msg, const MsgFn &cb);

class GenlClient {
public:
	GenlClient();
	// A new request: CMD with NLM_F_REQUEST | FLAGS (NLM_F_DUMP for dumps).
	NlMsg request(uint8_t cmd, int flags = 0);
	void run(nl_msg *msg, const MsgFn &cb = {});
	// Join the monitor group (and/or the ct group) and call CB for every
	// notification, forever.
	[[noreturn]] void monitor(const MsgFn &cb, bool monitor_group = true, bool ct_group = false);

private:
	NlSock sk_;
	int family_ = 0;
};

}  // namespace xbridge
