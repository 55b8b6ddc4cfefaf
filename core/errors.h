/* SPDX-License-Identifier: GPL-2.0 */
/*
 * errors.h - error returns of the core's control API.
 *
 * Control functions return 0 or a negative errno value (the kernel's and
 * Linux userspace's numbering are the same), and may fill an Extack with a
 * static message naming the problem, which the netlink layer hands back as
 * an extended ack. A failed call changes nothing.
 */
#ifndef XBRIDGE_CORE_ERRORS_H
#define XBRIDGE_CORE_ERRORS_H

namespace xb {

constexpr int kEPERM = 1;
constexpr int kENOENT = 2;
constexpr int kE2BIG = 7;
constexpr int kENOMEM = 12;
constexpr int kEBUSY = 16;
constexpr int kEEXIST = 17;
constexpr int kEINVAL = 22;
constexpr int kENFILE = 23;
constexpr int kEFBIG = 27;
constexpr int kENOSPC = 28;
constexpr int kEMLINK = 31;
constexpr int kERANGE = 34;
constexpr int kEOVERFLOW = 75;
constexpr int kENAMETOOLONG = 36;
constexpr int kEMSGSIZE = 90;
constexpr int kELOOP = 40;
constexpr int kEPROTONOSUPPORT = 93;
constexpr int kEOPNOTSUPP = 95;
constexpr int kEAFNOSUPPORT = 97;

struct Extack {
	const char *msg = nullptr;
	/* The attribute at fault, as nf_tables names it with NL_SET_BAD_ATTR
	 * (its payload, inside the request); nullptr: the request. */
	const void *attr = nullptr;
};

/* Record @msg (if the caller asked for one) and return -@err. */
inline int fail(Extack *ack, int err, const char *msg)
{
	if (ack)
		ack->msg = msg;
	return -err;
}

/* As fail(), naming the attribute whose payload is @attr as at fault. */
inline int fail_at(Extack *ack, int err, const void *attr, const char *msg)
{
	if (ack) {
		ack->msg = msg;
		ack->attr = attr;
	}
	return -err;
}

/* When a request failed for one of its parts (@attr: an element of a list
 * the request holds) and nothing nearer was named, name the part. */
inline int blame_part(Extack *ack, int err, const void *attr)
{
	if (err && ack && !ack->attr)
		ack->attr = attr;
	return err;
}

} // namespace xb

#endif /* XBRIDGE_CORE_ERRORS_H */
