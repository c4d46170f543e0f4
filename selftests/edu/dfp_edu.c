// SPDX-License-Identifier: GPL-2.0
/*
 * dfp_edu: make QEMU's edu device DMA to chosen addresses, to check what the
 * device can still reach after a DMA unmap.
 *
 * The edu device copies between a 4 KiB buffer of its own (at device address
 * 0x40000) and a DMA address (2 KiB at a time here), 100 ms (virtual time) after its command
 * register is written. With a vIOMMU, QEMU translates that address through
 * the guest's page table and its own IOTLB cache: a translation the guest did
 * not invalidate after an unmap is still used, which is what these cases
 * look for.
 *
 * Bound only through driver_override. Cases are run by writing their name to
 * /sys/kernel/debug/dfp_edu/run; the write returns 0 when the case passed,
 * -EIO when it failed, -EOPNOTSUPP when it does not apply to this kernel or
 * IOMMU mode. Details go to the kernel log.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pci-p2pdma.h>
#include <linux/sched.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/swiotlb.h>
#if __has_include(<linux/dma-unmap-batch.h>)
#include <linux/dma-unmap-batch.h>
#define DFP_HAVE_BATCH 1
#endif

#define EDU_DMA_SRC	0x80
#define EDU_DMA_DST	0x88
#define EDU_DMA_COUNT	0x90
#define EDU_DMA_CMD	0x98
#define EDU_CMD_RUN	BIT(0)
#define EDU_CMD_TO_RAM	BIT(1)
#define EDU_BUF		0x40000
/*
 * Bytes per transfer: less than the 4 KiB buffer, as QEMU 7.2's range check
 * rejects (with a hardware error that stops the VM) a transfer that ends at
 * the buffer's end.
 */
#define EDU_XFER	2048
/* edu rejects DMA addresses above its 28-bit mask */
#define EDU_DMA_BITS	28

#define PAT_DEV		0xa5	/* what the device writes */
#define PAT_CPU		0x3c	/* what the CPU left in the page */

struct dfp_edu {
	struct pci_dev *pdev;
	void __iomem *bar;
	struct dentry *dir;
	struct mutex lock;
	u8 *src;		/* page the edu buffer is loaded from */
	dma_addr_t src_dma;
};

static struct dfp_edu *edu_dev;

/* One DMA of a page between the edu buffer and @addr; waits for the end. */
static int edu_dma(struct dfp_edu *e, dma_addr_t addr, bool to_ram)
{
	unsigned long timeout = jiffies + 5 * HZ;

	writeq(to_ram ? EDU_BUF : addr, e->bar + EDU_DMA_SRC);
	writeq(to_ram ? addr : EDU_BUF, e->bar + EDU_DMA_DST);
	writeq(EDU_XFER, e->bar + EDU_DMA_COUNT);
	writeq(EDU_CMD_RUN | (to_ram ? EDU_CMD_TO_RAM : 0),
	       e->bar + EDU_DMA_CMD);
	while (readq(e->bar + EDU_DMA_CMD) & EDU_CMD_RUN) {
		if (time_after(jiffies, timeout))
			return -ETIMEDOUT;
		usleep_range(2000, 4000);
	}
	return 0;
}

/* Load the edu buffer with PAT_DEV, through a mapping of our own. */
static int edu_load(struct dfp_edu *e)
{
	memset(e->src, PAT_DEV, PAGE_SIZE);
	dma_sync_single_for_device(&e->pdev->dev, e->src_dma, PAGE_SIZE,
				   DMA_TO_DEVICE);
	return edu_dma(e, e->src_dma, false);
}

/* Bytes of @p the device overwrote: 0 means memory is unchanged. */
static size_t changed(const u8 *p)
{
	size_t i, n = 0;

	for (i = 0; i < EDU_XFER; i++)
		n += p[i] != PAT_CPU;
	return n;
}

static bool strict_domain(struct dfp_edu *e)
{
	struct iommu_domain *d = iommu_get_domain_for_dev(&e->pdev->dev);

	return d && d->type == IOMMU_DOMAIN_DMA;
}

static bool lazy_domain(struct dfp_edu *e)
{
	struct iommu_domain *d = iommu_get_domain_for_dev(&e->pdev->dev);

	return d && d->type == IOMMU_DOMAIN_DMA_FQ;
}

struct target {
	u8 *buf;
	dma_addr_t dma;
};

/*
 * Map a page for the device to write, let it write once (so the IOMMU's
 * IOTLB holds the translation) and check that it did. On failure nothing is
 * left mapped or allocated (@t->buf is NULL).
 */
static int target_map_and_hit(struct dfp_edu *e, struct target *t)
{
	struct device *dev = &e->pdev->dev;
	int ret = -EIO;

	t->buf = (u8 *)__get_free_page(GFP_KERNEL);
	if (!t->buf)
		return -ENOMEM;
	memset(t->buf, PAT_CPU, PAGE_SIZE);
	t->dma = dma_map_single(dev, t->buf, PAGE_SIZE, DMA_FROM_DEVICE);
	if (dma_mapping_error(dev, t->dma)) {
		ret = -ENOMEM;
		goto free;
	}
	if (t->dma + PAGE_SIZE - 1 > DMA_BIT_MASK(EDU_DMA_BITS)) {
		dev_err(dev, "DMA address %pad above the device's mask\n",
			&t->dma);
		goto unmap;
	}
	ret = edu_dma(e, t->dma, true);
	if (ret)
		goto unmap;
	dma_sync_single_for_cpu(dev, t->dma, PAGE_SIZE, DMA_FROM_DEVICE);
	if (changed(t->buf) != EDU_XFER) {
		dev_err(dev, "DMA to a live mapping %pad wrote %zu of %d bytes\n",
			&t->dma, changed(t->buf), EDU_XFER);
		ret = -EIO;
		goto unmap;
	}
	memset(t->buf, PAT_CPU, PAGE_SIZE);
	return 0;

unmap:
	dma_unmap_single(dev, t->dma, PAGE_SIZE, DMA_FROM_DEVICE);
free:
	free_page((unsigned long)t->buf);
	t->buf = NULL;
	return ret;
}

/* target_map_and_hit(), then dma_unmap_single(): the page stays allocated. */
static int target_hit_then_unmap(struct dfp_edu *e, struct target *t)
{
	int ret = target_map_and_hit(e, t);

	if (!ret)
		dma_unmap_single(&e->pdev->dev, t->dma, PAGE_SIZE,
				 DMA_FROM_DEVICE);
	return ret;
}

/* DMA to @t's old address; returns the bytes that reached memory. */
static ssize_t target_hit_after_unmap(struct dfp_edu *e, struct target *t)
{
	int ret = edu_dma(e, t->dma, true);

	return ret ? ret : changed(t->buf);
}

static int case_live(struct dfp_edu *e)
{
	struct target t;
	int ret = target_hit_then_unmap(e, &t);

	if (!ret)
		free_page((unsigned long)t.buf);
	return ret;
}

/* Strict mode: once dma_unmap_single() returns, the device cannot write. */
static int case_strict_unmap(struct dfp_edu *e)
{
	struct target t;
	ssize_t hit;
	int ret;

	if (!strict_domain(e))
		return -EOPNOTSUPP;
	ret = target_hit_then_unmap(e, &t);
	if (ret)
		return ret;
	hit = target_hit_after_unmap(e, &t);
	if (hit) {
		dev_err(&e->pdev->dev, "strict: DMA to %pad after unmap: %zd\n",
			&t.dma, hit);
		ret = -EIO;
	}
	free_page((unsigned long)t.buf);
	return ret;
}

/*
 * Lazy mode: until the flush queue flushes (its timeout is 10 ms) the device
 * may still write through the IOTLB: the window, reported, not a failure
 * (edu starts a DMA 100 ms after its command, so it normally sees the queue
 * flushed already). 100 ms after that, the write must not land.
 */
static int case_lazy_window(struct dfp_edu *e)
{
	struct device *dev = &e->pdev->dev;
	struct target t;
	ssize_t hit;
	int ret;

	if (!lazy_domain(e))
		return -EOPNOTSUPP;
	ret = target_hit_then_unmap(e, &t);
	if (ret)
		return ret;
	hit = target_hit_after_unmap(e, &t);
	dev_notice(dev, "lazy: DMA right after unmap wrote %zd bytes (the window)\n",
		   hit);
	memset(t.buf, PAT_CPU, PAGE_SIZE);
	msleep(100);
	hit = target_hit_after_unmap(e, &t);
	if (hit) {
		dev_err(dev, "lazy: DMA to %pad 100 ms after unmap: %zd\n",
			&t.dma, hit);
		ret = -EIO;
	}
	free_page((unsigned long)t.buf);
	return ret;
}

/*
 * IOVA space exhaustion: map one 2 MiB buffer (to the device, so DMA-API
 * debug does not track overlaps) until the device's 256 MiB of IOVA space is
 * used up. The failure must be a clean DMA_MAPPING_ERROR; once everything
 * is unmapped, mapping works again. With @batched, the unmaps go into unmap
 * batches: until the flush the IOVA space must still be taken.
 */
