"""Tests of bench/run.py's host side: the files of a mode switched in one
boot (intel-switch), and the host CPU accounting (HOSTCPU=1).  From the
repository root:

    python3 -m unittest bench/test_run.py
"""

import json
import os
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402


def fio_json(path, job, iops, write=False, ios=1000):
    idle = {'io_bytes': 0, 'iops': 0.0, 'total_ios': 0}
    busy = {'io_bytes': 4096, 'iops': iops, 'total_ios': ios,
            'clat_ns': {'mean': 2000.0, 'percentile': {'99.000000': 5000}}}
    d = {'jobname': job, 'job_runtime': 5000,
         'read': idle if write else busy, 'write': busy if write else idle}
    with open(path, 'w') as f:
        json.dump({'jobs': [d]}, f)


def write(path, text):
    with open(path, 'w') as f:
        f.write(text)


class Recorder(run.Results):
    def __init__(self):
        self.failures = []
        self.recs = []

    def add(self, family, workload, mode, kernel, rnd, metric, value, unit, better):
        self.recs.append((family, workload, mode, kernel, rnd, metric, value))

    def get(self, family, workload, mode, metric):
        got = [r[6] for r in self.recs if r[:3] == (family, workload, mode) and r[5] == metric]
        return got[0] if len(got) == 1 else got


def switch_files(files, kernel='series', rnd=1):
    """parse_switch over a boot's out/ holding files {name: text}."""
    res = Recorder()
    with tempfile.TemporaryDirectory() as d:
        for name, text in files.items():
            write(os.path.join(d, name), text)
        run.parse_switch(res, d, kernel, rnd)
    return res


