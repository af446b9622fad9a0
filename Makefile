# The project's two entry points (see README): `make example` and `make test`.
# One cargo target dir outside the clone is reused by every build, CI included; a fresh machine fills it.
PYTHON ?= python3
export CARGO_TARGET_DIR ?= $(HOME)/.cache/dspy-rust-interpreter/target
# rustpython-vm 0.6.0's parser crates declare rust-version 1.96; they build and run on this toolchain.
export MATURIN_PEP517_ARGS ?= --ignore-rust-version
export RUST_MIN_STACK ?= 67108864

.PHONY: install example test test-rust test-python

install:
	$(PYTHON) -m pip install --quiet --upgrade pip maturin
	$(PYTHON) -m pip install --quiet -e ".[test]"

example: install
	$(PYTHON) examples/rlm_long_document.py

test-rust:
	cargo test --release --ignore-rust-version --lib

test-python: install
	$(PYTHON) -m pytest tests conformance

test: test-rust test-python
