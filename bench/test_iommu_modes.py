"""Tests of bench/iommu-modes' host side.  From the repository root:

    python3 -m unittest bench/test_iommu_modes.py
"""

import json
import os
import statistics
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scriptmod import load  # noqa: E402

iommu_modes = load('iommu-modes')


def fio_json(path, iops, write=False):
    idle = {'io_bytes': 0, 'iops': 0.0}
    busy = {'io_bytes': 4096, 'iops': iops}
    job = {'jobname': 'j', 'read': idle if write else busy, 'write': busy if write else idle}
    with open(path, 'w') as f:
        json.dump({'jobs': [job]}, f)


class TestReadBoot(unittest.TestCase):
    def test_rows_per_round_and_job(self):
        with tempfile.TemporaryDirectory() as d:
            fio_json(os.path.join(d, 'r1-DMA-a.json'), 90.0)
            fio_json(os.path.join(d, 'r1-DMA-FQ-a.json'), 100.0)
            fio_json(os.path.join(d, 'r1-identity-a.json'), 120.0)
            # a write job reports in 'write'; a missing mode is None
            fio_json(os.path.join(d, 'r1-DMA-b.json'), 50.0, write=True)
            fio_json(os.path.join(d, 'r1-DMA-FQ-b.json'), 40.0, write=True)
            rows = iommu_modes.read_boot(d, 'series', 0, 1, ['a', 'b'])
        self.assertEqual(len(rows), 2)
        self.assertEqual((rows[0]['strict'], rows[0]['lazy'], rows[0]['pt']), (90.0, 100.0, 120.0))
        self.assertEqual((rows[1]['strict'], rows[1]['lazy'], rows[1]['pt']), (50.0, 40.0, None))
        self.assertEqual(rows[1]['job'], 'b')

    def test_invalidations_per_io(self):
        with tempfile.TemporaryDirectory() as d:
            for m, iops in (('DMA', 90.0), ('DMA-FQ', 100.0), ('identity', 120.0)):
                fio_json(os.path.join(d, f'r1-{m}-a.json'), iops)
            with open(os.path.join(d, 'r1-DMA-a.flush'), 'w') as f:
                f.write('ios 1000\ncache_tag_flush_range 700\ncache_tag_flush_all 50\n')
            with open(os.path.join(d, 'r1-DMA-FQ-a.flush'), 'w') as f:
                f.write('ios 0\ncache_tag_flush_all 3\n')
            rows = iommu_modes.read_boot(d, 'series', 0, 1, ['a'])
        # all probes summed per completed I/O; no I/O or no file: no figure
        self.assertAlmostEqual(rows[0]['inv_strict'], 0.75)
        self.assertNotIn('inv_lazy', rows[0])
        self.assertNotIn('inv_pt', rows[0])
        text = '\n'.join(iommu_modes.summary(rows, ['series'], ['a']))
        self.assertIn('| series | a | strict | 0.750 [0.750..0.750] | 1 |', text)
        self.assertNotIn('| series | a | lazy |', text)

    def test_invalidation_spans(self):
        with tempfile.TemporaryDirectory() as d:
            for m in ('DMA', 'DMA-FQ'):
                for r in (1, 2):
                    fio_json(os.path.join(d, f'r{r}-{m}-a.json'), 100.0)
            # strict: 400 I/Os over two runs, 100 invalidations of 4K, 60 of
            # 128K (mask 5), 40 of 4M (mask 10)
            with open(os.path.join(d, 'r1-DMA-a.spans'), 'w') as f:
                f.write('ios 300\nlost 0\nmask 0 100\nmask 5 20\n')
            with open(os.path.join(d, 'r2-DMA-a.spans'), 'w') as f:
                f.write('ios 100\nlost 0\nmask 5 40\nmask 10 40\n')
            # lazy: domain-wide flushes only; round 2 lost events: not used
            with open(os.path.join(d, 'r1-DMA-FQ-a.spans'), 'w') as f:
                f.write('ios 500\nlost 0\nmask all 5\n')
            with open(os.path.join(d, 'r2-DMA-FQ-a.spans'), 'w') as f:
                f.write('ios 500\nlost 3\nmask all 500\n')
            rows = iommu_modes.read_boot(d, 'series', 0, 2, ['a'])
        self.assertNotIn('spans_lazy', rows[1])
        # through results.jsonl, as a pooled reprint reads them
        rows = [json.loads(json.dumps(r)) for r in rows]
        lines = iommu_modes.summary(rows, ['series'], ['a'])
        self.assertIn('| series | a | strict | 0.500 | 4K 50%, 128K 30%, 4M 20% | 2 |', lines)
        self.assertIn('| series | a | lazy | 0.010 | all 100% | 1 |', lines)

    def test_xdp_rows(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, 'r1-DMA-xdp.txt'), 'w') as f:
                f.write('xdp generator group=identity\n'
                        'xdp action=tx packets=300 secs=5.001 pps=60\n'
                        'xdp action=redirect error\n')
            with open(os.path.join(d, 'r1-DMA-FQ-xdp.txt'), 'w') as f:
                f.write('xdp generator group=identity\n'
                        'xdp action=tx packets=500 secs=5.001 pps=100\n'
                        'xdp action=redirect packets=400 secs=5.001 pps=80\n')
            rows = iommu_modes.read_boot(d, 'base', 1, 1, [], ['tx', 'redirect'])
        self.assertEqual([r['job'] for r in rows], ['xdp-tx', 'xdp-redirect'])
        self.assertEqual((rows[0]['strict'], rows[0]['lazy'], rows[0]['pt']), (60, 100, None))
        # an action that failed has no value, and no ratio in the summary
        self.assertEqual((rows[1]['strict'], rows[1]['lazy']), (None, 80))
        lines = iommu_modes.summary(rows, ['base'], ['xdp-tx', 'xdp-redirect'])
        self.assertIn('| base | xdp-tx | 60 | 100 | n/a | 0.600 [0.600..0.600] | n/a | n/a | 1 |', lines)
        self.assertIn('| base | xdp-redirect | n/a | 80 | n/a | n/a | n/a | n/a | 1 |', lines)

    def test_xdp_generator_group(self):
        # the load generator's NIC is held in passthrough unless SWITCH
        # names it; a run where it was elsewhere gives no pps
        saved = iommu_modes.SWITCH
        try:
            with tempfile.TemporaryDirectory() as d:
                for m, gen in (('DMA', 'DMA'), ('DMA-FQ', 'identity'), ('identity', None)):
                    with open(os.path.join(d, f'r1-{m}-xdp.txt'), 'w') as f:
                        if gen:
                            f.write(f'xdp generator group={gen}\n')
                        f.write('xdp action=tx packets=500 secs=5.001 pps=100\n')
                iommu_modes.SWITCH = 'nvme xdp redir'
                rows = iommu_modes.read_boot(d, 'base', 1, 1, [], ['tx'])
                self.assertEqual((rows[0]['strict'], rows[0]['lazy'], rows[0]['pt']),
                                 (None, 100, None))
                iommu_modes.SWITCH = 'xdp gen'
                rows = iommu_modes.read_boot(d, 'base', 1, 1, [], ['tx'])
                self.assertEqual((rows[0]['strict'], rows[0]['lazy'], rows[0]['pt']),
                                 (100, None, None))
        finally:
            iommu_modes.SWITCH = saved


