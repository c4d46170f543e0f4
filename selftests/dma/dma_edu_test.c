// SPDX-License-Identifier: GPL-2.0
/*
 * What a device can still reach after a DMA unmap, checked with QEMU's edu
 * device driven by the dfp_edu test module (selftests/edu): the module maps
 * a page, lets edu write it once, unmaps, and makes edu write to the old DMA
 * address again.
 *
 *   strict modes: after dma_unmap_single() returns, and after an unmap
 *     batch's dma_unmap_batch_flush(), the write must not reach memory;
 *     before that flush the batch's IOVA must not have been reused;
 *     under virtio-iommu, whose driver cannot invalidate a batch's ranges
 *     with one wait, the batch cases must be refused (not wanted).
 *   lazy modes: the write right after the unmap may land (the flush-queue
 *     window, logged by the module); after the queue's timeout it must not.
 *
 * A case the module reports as not applicable (EOPNOTSUPP) fails where this
 * program expects it to apply, so a misdetected mode cannot skip silently.
 *
 * Outside the project's guest the mode is read from the edu device's IOMMU
 * group, the module is $DFP_EDU_KO (default MODULE_PATH), and the program
 * skips without root, an edu device, a translating domain or the module.
 */
#include <sys/syscall.h>
#include "dfp_guest.h"
#include "kselftest_harness.h"

#define MODULE_PATH	"/usr/share/dfp/dfp_edu.ko"
#define RUN		"/sys/kernel/debug/dfp_edu/run"

static const char *module_path(void)
{
	const char *env = getenv("DFP_EDU_KO");

	return env && *env ? env : MODULE_PATH;
}

static int load_and_bind(void)
{
	char bdf[256], path[512];
	int fd, ret;

	if (access(RUN, W_OK) == 0)
		return 0;
	fd = open(module_path(), O_RDONLY);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	if (ret && errno != EEXIST)
		return -errno;
	if (dfp_find_pci(DFP_EDU_VENDOR, DFP_EDU_DEVICE, bdf, sizeof(bdf)))
		return -ENODEV;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver/unbind",
		 bdf);
	dfp_write(path, bdf);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver_override",
		 bdf);
	ret = dfp_write(path, "dfp_edu");
	if (!ret)
		ret = dfp_write("/sys/bus/pci/drivers/dfp_edu/bind", bdf);
	return ret ? ret : access(RUN, W_OK) ? -errno : 0;
}

static int run_case(const char *name)
{
	return dfp_write(RUN, name);
}

/* The kernel under test has the unmap batch (the series, not the base). */
static int kernel_has_batch(void)
{
	char line[512];
	FILE *f = fopen("/proc/kallsyms", "r");
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " dma_unmap_batch_flush\n") != NULL;
	fclose(f);
	return found;
}

/*
 * What the batch cases return in a strict mode: 0 where the IOMMU's driver
 * invalidates the ranges of a batch with one wait (VT-d, AMD, SMMUv3);
 * virtio-iommu does not, so dma_unmap_batch_wanted() must be false there
 * and the module refuses the cases.
 */
static int batch_expected(void)
{
	return strncmp(dfp_mode(), "virtio-", 7) ? 0 : -EOPNOTSUPP;
}

FIXTURE(edu) {
	int dummy;
};

FIXTURE_SETUP(edu)
{
	int ret;

	/* edu's 28-bit DMA mask needs IOVAs: untranslated, memory is above */
	if (!dfp_mode_translates())
		SKIP(return, "mode '%s' does not translate DMA", dfp_mode());
	ret = load_and_bind();
	ASSERT_EQ(0, ret) TH_LOG("dfp_edu: load/bind: %s", strerror(-ret));
}

FIXTURE_TEARDOWN(edu)
{
}

/* A write to a live mapping lands: the device and the module work. */
TEST_F(edu, live)
{
	ASSERT_EQ(0, run_case("live"));
}

TEST_F(edu, strict_unmap)
{
	if (!dfp_mode_is("-strict"))
		SKIP(return, "mode %s is not strict", dfp_mode());
	ASSERT_EQ(0, run_case("strict_unmap"));
}

TEST_F(edu, lazy_window)
{
	if (!dfp_mode_is("-lazy"))
		SKIP(return, "mode %s is not lazy", dfp_mode());
	ASSERT_EQ(0, run_case("lazy_window"));
}

