# scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback over
# the patches of topic direct-calls (make cover); one address per line.
Robin Murphy <robin.murphy@arm.com>
"Joerg Roedel (AMD)" <joro@8bytes.org>
Will Deacon <will@kernel.org>
Marek Szyprowski <m.szyprowski@samsung.com>
iommu@lists.linux.dev
linux-kernel@vger.kernel.org