class TestSwitch(unittest.TestCase):
    def test_fio_per_mode(self):
        res = Recorder()
        with tempfile.TemporaryDirectory() as d:
            fio_json(os.path.join(d, 'r3-DMA-a.json'), 'a', 90.0)
            fio_json(os.path.join(d, 'r3-DMA-FQ-a.json'), 'a', 100.0)
            fio_json(os.path.join(d, 'r3-identity-a.json'), 'a', 120.0)
            # a write job reports in 'write'
            fio_json(os.path.join(d, 'r3-DMA-b.json'), 'b', 50.0, write=True)
            run.parse_switch(res, d, 'series', 3)
        self.assertEqual(res.failures, [])
        self.assertEqual(res.get('fio', 'a', 'switch-strict', 'iops'), 90.0)
        self.assertEqual(res.get('fio', 'a', 'switch-lazy', 'iops'), 100.0)
        self.assertEqual(res.get('fio', 'a', 'switch-pt', 'iops'), 120.0)
        self.assertEqual(res.get('fio', 'b', 'switch-strict', 'iops'), 50.0)
        self.assertEqual({r[3:5] for r in res.recs}, {('series', 3)})

    def test_arm64_boot_has_modes_of_its_own(self):
        # smmuv3-switch records smmuv3-switch-*, which compare keeps apart
        # from intel-switch's switch-* in one run; the pair's IOPS too
        res = Recorder()
        with tempfile.TemporaryDirectory() as d:
            fio_json(os.path.join(d, 'r2-DMA-a.json'), 'a', 90.0)
            fio_json(os.path.join(d, 'r2-identity-a.json'), 'a', 120.0)
            fio_json(os.path.join(d, 'r2-a-DMA-b.json'), 'b', 40.0)
            fio_json(os.path.join(d, 'r2-b-DMA-b.json'), 'b', 90.0)
            run.parse_switch(res, d, 'series', 2, 'smmuv3-switch')
        self.assertEqual(res.failures, [])
        self.assertEqual(res.get('fio', 'a', 'smmuv3-switch-strict', 'iops'), 90.0)
        self.assertEqual(res.get('fio', 'a', 'smmuv3-switch-pt', 'iops'), 120.0)
        self.assertEqual(res.get('fio', 'b:pair', 'smmuv3-switch-strict', 'iops'), 60.0)
        self.assertEqual(res.get('fio', 'a', 'switch-strict', 'iops'), [])

    def test_boot_mode(self):
        for mode, boot in (('intel-switch', 'intel-strict'), ('smmuv3-switch', 'smmuv3-strict')):
            with tempfile.TemporaryDirectory() as d:
                cmd, _, _ = run.guest_cmd(mode, ['switch'], 'series', 1, d, 1, False)
            self.assertEqual(cmd[cmd.index('--') - 1], boot)

    def test_invalidations_per_io(self):
        res = switch_files({
            'r1-DMA-a.flush': 'ios 1000\ncache_tag_flush_range 700\ncache_tag_flush_all 50\n',
            'r1-DMA-FQ-a.flush': 'ios 0\ncache_tag_flush_all 3\n'})
        # the probes summed per completed I/O; no I/O: no figure
        self.assertAlmostEqual(res.get('fio', 'a', 'switch-strict', 'invalidations_per_io'), 0.75)
        self.assertIsNone(res.get('fio', 'a', 'switch-lazy', 'invalidations_per_io'))

    def test_invalidation_spans(self):
        res = switch_files({
            # 400 I/Os: 100 invalidations of 4K, 60 of 128K (mask 5), 40 of 4M
            'r1-DMA-a.spans': 'ios 400\nlost 0\nmask 0 100\nmask 5 60\nmask 10 40\n',
            # lazy: domain-wide; lost events: not used, and said so
            'r1-DMA-FQ-a.spans': 'ios 500\nlost 3\nmask all 500\n'})
        self.assertAlmostEqual(res.get('fio', 'a', 'switch-strict', 'invalidations_per_io'), 0.5)
        self.assertAlmostEqual(res.get('fio', 'a', 'switch-strict', 'invalidations_128K_per_io'), 0.15)
        self.assertAlmostEqual(res.get('fio', 'a', 'switch-strict', 'invalidations_4096K_per_io'), 0.1)
        self.assertEqual(res.get('fio', 'a', 'switch-lazy', 'invalidations_per_io'), [])
        self.assertEqual(len(res.failures), 1)
        self.assertIn('lost', res.failures[0])

    def test_xdp_generator_group(self):
        # the load generator's NIC is held in passthrough unless SWITCH
        # names it; a run where it was elsewhere gives no pps
        saved = run.SWITCH
        try:
            with tempfile.TemporaryDirectory() as d:
                for m, gen in (('DMA', 'DMA'), ('DMA-FQ', 'identity'), ('identity', None)):
                    write(os.path.join(d, f'r1-{m}-xdp.txt'),
                          (f'xdp generator group={gen}\n' if gen else '') +
                          'xdp action=tx packets=500 secs=5.001 pps=100\n'
                          'xdp action=redirect error\n')
                run.SWITCH = 'nvme xdp redir'
                res = Recorder()
                run.parse_switch(res, d, 'base', 1)
                self.assertEqual(res.get('xdp', 'tx', 'switch-lazy', 'pps'), 100)
                # an action that failed is recorded as missing
                self.assertIsNone(res.get('xdp', 'redirect', 'switch-lazy', 'pps'))
                self.assertEqual(res.get('xdp', 'tx', 'switch-strict', 'pps'), [])
                self.assertEqual(len(res.failures), 2)
                run.SWITCH = 'xdp gen'
                res = Recorder()
                run.parse_switch(res, d, 'base', 1)
                self.assertEqual(res.get('xdp', 'tx', 'switch-strict', 'pps'), 100)
                self.assertEqual(res.get('xdp', 'tx', 'switch-lazy', 'pps'), [])
        finally:
            run.SWITCH = saved

    def test_pair_is_the_geometric_mean_of_both_disks(self):
        res = Recorder()
        with tempfile.TemporaryDirectory() as d:
            # disk b is twice as fast as a; strict costs 10% on both
            fio_json(os.path.join(d, 'r2-a-DMA-j.json'), 'j', 90.0)
            fio_json(os.path.join(d, 'r2-b-DMA-FQ-j.json'), 'j', 200.0)
            fio_json(os.path.join(d, 'r2-b-DMA-j.json'), 'j', 180.0)
            fio_json(os.path.join(d, 'r2-a-DMA-FQ-j.json'), 'j', 100.0)
            # one way only: no figure
            fio_json(os.path.join(d, 'r2-a-DMA-k.json'), 'k', 90.0)
            run.parse_switch(res, d, 'series', 2)
        s = res.get('fio', 'j:pair', 'switch-strict', 'iops')
        la = res.get('fio', 'j:pair', 'switch-lazy', 'iops')
        self.assertAlmostEqual(s / la, 0.9, places=3)
        self.assertIsNone(res.get('fio', 'k:pair', 'switch-strict', 'iops'))
        # the pair's runs are not one-disk rows
        self.assertEqual(res.get('fio', 'j', 'switch-strict', 'iops'), [])


