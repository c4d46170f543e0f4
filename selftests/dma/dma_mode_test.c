// SPDX-License-Identifier: GPL-2.0
/*
 * Check that the IOMMU mode the guest was booted in is really in effect: the
 * expected IOMMU driver is bound and the DMA domain type of the devices the
 * benchmarks use (NVMe, virtio-net, edu) matches. A silent fallback (say, the
 * IOMMU failing to initialise and the kernel using dma-direct) fails here.
 *
 * The expected mode is dfp.mode= (scripts/vm) or, on another machine,
 * DFP_MODE=<mode> in the environment; without either the program skips.
 * Outside the project's guest a device it does not have is skipped too.
 */
#include "dfp_guest.h"
#include "kselftest_harness.h"

struct expect {
	const char *mode;
	const char *iommu_class_prefix;	/* entry in /sys/class/iommu */
	const char *domain_type;	/* iommu_group/type of a device */
};

static const struct expect expects[] = {
	{ "intel-strict", "dmar", "DMA" },
	{ "intel-lazy", "dmar", "DMA-FQ" },
	{ "intel-pt", "dmar", "identity" },
	{ "amd-strict", "ivhd", "DMA" },
	{ "amd-lazy", "ivhd", "DMA-FQ" },
	{ "virtio-strict", NULL, "DMA" },
	{ "smmuv3-strict", "smmu3.", "DMA" },
	{ "smmuv3-lazy", "smmu3.", "DMA-FQ" },
	{ "smmuv3-pt", "smmu3.", "identity" },
	{ "none", NULL, NULL },
};

static const struct expect *find_expect(void)
{
	const char *mode = dfp_expected_mode();
	unsigned int i;

	for (i = 0; i < sizeof(expects) / sizeof(expects[0]); i++)
		if (!strcmp(expects[i].mode, mode))
			return &expects[i];
	return NULL;
}

static int count_class_iommu(const char *prefix)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir("/sys/class/iommu");
	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (prefix && !strncmp(de->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

static int count_iommu_groups(void)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir("/sys/kernel/iommu_groups");
	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

TEST(mode_is_known)
{
	ASSERT_NE(NULL, find_expect()) {
		TH_LOG("dfp.mode='%s' is not a known mode", dfp_expected_mode());
	}
}

TEST(iommu_driver_bound)
{
	const struct expect *e = find_expect();

	ASSERT_NE(NULL, e);
	if (!e->domain_type) {
		ASSERT_EQ(0, count_iommu_groups()) {
			TH_LOG("mode none but IOMMU groups exist");
		}
		return;
	}
	ASSERT_LT(0, count_iommu_groups()) {
		TH_LOG("%s: no IOMMU group: the IOMMU did not initialise",
		       e->mode);
	}
	if (e->iommu_class_prefix)
		ASSERT_LT(0, count_class_iommu(e->iommu_class_prefix)) {
			TH_LOG("%s: no /sys/class/iommu/%s*", e->mode,
			       e->iommu_class_prefix);
		}
}

FIXTURE(device) {
	char bdf[256];
};

FIXTURE_VARIANT(device) {
	const char *name;
	unsigned int vendor, device;
};

FIXTURE_VARIANT_ADD(device, nvme) {
	.name = "nvme", .vendor = 0x1b36, .device = 0x0010,
};

FIXTURE_VARIANT_ADD(device, virtio_net) {
	.name = "virtio-net", .vendor = 0x1af4, .device = 0x1041,
};

FIXTURE_VARIANT_ADD(device, edu) {
	.name = "edu", .vendor = 0x1234, .device = 0x11e8,
};

FIXTURE_SETUP(device)
{
	if (!dfp_in_harness_guest() &&
	    dfp_find_pci(variant->vendor, variant->device, self->bdf,
			 sizeof(self->bdf)))
		SKIP(return, "no %s device (%04x:%04x)", variant->name,
		     variant->vendor, variant->device);
	ASSERT_EQ(0, dfp_find_pci(variant->vendor, variant->device,
				  self->bdf, sizeof(self->bdf))) {
		TH_LOG("no %s device in the guest", variant->name);
	}
}

FIXTURE_TEARDOWN(device)
{
}

TEST_F(device, domain_type)
{
	const struct expect *e = find_expect();
	char path[512], type[32];
	int ret;

	ASSERT_NE(NULL, e);
	snprintf(path, sizeof(path),
		 "/sys/bus/pci/devices/%s/iommu_group/type", self->bdf);
	ret = dfp_read(path, type, sizeof(type));
	if (!e->domain_type) {
		ASSERT_EQ(-ENOENT, ret) {
			TH_LOG("%s has an IOMMU group in mode none",
			       variant->name);
		}
		return;
	}
	ASSERT_EQ(0, ret) {
		TH_LOG("%s: cannot read %s: %s", variant->name, path,
		       strerror(-ret));
	}
	ASSERT_STREQ(e->domain_type, type) {
		TH_LOG("%s in %s: domain type %s, expected %s", variant->name,
		       e->mode, type, e->domain_type);
	}
}

static const char *dfp_skip_reason(void)
{
	if (!dfp_expected_mode()[0])
		return "no dfp.mode= on the kernel command line and no DFP_MODE= in the environment: no IOMMU mode to check";
	return NULL;
}

DFP_HARNESS_MAIN
