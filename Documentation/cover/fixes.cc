# scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback
# --no-fixes over the patches of topic fixes (make cover); one address per
# line. --no-fixes: the base has no history to find a Fixes: commit's
# authors in.
Jonathan Corbet <corbet@lwn.net>
Shuah Khan <skhan@linuxfoundation.org>
Randy Dunlap <rdunlap@infradead.org>
Robin Murphy <robin.murphy@arm.com>
"Joerg Roedel (AMD)" <joro@8bytes.org>
Will Deacon <will@kernel.org>
linux-doc@vger.kernel.org
linux-kernel@vger.kernel.org
iommu@lists.linux.dev
