# scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback
# --no-fixes over the patches of topic benchmark (make cover); one address per
# line. --no-fixes: the base has no history to find a Fixes: commit's
# authors in.
"Joerg Roedel (AMD)" <joro@8bytes.org>
Will Deacon <will@kernel.org>
Robin Murphy <robin.murphy@arm.com>
Barry Song <baohua@kernel.org>
Qinxin Xia <xiaqinxin@huawei.com>
Marek Szyprowski <m.szyprowski@samsung.com>
Shuah Khan <shuah@kernel.org>
Kees Cook <kees@kernel.org>
"Gustavo A. R. Silva" <gustavoars@kernel.org>
Paul Walmsley <pjw@kernel.org>
Palmer Dabbelt <palmer@dabbelt.com>
Albert Ou <aou@eecs.berkeley.edu>
Alexandre Ghiti <alex@ghiti.fr>
linux-kernel@vger.kernel.org
iommu@lists.linux.dev
linux-kselftest@vger.kernel.org
linux-hardening@vger.kernel.org
linux-riscv@lists.infradead.org