class TestHostCpu(unittest.TestCase):
    def test_vcpu_and_other(self):
        before = {'1': ('qemu-system-x86', 10.0), '2': ('CPU 0/TCG', 5.0),
                  '3': ('CPU 1/TCG', 7.0), '4': ('worker', 1.0)}
        after = {'1': ('qemu-system-x86', 11.5), '2': ('CPU 0/TCG', 6.0),
                 '3': ('CPU 1/TCG', 9.0), '4': ('worker', 1.25),
                 # a worker started between the two snapshots counts from 0
                 '5': ('worker', 0.5)}
        vcpu, other = run.cpu_split(before, after)
        self.assertAlmostEqual(vcpu, 3.0)
        self.assertAlmostEqual(other, 2.25)

    def test_thread_times_of_this_process(self):
        stop = threading.Event()
        t = threading.Thread(target=stop.wait, name='dfp-test')
        t.start()
        try:
            times = run.thread_times(os.getpid())
        finally:
            stop.set()
            t.join()
        self.assertGreaterEqual(len(times), 2)
        for comm, secs in times.values():
            self.assertIsInstance(comm, str)
            self.assertGreaterEqual(secs, 0.0)

    def test_per_io_of_a_fio_step(self):
        res = Recorder()
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, 'out'))
            fio_json(os.path.join(d, 'out', 'fio-a.json'), 'a', 200.0, ios=1000)
            fio_json(os.path.join(d, 'out', 'r1-DMA-FQ-a.json'), 'a', 200.0, ios=500)
            b = dict(rundir=d)
            run.record_hostcpu(res, b, 'fio-a', (0.002, 0.004), 'intel-strict', 'base', 1)
            run.record_hostcpu(res, b, 'r1-DMA-FQ-a', (0.001, 0.001), 'intel-switch', 'base', 1)
            # not a fio step, or no JSON: nothing
            run.record_hostcpu(res, b, 'xdp-tx', (1.0, 1.0), 'intel-strict', 'base', 1)
            run.record_hostcpu(res, b, 'fio-b', (1.0, 1.0), 'intel-strict', 'base', 1)
        self.assertEqual(res.get('hostcpu', 'a', 'intel-strict', 'vcpu_us_per_io'), 2.0)
        self.assertEqual(res.get('hostcpu', 'a', 'intel-strict', 'qemu_us_per_io'), 4.0)
        self.assertEqual(res.get('hostcpu', 'a', 'switch-lazy', 'qemu_us_per_io'), 2.0)
        self.assertEqual(len(res.recs), 4)