#define EXHAUST_CHUNK	SZ_2M
#define EXHAUST_MAX	(2 * (1 << EDU_DMA_BITS) / EXHAUST_CHUNK)

/*
 * Map @buf (@size bytes, to the device) again and again until a map fails or
 * @max maps are made; returns how many were made, their addresses in @addr.
 */
static int map_until_full(struct device *dev, void *buf, size_t size,
			  dma_addr_t *addr, int max)
{
	int n;

	for (n = 0; n < max; n++) {
		addr[n] = dma_map_single(dev, buf, size, DMA_TO_DEVICE);
		if (dma_mapping_error(dev, addr[n]))
			break;
	}
	return n;
}

static int exhaust(struct dfp_edu *e, bool batched)
{
	struct device *dev = &e->pdev->dev;
	dma_addr_t *addr, again;
	int i, n = 0, ret = 0;
	void *buf;

	buf = kmalloc(EXHAUST_CHUNK, GFP_KERNEL);
	addr = kcalloc(EXHAUST_MAX, sizeof(*addr), GFP_KERNEL);
	if (!buf || !addr) {
		ret = -ENOMEM;
		goto out;
	}
	n = map_until_full(dev, buf, EXHAUST_CHUNK, addr, EXHAUST_MAX);
	dev_info(dev, "exhaust: %d maps of 2 MiB before the first failure\n",
		 n);
	if (n == EXHAUST_MAX || n < (1 << EDU_DMA_BITS) / EXHAUST_CHUNK / 2) {
		dev_err(dev, "exhaust: %d maps: the IOVA space is not the mask's\n",
			n);
		ret = -EIO;
	}
	if (!batched) {
		for (i = 0; i < n; i++)
			dma_unmap_single(dev, addr[i], EXHAUST_CHUNK,
					 DMA_TO_DEVICE);
	} else {
#ifdef DFP_HAVE_BATCH
		DMA_UNMAP_BATCH(batch);

		/* Fewer than a batch holds, so nothing flushes on its own. */
		for (i = 0; i < min(n, DMA_UNMAP_BATCH_MAX - 1); i++)
			dma_unmap_phys_batch(batch, dev, addr[i],
					     EXHAUST_CHUNK, DMA_TO_DEVICE, 0);
		again = dma_map_single(dev, buf, EXHAUST_CHUNK, DMA_TO_DEVICE);
		if (!dma_mapping_error(dev, again)) {
			dev_err(dev, "exhaust: IOVA of an unflushed batch reused: %pad\n",
				&again);
			dma_unmap_single(dev, again, EXHAUST_CHUNK,
					 DMA_TO_DEVICE);
			ret = -EIO;
		}
		dma_unmap_batch_flush(batch);
		for (; i < n; i++)
			dma_unmap_single(dev, addr[i], EXHAUST_CHUNK,
					 DMA_TO_DEVICE);
#endif
	}
	again = dma_map_single(dev, buf, EXHAUST_CHUNK, DMA_TO_DEVICE);
	if (dma_mapping_error(dev, again)) {
		dev_err(dev, "exhaust: no IOVA after unmapping everything\n");
		ret = -EIO;
	} else {
		dma_unmap_single(dev, again, EXHAUST_CHUNK, DMA_TO_DEVICE);
	}
out:
	kfree(addr);
	kfree(buf);
	return ret;
}

static int case_exhaust(struct dfp_edu *e)
{
	if (!strict_domain(e))
		return -EOPNOTSUPP;
	return exhaust(e, false);
}

#ifdef DFP_HAVE_BATCH
static int case_exhaust_batch(struct dfp_edu *e)
{
	if (!strict_domain(e) || !dma_unmap_batch_wanted(&e->pdev->dev))
		return -EOPNOTSUPP;
	return exhaust(e, true);
}

#define NR_BATCH 4

/*
 * Strict mode, unmap batch: before dma_unmap_batch_flush() the device can
 * still reach the batch's pages (so they must not be handed back) and their
 * IOVA is not reused; after it the device reaches none of them.
 */
static int case_batch(struct dfp_edu *e)
{
	struct device *dev = &e->pdev->dev;
	struct target t[NR_BATCH] = { };
	DMA_UNMAP_BATCH(batch);
	dma_addr_t again;
	int i, ret = 0;
	ssize_t hit;

	if (!strict_domain(e) || !dma_unmap_batch_wanted(dev))
		return -EOPNOTSUPP;
	for (i = 0; i < NR_BATCH; i++) {
		ret = target_map_and_hit(e, &t[i]);
		if (ret)
			break;
	}
	if (ret) {
		while (i--)
			dma_unmap_single(dev, t[i].dma, PAGE_SIZE,
					 DMA_FROM_DEVICE);
		goto out;
	}
	for (i = 0; i < NR_BATCH; i++)
		dma_unmap_phys_batch(batch, dev, t[i].dma, PAGE_SIZE,
				     DMA_FROM_DEVICE, 0);

	/* The IOVA of an unflushed batch must not be handed out again. */
	again = dma_map_single(dev, e->src, PAGE_SIZE, DMA_TO_DEVICE);
	if (dma_mapping_error(dev, again)) {
		ret = -ENOMEM;
	} else {
		for (i = 0; i < NR_BATCH; i++) {
			if (again == t[i].dma) {
				dev_err(dev, "batch: IOVA %pad reused before the flush\n",
					&again);
				ret = -EIO;
			}
		}
		dma_unmap_single(dev, again, PAGE_SIZE, DMA_TO_DEVICE);
	}
	/* Before the flush the stale translation is still there: the window. */
	hit = target_hit_after_unmap(e, &t[0]);
	dev_notice(dev, "batch: DMA before the flush wrote %zd bytes\n", hit);
	memset(t[0].buf, PAT_CPU, PAGE_SIZE);

	dma_unmap_batch_flush(batch);
	for (i = 0; i < NR_BATCH; i++) {
		hit = target_hit_after_unmap(e, &t[i]);
		if (hit) {
			dev_err(dev, "batch: DMA to %pad after the flush: %zd\n",
				&t[i].dma, hit);
			ret = -EIO;
		}
	}
out:
	for (i = 0; i < NR_BATCH; i++)
		if (t[i].buf)
			free_page((unsigned long)t[i].buf);
	return ret;
}

/* The same for an IOVA-based mapping finished with dma_iova_destroy_batch(). */
static int case_iova_batch(struct dfp_edu *e)
{
	struct device *dev = &e->pdev->dev;
	struct dma_iova_state state = { };
	DMA_UNMAP_BATCH(batch);
	u8 *buf;
	ssize_t hit;
	int ret;

	if (!strict_domain(e) || !dma_unmap_batch_wanted(dev))
		return -EOPNOTSUPP;
	buf = (u8 *)__get_free_pages(GFP_KERNEL, 1);
	if (!buf)
		return -ENOMEM;
	memset(buf, PAT_CPU, 2 * PAGE_SIZE);
	if (!dma_iova_try_alloc(dev, &state, virt_to_phys(buf),
				2 * PAGE_SIZE)) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	ret = dma_iova_link(dev, &state, virt_to_phys(buf), 0, 2 * PAGE_SIZE,
			    DMA_FROM_DEVICE, 0);
	if (!ret)
		ret = dma_iova_sync(dev, &state, 0, 2 * PAGE_SIZE);
	if (ret) {
		dma_iova_free(dev, &state);
		goto out;
	}
	ret = edu_dma(e, state.addr + PAGE_SIZE, true);
	if (!ret && changed(buf + PAGE_SIZE) != EDU_XFER)
		ret = -EIO;
	memset(buf, PAT_CPU, 2 * PAGE_SIZE);
	dma_iova_destroy_batch(batch, dev, &state, 2 * PAGE_SIZE,
			       DMA_FROM_DEVICE, 0);
	dma_unmap_batch_flush(batch);
	if (ret)
		goto out;
	hit = target_hit_after_unmap(e,
		&(struct target){ buf + PAGE_SIZE, state.addr + PAGE_SIZE });
	if (hit) {
		dev_err(dev, "iova batch: DMA after the flush: %zd\n", hit);
		ret = -EIO;
	}
out:
	free_pages((unsigned long)buf, 1);
	return ret;
}

/* Slots of the device's swiotlb in use, or -1 where that is not counted */
static long swiotlb_used(struct device *dev)
{
#if IS_ENABLED(CONFIG_SWIOTLB) && IS_ENABLED(CONFIG_DEBUG_FS)
	return dev->dma_io_tlb_mem ?
	       atomic_long_read(&dev->dma_io_tlb_mem->total_used) : -1;
#else
	return -1;
#endif
}

/*
 * Strict mode, a bounced mapping in an unmap batch. For the case the device
 * is marked untrusted, as the PCI core marks a device behind an
 * external-facing port (QEMU describes none), so that a mapping of less
 * than a page is bounced through a swiotlb slot; the kernel needs a swiotlb
 * that counts its slots (swiotlb=force,track_hiwater), else -ENODEV (on x86
 * guest RAM above 4G also keeps a swiotlb, uncounted). The device's data
 * must be in the buffer when dma_unmap_phys_batch() returns; the slot, which
 * the device may still reach through a stale translation, must stay taken
 * until dma_unmap_batch_flush() and be free after it; after the flush a
 * DMA to the old address reaches neither the slot nor the buffer.
 */
