# scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback
# --no-fixes over the patches of topic one-walk (make cover); one address per
# line. --no-fixes: the base has no history to find a Fixes: commit's
# authors in.
Jonathan Corbet <corbet@lwn.net>
Shuah Khan <skhan@linuxfoundation.org>
Randy Dunlap <rdunlap@infradead.org>
Jens Axboe <axboe@kernel.dk>
Maarten Lankhorst <maarten.lankhorst@linux.intel.com>
Maxime Ripard <mripard@kernel.org>
Thomas Zimmermann <tzimmermann@suse.de>
David Airlie <airlied@gmail.com>
Simona Vetter <simona@ffwll.ch>
Robin Murphy <robin.murphy@arm.com>
"Joerg Roedel (AMD)" <joro@8bytes.org>
Will Deacon <will@kernel.org>
Marek Szyprowski <m.szyprowski@samsung.com>
Barry Song <baohua@kernel.org>
Qinxin Xia <xiaqinxin@huawei.com>
Paul Walmsley <pjw@kernel.org>
Palmer Dabbelt <palmer@dabbelt.com>
Albert Ou <aou@eecs.berkeley.edu>
Alexandre Ghiti <alex@ghiti.fr>
linux-doc@vger.kernel.org
linux-kernel@vger.kernel.org
linux-block@vger.kernel.org
dri-devel@lists.freedesktop.org
iommu@lists.linux.dev
linux-kselftest@vger.kernel.org
linux-riscv@lists.infradead.org
