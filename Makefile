# Two commands set everything up on a fresh machine:
#   make demo      install, ingest the curated knowledge, query it, and generate a verified kernel
#   make test      install and run the test suite (what CI runs): fast tests plus a fixed sample of
#                  the seed kernels; under 30 minutes on 2 cores with no build cache
#   make demo-repeat  the demo's verification three times: each speedup, its interval, do they agree
#   make test-all  everything, including every seed kernel built and verified (~50 more minutes cold)
# Everything lives in .venv; nothing is installed system-wide. The knowledge base is the one every
# akg-rag command uses by default (--data-dir / AKG_RAG_DATA_DIR, else ~/.local/share/akg-rag), so
# `.venv/bin/akg-rag` run by hand after `make demo` sees what the demo ingested.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# -v: one line per test as it finishes; --durations: where the time went
PYTEST := $(BIN)/python -m pytest -v --durations=15

.PHONY: install sandbox-tools demo demo-repeat test test-all bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# The verifier sandboxes candidates with bubblewrap (Debian package). Installed when missing and
# when we may (root with apt-get); otherwise the verifier says so and falls back to weaker isolation.
sandbox-tools:
	@command -v bwrap >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  { apt-get update -qq >/dev/null 2>&1; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null 2>&1; }; } || \
	  echo "note: bubblewrap (bwrap) is not installed: candidates run without namespaces" >&2

install: $(STAMP) sandbox-tools

demo: $(STAMP)
	$(BIN)/akg-ingest knowledge/
	$(BIN)/akg-rag query --task knowledge/kernels/softmax/task.py --dsl triton --backend cuda --explain
	$(BIN)/akg-rag generate examples/softmax_task.py --dsl cpp --backend cpu --max-opt-passes 1 --out runs/demo

# The demo's verification (its task and kernel, the full sandboxed protocol) REPEAT times; exits 1
# when two runs' speedup intervals do not overlap. LOAD=K adds K busy-loop processes beside it.
REPEAT ?= 3
LOAD   ?= 0
demo-repeat: $(STAMP) sandbox-tools
	$(BIN)/python benchmarks/demo_repeat.py -n $(REPEAT) --load $(LOAD)

test: $(STAMP) sandbox-tools
	$(PYTEST) -m "not slow"

test-all: $(STAMP) sandbox-tools
	$(PYTEST)

bench: $(STAMP)
	$(BIN)/python benchmarks/ingest_bench.py
	$(BIN)/python benchmarks/retrieval_bench.py

clean:
	rm -rf $(VENV) runs reports
