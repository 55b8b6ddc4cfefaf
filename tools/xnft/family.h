// family.h - xnft's client of the `xbridge` generic netlink family's nft
// objects (netlink/xbridge.h: NFT_BATCH, NFT_GET) over libmnl: resolves
// the family (a clear error when the module is not loaded), sends a batch
// as one request, runs dumps, reports the kernel's error with its extended
// ack as nft does ("Error: Could not process rule: ...").
//
// Ownership: a Family owns its socket. Not thread-safe.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "refusal.h"
#include "wire.h"

struct mnl_socket;
struct nlmsghdr;

namespace xnft {

// A request the kernel refused: errno and the extack message.
class KernelError : public std::runtime_error {
public:
	KernelError(int err, const std::string &what, int failed_msg = -1)
		: std::runtime_error(what), err(err), failed_msg(failed_msg) {}
	int err;
	int failed_msg;   // index of the batch message the kernel named, or -1
	// A batch: every message the kernel refused, in batch order (the
	// first is the one err and what() describe).
	std::vector<Refusal> refusals;
};

class Family {
public:
	Family();   // throws KernelError (ENOENT: the module is not loaded)
	Family(const Family &) = delete;
	Family &operator=(const Family &) = delete;
	~Family();

	// The notifications of a commit (NFT_MSG_* @type, their NLM_F_*
	// @flags, nfgen @family, NFTA_* @attrs).
	using EventFn = std::function<void(uint16_t type, uint16_t flags, uint32_t family,
					   const uint8_t *attrs, size_t len)>;
	// Apply @msgs as one batch (all or nothing); with @check only validate
	// it, as a commit would, and change nothing (nft --check). With @echo,
	// the notifications the module sends back for the messages that have
	// NLM_F_ECHO (nft --echo) go to it, in order, before this returns.
	void batch(const std::vector<WireMsg> &msgs, bool check = false,
		   const EventFn *echo = nullptr);
	// Dump the objects of @get_type (NFT_MSG_GET*), of @table if not empty.
	using ObjFn = std::function<void(uint16_t type, uint32_t family, const uint8_t *attrs,
					 size_t len)>;
	// @name: for GETOBJ and GETOBJ_RESET, one object's NFTA_OBJ_NAME;
	// @obj_type (if not 0) the objects' NFTA_OBJ_TYPE.
	void dump(uint16_t get_type, const std::string &table, const ObjFn &fn,
		  const std::string &name = "", uint32_t obj_type = 0);
	// Join the `nft` multicast group (the commit notifications); from then
	// on the socket queues them. Throws KernelError.
	void subscribe();
	// Deliver each queued or arriving notification to @fn (with its
	// NLM_F_* flags, as nf_tables sets them on a notification) until @stop
	// is set (a signal interrupts the wait) or the socket fails (throws;
	// ENOBUFS: notifications were lost).
	void listen(const EventFn &fn, const volatile int &stop);

private:
	void resolve();
	void deliver(const nlmsghdr *h, const EventFn &fn);
	// Send @req and read until its ack: each family message to @fn's
	// nft-msg objects, or whole to @raw.
	using MsgFn = std::function<void(const nlmsghdr *h)>;
	void run(std::vector<char> &req, const ObjFn *fn, const MsgFn *raw = nullptr);

	mnl_socket *sock_ = nullptr;
	uint16_t family_id_ = 0;
	uint32_t nft_group_ = 0;  // the `nft` group's id (0: not offered)
	uint32_t portid_ = 0;
	uint32_t seq_ = 1;
};

} // namespace xnft
