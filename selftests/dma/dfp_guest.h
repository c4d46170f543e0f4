/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the dma-fastpath guest tests: the IOMMU mode the guest
 * was booted in (dfp.mode= on the kernel command line) and sysfs access.
 */
#ifndef DFP_GUEST_H
#define DFP_GUEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Read a small sysfs/proc file into buf, without the trailing newline. */
static inline int dfp_read(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static inline int dfp_write(const char *path, const char *val)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	return n < 0 ? -errno : 0;
}

/* The dfp.mode= value the host booted the guest with ("" if none). */
static inline const char *dfp_mode(void)
{
	static char mode[64];
	char cmdline[4096], *p, *end;

	if (mode[0])
		return mode;
	if (dfp_read("/proc/cmdline", cmdline, sizeof(cmdline)))
		return mode;
	p = strstr(cmdline, "dfp.mode=");
	if (!p)
		return mode;
	p += strlen("dfp.mode=");
	end = strchr(p, ' ');
	if (end)
		*end = '\0';
	snprintf(mode, sizeof(mode), "%s", p);
	return mode;
}

/*
 * Find the PCI function with the given vendor:device IDs; writes its sysfs
 * name ("0000:00:04.0") into bdf. Returns 0 or -ENODEV.
 */
static inline int dfp_find_pci(unsigned int vendor, unsigned int device,
			       char *bdf, size_t len)
{
	char path[512], val[32];
	struct dirent *de;
	DIR *d;
	int ret = -ENODEV;

	d = opendir("/sys/bus/pci/devices");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor",
			 de->d_name);
		if (dfp_read(path, val, sizeof(val)) ||
		    strtoul(val, NULL, 16) != vendor)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device",
			 de->d_name);
		if (dfp_read(path, val, sizeof(val)) ||
		    strtoul(val, NULL, 16) != device)
			continue;
		snprintf(bdf, len, "%s", de->d_name);
		ret = 0;
		break;
	}
	closedir(d);
	return ret;
}

#endif /* DFP_GUEST_H */
