# Kanri — the two commands are `make run` and `make test`.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := run

GO        ?= go
BIN       := bin/kanri
TEST_OUT  := .test-output
TEST_LOG  := $(TEST_OUT)/go-test.log
E2E_LOG   := $(TEST_OUT)/e2e.log
E2E_STORES := embedded cosmos
# The server the browser tests run, built once for both stores.
E2E_BIN   := $(TEST_OUT)/e2e-kanri

.PHONY: run build test vet unit deps go-test e2e e2e-setup e2e-build bench docker fmt generate clean

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
# go vet compiles what the packages it checks import (test variants too);
# with the race detector's build flags those are compilations go test -race
# needs as well, so they are done once (the checks are the same: no file of
# Kanri depends on the race build tag).
vet:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './node_modules/*')); \
	  if [ -n "$$unformatted" ]; then echo "not gofmt-formatted:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet -race ./...

## test: install what is needed, vet, and run every test (both store
## backends) with the race detector; fails if the Cosmos suite did not run.
## Then the browser tests (e2e), once per store (both stores at once, on
## their own ports, data and logs). Whatever fails, every part runs to its
## end and the summary below says what failed.
##
## go test runs first, beside only the browser tests' setup: on two cores
## go test and the browser suites slow each other down more than they
## gain by running together (measured: all three at once 11 min; go test
## alone 2 min 40 s, then both browser suites together 5 min 45 s).
test:
	@rm -rf $(TEST_OUT) && mkdir -p $(TEST_OUT)
	@rc=0; $(MAKE) --no-print-directory -j 2 -k go-test e2e-setup e2e-build || rc=$$?; \
	  $(MAKE) --no-print-directory -j 2 -k $(E2E_STORES:%=e2e-run-%) || rc=$$?; \
	  $(GO_CHECK) || rc=1; \
	  $(E2E_CHECK) || rc=1; \
	  echo "total: $$(cat $(TEST_LOG) $(E2E_LOG) 2>/dev/null | grep -cE -- '^\s*--- PASS:') passed, $$(cat $(TEST_LOG) $(E2E_LOG) 2>/dev/null | grep -cE -- '^\s*--- FAIL:') failed"; \
	  exit $$rc

# go-test runs every Go test with the race detector into TEST_LOG. go test
# starts the packages in the order given: the slowest (web, cmd) first, so
# that the others run beside them rather than after them.
go-test: deps vet
	@mkdir -p $(TEST_OUT)
	$(GO) test -race -count=1 -timeout 30m -v ./web/... ./cmd/... ./... 2>&1 | tee $(TEST_LOG) \
	  | { grep --line-buffered -E '^(ok|FAIL|---|panic|\s+--- FAIL|.*_test\.go:[0-9]+:)' || true; }

# GO_CHECK fails (showing the failures) unless go test passed and ran the
# contract suite on both stores.
GO_CHECK = { [ -s $(TEST_LOG) ] || { echo "go test did not run (see above)"; false; }; } && \
  if grep -qE '^(FAIL|--- FAIL|panic:)' $(TEST_LOG) || ! grep -q '^ok' $(TEST_LOG); then \
    echo "go test failed; full log in $(TEST_LOG)"; grep -E -B2 -A20 -- '--- FAIL|^panic:' $(TEST_LOG) | head -200; false; \
  else ./.ci/count-tests $(TEST_LOG); fi

## e2e-setup: install Chromium (Debian) and the Playwright driver (.e2e/driver)
## for the browser tests; nothing is downloaded from Playwright's CDN.
e2e-setup: deps
	@bash e2e/setup.sh

# e2e-build vets the browser tests and builds the server they test, once for
# both stores.
e2e-build:
	@mkdir -p $(TEST_OUT)
	$(GO) vet -tags e2e ./e2e/
	$(GO) build -o $(E2E_BIN) ./cmd/kanri

## e2e: the browser tests (real binary, headless Chromium), on the embedded
## store and on the Cosmos test server at the same time. Failure screenshots
## go to e2e/screenshots/; each store's log to .test-output/e2e-<store>.log,
## both together to .test-output/e2e.log.
e2e:
	@mkdir -p $(TEST_OUT)
	@rc=0; $(MAKE) --no-print-directory -j 2 -k $(E2E_STORES:%=e2e-run-%) || rc=$$?; \
	  $(E2E_CHECK) || rc=1; exit $$rc

# e2e-run-<store> runs the browser tests on one store into its own log.
e2e-run-%: e2e-setup e2e-build
	@echo "e2e: KANRI_E2E_STORE=$*"
	@rm -f $(TEST_OUT)/e2e-$*.log
	KANRI_E2E_STORE=$* KANRI_E2E_BIN=$(abspath $(E2E_BIN)) $(GO) test -tags e2e -count=1 -v -timeout 20m ./e2e/ 2>&1 \
	  | tee $(TEST_OUT)/e2e-$*.log | { grep --line-buffered -E '^(ok|FAIL|panic|\s*--- (PASS|FAIL|SKIP)|\s+\S+_test\.go:[0-9]+:)' || true; }

