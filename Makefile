# Naipes: make serve | make test (lint, then pytest) | make lint (buf lint and breaking, ruff, mypy) | make proto
#         make js-types (the JavaScript client's TypeScript message types, from the proto: npm)
#         make node-grpc (the Node.js gRPC example's packages: npm)
#         make bench (the benchmark suite: bench/REPORT.md) | make bench-smoke (seconds; CI runs it)
#         make soak (a long soak of naipes serve under mixed load, by hand: bench/SOAK.md; SOAK_MINUTES=25)
# The first run needs only python3: it creates .venv and installs the project (editable) into it.

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
INSTALLED := $(VENV)/.naipes-installed
COMPILED := $(VENV)/.naipes-compiled
PROTO := protos/naipes/v1/naipes.proto
GEN := service/gen/naipes/v1/naipes_pb2.py
IMAGE := build/naipes.binpb
PYTEST_ARGS ?=

export PIP_DISABLE_PIP_VERSION_CHECK := 1
export PIP_NO_INPUT := 1
export BUF_CACHE_DIR := $(CURDIR)/build/buf-cache

.PHONY: install build serve test lint buf-lint buf-breaking api-release ruff mypy proto js-tools js-types node-grpc clean bench bench-smoke bench-tools soak

install: $(INSTALLED) $(GEN) $(COMPILED)

$(PY):
	$(PYTHON) -m venv $(VENV)

# The build needs grpcio-tools, googleapis-common-protos and mypy-protobuf (setup.py generates the
# protobuf code and the gRPC stub's types), mypy (its mypyc compiles the engine) and Cython (the
# codec's wire encoder); they are installed first so that the editable install can skip build
# isolation.
$(INSTALLED): pyproject.toml setup.py tools/protogen.py | $(PY)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q "setuptools>=64" "grpcio-tools>=1.62" "googleapis-common-protos>=1.56" "mypy>=1.10" "cython>=3.0" "mypy-protobuf>=5.1"
	NAIPES_PURE=1 $(PY) -m pip install -q --no-build-isolation -e '.[dev]'
	touch $@

# The editable install leaves the engine uncompiled; this compiles it with mypyc, in place, and
# again whenever a source has changed (until then the engine runs its Python sources:
# engine/__init__.py).
build: $(COMPILED)

