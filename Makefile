# Thin wrapper: dependencies, then meson. See README.md.
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
COV_BUILD  ?= build-cov
MESON_OPTS ?=
# make fuzz: seconds per harness (make test runs each for a smoke of FUZZ_SMOKE_SECONDS)
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 15

# Debian 12 packages the build and the tests need. systemd: busctl and
# systemd-socket-activate (the integration suites, hcbs-exporter's);
# prometheus: its server and promtool, which scrape and check hcbs-exporter
# (test-exporter.sh; make deps stops and disables the server it installs).
DEPS = gcc meson ninja-build pkg-config libsystemd-dev libbpf-dev libinih-dev \
       libcriterion-dev clang llvm bpftool dbus-daemon dbus-bin valgrind gcovr \
       procps util-linux strace libclang-rt-14-dev scdoc bash-completion libjson-c-dev \
       systemd prometheus rt-tests rt-app

.PHONY: all deps build asan test bench demo run clean kernel test-kernel test-kernel-auto test-systemd \
	fuzz-build fuzz test-fuzz kernel-prefetch deb coverage soak soak-guest browser-deps

all: build

deps:
	@missing=$$(for p in $(DEPS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing" $$missing; \
		if [ "$$(id -u)" != 0 ]; then echo "make deps: run as root to install packages" >&2; exit 1; fi; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing || exit 1; \
		if echo " $$missing " | grep -q ' prometheus ' && [ -d /run/systemd/system ]; then \
			echo "make deps: stopping and disabling the prometheus.service the package started: the tests run their own"; \
			systemctl disable --now prometheus.service || true; \
		fi; \
	fi

$(BUILD)/build.ninja: | deps
	meson setup $(BUILD) $(MESON_OPTS)

$(ASAN_BUILD)/build.ninja: | deps
	meson setup $(ASAN_BUILD) $(MESON_OPTS) -Db_sanitize=address,undefined -Db_lundef=false \
		-Dc_args=-fno-sanitize-recover=all

# clang with libFuzzer and ASan+UBSan: tests/fuzz/README.md
$(FUZZ_BUILD)/build.ninja: | deps
	CC=clang meson setup $(FUZZ_BUILD) $(MESON_OPTS) -Dfuzz=true -Dtests=false \
		-Db_sanitize=address,undefined -Db_lundef=false -Dc_args=-fno-sanitize-recover=all

$(COV_BUILD)/build.ninja: | deps
	meson setup $(COV_BUILD) $(MESON_OPTS) -Db_coverage=true

build: deps $(BUILD)/build.ninja
	meson compile -C $(BUILD)

asan: deps $(ASAN_BUILD)/build.ninja
	meson compile -C $(ASAN_BUILD)

# Everything twice: a normal build, then ASan+UBSan. The integration suites
# run hcbsd under valgrind in the normal build.
# Skipped suites say why (lines starting "SKIP:" in the logs); a skip is not a pass.
#
# Then the kernels under qemu (test-kernel-auto): the HCBS kernel, built if
# missing, its busybox guest and the systemd guest on it; the stage-1, HCBS v6
# and hcbs7 kernels' busybox guests too when those kernels are cached (their own
# interfaces, legacy-v2 and rtmax, exist only on this project's kernels; a second
# kernel built cold would cost a 2-core machine about 6 more minutes, and hcbs7's
# guest takes 7: patches/hcbs-v7-6.12/README.md). The
# kernels and the systemd rootfs are built (or found cached) in the background
# while the host suites run (log: $(BUILD)/kernel-prefetch.log). HCBS_QUICK=1 keeps only
# the stage-1 kernel's guest, for a fast loop.
HCBS_QUICK ?=
ifeq ($(HCBS_QUICK),)
TEST_KERNELS ?= hcbs
else
TEST_KERNELS ?= v2
endif

test: deps
	@$(MAKE) --no-print-directory kernel-prefetch
	@$(MAKE) --no-print-directory build asan
	meson test -C $(BUILD) --print-errorlogs --num-processes 1
	@grep -h '^SKIP:' $(BUILD)/meson-logs/testlog.txt || true
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		meson test -C $(ASAN_BUILD) --print-errorlogs --num-processes 1
	@grep -h '^SKIP:' $(ASAN_BUILD)/meson-logs/testlog.txt || true
	HCBS_VALGRIND=1 tests/integration/run.sh $(BUILD) || [ $$? -eq 77 ]
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		tests/integration/run.sh $(ASAN_BUILD) || [ $$? -eq 77 ]
	@$(MAKE) --no-print-directory soak SOAK_BUILD=$(ASAN_BUILD) SOAK_SECONDS=$(SOAK_TEST_SECONDS) SOAK_SEED=$(SOAK_TEST_SEED)
	@$(MAKE) --no-print-directory test-fuzz
	@$(MAKE) --no-print-directory test-kernel-auto
	@echo "make test: all suites passed in both builds (skips listed above)"

# Line coverage of daemon/ from the host suites: meson test, then (COV_INTEGRATION=1, root and
# RT cgroups on the host) the integration suites; per file and in total, by gcovr.
COV_INTEGRATION ?=
coverage: deps $(COV_BUILD)/build.ninja
	meson compile -C $(COV_BUILD)
	find $(COV_BUILD) -name '*.gcda' -delete
	meson test -C $(COV_BUILD) --print-errorlogs --num-processes 1
	[ -z "$(COV_INTEGRATION)" ] || tests/integration/run.sh $(COV_BUILD) || [ $$? -eq 77 ]
	gcovr --root . --filter 'daemon/' --exclude-unreachable-branches --txt $(COV_BUILD)/coverage-daemon.txt \
		--print-summary $(COV_BUILD)
	@echo "make coverage: per file in $(COV_BUILD)/coverage-daemon.txt"

fuzz-build: deps $(FUZZ_BUILD)/build.ninja
	meson compile -C $(FUZZ_BUILD)

# Each harness on its seeds, then FUZZ_SMOKE_SECONDS of fuzzing; a crash fails.
test-fuzz: fuzz-build
	HCBS_FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS) meson test -C $(FUZZ_BUILD) --suite fuzz --print-errorlogs --num-processes 1
	@grep -h '^fuzz-.*: .* runs in ' $(FUZZ_BUILD)/meson-logs/testlog.txt || true

# make fuzz FUZZ_SECONDS=N: each harness N seconds, one after the other.
fuzz: fuzz-build
	@set -e; for seeds in tests/fuzz/corpus/*/; do \
		h=$$(basename $$seeds); \
		tests/fuzz/run.sh $(FUZZ_BUILD)/tests/fuzz/$$h $$seeds $(FUZZ_SECONDS); \
	done

# cgroup-tools for the cgcreate/cgset side of bench-daemon.sh, bc for its arithmetic
BENCH_DEPS = cgroup-tools bc

# bench-stats (the BPF collector's overhead) runs when built, as root;
# bench-exporter.sh: a hcbs-exporter scrape at 1,000 groups.
# Each bench adds its rows of the reviewer's table to $(BENCH_TABLE) (tests/bench/table.sh
# says how); the table is printed last, with the load before and after (a busy machine's
# figures are not the quiet machine's the targets are about).
BENCH_TABLE = $(BUILD)/bench-table.tsv
bench: export HCBS_BENCH_TABLE = $(abspath $(BENCH_TABLE))
bench: build
	@$(MAKE) --no-print-directory deps DEPS="$(BENCH_DEPS)"
	@: >$(BENCH_TABLE); echo "make bench: $$(date -u '+%Y-%m-%d %H:%M UTC'), load before:$$(uptime | sed 's/.*load average://')"
	$(BUILD)/tests/bench/bench-admission
	$(BUILD)/tests/bench/bench-sizing
	tests/bench/bench-daemon.sh $(BUILD) || [ $$? -eq 77 ]
	@if [ -x $(BUILD)/tests/bench/bench-stats ]; then $(BUILD)/tests/bench/bench-stats; \
	else echo "SKIP: bench-stats: $(BUILD) has no BPF collector (meson -Dbpf)"; fi
	tests/bench/bench-watchdog.sh $(BUILD) || [ $$? -eq 77 ]
	tests/bench/bench-json.sh $(BUILD) || [ $$? -eq 77 ]
	tests/bench/bench-exporter.sh $(BUILD) || [ $$? -eq 77 ]
	tests/bench/bench-sizing-load.sh $(BUILD) || [ $$? -eq 77 ]
	@echo; echo "The reviewer's table (issue 24), load after:$$(uptime | sed 's/.*load average://')"; \
	tests/bench/table.sh $(BENCH_TABLE)

# make soak: the randomized fault soak (tests/soak/README.md) on a scratch subtree of the host's
# cgroup-v1 cpu controller, SOAK_SECONDS long (default 600) from SOAK_SEED (default random, printed;
# the same seed replays the same choices). make test runs a slice of SOAK_TEST_SECONDS on the ASan
# build with a fixed seed. make soak-guest runs it in the HCBS guest (KERNEL=hcbs, TCG).
SOAK_SECONDS ?= 600
SOAK_SEED ?=
SOAK_TEST_SECONDS ?= 60
SOAK_TEST_SEED ?= 1
SOAK_BUILD ?= $(BUILD)
soak: build
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		SOAK_SECONDS=$(SOAK_SECONDS) SOAK_SEED=$(SOAK_SEED) \
		flock $${HCBS_IT_LOCK:-/run/lock/hcbsd-integration.lock} tests/soak/soak.sh $(SOAK_BUILD) || [ $$? -eq 77 ]

soak-guest: build
	KERNEL=hcbs HCBS_GUEST_SUITES=soak HCBS_SOAK_SECONDS=$(SOAK_SECONDS) HCBS_SOAK_SEED=$(SOAK_SEED) \
		HCBS_GUEST_BINS="$(GUEST_BINS)" tests/kernel/qemu/harness.sh test

# make demo: hcbsd on this machine's kernel (mainline RT groups on cgroup v1);
# KERNEL=hcbs or hcbs6: the project's HCBS kernel under qemu, which a machine
# without a usable RT group interface picks by itself (tests/demo/demo.sh).
# DEMO_KERNEL is KERNEL only when given (command line or environment).
DEMO_KERNEL = $(if $(filter command line environment,$(origin KERNEL)),$(KERNEL))
demo: build
	DEMO_KERNEL=$(DEMO_KERNEL) tests/demo/demo.sh $(BUILD)

run: demo

kernel:
	tests/kernel/qemu/harness.sh kernel

KERNEL ?= v2
GUEST_BINS = $(BUILD)/daemon/hcbsd $(BUILD)/cli/hcbsctl $(BUILD)/tests/kernel/hcbs-kernel-diff \
             $(BUILD)/tests/tools/hcbs-rtload $(BUILD)/tests/soak/hcbs-soak $(BUILD)/tests/integration/fake-polkit \
             $(BUILD)/tests/integration/stats-load

# The busybox guest suite for KERNEL, then the systemd guest (test-systemd).
test-kernel: build
	KERNEL=$(KERNEL) HCBS_GUEST_BINS="$(GUEST_BINS)" tests/kernel/qemu/harness.sh test
	@$(MAKE) --no-print-directory test-systemd

# Debian bookworm with systemd under qemu, hcbsd installed with `dpkg -i` from
# the .deb that `make deb` builds into $(GUEST_DEB_DIR) (an ASan+UBSan build,
# by the harness), and tests/kernel/qemu/guest-systemd/ run there.  The kernel
# is KERNEL when given (command line or environment), else auto: hcbs when its
# series exists, v2 otherwise.  Cold: a kernel (about 9 minutes) and the
# rootfs (debootstrap).
GUEST_DEB_DIR ?= build-deb-guest
ifneq ($(filter command line environment,$(origin KERNEL)),)
SYSTEMD_KERNEL = $(KERNEL)
else
SYSTEMD_KERNEL = auto
endif

test-systemd: deps browser-deps
	KERNEL=$(SYSTEMD_KERNEL) HCBS_GUEST_DEB_DIR="$(abspath $(GUEST_DEB_DIR))" tests/kernel/qemu/harness.sh systemd-test

# The systemd guest's browser test (tests/browser/, guest-systemd/suite-cockpit.sh):
# Debian's chromium, node and npm (Debian's nodejs and npm when there is no npm
# at all), then npm ci of tests/browser/package-lock.json (playwright-core, no
# browser download) when node_modules is missing or older than the lockfile.
# What cannot be installed here makes that test a SKIP naming it, not a failure.
BROWSER_DEPS = chromium
browser-deps:
	@$(MAKE) --no-print-directory deps DEPS="$(BROWSER_DEPS)" || \
		echo "make browser-deps: cannot install $(BROWSER_DEPS): the browser test will be a SKIP"
	@command -v npm >/dev/null || $(MAKE) --no-print-directory deps DEPS="nodejs npm" || \
		echo "make browser-deps: cannot install nodejs and npm: the browser test will be a SKIP"
	@if command -v npm >/dev/null && { [ ! -f tests/browser/node_modules/.package-lock.json ] || \
	    [ tests/browser/package-lock.json -nt tests/browser/node_modules/.package-lock.json ]; }; then \
		echo "make browser-deps: npm ci in tests/browser (playwright-core)"; \
		(cd tests/browser && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error) || \
			echo "make browser-deps: npm ci failed: the browser test will be a SKIP"; \
	fi

# From make test: the kernels of TEST_KERNELS always (built if missing, about
# 4 minutes each cold), the others (v2, hcbs, hcbs6, hcbs7) when cached; then the
# systemd guest unless HCBS_QUICK is set.
test-kernel-auto: build
	@if [ -e $(BUILD)/kernel-prefetch.lock ] && ! flock -n $(BUILD)/kernel-prefetch.lock true; then \
		echo "make test: waiting for the background kernel and rootfs builds (log: $(BUILD)/kernel-prefetch.log): the guests' deadline checks need the host's cores"; \
		flock $(BUILD)/kernel-prefetch.lock true; \
	fi
	@for k in v2 hcbs hcbs6 hcbs7; do \
		if echo " $(TEST_KERNELS) " | grep -q " $$k "; then \
			KERNEL=$$k HCBS_GUEST_BINS="$(GUEST_BINS)" tests/kernel/qemu/harness.sh test || exit 1; \
		elif KERNEL=$$k tests/kernel/qemu/harness.sh status >/dev/null 2>&1; then \
			KERNEL=$$k HCBS_GUEST_BINS="$(GUEST_BINS)" tests/kernel/qemu/harness.sh test || exit 1; \
		else \
			echo "SKIP: KERNEL=$$k: no cached kernel, and make test builds only TEST_KERNELS ($(TEST_KERNELS)): one more cold kernel and its guest would add 6-13 minutes (hcbs7 the most: patches/hcbs-v7-6.12/README.md), beyond make test's 30; 'make test-kernel KERNEL=$$k' or TEST_KERNELS=\"$(TEST_KERNELS) $$k\" builds it"; \
		fi; \
	done
	@if [ -z "$(HCBS_QUICK)" ]; then $(MAKE) --no-print-directory test-systemd; \
	else echo "SKIP: the systemd guest: HCBS_QUICK is set"; fi

# Builds (or finds cached) the systemd rootfs and the kernels of TEST_KERNELS in
# the background, niced, so make test's compiles and host suites overlap them
# (make test installs its own packages first: two apt-gets never run at once,
# and the later deps targets find everything installed); the harness's
# cache locks make the later runs wait for these builds, and test-kernel-auto
# waits for all of them (kernel-prefetch.lock): a guest's deadline checks run
# under qemu, whose vCPU threads lose time to a busy host. The lock is on fd 5,
# which the harness never touches (it takes 8 and 9 for its own locks, and the
# last command of the subshell may be exec'd in its place). The rootfs comes
# first: it waits mostly on the network, the kernels on the CPU. A make test
# that fails early leaves them to finish into the cache.
kernel-prefetch:
	@if [ -n "$(HCBS_QUICK)" ] && [ "$(TEST_KERNELS)" = v2 ] && \
	    KERNEL=v2 tests/kernel/qemu/harness.sh status >/dev/null 2>&1; then exit 0; fi; \
	mkdir -p $(BUILD); \
	echo "make test: building or finding the systemd rootfs and the kernels ($(TEST_KERNELS)) in the background (log: $(BUILD)/kernel-prefetch.log)"; \
	( flock 5 && tests/kernel/qemu/harness.sh deps && \
	  { [ -n "$(HCBS_QUICK)" ] || KERNEL=auto tests/kernel/qemu/harness.sh rootfs; } && \
	  for k in $(TEST_KERNELS); do KERNEL=$$k tests/kernel/qemu/harness.sh kernel || exit 1; done \
	) >$(BUILD)/kernel-prefetch.log 2>&1 </dev/null 5>$(BUILD)/kernel-prefetch.lock &

# make deb: hcbsd_VERSION_ARCH.deb in $(DEB_DIR)/ (debian/, dh with meson).
# The sources (git ls-files, uncommitted changes included) are copied to
# $(DEB_DIR)/hcbsd-VERSION/ and built there, so dpkg-buildpackage writes its
# results into $(DEB_DIR)/ and never into the parent of this tree. The build
# dependencies come from debian/control (apt-get build-dep), then lintian
# checks the package: an error fails (LINTIAN_FAIL_ON), the other tags are
# printed (debian/README.source explains the ones left).
DEB_DIR ?= build-deb
LINTIAN_FAIL_ON ?= error
DEB_TOOLS = dpkg-dev debhelper fakeroot lintian
deb:
	@$(MAKE) --no-print-directory deps DEPS="$(DEB_TOOLS)"
	@dpkg-checkbuilddeps >/dev/null 2>&1 || { \
		echo "make deb: installing the build dependencies of debian/control"; \
		if [ "$$(id -u)" != 0 ]; then echo "make deb: run as root to install packages" >&2; exit 1; fi; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq --no-install-recommends ./; }
	rm -rf $(DEB_DIR)
	v=$$(dpkg-parsechangelog -S Version) && src=$(DEB_DIR)/hcbsd-$$v && mkdir -p $$src && \
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z --cached --others --exclude-standard | \
			xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh | \
			tar --null -T - -cf - | tar -C $$src -xf -; \
	else \
		tar --exclude='./build*' --exclude=./.git -cf - . | tar -C $$src -xf -; \
	fi && \
	cd $$src && nice dpkg-buildpackage -b -uc -us
	@ls -l $(DEB_DIR)/*.deb
	lintian --fail-on $(LINTIAN_FAIL_ON) --display-info $(DEB_DIR)/hcbsd_*.deb

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(GUEST_DEB_DIR) $(FUZZ_BUILD) $(DEB_DIR)
