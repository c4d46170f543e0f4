# Shared helpers for dma-fastpath scripts. Source, do not run.
# shellcheck shell=bash
top=${top:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
export CCACHE_BASEDIR="$top/build"
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G}
# Depend mode: a cache miss runs the compiler once, taking the headers from
# its -MD output, instead of running the preprocessor first to hash them. On
# this 2-core machine it cut cold builds of kernel/ mm/ fs/ net/core/ (569
# objects, empty cache) from 210 and 206 s to 153 and 168 s (two runs, each
# order once), and the series bzImage from an empty cache and object
# directory from 566 to 440 s; hits cost the same (6.4-6.7 s) and find the
# entries the default mode made. Headers -MMD leaves out (the
# compiler's own) are covered by ccache's hash of the compiler; a file
# pulled in with .incbin is not, so such sources skip ccache (scripts/kcc).
# CCACHE_NODEPEND=1 turns it off.
[ -n "${CCACHE_NODEPEND:-}" ] || export CCACHE_DEPEND=1
export KBUILD_BUILD_USER=dma-fastpath KBUILD_BUILD_HOST=localhost
export KBUILD_BUILD_TIMESTAMP="2026-11-15 00:00:00 UTC"
JOBS=${JOBS:-$(nproc)}
# A KASAN report in the first second of a debug-kernel boot, from an
# interrupt taken while the boot CPU is still being identified (no DMA has
# happened yet), showed up in some boots under TCG (see testing.md; the
# debug kernel now boots with no5lvl, which removes its cause): the
# VM_SPLAT_IGNORE of scripts/vm for debug-kernel boots.
DEBUG_BOOT_SPLAT='^\[ *0\.[0-9]+\] BUG: KASAN: wild-memory-access in __common_interrupt'

# The UML image the KUnit timing cases run in (scripts/kunit with
# KUNIT_NODEBUG=1, make bench). Without the walker's self-checks, DMA
# API debug and the tracers: the code users run. Every function starts on
# 64 bytes (CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B): with UML's default 16,
# a change anywhere in a format's object moved the functions after it, and
# that alone moved single timing cases by up to 1.5x between images of
# identical code (Documentation/benchmarks.md). And the code generation of
# an x86_64 kernel for what the mapping loops compute per page:
# -mcmodel=small (UML's -mcmodel=large loads the address of every global,
# e.g. mem_map in page_to_pfn(), with a 10-byte movabs; x86_64 kernels use
# -mcmodel=kernel, an address in the instruction) and CONFIG_MEMCG, which
# makes struct page 64 bytes as in every distribution kernel (UML's 56
# turns page_to_pfn() into a multiply by an inverse). The UML image is
# linked below 2 GiB, so the small model holds it.
TIMING_KCFLAGS="-mcmodel=small"
TIMING_KCONFIG=(--kconfig_add CONFIG_DEBUG_GENERIC_PT=n
	--kconfig_add CONFIG_DMA_API_DEBUG=n
	--kconfig_add CONFIG_ENABLE_DEFAULT_TRACERS=n
	--kconfig_add CONFIG_EXPERT=y
	--kconfig_add CONFIG_DEBUG_FORCE_FUNCTION_ALIGN_64B=y
	--kconfig_add CONFIG_CGROUPS=y
	--kconfig_add CONFIG_MEMCG=y)

log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# ref_commit REF: the commit of REF in build/linux: base, bench-base,
# series (the tags make tree sets), patch:N (base..series up to and with
# patch N) or rev:COMMIT (any commit, e.g. an experiment's branch); a plain
# commit name is taken as it is. Fails when there is none.
ref_commit() {
	local c
	case "$1" in
	base|series|bench-base) c=$(git -C "$top/build/linux" rev-parse -q --verify "refs/tags/$1^{commit}") ;;
	patch:*) c=$(git -C "$top/build/linux" rev-list --reverse base..series | sed -n "${1#patch:}p") ;;
	*) c=$(git -C "$top/build/linux" rev-parse -q --verify "${1#rev:}^{commit}") ;;
	esac
	[ -n "$c" ] && echo "$c"
}