# (A module whose C code did not change is not rebuilt: the touch dates every compiled module
# from this build, which engine/__init__.py compares with the sources.)
$(COMPILED): $(wildcard engine/*.py) service/codec.py service/_wire.pyx | $(INSTALLED)
	$(PY) setup.py -q build_ext --inplace
	find engine service -maxdepth 1 -name "*.so" -exec touch {} +
	touch $@

# Regenerate the Python code when the schema changes.
$(GEN): $(PROTO) | $(INSTALLED)
	$(PY) tools/protogen.py

proto: $(INSTALLED)
	$(PY) tools/protogen.py --descriptor-set $(IMAGE)

$(IMAGE): $(PROTO) | $(INSTALLED)
	$(PY) tools/protogen.py --descriptor-set $(IMAGE)

# npm ci, bounded and tried three times: npm has no timeout on a download's body, and once a
# tarball's connection stalled after its head (in a CI run here) npm waited for it forever.
NPM_CI = for try in 1 2 3; do timeout 180 npm ci --no-audit --no-fund --loglevel=error $(1) && break; \
	  [ $$try -lt 3 ] || exit 1; echo "npm ci failed or stalled for 3 minutes: again ($$try of 3 done)" >&2; done

# The JavaScript client's development tools (clients/js/package.json: ts-proto, TypeScript),
# installed from the lockfile into build/js-tools; the client itself has no dependencies.
JS_TOOLS := build/js-tools
$(JS_TOOLS)/.installed: clients/js/package.json clients/js/package-lock.json
	mkdir -p $(JS_TOOLS)
	cp clients/js/package.json clients/js/package-lock.json $(JS_TOOLS)/
	cd $(JS_TOOLS) && $(call NPM_CI)
	touch $@

js-tools: $(JS_TOOLS)/.installed

# The Node.js gRPC example's packages (clients/examples/package.json: @grpc/grpc-js,
# @grpc/proto-loader, google-proto-files for the google/api and google/rpc protos, protobufjs),
# installed from its lockfile into clients/examples/node_modules, where Node.js finds them for
# validate_grpc.mjs and its naipes_grpc.mjs (npm's cache first: 4-9 s, 12 s with an empty cache; mostly google-proto-files'
# 8,000 files, 88 MB unpacked, of which the example reads a handful).
NODE_GRPC := clients/examples/node_modules/.installed
$(NODE_GRPC): clients/examples/package.json clients/examples/package-lock.json
	cd clients/examples && $(call NPM_CI,--prefer-offline)
	touch $@

node-grpc: $(NODE_GRPC)

# Regenerate the client's message types (clients/js/messages.d.mts) when the schema changes, and its
# house-rule types (clients/js/rules.d.mts) when an engine option does.
js-types: install js-tools
	$(PY) tools/jstypes.py

serve: install
	$(BIN)/naipes serve

# buf lints an image built by protoc: no Buf registry needed.
buf-lint: $(IMAGE)
	$(BIN)/buf lint $(IMAGE) --config buf.yaml --path naipes/v1/naipes.proto

# The schema may grow but not break what clients of the released one have (tools/api_release.py):
# buf breaking against protos/released/naipes-v1.json. `make api-release` makes the schema as it
# is now the released one.
RELEASED := protos/released/naipes-v1.json
RELEASED_IMAGE := build/naipes-released.binpb

$(RELEASED_IMAGE): $(RELEASED) $(IMAGE)
	$(PY) tools/api_release.py against $(IMAGE) $@

buf-breaking: $(IMAGE) $(RELEASED_IMAGE)
	$(BIN)/buf breaking $(IMAGE) --against $(RELEASED_IMAGE) --config buf.yaml --path naipes/v1/naipes.proto

api-release: $(IMAGE)
	$(PY) tools/api_release.py record $(IMAGE)

ruff: install
	$(BIN)/ruff check engine service clients tools setup.py tests bench

# The engine, the Python client with its examples, and the service with the generated stubs and
# tools (pyproject.toml's [tool.mypy], strict) pass mypy --strict (STYLE.md, habit 16).
mypy: install
	$(BIN)/mypy --strict engine
	$(BIN)/mypy --strict clients/python clients/examples
	$(BIN)/mypy

lint: buf-lint buf-breaking ruff mypy

test: install lint
	$(BIN)/pytest -q $(PYTEST_ARGS)

# The benchmark suite (bench/run.py) needs wrk and h2load (Debian: wrk, nghttp2-client) and the
# optional open_spiel package (the `bench` extra) for the OpenSpiel figures.
BENCHED := $(VENV)/.naipes-bench
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

bench-tools:
	@command -v wrk >/dev/null && command -v h2load >/dev/null || \
	  { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq wrk nghttp2-client >/dev/null; }

$(BENCHED): $(INSTALLED) pyproject.toml
	NAIPES_PURE=1 $(PY) -m pip install -q --no-build-isolation -e '.[dev,bench]'
	touch $@

bench: install bench-tools $(BENCHED)
	$(PY) -m bench.run

bench-smoke: install bench-tools $(BENCHED)
	$(PY) -m bench.run --smoke

# A long soak of `naipes serve` under mixed load over both transports, every answer checked and every
# server process sampled (bench/soak.py, bench/SOAK.md). By hand, not in CI; SOAK_ARGS passes more
# (--clients, --rest-port, --grpc-port, --out).
SOAK_MINUTES ?= 25
SOAK_ARGS ?=

soak: install
	$(PY) -m bench.soak --minutes $(SOAK_MINUTES) $(SOAK_ARGS)

clean:
	rm -rf build service/gen *.egg-info clients/examples/node_modules
