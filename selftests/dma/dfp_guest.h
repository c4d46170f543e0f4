/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the dma-fastpath guest tests: the IOMMU mode the guest
 * was booted in (dfp.mode= on the kernel command line), sysfs access, and
 * skipping (KSFT_SKIP) on a machine that lacks what a test needs.
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

/*
 * The dfp.mode= value scripts/vm booted the guest with ("" if none). Its
 * presence marks the project's QEMU guest: there a missing device or
 * driver is a failure, elsewhere the tests skip (see dfp_skip_reason()).
 */
static inline const char *dfp_cmdline_mode(void)
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

static inline int dfp_in_harness_guest(void)
{
	return dfp_cmdline_mode()[0] != '\0';
}

/*
 * The mode the IOMMU is expected to be in: dfp.mode=, else the DFP_MODE
 * environment variable (a machine not booted by scripts/vm), else "".
 */
static inline const char *dfp_expected_mode(void)
{
	const char *env = getenv("DFP_MODE");

	if (dfp_in_harness_guest())
		return dfp_cmdline_mode();
	return env ? env : "";
}

#define DFP_EDU_VENDOR	0x1234
#define DFP_EDU_DEVICE	0x11e8

/*
 * The mode the edu tests go by: the expected one, else what the edu
 * device's IOMMU group says ("iommu-strict" for a DMA domain,
 * "iommu-lazy" for DMA-FQ, "iommu-pt" for identity, "none" without a
 * group; "" without an edu device or for another domain type). Only the
 * suffix (-strict, -lazy, -pt) and "none" matter to the tests.
 */
static inline const char *dfp_mode(void)
{
	static char mode[64];
	char bdf[256], path[512], type[32] = "";
	int ret;

	if (dfp_expected_mode()[0])
		return dfp_expected_mode();
	if (mode[0] || dfp_find_pci(DFP_EDU_VENDOR, DFP_EDU_DEVICE, bdf,
				    sizeof(bdf)))
		return mode;
	snprintf(path, sizeof(path),
		 "/sys/bus/pci/devices/%s/iommu_group/type", bdf);
	ret = dfp_read(path, type, sizeof(type));
	if (ret == -ENOENT)
		snprintf(mode, sizeof(mode), "none");
	else if (ret)
		return mode;
	else if (!strcmp(type, "DMA"))
		snprintf(mode, sizeof(mode), "iommu-strict");
	else if (!strcmp(type, "DMA-FQ"))
		snprintf(mode, sizeof(mode), "iommu-lazy");
	else if (!strcmp(type, "identity"))
		snprintf(mode, sizeof(mode), "iommu-pt");
	return mode;
}

/* dfp_mode() ends in @suffix ("-strict", "-lazy", "-pt"). */
static inline int dfp_mode_is(const char *suffix)
{
	const char *m = dfp_mode();
	size_t n = strlen(m), s = strlen(suffix);

	return n >= s && !strcmp(m + n - s, suffix);
}

/* The mode gives the devices a translating (DMA or DMA-FQ) domain. */
static inline int dfp_mode_translates(void)
{
	const char *m = dfp_mode();

	return m[0] && strcmp(m, "none") && !dfp_mode_is("-pt");
}

/*
 * main() of a test program: where dfp_skip_reason() (defined by the
 * program) gives a reason, outside the project's guest only, the whole
 * program is skipped: "1..0 # SKIP reason" and exit status 4 (KSFT_SKIP),
 * the kselftest convention for a missing feature or device. -l and -h
 * always work. In the guest the tests run and a missing piece fails.
 */
#define DFP_HARNESS_MAIN						\
	int main(int argc, char **argv)					\
	{								\
		const char *why = NULL;					\
		int i;							\
									\
		for (i = 1; i < argc; i++)				\
			if (!strcmp(argv[i], "-l") || !strcmp(argv[i], "-h")) \
				break;					\
		if (i == argc && !dfp_in_harness_guest())		\
			why = dfp_skip_reason();			\
		if (why)						\
			ksft_exit_skip("%s\n", why);			\
		return test_harness_run(argc, argv);			\
	}

#endif /* DFP_GUEST_H */
