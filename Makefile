# cellaqm developer tasks. `make help` lists them.
# Everything Python runs inside $(VENV); Rust builds share ./target.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
SCENARIO ?= scenarios/default.toml

# Python packages the venv needs (runtime + test + build; dpkt: the tests read
# `--pcap` files back with an independent pcap parser). Ray, the optional
# backend of `cellaqm sweep` (some 200 MB), is not among them: `make ray`
# installs it (or pip's `cellaqm[ray]` extra); without it its test is skipped
# with the reason.
VENV_PKGS := maturin numpy pandas rich pytest hypothesis mypy dpkt \
             pyarrow matplotlib scipy statsmodels

# Rebuild the extension only when Rust sources or build configuration change.
# Python sources under python/ are picked up live (maturin develop installs
# the package in editable mode), so they are not listed.
RUST_SRCS := $(shell find crates -name '*.rs' -o -name Cargo.toml 2>/dev/null) \
             Cargo.toml $(wildcard Cargo.lock) pyproject.toml

VENV_STAMP  := $(VENV)/.cellaqm-venv.stamp
BUILD_STAMP := $(VENV)/.cellaqm-build.stamp

.DEFAULT_GOAL := help
# One cargo build at a time: the targets share ./target.
.NOTPARALLEL:
.PHONY: help venv ray build run run-scenario reproduce reproduce-lte reproduce-hsdsch reproduce-dsch reproduce-rlc reproduce-modern bench-wcdma test lint test-rust test-python stubtest bench bench-memory bench-interrupt bench-call bench-startup bench-many-flows bench-sweep bench-store bench-scale bench-lte-downlink clean

help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

venv: $(VENV_STAMP) ## Create .venv (maturin, numpy, pandas, rich, pyarrow, matplotlib, scipy, statsmodels, test tools)

# pip shows what it downloads and installs: the first time about 300 MB, a few minutes.
$(VENV_STAMP): Makefile
	@echo "== 1/2 Python packages into $(VENV) (first time: a few minutes, about 300 MB from PyPI)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check -U pip
	$(BIN)/python -m pip install --disable-pip-version-check -U $(VENV_PKGS)
	touch $@

ray: $(VENV_STAMP) ## Install Ray into .venv, the optional backend of `cellaqm sweep --backend ray` (about 200 MB)
	$(BIN)/python -m pip install --disable-pip-version-check -U 'ray>=2.9'

build: $(BUILD_STAMP) ## Build the Rust extension (release) into .venv with maturin develop

# cargo prints each crate it compiles; the first build takes about 10 minutes on 2 cores.
$(BUILD_STAMP): $(VENV_STAMP) $(RUST_SRCS)
	@echo "== 2/2 the Rust extension, release build (first time: about 10 minutes on 2 cores; then only what changed)"
	VIRTUAL_ENV=$(abspath $(VENV)) PATH="$(abspath $(BIN)):$$PATH" \
		$(BIN)/maturin develop --release
	touch $@

run: build ## Build, then compare every AQM scheme on a WCDMA bearer (table + results/demo/demo.png, a few seconds)
	$(BIN)/cellaqm reproduce wcdma-rnc-aqm --demo --out results/demo

run-scenario: build ## Build, then simulate scenarios/default.toml (override with SCENARIO=...)
	$(BIN)/cellaqm run $(SCENARIO)

reproduce: build ## The WCDMA RNC AQM study's headline table (1200 s x 6 replications; QUICK=1 for 200 s x 2)
	$(BIN)/cellaqm reproduce wcdma-rnc-aqm $(if $(QUICK),--quick) --out results/wcdma-rnc-aqm

reproduce-lte: build ## The LTE uplink study's chapter-7 experiments, tables, figures and its 31 conclusions judged (about 100 s of CPU; QUICK=1 for CI's)
	$(BIN)/cellaqm reproduce lte-uplink-raqm $(if $(QUICK),--quick) --out results/lte-uplink-raqm

