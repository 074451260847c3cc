# Thin wrapper: dependencies, then meson. See README.md.
BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
MESON_OPTS ?=
# make fuzz: seconds per harness (make test runs each for a smoke of FUZZ_SMOKE_SECONDS)
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 15

# Debian 12 packages the build and the tests need.
DEPS = gcc meson ninja-build pkg-config libsystemd-dev libbpf-dev libinih-dev \
       libcriterion-dev clang llvm bpftool dbus-daemon dbus-bin valgrind \
       procps util-linux strace libclang-rt-14-dev libjson-c-dev

.PHONY: all deps build asan test bench demo run clean kernel test-kernel test-kernel-auto test-systemd \
	fuzz-build fuzz test-fuzz

all: build

deps:
	@missing=$$(for p in $(DEPS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; \
	done); \
	if [ -n "$$missing" ]; then \
		echo "make deps: installing" $$missing; \
		if [ "$$(id -u)" != 0 ]; then echo "make deps: run as root to install packages" >&2; exit 1; fi; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
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

build: deps $(BUILD)/build.ninja
	meson compile -C $(BUILD)

asan: deps $(ASAN_BUILD)/build.ninja
	meson compile -C $(ASAN_BUILD)

# Everything twice: a normal build, then ASan+UBSan. The integration suites
# run hcbsd under valgrind in the normal build.
# Skipped suites say why (lines starting "SKIP:" in the logs); a skip is not a pass.
test: build asan
	meson test -C $(BUILD) --print-errorlogs --num-processes 1
	@grep -h '^SKIP:' $(BUILD)/meson-logs/testlog.txt || true
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		meson test -C $(ASAN_BUILD) --print-errorlogs --num-processes 1
	@grep -h '^SKIP:' $(ASAN_BUILD)/meson-logs/testlog.txt || true
	HCBS_VALGRIND=1 tests/integration/run.sh $(BUILD) || [ $$? -eq 77 ]
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		tests/integration/run.sh $(ASAN_BUILD) || [ $$? -eq 77 ]
	@$(MAKE) --no-print-directory test-fuzz
	@$(MAKE) --no-print-directory test-kernel-auto
	@echo "make test: all suites passed in both builds (skips listed above)"

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

# bench-stats (the BPF collector's overhead) runs when built, as root.
bench: build
	@$(MAKE) --no-print-directory deps DEPS="$(BENCH_DEPS)"
	$(BUILD)/tests/bench/bench-admission
	$(BUILD)/tests/bench/bench-sizing
	tests/bench/bench-daemon.sh $(BUILD) || [ $$? -eq 77 ]
	@if [ -x $(BUILD)/tests/bench/bench-stats ]; then $(BUILD)/tests/bench/bench-stats; \
	else echo "SKIP: bench-stats: $(BUILD) has no BPF collector (meson -Dbpf)"; fi
	tests/bench/bench-watchdog.sh $(BUILD) || [ $$? -eq 77 ]
	tests/bench/bench-json.sh $(BUILD) || [ $$? -eq 77 ]

demo: build
	tests/demo/demo.sh $(BUILD)

run: demo

kernel:
	tests/kernel/qemu/harness.sh kernel

KERNEL ?= v2
GUEST_BINS = $(BUILD)/daemon/hcbsd $(BUILD)/cli/hcbsctl $(BUILD)/tests/kernel/hcbs-kernel-diff \
             $(BUILD)/tests/tools/hcbs-rtload

# The busybox guest suite for KERNEL, then the systemd guest (test-systemd).
test-kernel: build
	KERNEL=$(KERNEL) HCBS_GUEST_BINS="$(GUEST_BINS)" tests/kernel/qemu/harness.sh test
	@$(MAKE) --no-print-directory test-systemd

# Debian bookworm with systemd under qemu, hcbsd installed by `meson install`
# from $(GUEST_BUILD) (--prefix=/usr, set up by the harness if missing), and
# tests/kernel/qemu/guest-systemd/ run there.  The kernel is KERNEL when given
# (command line or environment), else auto: hcbs when its series exists, v2
# otherwise.  Cold: a kernel (about 9 minutes) and the rootfs (debootstrap).
GUEST_BUILD ?= build-guest
ifneq ($(filter command line environment,$(origin KERNEL)),)
SYSTEMD_KERNEL = $(KERNEL)
else
SYSTEMD_KERNEL = auto
endif

test-systemd: deps
	KERNEL=$(SYSTEMD_KERNEL) HCBS_GUEST_BUILD="$(abspath $(GUEST_BUILD))" tests/kernel/qemu/harness.sh systemd-test

# From make test: the stage-1 kernel always (built if missing, about 9 minutes
# cold), the HCBS kernels (rfc1, v6) when cached (make test-kernel KERNEL=hcbs|hcbs6 builds them).
test-kernel-auto: build
	@for k in v2 hcbs hcbs6; do \
		if [ $$k = v2 ] || KERNEL=$$k tests/kernel/qemu/harness.sh status >/dev/null 2>&1; then \
			KERNEL=$$k HCBS_GUEST_BINS="$(GUEST_BINS)" tests/kernel/qemu/harness.sh test || exit 1; \
		else \
			echo "SKIP: KERNEL=$$k: no cached kernel; 'make test-kernel KERNEL=$$k' builds it (about 9 minutes cold)"; \
		fi; \
	done

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(GUEST_BUILD) $(FUZZ_BUILD)
