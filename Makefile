# Kanri — the two commands are `make run` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := run

GO        ?= go
BIN       := bin/kanri
TEST_LOG  := .test-output/go-test.log

.PHONY: run build test vet unit deps bench docker fmt clean

## run: build and serve on the embedded store (http://localhost:8080).
run: build
	./$(BIN)

## build: build the static binary into bin/.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/kanri

## deps: install the pinned npm tools the tests need (Cosmos test server).
deps: node_modules/.package-lock.json

node_modules/.package-lock.json: package.json package-lock.json
	@command -v npm >/dev/null || { echo "npm is required for the Cosmos contract suite: apt-get install -y nodejs npm" >&2; exit 1; }
	npm ci --no-audit --no-fund
	@touch $@

## vet: gofmt and go vet.
vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*')); \
	  if [ -n "$$unformatted" ]; then echo "not gofmt-formatted:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

## test: install what is needed, vet, and run every test (both store
## backends) with the race detector; fails if the Cosmos suite did not run.
test: deps vet
	@mkdir -p $(dir $(TEST_LOG))
	$(GO) test -race -count=1 -v ./... 2>&1 | tee $(TEST_LOG) | grep -E '^(ok|FAIL|---|panic|\s+--- FAIL|.*_test\.go:[0-9]+:)' || true
	@if grep -qE '^(FAIL|--- FAIL|panic:)' $(TEST_LOG) || ! grep -q '^ok' $(TEST_LOG); then \
	  echo "go test failed; full log in $(TEST_LOG)"; grep -E -B2 -A20 -- '--- FAIL|^panic:' $(TEST_LOG) | head -200; exit 1; fi
	@./.ci/count-tests $(TEST_LOG)

## bench: benchmarks of the store port on both backends (100 tenants x 1,000 users).
bench: deps
	$(GO) test -run '^$$' -bench . -benchtime 2000x -timeout 60m ./internal/bench/

## docker: build the container image (needs a Docker engine).
docker:
	docker build -t kanri:latest .

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin .test-output