reproduce-hsdsch: build ## The HS-DSCH study: scenarios 1-3, ANOVA and Tukey, the 29 findings judged (about 1,040 CPU-s: 8.8 min on 2 cores; QUICK=1 for CI's)
	$(BIN)/cellaqm reproduce hsdsch-buffer-mgmt $(if $(QUICK),--quick) --out results/hsdsch-buffer-mgmt

reproduce-rlc: build ## The RLC-TCP study's 18 experiments and its 16 findings judged (about 50 CPU s: under a minute on 2 cores; QUICK=1 for CI's)
	$(BIN)/cellaqm reproduce umts-rlc-tcp $(if $(QUICK),--quick) --out results/umts-rlc-tcp

reproduce-modern: build ## The studies' schemes beside CoDel, PIE and FQ-CoDel on every bearer and two traces (about 215 CPU-s; QUICK=1 for CI's)
	$(BIN)/cellaqm reproduce modern-aqm $(if $(QUICK),--quick) --out results/modern-aqm

reproduce-dsch: build ## The DSCH study's 5 experiments and its 20 findings judged (about 930 CPU s, 8 min on 2 free cores; QUICK=1 for CI's)
	$(BIN)/cellaqm reproduce umts-dsch-rrm $(if $(QUICK),--quick) --out results/umts-dsch-rrm

.PHONY: reproduce-all bench-engine
reproduce-all: build ## All five studies' reproductions into results/STUDY, then each one's CPU-seconds (QUICK=1: --quick)
	$(BIN)/python bench/reproduce_all.py $(if $(QUICK),--quick) --out results

bench-engine: build ## What cellaqm reproduce costs per run outside the simulation (store, runner, tables)
	$(BIN)/python bench/engine_overhead.py

bench-wcdma: ## Time the full WCDMA headline experiment in the core (release, all cores)
	cargo run --release -q -p cellaqm-bench --bin wcdma-reproduce

test: build lint ## Build, check formatting and lints, then run the Rust core tests, the stub check and the Python tests
	cargo test -p cellaqm-core
	$(BIN)/python -m mypy.stubtest cellaqm._core
	$(BIN)/python -m pytest -q -rxX tests

lint: ## cargo fmt --check and cargo clippy -D warnings over the workspace (rustfmt.toml sets the style)
	cargo fmt --all --check
	cargo clippy -q --workspace --all-targets -- -D warnings

test-rust: ## Run the core crate's tests (the PyO3 cdylib has none)
	cargo test -p cellaqm-core

test-python: build ## Run the pytest suite against the built extension
	$(BIN)/python -m pytest -q -rxX tests

stubtest: build ## Check python/cellaqm/_core.pyi against the built module
	$(BIN)/python -m mypy.stubtest cellaqm._core

bench-memory: ## Peak memory of 300 s vs 3000 s simulated on every radio (release; target: ratio at most 1.2; a few minutes)
	cargo run --release -q -p cellaqm-bench --bin radio-memory

bench-interrupt: build ## Ctrl-C on every shipped radio scenario: seconds to stop, during set-up and running (target: under 1 s; about 6 minutes)
	$(BIN)/python bench/interrupt.py

bench: ## Run the speed benchmarks (bench/, release build): one flow by rate, a cell of 100 web users, the 7-cell HS-DSCH loads, the 37-cell DSCH system
	cargo run --release -q -p cellaqm-bench --bin core-speed
	cargo run --release -q -p cellaqm-bench --bin cell-speed
	cargo run --release -q -p cellaqm-bench --bin hsdsch-speed
	cargo run --release -q -p cellaqm-bench --bin dsch-speed

bench-lte-downlink: ## A 100-UE LTE downlink cell on fading channels: simulated seconds per CPU second (release; 121 after the channel work of issue 41, target: at least 100); then the seven-cell scenario's rate and per-cell goodput and SINR
	cargo run --release -q -p cellaqm-bench --bin lte-downlink-speed

