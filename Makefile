# The project's two entry points (see README): `make example` and `make test`.
# One cargo target dir outside the clone is reused by every build, CI included; a fresh machine fills it.
PYTHON ?= python3
export CARGO_TARGET_DIR ?= $(HOME)/.cache/dspy-rust-interpreter/target
# rustpython-vm 0.6.0's parser crates declare rust-version 1.96; they build and run on this toolchain.
# The test build has the fault-injection hooks the isolation tests use (Cargo.toml); wheels never do.
export MATURIN_PEP517_ARGS ?= --ignore-rust-version --features fault-injection
export RUST_MIN_STACK ?= 67108864

.PHONY: install example lint reference-python test test-rust test-python test-dspy-versions wheel test-wheel test-aarch64 fuzz bench bench-smoke ci-bench-smoke dspy-tests

install:
	$(PYTHON) -m pip install --quiet --upgrade pip maturin
	# The extension is abi3 now: an older per-version build left here would be imported before it.
	rm -f dspy_rust_interpreter/_native.cpython-*.so
	$(PYTHON) -m pip install --quiet -e ".[test]"

example: install
	$(PYTHON) examples/rlm_long_document.py

# The formatters (rustfmt, rustfmt.toml; ruff format) and clippy over the crate, ruff over the Python (the sandbox's
# own Python and the programs tests run in it aside, see pyproject.toml), and the extension module checked against
# its stub, _native.pyi (mypy's stubtest).
PYTHON_SOURCES = dspy_rust_interpreter tools benchmarks fuzz examples conformance tests
lint: install
	cargo fmt --check
	cargo clippy --release --ignore-rust-version --lib -- -D warnings
	cargo clippy --release --ignore-rust-version --lib --features fault-injection -- -D warnings
	$(PYTHON) -m ruff format --check $(PYTHON_SOURCES)
	$(PYTHON) -m ruff check $(PYTHON_SOURCES)
	$(PYTHON) -m mypy.stubtest --ignore-disjoint-bases --allowlist tools/stubtest-allowlist.txt dspy_rust_interpreter._native

test-rust:
	cargo test --release --ignore-rust-version --lib --features fault-injection

# CPython 3.14, the reference the tests compare the sandbox with (tools/reference_python.py: Debian's, unpacked once
# into the cache).
reference-python:
	$(PYTHON) tools/reference_python.py

test-python: install reference-python
	$(PYTHON) -m pytest tests conformance

# A bounded fuzz run; FUZZ_SECONDS=3600 make fuzz for a longer campaign (FUZZ_SEED picks another stream).
# Then the regular expressions against CPython's re (fuzz/fuzz_regex.py; FUZZ_REGEX_SECONDS=3600 for a campaign).
FUZZ_SECONDS ?= 120
FUZZ_REGEX_SECONDS ?= 60
# Then callbacks that change what native code is working on (fuzz/fuzz_callbacks.py), in sessions, and some of
# them under valgrind's memcheck in the unit-test binary (fuzz/memcheck_callbacks.py).
FUZZ_CALLBACK_SECONDS ?= 60
FUZZ_MEMCHECK_PROGRAMS ?= 200
fuzz: install reference-python
	$(PYTHON) fuzz/fuzz_interpreter.py --seconds $(FUZZ_SECONDS)
	$(PYTHON) fuzz/fuzz_regex.py --seconds $(FUZZ_REGEX_SECONDS)
	$(PYTHON) fuzz/fuzz_callbacks.py --seconds $(FUZZ_CALLBACK_SECONDS)
	$(PYTHON) fuzz/memcheck_callbacks.py --programs $(FUZZ_MEMCHECK_PROGRAMS)

# The dspy-facing tests again in a venv per supported dspy (newest 3.3.x, newest release): tools/dspy_venvs.py.
test-dspy-versions: install
	$(PYTHON) tools/dspy_venvs.py

# The wheel users install, in dist/, built with the `dist` profile (fat LTO, one codegen unit): abi3 (one for
# every CPython >= 3.10), manylinux_2_28 (linked through zig against glibc 2.28, so it runs on RHEL 8, Ubuntu
# 20.04 and later), checked by auditwheel.
# The same for 64-bit ARM (aarch64), cross-built on this machine (rustup's target, zig's linker).
wheel:
	$(PYTHON) -m pip install --quiet --upgrade maturin ziglang auditwheel
	rustup target add aarch64-unknown-linux-gnu
	rm -rf dist
	$(PYTHON) -m maturin build --profile dist --ignore-rust-version --zig --compatibility manylinux_2_28 --out dist
	$(PYTHON) -m maturin build --profile dist --ignore-rust-version --zig --compatibility manylinux_2_28 --out dist \
		--target aarch64-unknown-linux-gnu

# The built wheel in fresh venvs of CPython 3.10 and 3.13, running the RLM example outside the source tree.
test-wheel: wheel
	$(PYTHON) tools/wheel_check.py

# The aarch64 wheels under qemu-user (tools/aarch64_check.py): the shipped one fails closed there (qemu-user
# cannot install its system-call filter), a test build without the filter runs the RLM example, the conformance
# kit and the isolation suite. Installs qemu-user and debootstrap (Debian's), unpacks an arm64 CPython once.
# Not part of `make test`: the suite under emulation takes longer than CI allows.
test-aarch64: wheel
	$(PYTHON) tools/aarch64_check.py

test: lint test-rust test-python test-dspy-versions test-wheel fuzz

# The side-by-side benchmark (benchmarks/README.md): every peer, several minutes; writes benchmarks/results/.
# It measures the build users install (the `dist` profile); `make install` goes back to the quick build.
# Not part of `make test`. bench-smoke is the seconds-long --quick run (RustInterpreter and exec only); it runs
# whatever package is importable from the repository, so ci-bench-smoke installs first, as CI starts clean.
bench:
	$(PYTHON) -m pip install --quiet --upgrade pip maturin
	MATURIN_PEP517_ARGS="--profile dist --ignore-rust-version" $(PYTHON) -m pip install --quiet -e ".[bench]"
	$(PYTHON) benchmarks/run.py

BENCH_SMOKE_OUT ?= $(or $(TMPDIR),/tmp)/dspy-rust-interpreter-bench-smoke
bench-smoke:
	$(PYTHON) benchmarks/run.py --quick --out $(BENCH_SMOKE_OUT)
	test -s $(BENCH_SMOKE_OUT)/results.json

ci-bench-smoke: install bench-smoke

# dspy's own interpreter tests with RustInterpreter in place of PythonInterpreter (tools/dspy_tests.py), at the
# tag of DSPY_VERSION (default: the installed dspy), installed into a venv of its own (the one
# tools/dspy_venvs.py makes). Needs dspy's repository: DSPY_REPO is its git URL (the default) or a
# local git mirror. Not part of `make test` (it needs the network).
DSPY_VERSION ?= $(shell $(PYTHON) -c "import dspy; print(dspy.__version__)")
DSPY_REPO ?= https://github.com/stanfordnlp/dspy.git
dspy-tests: install
	$(PYTHON) tools/dspy_tests.py --dspy $(DSPY_VERSION) --repo $(DSPY_REPO)