TEST_F(edu, batch)
{
	if (!dfp_mode_is("-strict"))
		SKIP(return, "mode %s is not strict", dfp_mode());
	if (!kernel_has_batch())
		SKIP(return, "kernel without dma_unmap_batch_flush()");
	ASSERT_EQ(batch_expected(), run_case("batch"));
}

/* Every mode: dma_unmap_batch_wanted() where, and only where, unmaps batch. */
TEST_F(edu, batch_wanted)
{
	if (!kernel_has_batch())
		SKIP(return, "kernel without dma_unmap_batch_flush()");
	ASSERT_EQ(0, run_case("batch_wanted"));
}

TEST_F(edu, iova_batch)
{
	if (!dfp_mode_is("-strict"))
		SKIP(return, "mode %s is not strict", dfp_mode());
	if (!kernel_has_batch())
		SKIP(return, "kernel without dma_unmap_batch_flush()");
	ASSERT_EQ(batch_expected(), run_case("iova_batch"));
}

/*
 * A mapping bounced through swiotlb (the module marks the device untrusted
 * for it) in an unmap batch: the data is copied back at unmap, the slot
 * released only by the flush. Needs a kernel booted with
 * swiotlb=force,track_hiwater (make check runs it so in intel-strict).
 */
TEST_F(edu, bounce_batch)
{
	int ret;

	if (!dfp_mode_is("-strict"))
		SKIP(return, "mode %s is not strict", dfp_mode());
	if (!kernel_has_batch())
		SKIP(return, "kernel without dma_unmap_batch_flush()");
	ret = run_case("bounce_batch");
	if (ret == -ENODEV)
		SKIP(return, "no counted swiotlb (boot with swiotlb=force,track_hiwater)");
	ASSERT_EQ(batch_expected(), ret);
}

/*
 * A device that is not DMA-coherent, in an unmap batch: both entry points
 * batch its unmaps and do the CPU's cache maintenance at unmap. Only a guest
 * whose PCIe host bridge is described as not coherent has one (arm64:
 * scripts/vm with VM_NONCOHERENT=1, which sets DFP_NONCOHERENT=1 for this
 * test: there the case must apply).
 */
TEST_F(edu, noncoherent_batch)
{
	const char *nc = getenv("DFP_NONCOHERENT");
	int ret;

	if (!dfp_mode_is("-strict"))
		SKIP(return, "mode %s is not strict", dfp_mode());
	if (!kernel_has_batch())
		SKIP(return, "kernel without dma_unmap_batch_flush()");
	ret = run_case("noncoherent_batch");
	if (ret == -ENODEV && !(nc && *nc == '1'))
		SKIP(return, "the device is DMA-coherent (or no kprobes)");
	ASSERT_EQ(batch_expected(), ret);
}

/*
 * Map until the IOVA space under the device's 28-bit mask is used up: a
 * clean mapping error, and mapping works again once everything is unmapped
 * (strict modes: lazy mode frees IOVA only after the flush queue's flush).
 */
TEST_F(edu, exhaust)
{
	if (!dfp_mode_is("-strict"))
		SKIP(return, "mode %s is not strict", dfp_mode());
	ASSERT_EQ(0, run_case("exhaust"));
}

/* The same, unmapping into a batch: no IOVA comes back before its flush. */
TEST_F(edu, exhaust_batch)
{
	if (!dfp_mode_is("-strict"))
		SKIP(return, "mode %s is not strict", dfp_mode());
	if (!kernel_has_batch())
		SKIP(return, "kernel without dma_unmap_batch_flush()");
	ASSERT_EQ(batch_expected(), run_case("exhaust_batch"));
}

/*
 * dma_map_sg() of 16 separate 16K buffers under a 64K max segment size and
 * segment boundary: every segment within the limits, and a device write
 * through the list lands in the right buffer at the right offset.
 */
TEST_F(edu, sg_limits)
{
	ASSERT_EQ(0, run_case("sg_limits"));
}

#define DMA_API		"/sys/kernel/debug/dma-api/"
#define SPLAT_BEGIN	"dfp: expected splats begin"
#define SPLAT_END	"dfp: expected splats end"

static long read_long(const char *path)
{
	char buf[64] = "";
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fgets(buf, sizeof(buf), f))
			v = strtol(buf, NULL, 0);
		fclose(f);
	}
	return v;
}