bench-scale: ## The HS-DSCH system from 7 to 61 cells and 200 to 10 000 users: speed, cost per user-second, memory (release; a few minutes)
	cargo run --release -q -p cellaqm-bench --bin hsdsch-scale

bench-call: build ## What a cellaqm.run call costs outside the simulation (a 1-ms validation row)
	$(BIN)/python bench/call_overhead.py

bench-startup: build ## Process start-up of `cellaqm --version` and `cellaqm run --json` (target: under 0.1 s)
	$(BIN)/python bench/startup.py

bench-many-flows: build ## Many flows at low rates (RED 16 flows, FQ-CoDel 32 flows) against ns-3 (after make validate)
	$(BIN)/python bench/many_flows.py --ns3-bin $(NS3_BIN)

bench-sweep: build ## Sweep throughput 1 -> 2 jobs (threads vs processes) and the store's per-run overhead
	$(BIN)/python bench/sweep_scaling.py

bench-store: build ## Memory and time of reading a 100,000-run store back (built once under /tmp)
	$(BIN)/python bench/store_memory.py

clean: ## Remove build outputs, the venv and caches
	cargo clean
	rm -rf $(VENV) .pytest_cache .mypy_cache .hypothesis
	find python tests -name __pycache__ -type d -prune -exec rm -rf {} +
	rm -f python/cellaqm/_core*.so python/cellaqm/_core*.pyd

# ---- validation against ns-3 (issue 7); not part of `make test`: the ns3 wheel is large.
NS3_VERSION ?= 3.44.post0
NS3_STAMP   := $(VENV)/.cellaqm-ns3.stamp
NS3_BIN     := build/validation/wired_bottleneck
LENA_BIN    := build/validation/lte_uplink
LENA_DL_BIN := build/validation/lte_downlink
.PHONY: validate validate-lte validate-lte-downlink

$(NS3_STAMP): $(VENV_STAMP)
	$(BIN)/python -m pip show -q ns3 >/dev/null 2>&1 || $(BIN)/python -m pip install -q ns3==$(NS3_VERSION)
	touch $@

$(NS3_BIN): $(NS3_STAMP) validation/ns3/wired_bottleneck.cc validation/ns3/build.sh
	validation/ns3/build.sh $(BIN)/python $(dir $@)

validate: build $(NS3_BIN) ## Run cellaqm vs ns-3 and theory checks, write docs/validation.md (FULL=1: full matrix)
	$(BIN)/python validation/theory.py --out validation/results/theory.md
	$(BIN)/python validation/compare.py --ns3-bin $(NS3_BIN) $(if $(FULL),--full,)

$(LENA_BIN): $(NS3_STAMP) validation/ns3/lte_uplink.cc validation/ns3/lena_common.h validation/ns3/build.sh
	validation/ns3/build.sh $(BIN)/python $(dir $@) lte_uplink

validate-lte: build $(LENA_BIN) ## LTE uplink vs ns-3 LENA (issue 21): goodput and speed-up over 60 s (about 2 min), then re-render docs/validation.md
	$(BIN)/python validation/lte_compare.py --lena-bin $(LENA_BIN)
	$(BIN)/python validation/compare.py --render-only

$(LENA_DL_BIN): $(NS3_STAMP) validation/ns3/lte_downlink.cc validation/ns3/lena_common.h validation/ns3/build.sh
	validation/ns3/build.sh $(BIN)/python $(dir $@) lte_downlink

validate-lte-downlink: build $(LENA_DL_BIN) ## LTE downlink vs ns-3 LENA (issue 41): 1 and 10 UEs, goodput and speed-up over 20 s (a few min), then re-render docs/validation.md
	nice -n 15 $(BIN)/python validation/lte_downlink_compare.py --lena-bin $(LENA_DL_BIN)
	$(BIN)/python validation/compare.py --render-only
