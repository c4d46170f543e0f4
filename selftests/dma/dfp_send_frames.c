// SPDX-License-Identifier: GPL-2.0
/*
 * dfp_send_frames: send COUNT minimal Ethernet frames (60 bytes, EtherType
 * 0x88b5, for local experiments) to DSTMAC out of IFNAME through a packet
 * socket, for dfp_xdp_veth.sh. Exit status 0 when every frame was sent.
 *
 *   dfp_send_frames IFNAME DSTMAC COUNT
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned char frame[60], dst[ETH_ALEN];
	struct sockaddr_ll sll;
	struct ifreq ifr;
	long i, count;
	int fd;

	if (argc != 4 || sscanf(argv[2], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx",
				&dst[0], &dst[1], &dst[2], &dst[3], &dst[4],
				&dst[5]) != 6) {
		fprintf(stderr, "usage: %s IFNAME DSTMAC COUNT\n", argv[0]);
		return 2;
	}
	count = atol(argv[3]);
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("dfp_send_frames: socket(AF_PACKET)");
		return 1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[1]);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr)) {
		fprintf(stderr, "dfp_send_frames: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	memset(frame, 0, sizeof(frame));
	memcpy(frame, dst, ETH_ALEN);
	memcpy(frame + ETH_ALEN, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	frame[12] = 0x88;
	frame[13] = 0xb5;

	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = if_nametoindex(argv[1]);
	sll.sll_halen = ETH_ALEN;
	memcpy(sll.sll_addr, dst, ETH_ALEN);
	for (i = 0; i < count; i++) {
		memcpy(frame + 14, &i, sizeof(i));
		if (sendto(fd, frame, sizeof(frame), 0,
			   (struct sockaddr *)&sll, sizeof(sll)) !=
		    sizeof(frame)) {
			fprintf(stderr, "dfp_send_frames: frame %ld: %s\n", i,
				strerror(errno));
			return 1;
		}
	}
	close(fd);
	return 0;
}