/* Kernel log records from the read position of @fd on that contain @s[i] */
static void kmsg_count(int fd, const char *const *s, int *count, int n)
{
	char rec[2048];
	ssize_t len;
	int i;

	while ((len = read(fd, rec, sizeof(rec) - 1)) > 0) {
		rec[len] = '\0';
		for (i = 0; i < n; i++)
			count[i] += strstr(rec, s[i]) != NULL;
	}
}

/*
 * Run a case whose reports are expected: DMA-API debug shows up to 16 of
 * them, the case runs between the kernel-log markers that scripts/vm does
 * not count as unexpected splats, and each of the @n strings of @what is
 * counted in the kernel log. *@errors gets the errors DMA-API debug counted
 * meanwhile. Returns the case's result, or -EBADF when the debugfs knobs or
 * the kernel log cannot be used.
 */
static int run_reported_case(const char *name, const char *const *what,
			     int *count, int n, long *errors)
{
	long before, shown = read_long(DMA_API "num_errors");
	char buf[32];
	int fd, ret;

	if (dfp_write(DMA_API "num_errors", "16"))
		return -EBADF;
	before = read_long(DMA_API "error_count");
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return -EBADF;
	lseek(fd, 0, SEEK_END);
	if (dfp_write("/dev/kmsg", SPLAT_BEGIN)) {
		close(fd);
		return -EBADF;
	}
	ret = run_case(name);
	dfp_write("/dev/kmsg", SPLAT_END);
	sleep(1);	/* the console prints the reports (and the end) late */
	kmsg_count(fd, what, count, n);
	close(fd);
	snprintf(buf, sizeof(buf), "%ld", shown < 0 ? 1 : shown);
	dfp_write(DMA_API "num_errors", buf);
	*errors = read_long(DMA_API "error_count") - before;
	return ret;
}

/*
 * An address never mapped and one unmapped twice: iommu-dma warns once for
 * each and DMA-API debug reports each ("has not allocated"), and the IOVA
 * allocator hands out neither address wrongly afterwards (checked by the
 * module). The reports go between two markers in the kernel log, which
 * scripts/vm does not count as unexpected splats; this test counts them
 * instead: exactly 2 DMA-API reports and 4 warnings, nothing else, except
 * that a page table of io-pgtable's Arm LPAE format (the SMMUv3 of the arm64
 * guest) warns of each unmap of nothing itself: 2 more there.
 */
TEST_F(edu, bad_unmap)
{
	static const char *const what[] = {
		"free DMA memory it has not allocated", "WARNING:",
		"io-pgtable-arm.c",
	};
	int count[3] = { 0, 0, 0 };
	long errors = 0;

	if (read_long(DMA_API "disabled") != 0)
		SKIP(return, "DMA-API debug not enabled");
	EXPECT_EQ(0, run_reported_case("bad_unmap", what, count, 3, &errors));
	EXPECT_EQ(2, errors);
	EXPECT_EQ(2, count[0]);
	EXPECT_EQ(count[2] ? 6 : 4, count[1]);
	EXPECT_TRUE(count[2] == 0 || count[2] == 2);
}

/*
 * DMA-API debug and an unmap batch (strict mode): a sync and a second unmap
 * of a mapping that waits in a batch are reported as such, 2 reports; a sync
 * after the batch's flush as of memory never mapped, 1 more. The second
 * unmap also makes iommu-dma warn of an unmap that found nothing mapped.
 */
TEST_F(edu, debug_batch)
{
	static const char *const what[] = {
		"waits in an unmap batch", "memory it has not allocated",
	};
	int count[2] = { 0, 0 };
	long errors = 0;
	int ret;

	if (!dfp_mode_is("-strict"))
		SKIP(return, "mode %s is not strict", dfp_mode());
	if (!kernel_has_batch())
		SKIP(return, "kernel without dma_unmap_batch_flush()");
	if (read_long(DMA_API "disabled") != 0)
		SKIP(return, "DMA-API debug not enabled");
	ret = run_reported_case("debug_batch", what, count, 2, &errors);
	ASSERT_EQ(batch_expected(), ret);
	if (ret)
		return;
	EXPECT_EQ(3, errors);
	EXPECT_EQ(2, count[0]);
	EXPECT_EQ(1, count[1]);
}

/*
 * A batch left without a flush (strict mode): it warns as it goes out of
 * scope and is flushed then (the module checks that the device no longer
 * reaches the page). WARN_ONCE: the first such batch of the boot warns, and
 * this is the only one. No DMA-API report.
 */
