#define _GNU_SOURCE
#include "CNetlink.h"

#include <pthread.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

long cnl_receive(int fd, void *buffer, size_t capacity, int flags, uint32_t *sender_port) {
    struct sockaddr_nl from;
    socklen_t length = sizeof from;
    memset(&from, 0, sizeof from);
    ssize_t count = recvfrom(fd, buffer, capacity, flags, (struct sockaddr *)&from, &length);
    // An address that is not a netlink one cannot be the kernel's.
    *sender_port = (length >= sizeof from && from.nl_family == AF_NETLINK) ? from.nl_pid : UINT32_MAX;
    return (long)count;
}

uint32_t cnl_port_of(int fd) {
    struct sockaddr_nl local;
    socklen_t length = sizeof local;
    memset(&local, 0, sizeof local);
    if (getsockname(fd, (struct sockaddr *)&local, &length) != 0) return 0;
    return local.nl_pid;
}

long cnl_send_to_port(int fd, uint32_t port, const void *buffer, size_t length) {
    struct sockaddr_nl to;
    memset(&to, 0, sizeof to);
    to.nl_family = AF_NETLINK;
    to.nl_pid = port;
    return (long)sendto(fd, buffer, length, 0, (struct sockaddr *)&to, sizeof to);
}

int cnl_open_route_socket(uint32_t groups, int nonblocking) {
    int type = SOCK_RAW | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0);
    int fd = socket(AF_NETLINK, type, NETLINK_ROUTE);
    if (fd < 0) return -1;
    struct sockaddr_nl local;
    memset(&local, 0, sizeof local);
    local.nl_family = AF_NETLINK;
    local.nl_groups = groups;
    if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

size_t cnl_build_route_request(uint8_t *buffer, size_t capacity, uint32_t sequence,
                               const uint8_t *address, size_t address_length) {
    if (address_length != 4 && address_length != 16) return 0;
    size_t length = NLMSG_LENGTH(sizeof(struct rtmsg)) + RTA_SPACE(address_length);
    if (capacity < length) return 0;
    memset(buffer, 0, length);
    struct nlmsghdr *header = (struct nlmsghdr *)buffer;
    header->nlmsg_len = (uint32_t)length;
    header->nlmsg_type = RTM_GETROUTE;
    header->nlmsg_flags = NLM_F_REQUEST;
    header->nlmsg_seq = sequence;
    struct rtmsg *route = NLMSG_DATA(header);
    route->rtm_family = address_length == 4 ? AF_INET : AF_INET6;
    route->rtm_dst_len = (unsigned char)(address_length * 8);
    struct rtattr *attribute = (struct rtattr *)(buffer + NLMSG_LENGTH(sizeof(struct rtmsg)));
    attribute->rta_type = RTA_DST;
    attribute->rta_len = (unsigned short)RTA_LENGTH(address_length);
    memcpy(RTA_DATA(attribute), address, address_length);
    return length;
}

size_t cnl_build_dump_request(uint8_t *buffer, size_t capacity, uint16_t type, uint8_t family,
                              uint32_t sequence) {
    // Every dump request carries a family-sized header; rtgenmsg is enough for links and
    // addresses, but RTM_GETROUTE wants a whole rtmsg, so reserve the larger of the two.
    size_t payload = type == RTM_GETLINK ? sizeof(struct ifinfomsg)
                   : type == RTM_GETADDR ? sizeof(struct ifaddrmsg)
                   : sizeof(struct rtmsg);
    size_t length = NLMSG_LENGTH(payload);
    if (capacity < length) return 0;
    memset(buffer, 0, length);
    struct nlmsghdr *header = (struct nlmsghdr *)buffer;
    header->nlmsg_len = (uint32_t)length;
    header->nlmsg_type = type;
    header->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    header->nlmsg_seq = sequence;
    // The family is the first byte of ifinfomsg, ifaddrmsg and rtmsg alike.
    buffer[NLMSG_HDRLEN] = family;
    return length;
}

void cnl_set_thread_name(const char *name) {
    pthread_setname_np(pthread_self(), name);
}