class TestModes(unittest.TestCase):
    def test_a_subset_of_modes(self):
        saved = iommu_modes.MODES
        iommu_modes.MODES = ['identity']
        try:
            with tempfile.TemporaryDirectory() as d:
                fio_json(os.path.join(d, 'r1-identity-a.json'), 70.0)
                # a result of a mode not asked for is not read
                fio_json(os.path.join(d, 'r1-DMA-a.json'), 90.0)
                rows = iommu_modes.read_boot(d, 'series', 0, 1, ['a'])
        finally:
            iommu_modes.MODES = saved
        self.assertEqual((rows[0]['strict'], rows[0]['lazy'], rows[0]['pt']), (None, None, 70.0))
        lines = iommu_modes.summary(rows, ['series'], ['a'])
        self.assertIn('| series | a | n/a | n/a | 70 | n/a | n/a | n/a | 1 |', lines)


class TestPair(unittest.TestCase):
    def test_swapped_disks_cancel(self):
        # disk b runs 20% faster than a in every mode; strict costs 10%:
        # each round's strict/lazy is 0.9 whichever disk had which mode
        with tempfile.TemporaryDirectory() as d:
            for r in (1, 2):
                fio_json(os.path.join(d, f'r{r}-a-DMA-j.json'), 90.0)
                fio_json(os.path.join(d, f'r{r}-b-DMA-FQ-j.json'), 120.0)
                fio_json(os.path.join(d, f'r{r}-a-DMA-FQ-j.json'), 100.0)
                fio_json(os.path.join(d, f'r{r}-b-DMA-j.json'), 108.0)
            # round 2 lost its run of disk b in lazy mode: no lazy figure
            os.remove(os.path.join(d, 'r2-b-DMA-FQ-j.json'))
            rows = iommu_modes.read_pair_boot(d, 'series', 0, 2, ['j'], ['DMA', 'DMA-FQ'])
        self.assertEqual([r['job'] for r in rows], ['j:pair', 'j:pair'])
        self.assertAlmostEqual(rows[0]['strict'], (90.0 * 108.0) ** 0.5)
        self.assertAlmostEqual(rows[0]['lazy'], (100.0 * 120.0) ** 0.5)
        self.assertAlmostEqual(rows[0]['strict'] / rows[0]['lazy'], 0.9)
        self.assertEqual((rows[0]['strict_a'], rows[0]['lazy_b']), (90.0, 120.0))
        self.assertIsNone(rows[0]['pt'])
        self.assertIsNone(rows[1]['lazy'])
        self.assertIsNone(rows[1]['lazy_b'])
        lines = iommu_modes.summary(rows, ['series'], ['j:pair'])
        # the round without a lazy figure has no ratio (and one ratio no
        # interval)
        self.assertIn('| series | j:pair | 99 | 110 | n/a | 0.900 [0.900..0.900] | '
                      'n/a | n/a | 2 |', lines)

    def test_swapped_disks_one_way_only(self):
        # the same rounds with a run of one disk only in each mode (no swap):
        # the ratio would carry disk b's 20%; read_pair_boot gives none
        with tempfile.TemporaryDirectory() as d:
            fio_json(os.path.join(d, 'r1-a-DMA-j.json'), 90.0)
            fio_json(os.path.join(d, 'r1-b-DMA-FQ-j.json'), 120.0)
            rows = iommu_modes.read_pair_boot(d, 'series', 0, 1, ['j'], ['DMA', 'DMA-FQ'])
        self.assertIsNone(rows[0]['strict'])
        self.assertIsNone(rows[0]['lazy'])