TEST_F(edu, batch_leak)
{
	static const char *const what[] = {
		"left without a flush", "WARNING:",
	};
	int count[2] = { 0, 0 };
	long errors = 0;
	int ret;

	if (!dfp_mode_is("-strict"))
		SKIP(return, "mode %s is not strict", dfp_mode());
	if (!kernel_has_batch())
		SKIP(return, "kernel without dma_unmap_batch_flush()");
	if (read_long(DMA_API "disabled") != 0)
		SKIP(return, "DMA-API debug not enabled");
	ret = run_reported_case("batch_leak", what, count, 2, &errors);
	ASSERT_EQ(batch_expected(), ret);
	if (ret)
		return;
	EXPECT_EQ(0, errors);
	EXPECT_EQ(1, count[0]);
	EXPECT_EQ(1, count[1]);
}

/*
 * Fault injection (a kernel with CONFIG_FAULT_INJECTION: the debug kernel of
 * make stress): every allocation of dma_map_sgtable(), dma_iova_link_vec()
 * and an unmap batch failed in turn, each failure clean (see the module).
 */
TEST_F(edu, fail_nth)
{
	static const char fpa[] = "/sys/kernel/debug/fail_page_alloc/";

	if (access("/proc/self/fail-nth", F_OK))
		SKIP(return, "kernel without fault injection");
	/* Page tables are order-0 pages: fail_page_alloc skips those by default */
	if (!access(fpa, F_OK)) {
		ASSERT_EQ(0, dfp_write("/sys/kernel/debug/fail_page_alloc/min-order", "0"));
		ASSERT_EQ(0, dfp_write("/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N"));
	}
	ASSERT_EQ(0, run_case("fail_nth"));
}

/*
 * Zero-length entries: dma_map_sg() gives them no IOVA and no DMA segment
 * (0, 16K, 16K and 16K, 0, 16K both map 32K, the device reaches both
 * buffers, dma_unmap_sg() leaves nothing mapped; only empty entries:
 * -EINVAL); dma_iova_link() of 0 bytes and dma_iova_link_vec() with an
 * empty range are -EINVAL with nothing linked.
 */
TEST_F(edu, zero_len)
{
	ASSERT_EQ(0, run_case("zero_len"));
}

/*
 * PCI P2P memory (NVMe's controller memory buffer) mixed with memory in one
 * dma_map_sg() (see the module): with both devices behind one PCIe switch,
 * CMB entries become bus-address segments, not IOVAs; where P2P would cross
 * q35's host bridge, which is not on the P2PDMA allow-list, the map fails
 * with -EREMOTEIO. DFP_P2P=bus or DFP_P2P=unsupported (with scripts/vm
 * VM_P2P=1 or VM_P2P=split) requires that case; otherwise the test
 * takes what the topology gives and skips without a p2pmem provider.
 */
TEST_F(edu, p2p)
{
	const char *need = getenv("DFP_P2P");
	int ret;

	if (need && *need) {
		ASSERT_TRUE(!strcmp(need, "bus") || !strcmp(need, "unsupported"))
			TH_LOG("DFP_P2P=%s: bus or unsupported", need);
		ASSERT_EQ(0, run_case(!strcmp(need, "bus") ? "p2p_bus" :
				      "p2p_unsupported"));
		return;
	}
	ret = run_case("p2p");
	if (ret == -EOPNOTSUPP)
		SKIP(return, "no p2pmem provider (kernel without PCI_P2PDMA?)");
	ASSERT_EQ(0, ret);
}

/* An unknown case name is refused. */
TEST_F(edu, unknown_case)
{
	ASSERT_EQ(-ENOENT, run_case("no_such_case"));
}

static const char *dfp_skip_reason(void)
{
	static char why[512];
	char bdf[256];

	if (geteuid())
		return "needs root (loads dfp_edu.ko, binds the edu device)";
	if (dfp_find_pci(DFP_EDU_VENDOR, DFP_EDU_DEVICE, bdf, sizeof(bdf)))
		return "no QEMU edu PCI device (1234:11e8)";
	if (!dfp_mode_translates()) {
		snprintf(why, sizeof(why),
			 "edu's 28-bit DMA mask needs a translating IOMMU domain (mode '%s')",
			 dfp_mode());
		return why;
	}
	if (access(RUN, W_OK) && access(module_path(), R_OK)) {
		snprintf(why, sizeof(why),
			 "dfp_edu not loaded and %s not found (DFP_EDU_KO=PATH)",
			 module_path());
		return why;
	}
	return NULL;
}

DFP_HARNESS_MAIN
