# scripts/get_maintainer.pl --no-rolestats --no-git --no-git-fallback
# --no-fixes over the patches of topic unmap-batch (make cover); one address per
# line. --no-fixes: the base has no history to find a Fixes: commit's
# authors in.
Jonathan Corbet <corbet@lwn.net>
Shuah Khan <skhan@linuxfoundation.org>
Randy Dunlap <rdunlap@infradead.org>
"Joerg Roedel (AMD)" <joro@8bytes.org>
Suravee Suthikulpanit <suravee.suthikulpanit@amd.com>
Vasant Hegde <vasant.hegde@amd.com>
Will Deacon <will@kernel.org>
Robin Murphy <robin.murphy@arm.com>
David Woodhouse <dwmw2@infradead.org>
Lu Baolu <baolu.lu@linux.intel.com>
"Michael S. Tsirkin" <mst@redhat.com>
Jason Wang <jasowangio@gmail.com>
"Eugenio Pérez" <eperezma@redhat.com>
Xuan Zhuo <xuanzhuo@linux.alibaba.com>
Andrew Lunn <andrew+netdev@lunn.ch>
"David S. Miller" <davem@davemloft.net>
Eric Dumazet <edumazet@kernel.org>
Jakub Kicinski <kuba@kernel.org>
Paolo Abeni <pabeni@redhat.com>
Keith Busch <kbusch@kernel.org>
Jens Axboe <axboe@kernel.dk>
Christoph Hellwig <hch@lst.de>
Sagi Grimberg <sagi@grimberg.me>
Marek Szyprowski <m.szyprowski@samsung.com>
Alexei Starovoitov <ast@kernel.org>
Daniel Borkmann <daniel@iogearbox.net>
Jesper Dangaard Brouer <hawk@kernel.org>
John Fastabend <john.fastabend@gmail.com>
Stanislav Fomichev <sdf@fomichev.me>
linux-doc@vger.kernel.org
linux-kernel@vger.kernel.org
iommu@lists.linux.dev
linux-arm-kernel@lists.infradead.org
netdev@vger.kernel.org
virtualization@lists.linux.dev
linux-nvme@lists.infradead.org
linux-block@vger.kernel.org
bpf@vger.kernel.org