static int case_bounce_batch(struct dfp_edu *e)
{
	struct device *dev = &e->pdev->dev;
	bool untrusted = e->pdev->untrusted;
	DMA_UNMAP_BATCH(batch);
	long used_before, used_mapped;
	phys_addr_t slot;
	dma_addr_t dma;
	u8 *buf, *sbuf;
	ssize_t hit;
	int ret = 0;

	if (!strict_domain(e) || !dma_unmap_batch_wanted(dev))
		return -EOPNOTSUPP;
	if (!dev->dma_io_tlb_mem || !dev->dma_io_tlb_mem->nslabs)
		return -ENODEV;
	buf = (u8 *)__get_free_page(GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	memset(buf, PAT_CPU, PAGE_SIZE);
	used_before = swiotlb_used(dev);
	e->pdev->untrusted = true;
	dma = dma_map_single(dev, buf, EDU_XFER, DMA_FROM_DEVICE);
	e->pdev->untrusted = untrusted;
	if (dma_mapping_error(dev, dma)) {
		ret = -ENOMEM;
		goto out;
	}
	slot = iommu_iova_to_phys(iommu_get_domain_for_dev(dev), dma);
	if (slot == virt_to_phys(buf)) {
		dev_err(dev, "bounce batch: %pad was not bounced\n", &dma);
		dma_unmap_single(dev, dma, EDU_XFER, DMA_FROM_DEVICE);
		ret = -EIO;
		goto out;
	}
	used_mapped = swiotlb_used(dev);
	if (used_mapped <= used_before) {
		/* Slots are counted only with swiotlb=...,track_hiwater */
		dma_unmap_single(dev, dma, EDU_XFER, DMA_FROM_DEVICE);
		ret = -ENODEV;
		goto out;
	}
	ret = edu_dma(e, dma, true);

	e->pdev->untrusted = true;
	dma_unmap_phys_batch(batch, dev, dma, EDU_XFER, DMA_FROM_DEVICE, 0);
	e->pdev->untrusted = untrusted;
	if (!ret && changed(buf) != EDU_XFER) {
		dev_err(dev, "bounce batch: %zu of %d bytes in the buffer at unmap\n",
			changed(buf), EDU_XFER);
		ret = -EIO;
	}
	if (swiotlb_used(dev) != used_mapped) {
		dev_err(dev, "bounce batch: slot released before the flush (%ld -> %ld slots used)\n",
			used_mapped, swiotlb_used(dev));
		ret = -EIO;
	}
	/* Still ours until the flush: mark it, for the DMA after the flush */
	sbuf = phys_to_virt(slot);
	memset(sbuf, PAT_CPU, EDU_XFER);
	memset(buf, PAT_CPU, PAGE_SIZE);
	dma_unmap_batch_flush(batch);
	if (swiotlb_used(dev) != used_before) {
		dev_err(dev, "bounce batch: slot not released by the flush (%ld -> %ld slots used)\n",
			used_before, swiotlb_used(dev));
		ret = -EIO;
	}
	hit = edu_dma(e, dma, true);
	if (!hit)
		hit = changed(sbuf) + changed(buf);
	if (hit) {
		dev_err(dev, "bounce batch: DMA to %pad after the flush: %zd\n",
			&dma, hit);
		ret = -EIO;
	}
	dev_notice(dev, "bounce batch: slot %pa, %ld slots used before, %ld mapped\n",
		   &slot, used_before, used_mapped);
out:
	free_page((unsigned long)buf);
	return ret;
}

/*
 * The CPU cache maintenance of unmaps, seen through a kprobe on
 * arch_sync_dma_for_cpu(): bytes invalidated for the CPU inside the window
 * [sync_lo, sync_hi). The function exists only where devices can be
 * non-coherent.
 */
static phys_addr_t sync_lo, sync_hi;
static atomic_long_t sync_bytes;

static int sync_for_cpu_seen(struct kprobe *p, struct pt_regs *regs)
{
	phys_addr_t phys = regs_get_kernel_argument(regs, 0);
	size_t size = regs_get_kernel_argument(regs, 1);

	if (phys >= READ_ONCE(sync_lo) && phys < READ_ONCE(sync_hi))
		atomic_long_add(size, &sync_bytes);
	return 0;
}

static struct kprobe sync_probe = {
	.symbol_name	= "arch_sync_dma_for_cpu",
	.pre_handler	= sync_for_cpu_seen,
};

/* Unmapped into @batch: it holds @nr unmaps and @bytes were synced for the CPU */
static int nc_expect(struct dfp_edu *e, struct dma_unmap_batch *batch,
		     const char *what, unsigned int nr, long bytes)
{
	if (batch->nr == nr && atomic_long_read(&sync_bytes) == bytes)
		return 0;
	dev_err(&e->pdev->dev, "noncoherent batch: %s: %u unmaps in the batch, %ld bytes synced for the CPU; expected %u and %ld\n",
		what, batch->nr, atomic_long_read(&sync_bytes), nr, bytes);
	return -EIO;
}

/*
 * Strict mode, a device that is not DMA-coherent (on arm64, a PCIe host
 * bridge without dma-coherent in the device tree): dma_unmap_phys_batch() of
 * two pages and dma_iova_destroy_batch() of a two-page IOVA range both go
 * into the batch, and both invalidate the CPU's cache over what they unmap
 * before they return (counted through the kprobe); the device's data is in
 * the buffers then, and after the flush the device reaches none of them.
 * -ENODEV where the device is coherent or the kprobe cannot be placed.
 */
static int case_noncoherent_batch(struct dfp_edu *e)
{
	struct device *dev = &e->pdev->dev;
	struct dma_iova_state state = { };
	dma_addr_t dma[2] = { };
	struct target t[3];
	DMA_UNMAP_BATCH(batch);
	int i, mapped = 0, ret;
	ssize_t hit = 0;
	u8 *buf;

	if (!strict_domain(e) || !dma_unmap_batch_wanted(dev))
		return -EOPNOTSUPP;
	if (dev_is_dma_coherent(dev) || !IS_ENABLED(CONFIG_KPROBES))
		return -ENODEV;
	buf = (u8 *)__get_free_pages(GFP_KERNEL, 2);
	if (!buf)
		return -ENOMEM;
	memset(buf, PAT_CPU, 4 * PAGE_SIZE);
	/* Pages 0 and 1: mapped one by one; 2 and 3: one IOVA range */
	for (mapped = 0; mapped < 2; mapped++) {
		dma[mapped] = dma_map_single(dev, buf + mapped * PAGE_SIZE,
					     PAGE_SIZE, DMA_FROM_DEVICE);
		if (dma_mapping_error(dev, dma[mapped])) {
			ret = -ENOMEM;
			goto unmap;
		}
	}
	if (!dma_iova_try_alloc(dev, &state, virt_to_phys(buf + 2 * PAGE_SIZE),
				2 * PAGE_SIZE)) {
		ret = -EOPNOTSUPP;
		goto unmap;
	}
	ret = dma_iova_link(dev, &state, virt_to_phys(buf + 2 * PAGE_SIZE), 0,
			    2 * PAGE_SIZE, DMA_FROM_DEVICE, 0);
	if (!ret)
		ret = dma_iova_sync(dev, &state, 0, 2 * PAGE_SIZE);
	if (ret) {
		dma_iova_free(dev, &state);
		goto unmap;
	}
	/* What the device writes: pages 0, 1 and the IOVA range's second */
	t[0] = (struct target){ buf, dma[0] };
	t[1] = (struct target){ buf + PAGE_SIZE, dma[1] };
	t[2] = (struct target){ buf + 3 * PAGE_SIZE, state.addr + PAGE_SIZE };
	for (i = 0; !ret && i < ARRAY_SIZE(t); i++)
		ret = edu_dma(e, t[i].dma, true);
	if (ret) {
		dma_iova_destroy(dev, &state, 2 * PAGE_SIZE, DMA_FROM_DEVICE, 0);
		goto unmap;
	}

	sync_lo = virt_to_phys(buf);
	sync_hi = sync_lo + 4 * PAGE_SIZE;
	atomic_long_set(&sync_bytes, 0);
	ret = register_kprobe(&sync_probe);
	if (ret) {
		dev_info(dev, "noncoherent batch: no kprobe on %s: %d\n",
			 sync_probe.symbol_name, ret);
		dma_iova_destroy(dev, &state, 2 * PAGE_SIZE, DMA_FROM_DEVICE, 0);
		ret = -ENODEV;
		goto unmap;
	}
	for (i = 0; i < 2; i++)
		dma_unmap_phys_batch(batch, dev, dma[i], PAGE_SIZE,
				     DMA_FROM_DEVICE, 0);
	ret = nc_expect(e, batch, "dma_unmap_phys_batch", 2, 2 * PAGE_SIZE);
	dma_iova_destroy_batch(batch, dev, &state, 2 * PAGE_SIZE,
			       DMA_FROM_DEVICE, 0);
	ret = nc_expect(e, batch, "dma_iova_destroy_batch", 3,
			4 * PAGE_SIZE) ?: ret;
	unregister_kprobe(&sync_probe);
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		if (changed(t[i].buf) != EDU_XFER) {
			dev_err(dev, "noncoherent batch: %pad: %zu bytes written, expected %d\n",
				&t[i].dma, changed(t[i].buf), EDU_XFER);
			ret = -EIO;
		}
	}
	memset(buf, PAT_CPU, 4 * PAGE_SIZE);
	dma_unmap_batch_flush(batch);
	for (i = 0; i < ARRAY_SIZE(t); i++)
		hit += target_hit_after_unmap(e, &t[i]);
	if (hit) {
		dev_err(dev, "noncoherent batch: DMA after the flush: %zd\n", hit);
		ret = -EIO;
	}
	mapped = 0;
unmap:
	while (mapped--)
		dma_unmap_single(dev, dma[mapped], PAGE_SIZE, DMA_FROM_DEVICE);
	free_pages((unsigned long)buf, 2);
	return ret;
}