# E2E_CHECK gathers the stores' logs into E2E_LOG and fails (showing the
# failures) unless every store ran and passed, each some tests.
E2E_CHECK = { cat $(E2E_STORES:%=$(TEST_OUT)/e2e-%.log) > $(E2E_LOG) || { echo "the browser tests did not run on every store (see above)"; false; }; } && \
  if grep -qE '^(FAIL|\s*--- FAIL|panic:)' $(E2E_LOG); then \
    grep -E -- '^\s*--- FAIL|^FAIL|^panic:' $(E2E_LOG) | head -100; \
    echo "what the failed steps said:"; ./.ci/why $(E2E_LOG) | head -60; \
    echo "e2e tests failed; full logs (with the server output of each failed step) in $(E2E_STORES:%=$(TEST_OUT)/e2e-%.log), screenshots in e2e/screenshots/"; false; \
  else ./.ci/count-tests --e2e $(E2E_LOG); fi

## bench: benchmarks of the store port on both backends (100 tenants x 1,000
## users; audit pages of tenants of 1,000 and 1,000,000 records), then a load
## run of the real binary over HTTP (16 clients for 10 s; 200 for 60 s).
bench: deps
	$(GO) test -run '^$$' -bench 'Embedded|Cosmos' -benchtime 2000x -timeout 60m ./internal/bench/
	$(GO) test -run '^$$' -bench 'HTTPLoad' -benchtime 1x -timeout 30m ./internal/bench/

## docker: build the container image (needs a Docker engine).
docker:
	docker build -t kanri:latest .

fmt:
	gofmt -w $$(git ls-files '*.go')

## generate: regenerate the templ views (the generated code is committed).
generate:
	cd views && $(GO) tool templ generate

clean:
	rm -rf bin .test-output

## bench-files: the files feature's benchmarks: upload (tus) and download
## of a 100MB and a 1GB file through the real binary over HTTP against cp
## and tusd 2.9.1 (side by side, the same client),
## with the server's peak RSS; then the folder list's pages in folders of
## 100 and 100,000 files. KANRI_BENCH_FILE_SIZES overrides the sizes.
.PHONY: bench-files
bench-files:
	KANRI_BENCH_FILE_SIZES=$${KANRI_BENCH_FILE_SIZES:-100MB,1GB} $(GO) test -run '^$$' -bench 'FileTransfer' -benchtime 1x -timeout 60m ./internal/bench/
	$(GO) test -run '^$$' -bench 'FolderList' -timeout 60m ./internal/bench/

## bench-messaging: the messaging benchmarks: a message's fan-out to 1,000
## open live streams of one channel on one instance (latency p50/p99/max
## over 20 posts, CPU per post, bytes per delivery, the server's memory per
## stream and the idle streams' CPU; the clients run in a second
## process), beside PocketBase's realtime API doing the same; events from
## one instance to another over the Cosmos test server's change feed at the production poll (250 ms), and the
## latest page of a channel of 1,000 and of 1,000,000 messages.
## KANRI_BENCH_FANOUT_CONNS, KANRI_BENCH_FANOUT_POSTS, KANRI_BENCH_EVENTS and
## KANRI_BENCH_CHANNEL_MESSAGES change the sizes;
## KANRI_BENCH_FANOUT_CPUPROFILE=<file> profiles the fan-out's posting phase.
## The cross-instance benchmark needs the npm tools (make deps); like
## bench-files, this target does not reinstall them.
.PHONY: bench-messaging
bench-messaging:
	$(GO) test -run '^$$' -bench 'MessagingFanout' -benchtime 1x -timeout 30m ./internal/bench/
	$(GO) test -run '^$$' -bench 'MessagingCrossInstance' -benchtime 1x -timeout 30m ./internal/bench/
	$(GO) test -run '^$$' -bench 'MessagingChannelPage' -timeout 60m ./internal/bench/

## bench-store: what the embedded store takes on disk for 50,000 short
## messages in one channel (file bytes per message, the bytes of the
## documents and of each index, how full the pages are), beside
## PocketBase's database for the same messages, without and with a
## full-text index. KANRI_BENCH_STORE_MESSAGES changes the number.
.PHONY: bench-store
bench-store:
	$(GO) test -run '^$$' -bench 'StoreSize' -benchtime 1x -timeout 30m ./internal/bench/

## bench-backups: a tenant's backups and restores on the embedded store
## (BenchmarkBackups): the first backup, a second one after 1% changed
## (time and bytes written), the dry run and the restore of the first
## archive, and its restore into a new tenant, each in a child process
## with its peak memory; for a tenant of 1,000 users and one of 10,000
## users, 100,000 audit records, 100,000 messages and 1 GB of files.
## KANRI_BENCH_BACKUP_SCALES changes the sizes (fractions of the larger);
## KANRI_BENCH_BACKUP_NEW_TENANT=0 leaves out the restore into a new
## tenant (most of the run's time at the larger size);
## KANRI_BENCH_BACKUP_PROFILE=<dir> profiles each step. It needs about
## 4 GB free in the temporary directory (TMPDIR). Then a first backup of
## 50,000 messages and 50 files of 1 MiB beside PocketBase's backup API
## on the same data (BenchmarkBackupsBesidePocketBase).
.PHONY: bench-backups
bench-backups:
	KANRI_BENCH_BACKUP_SCALES=$${KANRI_BENCH_BACKUP_SCALES:-0.1,1} $(GO) test -tags benchchild -run '^$$' -bench '^BenchmarkBackups$$' -benchtime 1x -timeout 90m ./internal/bench/
	$(GO) test -tags benchchild -run '^$$' -bench '^BenchmarkBackupsBesidePocketBase$$' -benchtime 1x -timeout 30m ./internal/bench/