class TestSummary(unittest.TestCase):
    def rows(self, kernel, triples):
        return [dict(kernel=kernel, boot=0, round=i + 1, job='a', strict=s, lazy=lz, pt=p)
                for i, (s, lz, p) in enumerate(triples)]

    def test_ratios_are_per_round(self):
        # per-round strict/lazy 0.9, 1.0, 0.5: median 0.9, range 0.5..1.0; the
        # ratio of the medians (90/100) would hide the spread; strict/pt 0.9,
        # 0.5, 0.5
        rows = self.rows('base', [(90, 100, 100), (100, 100, 200), (50, 100, 100)])
        lines = iommu_modes.summary(rows, ['base'], ['a'])
        self.assertIn('| base | a | 90 | 100 | 100 | 0.900 [0.500..1.000] | '
                      '0.500..1.000 | 0.500 [0.500..0.900] | 3 |', lines)

    def test_missing_mode_and_change(self):
        rows = self.rows('base', [(90, 100, None), (90, 100, None)])
        rows += self.rows('series', [(99, 100, 150), (97, 100, 150)])
        lines = iommu_modes.summary(rows, ['base', 'series'], ['a'])
        self.assertIn('| base | a | 90 | 100 | n/a | 0.900 [0.900..0.900] | 0.900..0.900 | n/a | 2 |', lines)
        change = [line for line in lines if line.startswith('base -> series, a:')]
        self.assertEqual(len(change), 1)
        # pt has no base figure: no change reported for it
        self.assertIn('strict +8.9%, lazy +0.0%;', change[0])
        self.assertNotIn('pt', change[0])

    def test_median_interval(self):
        def bounds(text):
            return tuple(float(x) for x in text.split('..'))

        # one round has no interval; equal rounds a point
        self.assertEqual(iommu_modes.median_interval([0.9]), 'n/a')
        self.assertEqual(iommu_modes.median_interval([0.9, None, 0.9]), '0.900..0.900')
        few = [0.80 + 0.40 * ((i * 37) % 101) / 100 for i in range(20)]
        many = few * 8
        lo, hi = bounds(iommu_modes.median_interval(few))
        med = statistics.median(few)
        # it holds the median, inside the rounds' range, and not all of it
        self.assertTrue(min(few) < lo <= med <= hi < max(few), (lo, med, hi))
        # the same spread in eight times the rounds: about a third as wide
        mlo, mhi = bounds(iommu_modes.median_interval(many))
        self.assertLess(mhi - mlo, 0.6 * (hi - lo))
        # reprinted, the same text
        self.assertEqual(iommu_modes.median_interval(few), iommu_modes.median_interval(few))


if __name__ == '__main__':
    unittest.main()
