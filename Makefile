# dma-fastpath: every entry point of the project. See README.md and
# Documentation/reference.md.
SHELL := /bin/bash
.DEFAULT_GOAL := help

MODE ?= intel-strict
KERNEL ?= series
WORKLOAD ?=
CMD ?= /usr/share/dfp/dfp-check.sh

help:
	@echo "make check     the test suite: ends with 'N passed, N failed' (runs make deps first)"
	@echo "make bench     A/B benchmarks, base and series guests at once (ROUNDS=5, QUICK=1 smoke run, AA=1 A/A,"
	@echo "               BASE=/SERIES= any commit, FAMILIES=icount counts, MODES=intel-switch|smmuv3-switch, HOSTCPU=1; runs make deps first)"
	@echo "make deps      install Debian packages, fetch the pinned base source (seconds once done)"
	@echo "make tree      build/linux: base commit (tag base) + git am of patches/ (tag series)"
	@echo "make export    write patches/ and the mirrors back from build/linux (base..fastpath)"
	@echo "make kernel    build the base and series guest kernels (incremental, ccache)"
	@echo "make initramfs build the guest initramfs for the series kernel"
	@echo "make kunit     generic_pt KUnit under UML on the series (KUNIT_SLOW=1 adds timing cases)"
	@echo "make vm        boot KERNEL=$(KERNEL) in MODE=$(MODE) and run CMD in the guest"
	@echo "make stress    debug kernel: fio verify + dma_map_benchmark + fault injection (STRESS_MINUTES=30)"
	@echo "make static    indirect calls reachable from the DMA API, base and series vmlinux"
	@echo "make analysis  W=1, sparse and kernel-doc warnings of the touched files, base vs series"
	@echo "make cover     cover letters: Cc per topic from get_maintainer, figures from bench/results/LATEST"
	@echo "make versions  tag each revision in patches/VERSIONS, print range-diffs (PUBLISH=1 records one)"
	@echo "make profile   perf + bpftrace profile of WORKLOAD= on KERNEL=$(KERNEL) in MODE=$(MODE)"

deps:
	scripts/deps

tree:
	scripts/tree

export:
	scripts/export

kernel:
	scripts/build base bzImage
	scripts/build series bzImage

# The guest tests need the benchmark uapi of the measurement topic: no initramfs for the
# unpatched base (make bench builds one for bench-base, BENCH_BASE_TOPICS).
initramfs:
	scripts/initramfs series

kunit:
	scripts/kunit series

vm:
	scripts/vm -k $(KERNEL) $(MODE) -- $(CMD)

check: deps
	scripts/check

# Debug kernel (KASAN, DMA-API debug, kmemleak, fault injection), fio verify
# + dma_map_benchmark + injected allocation failures; STRESS_MINUTES=30.
stress:
	scripts/stress

# Debian's python3 (scipy, matplotlib), whatever python3 comes first in PATH.
bench: deps
	/usr/bin/python3 bench/run.py

# One workload under perf record and bpftrace in the guest (bench/trace/).
profile:
	bench/trace/profile "$(WORKLOAD)" $(KERNEL) $(MODE)

# Needs the two vmlinux: make kernel.
static:
	scripts/indirect-calls --label base build/obj-base --label series build/obj-series

analysis:
	scripts/static-analysis

# RESULTS=bench/results/<run> picks another report than the latest.
cover:
	scripts/cover

versions:
	scripts/versions

bench-test:
	/usr/bin/python3 -m unittest bench/test_compare.py bench/test_run.py

.PHONY: help deps tree export kernel initramfs kunit vm check stress bench profile static analysis cover versions bench-test