class TestViommuCounts(unittest.TestCase):
    def step(self, d, ios_text, before, during, mode):
        res = Recorder()
        write(os.path.join(d, 'out', 'fio-a.ios'), ios_text)
        trace = os.path.join(d, 'trace.log')
        write(trace, before)
        start = os.path.getsize(trace)
        with open(trace, 'a') as f:
            f.write(during)
        b = dict(rundir=d)
        run.record_viommu(res, b, 'fio-a', start, mode, 'series', 1)
        # no .ios (the step wrote none): nothing
        run.record_viommu(res, b, 'xdp-tx', 0, mode, 'series', 1)
        run.record_viommu(res, b, 'fio-b', 0, mode, 'series', 1)
        return res

    def test_smmuv3_commands_per_io(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, 'out'))
            # the disk's count, ramp included, not fio's; before the step:
            # not counted
            res = self.step(d, 'ios 4\n',
                            'smmuv3_cmdq_opcode <--- CMD_TLBI_NH_VA\n'
                            'smmuv3_cmdq_opcode <--- CMD_SYNC\n',
                            '1234@1.5:smmuv3_cmdq_opcode <--- CMD_TLBI_NH_VA\n' * 6 +
                            'smmuv3_cmdq_opcode <--- CMD_TLBI_NH_ASID\n'
                            'smmuv3_cmdq_opcode <--- CMD_CFGI_STE\n' +
                            'smmuv3_cmdq_opcode <--- CMD_SYNC\n' * 2 +
                            'smmuv3_cmdq_consume prod=1 cons=1\n', 'smmuv3-strict')
        self.assertEqual(res.get('fio', 'a', 'smmuv3-strict', 'invalidations_per_io'), 1.75)
        self.assertEqual(res.get('fio', 'a', 'smmuv3-strict', 'syncs_per_io'), 0.5)
        self.assertEqual(len(res.recs), 2)

    def test_vtd_descriptors_misses_and_kib_per_io(self):
        vtd = ('1@1.000001:vtd_inv_desc_iotlb_pages iotlb invalidate domain 0x1 '
               'addr 0xfff00000 mask 0x%x\n')
        miss = ('1@1.000002:vtd_iotlb_page_update IOTLB page update sid 0x%x '
                'iova 0xfff00000 slpte 0x1234003 domain 0x1\n')
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, 'out'))
            res = self.step(d, 'ios 2\npci 0000:00:03.0\n', vtd % 9,
                            vtd % 0 + vtd % 5 +
                            '1@1.1:vtd_inv_desc_wait_sw wait invalidate status write '
                            'addr 0x1000 data 0x1\n'
                            '1@1.1:vtd_inv_desc_wait_write_fail write fail\n' +
                            miss % 0x18 * 3 + miss % 0x20,
                            'intel-strict')
        # 00:03.0 is source id 0x18; mask 0 is 4 KiB, mask 5 128 KiB
        self.assertEqual(res.get('fio', 'a', 'intel-strict', 'invalidations_per_io'), 1.0)
        self.assertEqual(res.get('fio', 'a', 'intel-strict', 'syncs_per_io'), 0.5)
        self.assertEqual(res.get('fio', 'a', 'intel-strict', 'iotlb_misses_per_io'), 1.5)
        self.assertEqual(res.get('fio', 'a', 'intel-strict', 'invalidated_kib_per_io'), 66.0)

    def test_nvme_queues(self):
        with tempfile.TemporaryDirectory() as d:
            trace = os.path.join(d, 'trace.log')
            write(trace, '1@1.0:pci_nvme_mmio_aqattr wrote MMIO, admin queue attributes=0x1f001f\n'
                  '1@1.0:pci_nvme_mmio_asqaddr wrote MMIO, admin submission queue '
                  'address=0xffffe000\n'
                  '1@1.0:pci_nvme_mmio_acqaddr wrote MMIO, admin completion queue '
                  'address=0xffffd000\n'
                  '1@1.0:pci_nvme_mmio_acqaddr_hi wrote MMIO, admin completion queue '
                  'high half=0x1, new_address=0x1ffffd000\n'
                  '1@1.1:pci_nvme_create_cq create completion queue, addr=0xfffc0000, '
                  'cqid=1, vector=1, qsize=1023, qflags=1, ien=1\n'
                  '1@1.1:pci_nvme_create_sq create submission queue, addr=0xfffe0000, '
                  'sqid=1, cqid=1, qsize=1023, qflags=1\n'
                  '1@1.1:vtd_iotlb_page_update IOTLB page update sid 0x18 iova 0x1 '
                  'slpte 0x1 domain 0x1\n')
            end = os.path.getsize(trace)
            with open(trace, 'a') as f:
                f.write('1@1.2:pci_nvme_create_sq create submission queue, addr=0x1000, '
                        'sqid=2, cqid=1, qsize=3, qflags=1\n')
            q = run.nvme_queues(trace, end)
        # 1024 16-byte entries: 16 KiB; 1024 of 64 bytes: 64 KiB; the admin
        # queues 32 entries each, their pages; the queue created after
        # `end` is left out
        self.assertEqual(sorted(q), [(0xfffc0000, 0xfffc4000), (0xfffe0000, 0xffff0000),
                                     (0xffffe000, 0xfffff000), (0x1ffffd000, 0x1ffffe000)])

    def test_queue_invalidations(self):
        inv = ('1@1.0:vtd_inv_desc_iotlb_pages iotlb invalidate domain 0x%x '
               'addr 0x%x mask 0x%x\n')
        miss = ('1@1.0:vtd_iotlb_page_update IOTLB page update sid 0x18 '
                'iova 0x5000 slpte 0x1 domain 0x2\n')
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, 'out'))
            write(os.path.join(d, 'out', 'fio-a.ios'), 'ios 4\npci 0000:00:03.0\n')
            trace = os.path.join(d, 'trace.log')
            write(trace, '1@1.0:pci_nvme_create_sq create submission queue, addr=0x40000, '
                  'sqid=1, cqid=1, qsize=63, qflags=1\n')
            start = os.path.getsize(trace)
            with open(trace, 'a') as f:
                # the disk's domain (2): a page beside the queue, a 2 MiB
                # block over it, its last page; another domain's block over
                # the same IOVA: not the disk's queue
                f.write(inv % (2, 0x3f000, 0) + inv % (2, 0, 9) + inv % (2, 0x40000, 0) +
                        inv % (1, 0, 9) + miss + miss.replace('sid 0x18', 'sid 0x20')
                        .replace('domain 0x2', 'domain 0x1'))
            res = Recorder()
            b = dict(rundir=d)
            run.record_viommu(res, b, 'fio-a', start, 'intel-strict', 'series', 1)
            self.assertEqual(b['nvme_queues'], [(0x40000, 0x41000)])
            self.assertEqual(res.get('fio', 'a', 'intel-strict', 'queue_invalidations'), 2)
            # no queue seen: no such metric
            res = Recorder()
            run.record_viommu(res, dict(rundir=d, nvme_queues=[]), 'fio-a', start,
                              'intel-strict', 'series', 1)
            self.assertEqual(res.get('fio', 'a', 'intel-strict', 'queue_invalidations'), [])

    def test_tx_step_per_packet(self):
        vtd = ('1@1.000001:vtd_inv_desc_iotlb_pages iotlb invalidate domain 0x1 '
               'addr 0xfff00000 mask 0x0\n')
        for step in ('tx-frags', 'xdp-tx'):
            family, _, job = step.partition('-')
            with tempfile.TemporaryDirectory() as d:
                os.makedirs(os.path.join(d, 'out'))
                write(os.path.join(d, 'out', step + '.ios'), 'ios 4\npci 0000:00:03.0\n')
                trace = os.path.join(d, 'trace.log')
                write(trace, vtd * 5 + '1@1.1:vtd_inv_desc_wait_sw wait\n')
                res = Recorder()
                run.record_viommu(res, dict(rundir=d), step, 0, 'intel-strict', 'series', 1)
            self.assertEqual(res.get(family, job, 'intel-strict', 'invalidations_per_pkt'), 1.25)
            self.assertEqual(res.get(family, job, 'intel-strict', 'syncs_per_pkt'), 0.25)
            self.assertEqual(res.get(family, job, 'intel-strict', 'invalidated_kib_per_pkt'), 5.0)
            self.assertEqual(res.get('fio', job, 'intel-strict', 'syncs_per_io'), [])

    def test_tx_rates(self):
        res = Recorder()
        run.parse_tx(res, 'tx generator group=identity\n'
                     'tx workload=frags packets=100 bytes=140000 secs=2.00 pps=50 mbps=0.6\n'
                     'tx workload=tcp error\n'
                     'tx workload=udp skipped: no network namespaces (CONFIG_NET_NS)\n',
                     'intel-lazy', 'base', 2)
        self.assertEqual(res.get('tx', 'frags', 'intel-lazy', 'pps'), 50)
        self.assertEqual(res.get('tx', 'frags', 'intel-lazy', 'mbps'), 0.6)
        self.assertIsNone(res.get('tx', 'tcp', 'intel-lazy', 'pps'))
        self.assertEqual(len(res.recs), 4)

    def test_amd_commands_and_misses_per_io(self):
        upd = ('1@1.2:amdvi_cache_update  update iotlb domid 0x1 devid: %s '
               'gpa 0x1000 hpa 0x2000\n')
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, 'out'))
            res = self.step(d, 'ios 4\npci 0000:00:04.0\n', '',
                            '1@1.1:amdvi_pages_inval AMD-Vi pages for domain 0x1 invalidated\n' * 4 +
                            '1@1.1:amdvi_completion_wait completion wait requested with '
                            'store address 0x1 and store data 0x1\n'
                            '1@1.1:amdvi_completion_wait_fail error: fail to write\n' +
                            upd % '00:04.0' * 2 + upd % '00:05.0', 'amd-strict')
        self.assertEqual(res.get('fio', 'a', 'amd-strict', 'invalidations_per_io'), 1.0)
        self.assertEqual(res.get('fio', 'a', 'amd-strict', 'syncs_per_io'), 0.25)
        self.assertEqual(res.get('fio', 'a', 'amd-strict', 'iotlb_misses_per_io'), 0.5)

    def test_pci_sid(self):
        self.assertEqual(run.pci_sid('0000:00:03.0'), 0x18)
        self.assertEqual(run.pci_sid('01:00.1'), 0x101)
        self.assertIsNone(run.pci_sid('virtio0'))


class TestRefs(unittest.TestCase):
    def test_ref_names(self):
        # as scripts/lib.sh ref_name: the build directories of any commit
        self.assertEqual(run.ref_name('patch:12'), 'patch-12')
        self.assertEqual(run.ref_name('rev:work/try 1'), 'rev-work-try_1')
        self.assertEqual(run.ref_name('bench-base'), 'bench-base')


if __name__ == '__main__':
    unittest.main()
