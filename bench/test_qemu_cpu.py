"""Tests of bench/qemu-cpu's host-side accounting.  From the repository root:

    python3 -m unittest bench/test_qemu_cpu.py
"""

import json
import os
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scriptmod import load  # noqa: E402

qemu_cpu = load('qemu-cpu')


class TestSplit(unittest.TestCase):
    def test_vcpu_and_other(self):
        before = {'1': ('qemu-system-x86', 10.0), '2': ('CPU 0/TCG', 5.0),
                  '3': ('CPU 1/TCG', 7.0), '4': ('worker', 1.0)}
        after = {'1': ('qemu-system-x86', 11.5), '2': ('CPU 0/TCG', 6.0),
                 '3': ('CPU 1/TCG', 9.0), '4': ('worker', 1.25),
                 # a worker started between the two snapshots counts from 0
                 '5': ('worker', 0.5)}
        vcpu, other, per = qemu_cpu.split(before, after)
        self.assertAlmostEqual(vcpu, 3.0)
        self.assertAlmostEqual(other, 2.25)
        self.assertAlmostEqual(per['worker'], 0.75)
        self.assertAlmostEqual(per['CPU 1/TCG'], 2.0)

    def test_thread_times_of_this_process(self):
        stop = threading.Event()
        t = threading.Thread(target=stop.wait, name='dfp-test')
        t.start()
        try:
            times = qemu_cpu.thread_times(os.getpid())
        finally:
            stop.set()
            t.join()
        self.assertGreaterEqual(len(times), 2)
        for comm, secs in times.values():
            self.assertIsInstance(comm, str)
            self.assertGreaterEqual(secs, 0.0)


class TestMarks(unittest.TestCase):
    def test_half_written_line_is_not_a_marker(self):
        text = 'boot\nDFP_MARK begin randread-4k-qd32\nDFP_MARK end randread-4k-qd3'
        self.assertEqual(qemu_cpu.whole_line_marks(text), [('begin', 'randread-4k-qd32')])
        self.assertEqual(qemu_cpu.whole_line_marks(text + '2\n'),
                         [('begin', 'randread-4k-qd32'), ('end', 'randread-4k-qd32')])


class TestFio(unittest.TestCase):
    def test_ios_and_runtime(self):
        d = {'jobs': [{'read': {'total_ios': 1200}, 'write': {'total_ios': 34},
                       'job_runtime': 2000}]}
        with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
            json.dump(d, f)
        try:
            self.assertEqual(qemu_cpu.fio_ios(f.name), (1234, 2.0))
        finally:
            os.unlink(f.name)


if __name__ == '__main__':
    unittest.main()