/*
 * In every mode: dma_unmap_batch_wanted() is true exactly where an unmap
 * goes into a batch, which is only an IOMMU domain in strict mode (and only
 * where the IOMMU's driver invalidates the batch's ranges with one wait:
 * dma_edu_test expects the batch cases to be refused under virtio-iommu).
 */
static int case_batch_wanted(struct dfp_edu *e)
{
	struct device *dev = &e->pdev->dev;
	bool wanted = dma_unmap_batch_wanted(dev);
	bool strict = strict_domain(e);
	DMA_UNMAP_BATCH(batch);
	dma_addr_t dma;
	bool batched;

	dma = dma_map_single(dev, e->src, PAGE_SIZE, DMA_TO_DEVICE);
	if (dma_mapping_error(dev, dma))
		return -ENOMEM;
	dma_unmap_phys_batch(batch, dev, dma, PAGE_SIZE, DMA_TO_DEVICE, 0);
	batched = batch->nr != 0;
	dma_unmap_batch_flush(batch);
	if (wanted != batched || (wanted && !strict)) {
		dev_err(dev, "batch_wanted: says %d, unmap batched %d, strict domain %d\n",
			wanted, batched, strict);
		return -EIO;
	}
	return 0;
}

/*
 * Strict mode: a batch that goes out of scope with an unmap not flushed (a
 * caller's bug) warns once, which the test program counts, and is flushed
 * then: afterwards the device reaches the page no more, as after a flush.
 */
static int case_batch_leak(struct dfp_edu *e)
{
	struct device *dev = &e->pdev->dev;
	struct target t = { };
	bool pending;
	ssize_t hit;
	int ret;

	if (!strict_domain(e) || !dma_unmap_batch_wanted(dev))
		return -EOPNOTSUPP;
	ret = target_map_and_hit(e, &t);
	if (ret)
		goto out;
	{
		DMA_UNMAP_BATCH(batch);

		dma_unmap_phys_batch(batch, dev, t.dma, PAGE_SIZE,
				     DMA_FROM_DEVICE, 0);
		pending = dma_unmap_batch_pending(batch);
	}
	hit = target_hit_after_unmap(e, &t);
	if (!pending || hit) {
		dev_err(dev, "batch leak: unmap in the batch %d, DMA after its scope: %zd\n",
			pending, hit);
		ret = -EIO;
	}
out:
	if (t.buf)
		free_page((unsigned long)t.buf);
	return ret;
}

/*
 * Strict mode, DMA-API debug: a mapping unmapped into a batch waits there
 * until the flush. A sync of it and a second unmap of it before the flush
 * are misuse, and DMA-API debug reports both as such; after the flush it is
 * gone like any unmapped mapping (a sync is of memory not mapped). The
 * test program counts the reports; the double unmap also makes iommu-dma
 * warn of an unmap that found nothing mapped. Nothing is corrupted: the
 * IOVA is freed once, by the flush.
 */
static int case_debug_batch(struct dfp_edu *e)
{
	struct device *dev = &e->pdev->dev;
	DMA_UNMAP_BATCH(batch);
	dma_addr_t dma;

	if (!strict_domain(e) || !dma_unmap_batch_wanted(dev))
		return -EOPNOTSUPP;
	dma = dma_map_single(dev, e->src, PAGE_SIZE, DMA_TO_DEVICE);
	if (dma_mapping_error(dev, dma))
		return -ENOMEM;
	dma_unmap_phys_batch(batch, dev, dma, PAGE_SIZE, DMA_TO_DEVICE, 0);
	dma_sync_single_for_device(dev, dma, PAGE_SIZE, DMA_TO_DEVICE);
	dma_unmap_single(dev, dma, PAGE_SIZE, DMA_TO_DEVICE);
	dma_unmap_batch_flush(batch);
	dma_sync_single_for_device(dev, dma, PAGE_SIZE, DMA_TO_DEVICE);
	return 0;
}
#else
static int case_debug_batch(struct dfp_edu *e)
{
	return -EOPNOTSUPP;
}

static int case_batch_leak(struct dfp_edu *e)
{
	return -EOPNOTSUPP;
}

static int case_batch(struct dfp_edu *e)
{
	return -EOPNOTSUPP;
}

static int case_batch_wanted(struct dfp_edu *e)
{
	return -EOPNOTSUPP;
}

static int case_exhaust_batch(struct dfp_edu *e)
{
	return -EOPNOTSUPP;
}

static int case_iova_batch(struct dfp_edu *e)
{
	return -EOPNOTSUPP;
}

static int case_bounce_batch(struct dfp_edu *e)
{
	return -EOPNOTSUPP;
}

static int case_noncoherent_batch(struct dfp_edu *e)
{
	return -EOPNOTSUPP;
}
#endif

/*
 * dma_map_sg() under the device's segment limits: 16 separate 16 KiB
 * buffers, max segment size and segment boundary 64 KiB. Every DMA segment
 * must stay within both limits and the segments must add up to the list;
 * then edu writes into the middle of every buffer through the DMA address
 * the list gave it, and exactly the bytes of that write must change.
 */
#define SG_NENTS	16
#define SG_ORDER	2
#define SG_LIMIT	SZ_64K

static int case_sg_limits(struct dfp_edu *e)
{
	struct device *dev = &e->pdev->dev;
	unsigned int old_max = dma_get_max_seg_size(dev);
	unsigned long old_boundary = dma_get_seg_boundary(dev);
	size_t buf_size = PAGE_SIZE << SG_ORDER, total = 0;
	u8 *buf[SG_NENTS] = { };
	struct scatterlist sgl[SG_NENTS], *sg;
	int i, n, ret = 0;

	if (!strict_domain(e) && !lazy_domain(e))
		return -EOPNOTSUPP;
	sg_init_table(sgl, SG_NENTS);
	for (i = 0; i < SG_NENTS; i++) {
		buf[i] = (u8 *)__get_free_pages(GFP_KERNEL, SG_ORDER);
		if (!buf[i]) {
			ret = -ENOMEM;
			goto free;
		}
		memset(buf[i], PAT_CPU, buf_size);
		sg_set_buf(&sgl[i], buf[i], buf_size);
	}
	if (!dev->dma_parms) {
		ret = -EOPNOTSUPP;
		goto free;
	}
	dma_set_max_seg_size(dev, SG_LIMIT);
	dma_set_seg_boundary(dev, SG_LIMIT - 1);
	n = dma_map_sg(dev, sgl, SG_NENTS, DMA_FROM_DEVICE);
	if (!n) {
		ret = -ENOMEM;
		goto restore;
	}
	for_each_sg(sgl, sg, n, i) {
		dma_addr_t a = sg_dma_address(sg);
		unsigned int len = sg_dma_len(sg);

		total += len;
		if (len > SG_LIMIT ||
		    (a & ~(dma_addr_t)(SG_LIMIT - 1)) !=
		    ((a + len - 1) & ~(dma_addr_t)(SG_LIMIT - 1))) {
			dev_err(dev, "sg: segment %d %pad+%#x breaks the 64K limits\n",
				i, &a, len);
			ret = -EIO;
		}
	}
	if (total != SG_NENTS * buf_size) {
		dev_err(dev, "sg: %zu bytes in %d segments, expected %zu\n",
			total, n, SG_NENTS * buf_size);
		ret = -EIO;
	}
	/* With an IOMMU the list is one IOVA range: buffer i at i * 16K. */
	for (i = 0; i < SG_NENTS && !ret; i++) {
		dma_addr_t a = sg_dma_address(sgl) + i * buf_size + buf_size / 4;

		ret = edu_dma(e, a, true);
	}
	dma_unmap_sg(dev, sgl, SG_NENTS, DMA_FROM_DEVICE);
	for (i = 0; i < SG_NENTS && !ret; i++) {
		size_t j, bad = 0;

		for (j = 0; j < buf_size; j++) {
			bool in = j >= buf_size / 4 && j < buf_size / 4 + EDU_XFER;

			bad += buf[i][j] != (in ? PAT_DEV : PAT_CPU);
		}
		if (bad) {
			dev_err(dev, "sg: buffer %d: %zu bytes differ from the expected write\n",
				i, bad);
			ret = -EIO;
		}
	}
restore:
	dma_set_max_seg_size(dev, old_max);
	dma_set_seg_boundary(dev, old_boundary);
free:
	for (i = 0; i < SG_NENTS; i++)
		if (buf[i])
			free_pages((unsigned long)buf[i], SG_ORDER);
	return ret;
}

