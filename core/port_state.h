/* SPDX-License-Identifier: GPL-2.0 */
/*
 * port_state.h - the STP port states (the kernel's BR_STATE_* values),
 * shared by ports and per-port VLANs. Values only.
 */
#ifndef XBRIDGE_CORE_PORT_STATE_H
#define XBRIDGE_CORE_PORT_STATE_H

#include <stdint.h>

namespace xb {

enum class PortState : uint8_t {
	Disabled = 0,
	Listening = 1,
	Learning = 2,
	Forwarding = 3,
	Blocking = 4,
};

constexpr uint8_t kPortStateMax = 4;

/* States in which a frame is accepted on ingress (learning may follow). */
inline bool state_accepts_ingress(PortState s)
{
	return s == PortState::Forwarding || s == PortState::Learning;
}

} // namespace xb

#endif /* XBRIDGE_CORE_PORT_STATE_H */
