// The rtnetlink structures and macros Swift cannot use directly: the function-like macros
// (NLMSG_ALIGN, RTA_ALIGN, ...) as typed inline functions, and the socket set-up and request
// building that need `struct sockaddr_nl` and byte layouts. The constants (RTM_*, RTA_*, IFLA_*,
// NLM_F_*, RTMGRP_*, ARPHRD_*, IFF_*) come through from the kernel headers included here.
// Only CourierReachability imports this module, with `internal import`.
#ifndef COURIER_CNETLINK_H
#define COURIER_CNETLINK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <net/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_link.h>
#include <linux/if_addr.h>
#include <linux/if_arp.h>

// MARK: macros as functions

static inline uint32_t cnl_nlmsg_align(uint32_t length) { return NLMSG_ALIGN(length); }
static inline uint32_t cnl_nlmsg_hdrlen(void) { return NLMSG_HDRLEN; }
static inline uint32_t cnl_nlmsg_length(uint32_t payload) { return NLMSG_LENGTH(payload); }
static inline uint32_t cnl_rta_align(uint32_t length) { return RTA_ALIGN(length); }
static inline uint32_t cnl_rta_length(uint32_t payload) { return RTA_LENGTH(payload); }
static inline uint32_t cnl_rtnh_align(uint32_t length) { return RTNH_ALIGN(length); }

/// The multicast groups a reachability monitor listens to: links, IPv4/IPv6 addresses and routes.
static inline uint32_t cnl_reachability_groups(void) {
    return RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
}

// MARK: sockets

/// Opens a NETLINK_ROUTE socket (close-on-exec) bound to `groups` (0 for a query-only socket).
/// Returns the descriptor, or -1 with errno set.
int cnl_open_route_socket(uint32_t groups, int nonblocking);

/// recv(2) that also says who sent the datagram: `*sender_port` is the sender's netlink port id
/// (0 for the kernel). Returns what recvfrom returns.
long cnl_receive(int fd, void *buffer, size_t capacity, int flags, uint32_t *sender_port);

/// The netlink port id the kernel gave the socket (getsockname), or 0 on failure.
uint32_t cnl_port_of(int fd);

/// sendto(2) to another netlink socket's port (for tests that play a process forging kernel replies).
long cnl_send_to_port(int fd, uint32_t port, const void *buffer, size_t length);

/// Names the calling thread (pthread_setname_np, which needs _GNU_SOURCE), for ps and debuggers.
void cnl_set_thread_name(const char *name);

// MARK: requests

/// Writes an RTM_GETROUTE request for one destination address (4 or 16 bytes) into `buffer`.
/// Returns the message length, or 0 when `capacity` is too small or the length is not 4 or 16.
size_t cnl_build_route_request(uint8_t *buffer, size_t capacity, uint32_t sequence,
                               const uint8_t *address, size_t address_length);

/// Writes a dump request (`type` RTM_GETLINK, RTM_GETADDR or RTM_GETROUTE, NLM_F_DUMP) for `family`
/// (AF_UNSPEC, AF_INET, AF_INET6) into `buffer`. Returns the message length, or 0 when it does not fit.
size_t cnl_build_dump_request(uint8_t *buffer, size_t capacity, uint16_t type, uint8_t family,
                              uint32_t sequence);

#endif