# ref_name REF: REF as a file name, for its build/obj-NAME, kunit-NAME and
# initramfs-NAME ("patch:12" -> "patch-12").
ref_name() { local n=${1//[:\/]/-}; echo "${n//[^A-Za-z0-9._-]/_}"; }

# kernel_src REF: check out REF (base, series, a commit) in the build
# worktree build/src and print its path. Every kernel build uses this one
# source path, so base and series objects share the ccache (the compiler
# command lines, which carry the relative source path, are identical) and
# an O= directory rebuilds only the files that differ between its last
# build and REF. Builds are serialised with a lock on build/src.lock.
kernel_src() {
	local ref wt="$top/build/src"
	ref=$(ref_commit "$1") || die "no $1 in build/linux (run: make tree)"
	if [ ! -e "$wt/.git" ]; then
		log "creating the build worktree build/src"
		git -C "$top/build/linux" worktree add -q --detach "$wt" "$ref" >&2
	fi
	if [ "$(git -C "$wt" rev-parse HEAD)" != "$ref" ]; then
		git -C "$wt" checkout -q -f --detach "$ref" >&2
	fi
	echo "$wt"
}

# scratch_tree REF: set SCRATCH to build/scratch, a worktree of build/linux
# checked out at REF with nothing else in it, held with a lock until this
# script exits. For the checks that read a tree or apply patches to one (b4,
# get_maintainer.pl). One worktree serves them all (a checkout of the kernel
# is 1.8 GiB); later uses reset it to REF, which rewrites only the files that
# differ: seconds, where a new worktree took 15-40 s to write. make check
# removes it after its last reader (scratch_drop), so it is made once a check.
scratch_tree() {
	local wt="$top/build/scratch" ref
	ref=$(git -C "$top/build/linux" rev-parse "$1^{commit}") || die "no $1 in build/linux (run: make tree)"
	exec {SCRATCH_LOCK}>"$wt.lock"
	flock "$SCRATCH_LOCK"
	# One of an earlier build/linux (make tree made it anew): start again.
	if [ -e "$wt/.git" ] && ! git -C "$wt" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		rm -rf "$wt"
	fi
	if [ ! -e "$wt/.git" ]; then
		git -C "$top/build/linux" worktree prune
		git -C "$top/build/linux" worktree add -q --detach "$wt" "$ref" >&2
	else
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		git -C "$wt" checkout -q -f --detach "$ref" >&2
		git -C "$wt" clean -q -fdx >&2
	fi
	SCRATCH=$wt
}

# scratch_drop: remove build/scratch, under its lock. make check drops it
# after its last reader: the kernels it builds next need the 1.8 GiB.
scratch_drop() {
	local wt="$top/build/scratch" lock
	exec {lock}>"$wt.lock"
	flock "$lock"
	if [ -e "$wt" ]; then
		git -C "$top/build/linux" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
		git -C "$top/build/linux" worktree prune
	fi
	exec {lock}>&-
}

# src_lock: hold the build/src lock until this script exits.
src_lock() {
	exec 9>"$top/build/src.lock"
	flock 9
}

# ARCH=arm64 in the environment selects the arm64 guest (qemu-system-aarch64
# -M virt with an SMMUv3): kernels cross-built with aarch64-linux-gnu-gcc
# from allnoconfig + configs/arm64.config, objects in build/obj-arm64-NAME,
# initramfs build/guest/initramfs-arm64-NAME.cpio.gz. ARCH_TAG is "arm64-"
# then, "" for the x86_64 guest.
if [ "${ARCH:-}" = arm64 ]; then
	ARCH_TAG=arm64- KIMAGE=arch/arm64/boot/Image
	export CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}
else
	ARCH_TAG= KIMAGE=arch/x86/boot/bzImage
fi

# obj_dir REF: the O= directory scripts/build builds REF in.
obj_dir() { echo "$top/build/obj-$ARCH_TAG$(ref_name "$1")"; }

kmake() {
	local src=$1 obj=$2; shift 2
	if [ -n "$ARCH_TAG" ]; then
		make -C "$src" O="$obj" -j"$JOBS" ARCH=arm64 CROSS_COMPILE="$CROSS_COMPILE" \
			CC="$top/scripts/kcc ${CROSS_COMPILE}gcc" HOSTCC="ccache gcc" "$@"
	else
		make -C "$src" O="$obj" -j"$JOBS" CC="$top/scripts/kcc gcc" HOSTCC="ccache gcc" "$@"
	fi
}

# Print a line every 500 compiled objects and every error/warning, so long
# builds show progress without flooding the log.
progress_filter() {
	awk -v tag="$1" '
		/^  (CC|AS|LD|AR|BTF|GEN|HOSTCC)/ { n++; if (n % 500 == 0) { printf "[%s] %s: %d steps, at %s\n", strftime("%H:%M:%S"), tag, n, $2; fflush() } next }
		/^  / { next }
		{ print; fflush() }'
}

# Fail when a =y/=n option of a fragment did not survive olddefconfig
# (a dependency is missing): a silent fallback would test the wrong kernel.
# As in merge_config.sh, a later fragment overrides an earlier one.
check_config() {
	local cfg=$1; shift
	local bad=0 f line sym val
	local -A want=()
	for f in "$@"; do
		while read -r line; do
			case "$line" in
			CONFIG_*=*) want[${line%%=*}]=${line#*=} ;;
			"# CONFIG_"*" is not set") sym=${line#\# }; want[${sym%% *}]=n ;;
			esac
		done < "$f"
	done
	for sym in "${!want[@]}"; do
		val=${want[$sym]}
		if [ "$val" = n ]; then
			grep -q "^$sym=" "$cfg" && { log "config: $sym should be off, is $(grep "^$sym=" "$cfg")"; bad=1; }
		else
			grep -qx "$sym=$val" "$cfg" || { log "config: $sym=$val wanted, got: $(grep "^$sym=\|# $sym is" "$cfg" || echo unset)"; bad=1; }
		fi
	done
	[ "$bad" = 0 ] || die "config fragments not satisfied in $cfg"
}

# bisect_config SRC OBJ: the config of build/obj-bisect (the series' slim
# config plus configs/bisect.config), made again only when a fragment or
# the defconfig changed. Used by scripts/bisect-build and
# scripts/static-analysis.
bisect_config() {
	local wt=$1 obj=$2 want
	local frags=("$top/configs/slim.config" "$top/configs/bisect.config")
	mkdir -p "$obj"
	want=$(cat "${frags[@]}" "$wt/arch/x86/configs/x86_64_defconfig" | sha256sum)
	if [ "$(cat "$obj/.dfp-cfg" 2>/dev/null)" != "$want" ]; then
		kmake "$wt" "$obj" x86_64_defconfig >/dev/null
		(cd "$wt" && scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" \
			"${frags[@]}" >/dev/null)
		kmake "$wt" "$obj" olddefconfig >/dev/null
		check_config "$obj/.config" "${frags[@]}"
		echo "$want" > "$obj/.dfp-cfg"
	fi
}

# Sources that compile only for arm64 (the SMMUv3 driver): the per-patch
# build and the static analysis compile them with the arm64 cross compiler
# in build/obj-bisect-arm64 (allnoconfig + configs/arm64.config, as the
# arm64 guest kernel).
ARM64_ONLY_RE='^(arch/arm64/|drivers/iommu/arm/)'

kmake_arm64() { ARCH_TAG=arm64- CROSS_COMPILE=aarch64-linux-gnu- kmake "$@"; }

# bisect_config_arm64 SRC OBJ: the config of build/obj-bisect-arm64, made
# again only when the fragment changed.
bisect_config_arm64() {
	local wt=$1 obj=$2 want frag="$top/configs/arm64.config"
	mkdir -p "$obj"
	want=$({ echo allnoconfig; cat "$frag"; } | sha256sum)
	if [ "$(cat "$obj/.dfp-cfg" 2>/dev/null)" != "$want" ]; then
		kmake_arm64 "$wt" "$obj" allnoconfig >/dev/null
		(cd "$wt" && scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" \
			"$frag" >/dev/null)
		kmake_arm64 "$wt" "$obj" olddefconfig >/dev/null
		check_config "$obj/.config" "$frag"
		echo "$want" > "$obj/.dfp-cfg"
	fi
}

# load_topics: read patches/TOPICS, the topic series of the stack in stack
# order, one "NAME COUNT [RFC]" line each (# comments), into TOPIC_NAME[i],
# TOPIC_COUNT[i], TOPIC_RFC[i] (1: posted as [RFC PATCH]) and TOPIC_TOTAL
# (the sum). A topic's patches live in
# patches/NAME/, its boundary in build/linux is tag topic/NAME (scripts/tree).
load_topics() {
	local f="$top/patches/TOPICS" name count extra ln=0 t
	[ -f "$f" ] || die "no patches/TOPICS: list the topic series of the stack there, one 'NAME COUNT' line each (README.md)"
	TOPIC_NAME=() TOPIC_COUNT=() TOPIC_RFC=() TOPIC_TOTAL=0
	while read -r name count extra || [ -n "$name" ]; do
		ln=$((ln + 1))
		case "$name" in ''|\#*) continue ;; esac
		[[ "$name" =~ ^[a-z0-9][a-z0-9._-]*$ && "$name" != series && "$count" =~ ^[1-9][0-9]*$ && ( -z "$extra" || "$extra" = RFC ) ]] ||
			die "patches/TOPICS:$ln: want 'NAME COUNT [RFC]' (NAME lowercase [a-z0-9._-], not 'series'; COUNT > 0), got: $name $count $extra"
		for t in "${TOPIC_NAME[@]}"; do
			[ "$t" != "$name" ] || die "patches/TOPICS:$ln: topic $name listed twice"
		done
		TOPIC_NAME+=("$name") TOPIC_COUNT+=("$count") TOPIC_RFC+=("$([ -n "$extra" ] && echo 1 || echo 0)")
		TOPIC_TOTAL=$((TOPIC_TOTAL + count))
	done < "$f"
	[ "${#TOPIC_NAME[@]}" -gt 0 ] || die "patches/TOPICS lists no topic"
}

# topic_patches NAME: the patches of topic NAME in patches/series
# (paths relative to patches/, git am order).
topic_patches() {
	grep -v '^#' "$top/patches/series" | grep "^$1/" || true
}