/* Pages under the device's mask that translate: only live mappings. */
static unsigned long mapped_pages(struct dfp_edu *e)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(&e->pdev->dev);
	unsigned long n = 0;
	dma_addr_t a;

	for (a = 0; a < BIT_ULL(EDU_DMA_BITS); a += PAGE_SIZE) {
		n += iommu_iova_to_phys(dom, a) != 0;
		if (!(a & (SZ_16M - 1)))
			cond_resched();
	}
	return n;
}

/*
 * Bad unmaps, both driver bugs: an address that was never mapped, and a
 * mapping unmapped twice. The kernel reports each (iommu-dma warns, DMA-API
 * debug reports it: the test program counts those reports); neither may
 * corrupt the IOVA allocator. The next BAD_MAPS maps, on the same CPU (the
 * per-CPU IOVA caches are where a bad free would land), must all differ and
 * none may be the never-mapped address, which no allocation handed out.
 */
#define BAD_MAPS	64
#define BAD_NEVER	SZ_16M	/* far below the top-down allocations */

static int case_bad_unmap(struct dfp_edu *e)
{
	struct device *dev = &e->pdev->dev;
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);
	dma_addr_t a, *addr;
	int i, j, n, ret = 0;

	if (!strict_domain(e) && !lazy_domain(e))
		return -EOPNOTSUPP;
	if (iommu_iova_to_phys(dom, BAD_NEVER)) {
		dev_err(dev, "bad unmap: %#x is mapped already\n", BAD_NEVER);
		return -EIO;
	}
	addr = kcalloc(BAD_MAPS, sizeof(*addr), GFP_KERNEL);
	if (!addr)
		return -ENOMEM;
	migrate_disable();
	dma_unmap_single(dev, BAD_NEVER, PAGE_SIZE, DMA_TO_DEVICE);
	a = dma_map_single(dev, e->src, PAGE_SIZE, DMA_TO_DEVICE);
	if (dma_mapping_error(dev, a)) {
		migrate_enable();
		ret = -ENOMEM;
		goto out;
	}
	dma_unmap_single(dev, a, PAGE_SIZE, DMA_TO_DEVICE);
	dma_unmap_single(dev, a, PAGE_SIZE, DMA_TO_DEVICE);
	if (lazy_domain(e))
		msleep(100);	/* the flush queue hands its IOVAs back */
	n = map_until_full(dev, e->src, PAGE_SIZE, addr, BAD_MAPS);
	migrate_enable();
	if (n < BAD_MAPS) {
		dev_err(dev, "bad unmap: map %d of %d failed\n", n, BAD_MAPS);
		ret = -EIO;
	}
	for (i = 0; i < n; i++) {
		if ((addr[i] & PAGE_MASK) == BAD_NEVER) {
			dev_err(dev, "bad unmap: never allocated IOVA %pad handed out\n",
				&addr[i]);
			ret = -EIO;
		}
		for (j = 0; j < i; j++) {
			if (addr[i] == addr[j]) {
				dev_err(dev, "bad unmap: IOVA %pad handed out twice\n",
					&addr[i]);
				ret = -EIO;
			}
		}
	}
	for (i = 0; i < n; i++)
		dma_unmap_single(dev, addr[i], PAGE_SIZE, DMA_TO_DEVICE);
out:
	kfree(addr);
	return ret;
}

#ifdef CONFIG_FAULT_INJECTION
/*
 * Fault injection on the DMA layer: fail the 1st, 2nd, ... allocation of an
 * operation (the task's fail-nth counter, which failslab and
 * fail_page_alloc count down, as /proc/self/fail-nth does) until it needs
 * fewer. A failure must be -ENOMEM with nothing of the operation left mapped
 * in the device's IOVA space; afterwards as much IOVA space is free as
 * before (no IOVA leaked). kmemleak, run by the caller, finds leaked memory.
 */
#define FAIL_NTH_MAX	64
#define FAIL_NENTS	16
#define FAIL_ORDER	6	/* 16 x 256K: 4M, two whole leaf tables */
/*
 * Each buffer is the first half of a block twice its size: buffers are
 * never physically contiguous, so no two merge into a run that a 2M leaf
 * could map without a leaf table.
 */
#define FAIL_ALLOC_ORDER (FAIL_ORDER + 1)
#define FAIL_LEN	(FAIL_NENTS * (PAGE_SIZE << FAIL_ORDER))
#define FAIL_CHUNK	SZ_64K

/* 64K mappings that fit under the mask now (the IOVA allocator's view). */
static int free_chunks(struct dfp_edu *e)
{
	struct device *dev = &e->pdev->dev;
	int max = (1 << EDU_DMA_BITS) / FAIL_CHUNK, n, i;
	dma_addr_t *addr;
	void *buf;

	if (lazy_domain(e))
		msleep(100);	/* the flush queue hands its IOVAs back */
	buf = kmalloc(FAIL_CHUNK, GFP_KERNEL);
	addr = kcalloc(max, sizeof(*addr), GFP_KERNEL);
	if (!buf || !addr) {
		n = -ENOMEM;
		goto out;
	}
	n = map_until_full(dev, buf, FAIL_CHUNK, addr, max);
	for (i = 0; i < n; i++)
		dma_unmap_single(dev, addr[i], FAIL_CHUNK, DMA_TO_DEVICE);
out:
	kfree(addr);
	kfree(buf);
	return n;
}

struct fail_bufs {
	struct scatterlist sgl[FAIL_NENTS];
	struct phys_vec vec[FAIL_NENTS];
	u8 *buf[FAIL_NENTS];
};

/*
 * dma_map_sgtable() of 16 separate 256K buffers (one iommu_map_sg() walk).
 * The operations map and unmap whole 2M leaf tables, so the unmap frees
 * them and every try allocates them again.
 */
static int fail_op_map_sg(struct dfp_edu *e, struct fail_bufs *b)
{
	struct sg_table sgt = { .sgl = b->sgl, .orig_nents = FAIL_NENTS };
	int ret;

	sg_init_table(b->sgl, FAIL_NENTS);
	for (ret = 0; ret < FAIL_NENTS; ret++)
		sg_set_buf(&b->sgl[ret], b->buf[ret], PAGE_SIZE << FAIL_ORDER);
	ret = dma_map_sgtable(&e->pdev->dev, &sgt, DMA_TO_DEVICE, 0);
	if (!ret)
		dma_unmap_sgtable(&e->pdev->dev, &sgt, DMA_TO_DEVICE, 0);
	return ret;
}

#ifdef DFP_HAVE_BATCH	/* the series: dma_iova_link_vec() and the batch */
/* dma_iova_link_vec() of the same buffers, then dma_iova_sync() */
static int fail_op_link_vec(struct dfp_edu *e, struct fail_bufs *b)
{
	struct device *dev = &e->pdev->dev;
	struct dma_iova_state state = { };
	int ret;

	if (!dma_iova_try_alloc(dev, &state, 0, FAIL_LEN))
		return -ENOMEM;
	ret = dma_iova_link_vec(dev, &state, b->vec, FAIL_NENTS, 0,
				DMA_TO_DEVICE, 0);
	if (ret) {
		dma_iova_free(dev, &state);
		return ret;
	}
	ret = dma_iova_sync(dev, &state, 0, FAIL_LEN);
	dma_iova_destroy(dev, &state, FAIL_LEN, DMA_TO_DEVICE, 0);
	return ret;
}

/* Four pages mapped beforehand, unmapped into a batch and flushed. */
static int fail_op_unmap_batch(struct dfp_edu *e, struct fail_bufs *b)
{
	struct device *dev = &e->pdev->dev;
	DMA_UNMAP_BATCH(batch);
	dma_addr_t addr[4];
	unsigned int nth = current->fail_nth;
	int i, n;

	current->fail_nth = 0;
	for (n = 0; n < ARRAY_SIZE(addr); n++) {
		addr[n] = dma_map_single(dev, b->buf[n], PAGE_SIZE,
					 DMA_TO_DEVICE);
		if (dma_mapping_error(dev, addr[n]))
			break;
	}
	current->fail_nth = nth;
	for (i = 0; i < n; i++)
		dma_unmap_phys_batch(batch, dev, addr[i], PAGE_SIZE,
				     DMA_TO_DEVICE, 0);
	dma_unmap_batch_flush(batch);
	return n == ARRAY_SIZE(addr) ? 0 : -EIO;
}
#endif

