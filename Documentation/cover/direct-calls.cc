# scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback
# --no-fixes over the patches of topic direct-calls (make cover); one address per
# line. --no-fixes: the base has no history to find a Fixes: commit's
# authors in.
Robin Murphy <robin.murphy@arm.com>
"Joerg Roedel (AMD)" <joro@8bytes.org>
Will Deacon <will@kernel.org>
Marek Szyprowski <m.szyprowski@samsung.com>
iommu@lists.linux.dev
linux-kernel@vger.kernel.org
