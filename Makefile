# FotoPronta: `make dev` starts the whole stack on embedded defaults; `make test` runs every test.
# Both install what they need first (Python virtualenv .venv, npm packages, the u2netp model).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)

.PHONY: dev test install web model lint pytest webtest api-types api-types-check browser e2e bench-quality bench-speed bench-memory bench-load bench-faults clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@rm -f $(VENV)/.installed-*; touch $(STAMP)

install: $(STAMP)

model: install
	$(PY) -m infra.provision

web:
	@if [ -f web/package.json ]; then \
	  cd web && { [ -d node_modules ] && [ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error; } && npm run build --silent; \
	fi

dev: install model web
	$(PY) -m infra.devstack

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy api workflows activities fotopronta infra retouch bench validation_sets tests/attack

# every test on this machine's network path, then the retouch tests on the other one (int8 / fp32:
# infra/network_paths.py), so a change that breaks either path fails here
pytest: install model
	@$(PY) -m infra.network_paths | sed -n 2p
	$(VENV)/bin/pytest -q
	@other=$$($(PY) -m infra.network_paths | sed -n 1p); \
	if [ -n "$$other" ]; then \
	  echo "retouch tests again with RETOUCH_NETWORK_INT8=$$other"; \
	  RETOUCH_NETWORK_INT8=$$other $(VENV)/bin/pytest -q -p no:cacheprovider tests/retouch; \
	fi

webtest: web api-types-check
	@if [ -f web/package.json ]; then cd web && npm run lint --silent && npm test --silent; fi

# The web app's request/response types are generated from the API's OpenAPI document, dumped
# without a server (api/openapi_dump.py) into web/openapi.json, then web/src/types/openapi.gen.ts.
api-types: install web
	$(PY) -m api.openapi_dump > web/openapi.json
	cd web && npm run --silent gen:api

# Fails when a schema or route changed without `make api-types` (run by `make webtest`, so `make test`).
api-types-check: install web
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(PY) -m api.openapi_dump > "$$tmp/openapi.json" && \
	( cd web && npx --no-install openapi-typescript "$$tmp/openapi.json" --enum-values -o "$$tmp/openapi.gen.ts" >/dev/null 2>&1 ) && \
	git --no-pager diff --no-index --exit-code --stat "$$tmp/openapi.json" web/openapi.json && \
	git --no-pager diff --no-index --exit-code --stat "$$tmp/openapi.gen.ts" web/src/types/openapi.gen.ts \
	|| { echo "web/openapi.json or web/src/types/openapi.gen.ts is stale: run make api-types" >&2; exit 1; }
	@echo "api types: web/openapi.json and web/src/types/openapi.gen.ts are up to date"

# Debian's chromium for the end-to-end tests, the newest build Debian serves (Playwright's own browser
# download does not work here).
browser:
	bash infra/install-browser.sh

# Playwright in a real browser against the whole stack (web/e2e/ starts it on free ports).
e2e: install model web browser
	@echo "browser: $$($${FOTOPRONTA_E2E_CHROMIUM:-/usr/bin/chromium} --version 2>/dev/null)"
	cd web && npm run e2e

test: install model web lint webtest pytest e2e

# real photos never used (validation_sets/carvana_views.py fills .data/carvana-views from a public clone) are measured
# too, first, when that folder exists
# The cross-recipe held-out sets first (rembg u2netp in the same run), then every set; then the ablation (each
# stage of the pick and of the openings switched off in turn; BENCH_ABLATION=0 skips it). Both print their
# network path; RETOUCH_NETWORK_INT8=0|1 chooses it.
BENCH_ABLATION ?= 1
bench-quality: install model
	$(PY) -m bench.pipeline.quality $(if $(wildcard .data/carvana-views/images),--gt-dir .data/carvana-views)
	@if [ "$(BENCH_ABLATION)" != 0 ]; then $(PY) -m bench.pipeline.ablation --photos 8; fi

# The baseline `rembg p` runs from its own environment: rembg[cli] pins older fastapi/Pillow than ours.
REMBG_VENV := .venv-rembg
$(REMBG_VENV)/.installed:
	$(PYTHON) -m venv $(REMBG_VENV)
	$(REMBG_VENV)/bin/pip install --quiet --disable-pip-version-check 'rembg[cli]==2.0.86' 'onnxruntime==1.31.1'
	touch $@

bench-speed: install model $(REMBG_VENV)/.installed
	$(PY) -m bench.pipeline.speed --rembg-python $(REMBG_VENV)/bin/python

bench-memory: install model $(REMBG_VENV)/.installed
	$(PY) -m bench.pipeline.memory --rembg-python $(REMBG_VENV)/bin/python

# a stack of its own on free ports; short seller's day (60 photos), `--full` for 900
bench-load: install model
	$(PY) -m bench.system.load $(BENCH_LOAD_ARGS)

# PostgreSQL and Temporal stopped 10 s, the retouch worker killed mid-photo, under load
bench-faults: install model
	$(PY) -m bench.system.faults

clean:
	rm -rf $(VENV) $(REMBG_VENV) web/node_modules web/dist