/*
 * @must_fail: the operation allocates page tables, so some fault must make
 * it fail (otherwise this loop tested nothing).
 */
static int fail_nth_loop(struct dfp_edu *e, struct fail_bufs *b,
			 const char *what, bool must_fail,
			 int (*op)(struct dfp_edu *e, struct fail_bufs *b))
{
	struct device *dev = &e->pdev->dev;
	unsigned long before = mapped_pages(e), after;
	unsigned int nth, left, failed = 0;
	int ret;

	for (nth = 1; nth <= FAIL_NTH_MAX; nth++) {
		WRITE_ONCE(current->fail_nth, nth);
		ret = op(e, b);
		left = READ_ONCE(current->fail_nth);
		WRITE_ONCE(current->fail_nth, 0);
		after = mapped_pages(e);
		if (after != before) {
			dev_err(dev, "fail-nth %s: fault %u: %ld pages left mapped\n",
				what, nth, (long)(after - before));
			return -EIO;
		}
		if (left) {
			/* fewer than nth fault points: the run without a fault */
			if (ret) {
				dev_err(dev, "fail-nth %s: %d without a fault\n",
					what, ret);
				return -EIO;
			}
			dev_info(dev, "fail-nth %s: %u fault points, %u failed cleanly\n",
				 what, nth - 1, failed);
			return must_fail && !failed ? -EIO : 0;
		}
		if (ret && ret != -ENOMEM) {
			dev_err(dev, "fail-nth %s: fault %u: %d, expected -ENOMEM\n",
				what, nth, ret);
			return -EIO;
		}
		failed += ret != 0;
	}
	dev_err(dev, "fail-nth %s: still failing after %u faults\n", what, nth);
	return -EIO;
}

static int case_fail_nth(struct dfp_edu *e)
{
	struct device *dev = &e->pdev->dev;
	struct fail_bufs *b;
	unsigned int old_max;
	int i, chunks, ret = 0;

	if (!strict_domain(e) && !lazy_domain(e))
		return -EOPNOTSUPP;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	for (i = 0; i < FAIL_NENTS; i++) {
		b->buf[i] = (u8 *)__get_free_pages(GFP_KERNEL,
						   FAIL_ALLOC_ORDER);
		if (!b->buf[i]) {
			ret = -ENOMEM;
			goto out;
		}
		b->vec[i].paddr = virt_to_phys(b->buf[i]);
		b->vec[i].len = PAGE_SIZE << FAIL_ORDER;
	}
	if (!dev->dma_parms) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	/* 256K segments: more than the PCI default of 64K (DMA-API debug) */
	old_max = dma_get_max_seg_size(dev);
	dma_set_max_seg_size(dev, PAGE_SIZE << FAIL_ORDER);
	chunks = free_chunks(e);
	ret = fail_nth_loop(e, b, "dma_map_sgtable", true, fail_op_map_sg);
#ifdef DFP_HAVE_BATCH
	if (!ret)
		ret = fail_nth_loop(e, b, "dma_iova_link_vec", true,
				    fail_op_link_vec);
	if (!ret)
		ret = fail_nth_loop(e, b, "unmap batch", false,
				    fail_op_unmap_batch);
#endif
	if (!ret && free_chunks(e) != chunks) {
		dev_err(dev, "fail-nth: IOVA leaked: %d free 64K chunks before, %d after\n",
			chunks, free_chunks(e));
		ret = -EIO;
	}
	dma_set_max_seg_size(dev, old_max);
out:
	for (i = 0; i < FAIL_NENTS; i++)
		if (b->buf[i])
			free_pages((unsigned long)b->buf[i],
				   FAIL_ALLOC_ORDER);
	kfree(b);
	return ret;
}
#else
static int case_fail_nth(struct dfp_edu *e)
{
	return -EOPNOTSUPP;
}
#endif

/*
 * Zero-length entries take no IOVA and make no DMA segment (patch 21; the
 * base leaked a list that starts with one, and failed one with an empty
 * entry in the middle). dma_map_sg() of @lens (16K entries: a, b, a...):
 * the DMA segments add up to the list with none empty, edu's writes through
 * them reach every buffer, and after dma_unmap_sg() nothing stays mapped.
 * A list of empty entries only is -EINVAL. dma_iova_link_vec() with an
 * empty range among others is -EINVAL, leaving nothing linked (what
 * dma_iova_link() of 0 bytes does depends on the IOMMU driver in 7.3: -EIO
 * with VT-d, 0 with virtio-iommu; it is logged, not checked).
 */
static int zero_sg_one(struct dfp_edu *e, u8 *a, u8 *b, const char *what,
		       const unsigned int *lens)
{
	struct device *dev = &e->pdev->dev;
	unsigned long before = mapped_pages(e);
	struct scatterlist sgl[3], *sg;
	size_t total = 0, want = 0;
	int i, n, ret = 0;

	sg_init_table(sgl, 3);
	for (i = 0; i < 3; i++) {
		sg_set_buf(&sgl[i], lens[i] ? (want ? b : a) : b, lens[i]);
		want += lens[i];
	}
	memset(a, PAT_CPU, SZ_16K);
	memset(b, PAT_CPU, SZ_16K);
	n = dma_map_sg(dev, sgl, 3, DMA_FROM_DEVICE);
	if (!n) {
		dev_err(dev, "zero: %s: dma_map_sg() failed\n", what);
		return -EIO;
	}
	for_each_sg(sgl, sg, n, i) {
		if (!sg_dma_len(sg)) {
			dev_err(dev, "zero: %s: DMA segment %d is empty\n", what, i);
			ret = -EIO;
		}
		total += sg_dma_len(sg);
	}
	if (total != want) {
		dev_err(dev, "zero: %s: %zu bytes in the segments, expected %zu\n",
			what, total, want);
		ret = -EIO;
	}
	/* One IOVA range: buffer a at 0, buffer b at 16K */
	if (!ret)
		ret = edu_dma(e, sg_dma_address(sgl), true);
	if (!ret)
		ret = edu_dma(e, sg_dma_address(sgl) + SZ_16K, true);
	dma_unmap_sg(dev, sgl, 3, DMA_FROM_DEVICE);
	if (!ret && (changed(a) != EDU_XFER || changed(b) != EDU_XFER)) {
		dev_err(dev, "zero: %s: writes landed %zu and %zu bytes, expected %d\n",
			what, changed(a), changed(b), EDU_XFER);
		ret = -EIO;
	}
	if (mapped_pages(e) != before) {
		dev_err(dev, "zero: %s: %ld pages left mapped after dma_unmap_sg()\n",
			what, (long)(mapped_pages(e) - before));
		ret = -EIO;
	}
	return ret;
}

static int zero_sg(struct dfp_edu *e, u8 *a, u8 *b)
{
	static const unsigned int first[] = { 0, SZ_16K, SZ_16K };
	static const unsigned int middle[] = { SZ_16K, 0, SZ_16K };
	struct scatterlist sgl[2];
	struct sg_table sgt = { .sgl = sgl, .orig_nents = 2 };
	int ret;

	ret = zero_sg_one(e, a, b, "empty first entry", first);
	if (!ret)
		ret = zero_sg_one(e, a, b, "empty middle entry", middle);
	if (ret)
		return ret;
	sg_init_table(sgl, 2);
	sg_set_buf(&sgl[0], a, 0);
	sg_set_buf(&sgl[1], b, 0);
	ret = dma_map_sgtable(&e->pdev->dev, &sgt, DMA_TO_DEVICE, 0);
	if (ret != -EINVAL) {
		dev_err(&e->pdev->dev, "zero: only empty entries: %d, expected -EINVAL\n",
			ret);
		if (!ret)
			dma_unmap_sgtable(&e->pdev->dev, &sgt, DMA_TO_DEVICE, 0);
		return -EIO;
	}
	return 0;
}

#ifdef DFP_HAVE_BATCH
static int zero_link(struct dfp_edu *e, u8 *a, u8 *b)
{
	struct device *dev = &e->pdev->dev;
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);
	struct phys_vec vec[3] = {
		{ virt_to_phys(a), SZ_16K }, { virt_to_phys(b), 0 },
		{ virt_to_phys(b), SZ_16K },
	};
	struct dma_iova_state state = { };
	size_t off;
	int ret, r1;

	if (!dma_iova_try_alloc(dev, &state, 0, 2 * SZ_16K))
		return -ENOMEM;
	r1 = dma_iova_link(dev, &state, virt_to_phys(a), 0, 0,
			   DMA_FROM_DEVICE, 0);
	ret = dma_iova_link_vec(dev, &state, vec, ARRAY_SIZE(vec), 0,
				DMA_FROM_DEVICE, 0);
	for (off = 0; off < 2 * SZ_16K; off += PAGE_SIZE) {
		if (iommu_iova_to_phys(dom, state.addr + off)) {
			dev_err(dev, "zero: +%#zx linked after a failed link\n",
				off);
			ret = -EIO;
		}
	}
	dma_iova_free(dev, &state);
	/* 7.3's dma_iova_link() of 0 bytes: -EIO with VT-d, 0 with virtio */
	dev_info(dev, "zero: dma_iova_link() of 0 bytes: %d\n", r1);
	if (ret != -EINVAL) {
		dev_err(dev, "zero: link_vec with an empty range %d, expected -EINVAL\n",
			ret);
		return -EIO;
	}
	return 0;
}
#endif

