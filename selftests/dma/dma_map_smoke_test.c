// SPDX-License-Identifier: GPL-2.0
/*
 * Smoke test of the DMA mapping paths through dma_map_benchmark: bind the
 * spare `edu` PCI device to the benchmark driver and run each mode for a
 * short time. Every run must complete without error and report non-zero,
 * ordered (min <= median <= p99) map and unmap times; bad parameters must be
 * rejected with EINVAL. The IOVA-link mode needs a translating IOMMU domain:
 * in passthrough and without an IOMMU it must fail with EOPNOTSUPP.
 *
 * Outside the project's guest it skips without root, an edu device, the
 * dma_map_benchmark driver or debugfs; the mode is then read from the edu
 * device's IOMMU group (dfp_mode()).
 */
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <linux/map_benchmark.h>
#include "dfp_guest.h"
#include "kselftest_harness.h"

#define BENCH_DEV	"/sys/kernel/debug/dma_map_benchmark"
#define BENCH_DRV	"/sys/bus/pci/drivers/dma_map_benchmark"
#define DEBUGFS_MAGIC	0x64626720

static int bind_edu(struct __test_metadata *_metadata)
{
	char bdf[256], path[512], drv[256];
	ssize_t n;

	if (dfp_find_pci(DFP_EDU_VENDOR, DFP_EDU_DEVICE, bdf, sizeof(bdf)))
		return -ENODEV;
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", bdf);
	n = readlink(path, drv, sizeof(drv) - 1);
	if (n > 0) {
		drv[n] = '\0';
		if (strstr(drv, "dma_map_benchmark"))
			return 0;
		snprintf(path, sizeof(path),
			 "/sys/bus/pci/devices/%s/driver/unbind", bdf);
		dfp_write(path, bdf);
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver_override",
		 bdf);
	if (dfp_write(path, "dma_map_benchmark"))
		return -errno;
	return dfp_write("/sys/bus/pci/drivers/dma_map_benchmark/bind", bdf);
}

FIXTURE(bench) {
	int fd;
};

FIXTURE_VARIANT(bench) {
	int mode;
	unsigned int granule;
	unsigned int threads;
};

FIXTURE_VARIANT_ADD(bench, single_1) {
	.mode = DMA_MAP_BENCH_SINGLE_MODE, .granule = 1, .threads = 1,
};

FIXTURE_VARIANT_ADD(bench, single_16_2threads) {
	.mode = DMA_MAP_BENCH_SINGLE_MODE, .granule = 16, .threads = 2,
};

FIXTURE_VARIANT_ADD(bench, sg_16) {
	.mode = DMA_MAP_BENCH_SG_MODE, .granule = 16, .threads = 1,
};

FIXTURE_VARIANT_ADD(bench, sg_256) {
	.mode = DMA_MAP_BENCH_SG_MODE, .granule = 256, .threads = 1,
};

FIXTURE_VARIANT_ADD(bench, iova_link_16) {
	.mode = DMA_MAP_BENCH_IOVA_LINK_MODE, .granule = 16, .threads = 1,
};

FIXTURE_VARIANT_ADD(bench, iova_link_256_2threads) {
	.mode = DMA_MAP_BENCH_IOVA_LINK_MODE, .granule = 256, .threads = 2,
};

#ifdef DFP_HAVE_LINK_VEC_MODE
FIXTURE_VARIANT_ADD(bench, iova_link_vec_16) {
	.mode = DMA_MAP_BENCH_IOVA_LINK_VEC_MODE, .granule = 16, .threads = 1,
};

FIXTURE_VARIANT_ADD(bench, iova_link_vec_512_2threads) {
	.mode = DMA_MAP_BENCH_IOVA_LINK_VEC_MODE, .granule = 512, .threads = 2,
};
#endif

FIXTURE_SETUP(bench)
{
	int ret = bind_edu(_metadata);

	ASSERT_EQ(0, ret) {
		TH_LOG("cannot bind edu to dma_map_benchmark: %s",
		       strerror(-ret));
	}
	self->fd = open(BENCH_DEV, O_RDWR);
	ASSERT_LE(0, self->fd) {
		TH_LOG("open %s: %s", BENCH_DEV, strerror(errno));
	}
}

FIXTURE_TEARDOWN(bench)
{
	if (self->fd >= 0)
		close(self->fd);
}