static int case_zero_len(struct dfp_edu *e)
{
	u8 *a, *b;
	int ret;

	if (!strict_domain(e) && !lazy_domain(e))
		return -EOPNOTSUPP;
	a = (u8 *)__get_free_pages(GFP_KERNEL, 2);
	b = (u8 *)__get_free_pages(GFP_KERNEL, 2);
	if (!a || !b) {
		ret = -ENOMEM;
		goto out;
	}
	memset(a, PAT_CPU, SZ_16K);
	memset(b, PAT_CPU, SZ_16K);
	ret = zero_sg(e, a, b);
#ifdef DFP_HAVE_BATCH
	if (!ret)
		ret = zero_link(e, a, b);
#endif
out:
	if (a)
		free_pages((unsigned long)a, 2);
	if (b)
		free_pages((unsigned long)b, 2);
	return ret;
}

/*
 * PCI peer-to-peer memory mixed with ordinary memory in one scatterlist. The
 * provider is the first device with p2pmem (NVMe's controller memory buffer,
 * in a kernel with PCI_P2PDMA: the debug kernel). Entries are 16K memory
 * buffers and 4K pieces of the CMB in the order of @layout ('m' memory, 'p'
 * CMB). What dma_map_sg() must do depends on how P2P reaches edu:
 *
 * - bus address (both behind one PCIe switch without ACS redirection:
 *   scripts/vm VM_P2P=1): each CMB entry is a DMA segment of its own,
 *   marked as a bus address, holding the CMB's bus address, and is not
 *   mapped in the IOMMU; each memory entry is a segment of its own (a bus
 *   address between two ends the first) and exactly its pages are mapped;
 *   edu's writes through them land; dma_unmap_sg() unmaps exactly them and
 *   clears the marks;
 * - through the host bridge (an allow-listed bridge or an AMD Zen CPU):
 *   every entry is mapped in the IOMMU like memory, edu's writes reach the
 *   CMB too;
 * - not supported (the default topology: q35's host bridge is not on the
 *   allow-list): -EREMOTEIO, nothing mapped, the list as it was.
 *
 * In every case the CMB is written only through a mapping of it, and nothing
 * stays mapped after the unmap.
 */
#define P2P_MEM		SZ_16K
#define P2P_PIECE	SZ_4K
#define P2P_MAX		4

struct p2p {
	struct pci_dev *provider;
	enum pci_p2pdma_map_type type;
	u8 *cmb;		/* P2P_MAX pieces */
	u8 *mem[P2P_MAX];	/* P2P_MEM each */
};

/* The bus-address and host-bridge cases: check the mapped list @sgl */
static int p2p_check_mapped(struct dfp_edu *e, struct p2p *p,
			    const char *layout, struct scatterlist *sgl, int n,
			    u8 **va, const unsigned int *len)
{
	struct device *dev = &e->pdev->dev;
	struct iommu_domain *dom = iommu_get_domain_for_dev(dev);
	bool bus = p->type == PCI_P2PDMA_MAP_BUS_ADDR;
	int nents = strlen(layout), i, ret = 0;
	dma_addr_t iova[P2P_MAX], next = 0;
	struct scatterlist *sg;
	size_t total = 0;

	/* Where each entry is: its segment, or its place in the one IOVA range */
	for_each_sg(sgl, sg, n, i) {
		if (bus) {
			iova[i] = sg_dma_address(sg);
		} else if (sg_dma_is_bus_address(sg)) {
			dev_err(dev, "p2p: %s: segment %d is a bus address\n",
				layout, i);
			ret = -EIO;
		}
		total += sg_dma_len(sg);
	}
	if (bus && n != nents) {
		dev_err(dev, "p2p: %s: %d DMA segments, expected %d\n", layout,
			n, nents);
		return -EIO;
	}
	for (i = 0; !bus && i < nents; i++) {
		iova[i] = sg_dma_address(sgl) + next;
		next += len[i];
	}
	if (!bus && total != next) {
		dev_err(dev, "p2p: %s: %zu bytes in the segments, expected %llu\n",
			layout, total, (u64)next);
		ret = -EIO;
	}
	for_each_sg(sgl, sg, nents, i) {
		phys_addr_t phys = iommu_iova_to_phys(dom, iova[i]);
		bool cmb = layout[i] == 'p';

		if (bus && cmb) {
			pci_bus_addr_t ba = pci_p2pmem_virt_to_bus(p->provider,
								   va[i]);

			if (!sg_dma_is_bus_address(sg) || iova[i] != ba ||
			    sg_dma_len(sg) != len[i] || phys) {
				dev_err(dev, "p2p: %s: segment %d: %pad+%#x%s%s, expected bus address %#llx+%#x\n",
					layout, i, &iova[i], sg_dma_len(sg),
					sg_dma_is_bus_address(sg) ? " (bus)" : "",
					phys ? " mapped in the IOMMU" : "",
					(u64)ba, len[i]);
				ret = -EIO;
			}
			continue;
		}
		if ((bus && (sg_dma_is_bus_address(sg) ||
			     sg_dma_len(sg) != len[i])) ||
		    iova[i] + len[i] > BIT_ULL(EDU_DMA_BITS) ||
		    phys != virt_to_phys(va[i])) {
			dev_err(dev, "p2p: %s: entry %d at %pad does not map its %s\n",
				layout, i, &iova[i], cmb ? "CMB piece" : "buffer");
			ret = -EIO;
		}
	}
	/* The device writes every entry it may reach */
	for (i = 0; !ret && i < nents; i++)
		if (!(bus && layout[i] == 'p'))
			ret = edu_dma(e, iova[i], true);
	return ret;
}

static int p2p_one(struct dfp_edu *e, struct p2p *p, const char *layout)
{
	struct device *dev = &e->pdev->dev;
	bool bus = p->type == PCI_P2PDMA_MAP_BUS_ADDR;
	unsigned long before = mapped_pages(e), want_pages = 0;
	int nents = strlen(layout), i, n, ret = 0;
	struct scatterlist sgl[P2P_MAX], *sg;
	unsigned int len[P2P_MAX];
	u8 *va[P2P_MAX];
	int nm = 0, np = 0;

	sg_init_table(sgl, nents);
	for (i = 0; i < nents; i++) {
		bool cmb = layout[i] == 'p';

		va[i] = cmb ? p->cmb + np++ * P2P_PIECE : p->mem[nm++];
		len[i] = cmb ? P2P_PIECE : P2P_MEM;
		memset(va[i], PAT_CPU, len[i]);
		if (!(bus && cmb))
			want_pages += len[i] / PAGE_SIZE;
		sg_set_page(&sgl[i], virt_to_page(va[i]), len[i],
			    offset_in_page(va[i]));
	}

	n = dma_map_sg(dev, sgl, nents, DMA_FROM_DEVICE);
	if (p->type == PCI_P2PDMA_MAP_NOT_SUPPORTED) {
		if (n) {
			dev_err(dev, "p2p: %s: mapped %d segments, P2P is not supported here\n",
				layout, n);
			dma_unmap_sg(dev, sgl, nents, DMA_FROM_DEVICE);
			ret = -EIO;
		}
		for_each_sg(sgl, sg, nents, i) {
			if (!ret && (sg_dma_is_bus_address(sg) ||
				     sg->length != len[i] || sg_virt(sg) != va[i])) {
				dev_err(dev, "p2p: %s: entry %d not restored after the failed map\n",
					layout, i);
				ret = -EIO;
			}
		}
	} else if (!n) {
		dev_err(dev, "p2p: %s: dma_map_sg() failed\n", layout);
		ret = -EIO;
	} else {
		ret = p2p_check_mapped(e, p, layout, sgl, n, va, len);
		if (!ret && mapped_pages(e) != before + want_pages) {
			dev_err(dev, "p2p: %s: %lu pages mapped, expected %lu\n",
				layout, mapped_pages(e) - before, want_pages);
			ret = -EIO;
		}
		dma_unmap_sg(dev, sgl, nents, DMA_FROM_DEVICE);
	}
	for_each_sg(sgl, sg, nents, i) {
		bool reached = !(bus && layout[i] == 'p') && n;

		if (sg_dma_is_bus_address(sg)) {
			dev_err(dev, "p2p: %s: entry %d still marked as a bus address\n",
				layout, i);
			ret = -EIO;
		}
		/* A CMB piece without a mapping must not change */
		if (!ret && changed(va[i]) != (reached ? EDU_XFER : 0)) {
			dev_err(dev, "p2p: %s: entry %d: %zu bytes written, expected %d\n",
				layout, i, changed(va[i]), reached ? EDU_XFER : 0);
			ret = -EIO;
		}
	}
	if (mapped_pages(e) != before) {
		dev_err(dev, "p2p: %s: %ld pages left mapped\n", layout,
			(long)(mapped_pages(e) - before));
		ret = -EIO;
	}
	return ret;
}

/* ACS on @pdev sends P2P requests up to the root (pci_bridge_has_acs_redir) */
static bool p2p_acs_redirects(struct pci_dev *pdev)
{
	u16 ctrl;

	if (!pdev->acs_cap)
		return false;
	pci_read_config_word(pdev, pdev->acs_cap + PCI_ACS_CTRL, &ctrl);
	return ctrl & (PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_EC);
}

/* A port from @pdev up to, not including, @top redirects P2P */
static bool p2p_path_redirects(struct pci_dev *pdev, struct pci_dev *top)
{
	for (; pdev != top; pdev = pci_upstream_bridge(pdev))
		if (p2p_acs_redirects(pdev))
			return true;
	return false;
}

/*
 * The map type the DMA layer will use between @provider and @client
 * (pci_p2pdma_map_type() is not exported): not supported when
 * pci_p2pdma_distance() refuses, else a bus address when the two share an
 * upstream bridge and no port on the way redirects, else through the host
 * bridge. The same walk as the PCI core's calc_map_type_and_dist().
 */
static enum pci_p2pdma_map_type p2p_map_type(struct pci_dev *provider,
					     struct pci_dev *client)
{
	struct pci_dev *a, *b;

	if (pci_p2pdma_distance(provider, &client->dev, true) < 0)
		return PCI_P2PDMA_MAP_NOT_SUPPORTED;
	for (a = provider; a; a = pci_upstream_bridge(a))
		for (b = client; b; b = pci_upstream_bridge(b))
			if (a == b)
				goto common;
	return PCI_P2PDMA_MAP_THRU_HOST_BRIDGE;
common:
	if (p2p_path_redirects(provider, a) || p2p_path_redirects(client, a) ||
	    p2p_acs_redirects(a))
		return PCI_P2PDMA_MAP_THRU_HOST_BRIDGE;
	return PCI_P2PDMA_MAP_BUS_ADDR;
}

static const char *const p2p_type_name[] = {
	[PCI_P2PDMA_MAP_UNKNOWN] = "unknown",
	[PCI_P2PDMA_MAP_NONE] = "none",
	[PCI_P2PDMA_MAP_NOT_SUPPORTED] = "not supported",
	[PCI_P2PDMA_MAP_BUS_ADDR] = "bus address",
	[PCI_P2PDMA_MAP_THRU_HOST_BRIDGE] = "through the host bridge",
};

/* @need: the map type the topology must give, or UNKNOWN for any */
static int p2p_run(struct dfp_edu *e, enum pci_p2pdma_map_type need)
{
	static const char *const layouts[] = { "mpmp", "pmpm", "pp", "mppm" };
	struct device *dev = &e->pdev->dev;
	struct p2p p = { };
	int i, ret = 0;

	if (!strict_domain(e) && !lazy_domain(e))
		return -EOPNOTSUPP;
	/* The first device with p2pmem to allocate from (NVMe's CMB) */
	while ((p.provider = pci_get_device(PCI_ANY_ID, PCI_ANY_ID, p.provider))) {
		p.cmb = pci_alloc_p2pmem(p.provider, P2P_MAX * P2P_PIECE);
		if (p.cmb)
			break;
	}
	if (!p.provider) {
		dev_info(dev, "p2p: no device has p2pmem\n");
		return need != PCI_P2PDMA_MAP_UNKNOWN ? -EIO : -EOPNOTSUPP;
	}
	p.type = p2p_map_type(p.provider, e->pdev);
	dev_info(dev, "p2p: provider %s: %s\n", pci_name(p.provider),
		 p.type < ARRAY_SIZE(p2p_type_name) ? p2p_type_name[p.type] : "?");
	if (p.type == PCI_P2PDMA_MAP_UNKNOWN || p.type == PCI_P2PDMA_MAP_NONE ||
	    (need != PCI_P2PDMA_MAP_UNKNOWN && p.type != need)) {
		ret = -EIO;
		goto free_cmb;
	}
	for (i = 0; i < P2P_MAX; i++) {
		p.mem[i] = (u8 *)__get_free_pages(GFP_KERNEL, get_order(P2P_MEM));
		if (!p.mem[i])
			ret = -ENOMEM;
	}
	for (i = 0; !ret && i < ARRAY_SIZE(layouts); i++)
		ret = p2p_one(e, &p, layouts[i]);
	for (i = 0; i < P2P_MAX; i++)
		if (p.mem[i])
			free_pages((unsigned long)p.mem[i], get_order(P2P_MEM));
free_cmb:
	pci_free_p2pmem(p.provider, p.cmb, P2P_MAX * P2P_PIECE);
	pci_dev_put(p.provider);
	return ret;
}

/* Whatever P2P the topology allows (see above) */
static int case_p2p(struct dfp_edu *e)
{
	return p2p_run(e, PCI_P2PDMA_MAP_UNKNOWN);
}

/* Bus-address P2P must be what the topology gives (VM_P2P=1) */
static int case_p2p_bus(struct dfp_edu *e)
{
	return p2p_run(e, PCI_P2PDMA_MAP_BUS_ADDR);
}

/* P2P must be impossible (VM_P2P=split: edu on another root port) */
static int case_p2p_unsupported(struct dfp_edu *e)
{
	return p2p_run(e, PCI_P2PDMA_MAP_NOT_SUPPORTED);
}

static const struct {
	const char *name;
	int (*fn)(struct dfp_edu *e);
} cases[] = {
	{ "live", case_live },
	{ "strict_unmap", case_strict_unmap },
	{ "lazy_window", case_lazy_window },
	{ "batch", case_batch },
	{ "batch_wanted", case_batch_wanted },
	{ "iova_batch", case_iova_batch },
	{ "exhaust", case_exhaust },
	{ "exhaust_batch", case_exhaust_batch },
	{ "bounce_batch", case_bounce_batch },
	{ "noncoherent_batch", case_noncoherent_batch },
	{ "debug_batch", case_debug_batch },
	{ "batch_leak", case_batch_leak },
	{ "sg_limits", case_sg_limits },
	{ "bad_unmap", case_bad_unmap },
	{ "fail_nth", case_fail_nth },
	{ "zero_len", case_zero_len },
	{ "p2p", case_p2p },
	{ "p2p_bus", case_p2p_bus },
	{ "p2p_unsupported", case_p2p_unsupported },
};

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	char name[32];
	int i, ret;

	if (len == 0 || len >= sizeof(name))
		return -EINVAL;
	if (copy_from_user(name, ubuf, len))
		return -EFAULT;
	name[len] = '\0';
	strim(name);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (strcmp(name, cases[i].name))
			continue;
		mutex_lock(&edu_dev->lock);
		ret = edu_load(edu_dev);
		if (!ret)
			ret = cases[i].fn(edu_dev);
		mutex_unlock(&edu_dev->lock);
		dev_info(&edu_dev->pdev->dev, "case %s: %d\n", name, ret);
		return ret ? ret : len;
	}
	return -ENOENT;
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.write = run_write,
};

static int dfp_edu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct dfp_edu *e;
	int ret;

	if (edu_dev)
		return -EBUSY;
	e = devm_kzalloc(&pdev->dev, sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->pdev = pdev;
	mutex_init(&e->lock);
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	e->bar = pcim_iomap_region(pdev, 0, "dfp_edu");
	if (IS_ERR(e->bar))
		return PTR_ERR(e->bar);
	ret = dma_set_mask_and_coherent(&pdev->dev,
					DMA_BIT_MASK(EDU_DMA_BITS));
	if (ret)
		return ret;
	pci_set_master(pdev);
	e->src = devm_kmalloc(&pdev->dev, PAGE_SIZE, GFP_KERNEL);
	if (!e->src)
		return -ENOMEM;
	e->src_dma = dma_map_single(&pdev->dev, e->src, PAGE_SIZE,
				    DMA_TO_DEVICE);
	if (dma_mapping_error(&pdev->dev, e->src_dma))
		return -ENOMEM;
	e->dir = debugfs_create_dir("dfp_edu", NULL);
	debugfs_create_file("run", 0200, e->dir, NULL, &run_fops);
	pci_set_drvdata(pdev, e);
	edu_dev = e;
	return 0;
}

static void dfp_edu_remove(struct pci_dev *pdev)
{
	struct dfp_edu *e = pci_get_drvdata(pdev);

	debugfs_remove_recursive(e->dir);
	dma_unmap_single(&pdev->dev, e->src_dma, PAGE_SIZE, DMA_TO_DEVICE);
	edu_dev = NULL;
}

/* No ID table: bound through driver_override only. */
static struct pci_driver dfp_edu_driver = {
	.name = "dfp_edu",
	.probe = dfp_edu_probe,
	.remove = dfp_edu_remove,
};
module_pci_driver(dfp_edu_driver);

MODULE_DESCRIPTION("dma-fastpath: DMA-after-unmap checks with QEMU's edu device");
MODULE_LICENSE("GPL");