static void fill(struct map_benchmark *m, int mode, unsigned int granule,
		 unsigned int threads)
{
	memset(m, 0, sizeof(*m));
	m->threads = threads;
	m->seconds = 1;
	m->node = -1;
	m->dma_bits = 32;
	m->dma_dir = DMA_MAP_BIDIRECTIONAL;
	m->granule = granule;
	m->map_mode = mode;
}

TEST_F(bench, runs)
{
	struct map_benchmark m;

	int ret;

	fill(&m, variant->mode, variant->granule, variant->threads);
	ret = ioctl(self->fd, DMA_MAP_BENCHMARK, &m);
	/* The IOVA-based API needs a translating domain */
	if (variant->mode >= DMA_MAP_BENCH_IOVA_LINK_MODE && !dfp_mode_translates()) {
		ASSERT_EQ(-1, ret);
		ASSERT_EQ(EOPNOTSUPP, errno);
		return;
	}
	ASSERT_EQ(0, ret) {
		TH_LOG("ioctl: %s", strerror(errno));
	}
	TH_LOG("mode %d granule %u threads %u: map avg %llu min %llu p50 %llu p99 %llu ns, unmap avg %llu p50 %llu ns",
	       variant->mode, variant->granule, variant->threads,
	       (unsigned long long)m.avg_map_ns, (unsigned long long)m.min_map_ns,
	       (unsigned long long)m.p50_map_ns, (unsigned long long)m.p99_map_ns,
	       (unsigned long long)m.avg_unmap_ns, (unsigned long long)m.p50_unmap_ns);
	/* Under TCG a map of even one page takes well over 100 ns. */
	ASSERT_LT((__u64)0, m.avg_map_100ns);
	ASSERT_LT((__u64)0, m.avg_unmap_100ns);
	/*
	 * The nanosecond results agree with the 100 ns ones (which truncate
	 * each iteration, so they may be one unit lower) and are ordered.
	 */
	ASSERT_LE(m.avg_map_100ns, m.avg_map_ns / 100);
	ASSERT_GE(m.avg_map_100ns + 1, m.avg_map_ns / 100);
	ASSERT_LT((__u64)0, m.min_map_ns);
	ASSERT_LE(m.min_map_ns, m.p50_map_ns);
	ASSERT_LE(m.p50_map_ns, m.p99_map_ns);
	ASSERT_LT((__u64)0, m.min_unmap_ns);
	ASSERT_LE(m.min_unmap_ns, m.p50_unmap_ns);
	ASSERT_LE(m.p50_unmap_ns, m.p99_unmap_ns);
}

TEST_F(bench, rejects_bad_input)
{
	struct map_benchmark m;

	fill(&m, DMA_MAP_BENCH_MODE_MAX, 1, 1);
	ASSERT_EQ(-1, ioctl(self->fd, DMA_MAP_BENCHMARK, &m));
	ASSERT_EQ(EINVAL, errno);

	fill(&m, variant->mode, 0, 1);
	ASSERT_EQ(-1, ioctl(self->fd, DMA_MAP_BENCHMARK, &m));
	ASSERT_EQ(EINVAL, errno);

	fill(&m, variant->mode, 1, DMA_MAP_MAX_THREADS + 1);
	ASSERT_EQ(-1, ioctl(self->fd, DMA_MAP_BENCHMARK, &m));
	ASSERT_EQ(EINVAL, errno);
}

static const char *dfp_skip_reason(void)
{
	char bdf[256];
	struct statfs fs;

	if (geteuid())
		return "needs root (binds the edu device to dma_map_benchmark)";
	if (dfp_find_pci(DFP_EDU_VENDOR, DFP_EDU_DEVICE, bdf, sizeof(bdf)))
		return "no QEMU edu PCI device (1234:11e8) for dma_map_benchmark";
	if (access(BENCH_DRV, F_OK))
		return "no dma_map_benchmark driver (CONFIG_DMA_MAP_BENCHMARK)";
	if (statfs("/sys/kernel/debug", &fs) || fs.f_type != DEBUGFS_MAGIC)
		return "debugfs is not mounted on /sys/kernel/debug";
	if (!dfp_mode()[0])
		return "cannot tell the IOMMU mode of the edu device";
	return NULL;
}

DFP_HARNESS_MAIN
