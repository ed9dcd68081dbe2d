# kycflow — `make run` starts the whole stack on this machine, `make test`
# runs every test. Both install what is missing first (see `deps`).

GO          ?= go
GOBIN       := $(shell $(GO) env GOPATH)/bin
TEMPORAL    := $(GOBIN)/temporal
# Newer CLI tags carry a replace directive that breaks `go install`.
TEMPORAL_VERSION := v1.5.1
# The production Temporal server (the CLI's dev server embeds the same
# version) and its schema tool, which the tests run on PostgreSQL.
TEMPORAL_SERVER_VERSION := v1.29.1
TSERVER_DIR := $(GOBIN)/temporal-server-$(TEMPORAL_SERVER_VERSION)
TSERVER     := $(TSERVER_DIR)/server
TSCHEMA_DIR  = $(shell $(GO) env GOMODCACHE)/go.temporal.io/server@$(TEMPORAL_SERVER_VERSION)/schema/postgresql/v12
TSERVER_ENV  = TEMPORAL_SERVER_DIR=$(TSERVER_DIR) TEMPORAL_SCHEMA_DIR=$(TSCHEMA_DIR)
# The Temporal UI server for `make cluster` (the version the CLI embeds).
TEMPORAL_UI_VERSION := v2.42.1
TUI_DIR := $(GOBIN)/temporal-ui-$(TEMPORAL_UI_VERSION)
TUI     := $(TUI_DIR)/server
STATICCHECK := $(GOBIN)/staticcheck
STATICCHECK_VERSION := v0.8.2
GOVULNCHECK := $(GOBIN)/govulncheck
GOVULNCHECK_VERSION := v1.9.0
# axe-core, the accessibility checker the browser tests run in the pages
# they open: fetched from the npm registry once. A test tool: never served,
# never in the binary. (Defined before the rules that need it: make reads a
# rule's prerequisites as it reaches the rule.)
AXE_VERSION := 4.14.1
AXE_SHA256  := e6b0ce02b84d892e2e33e403485e7f3d6c29e2be6df65daf44d89ba564139745
AXE         := $(GOBIN)/axe-core-$(AXE_VERSION)/axe.min.js
# The face models (engines/face, docs/FACE.md) and the package they ship
# in, @vladmandic/face-api: fetched from the npm registry once, the
# tarball's checksum checked (each model file's again when it loads). Its
# bundled TensorFlow.js is the reference the face tests compare with.
FACE_API_VERSION := 1.7.15
FACE_API_SHA256  := 0d77fffeef362ef9c0939cf6c567f3a2e8e177f114fa257a3270cbd2e509b031
FACE_API_DIR     := $(GOBIN)/face-api-$(FACE_API_VERSION)
FACE_API         := $(FACE_API_DIR)/model/face_recognition_model.bin
# The vulnerability database govulncheck reads: a snapshot in the repository,
# since these machines cannot reach vuln.go.dev (.ci/vulndb/README.md).
VULNDB      ?= file://$(CURDIR)/.ci/vulndb/osv
# The priority of make test's jobs beside the server build and the suite.
LOW         ?= nice -n 10
# Whether PostgreSQL's server is installed (Debian puts it here).
HAVE_PG     := ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1
SUDO        := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# No DWARF debug data in what make builds (tests, tools, the Temporal
# server): stack traces and the race detector do not need it, and leaving it
# out cuts a fifth of the compile work of a cold `make test`. Exported, so
# that the go commands staticcheck and govulncheck run share the cache.
# (filter-out: the recursive make of `make test` inherits it already set.)
DWARF_OFF := -gcflags=all=-dwarf=false
export GOFLAGS := $(strip $(filter-out $(DWARF_OFF),$(GOFLAGS)) $(DWARF_OFF))
# A count, not a duration: Go 1.26's fuzz coordinator can fail a duration
# run with a spurious "context deadline exceeded" (go.dev/issue/75804).
FUZZTIME    ?= 20000x

.PHONY: run cluster chaos test integration-build packages static test-race test-integration test-quality deps tools postgres reader temporal temporal-server build unit lint vulncheck histories fuzz fuzz-parsers bench screenshots clean face-models

run: deps build
	./bin/kycflow dev

# The production topology on this machine, without Docker: the Temporal
# server on PostgreSQL, 2 api and 3 worker processes behind a proxy on
# :8080, the Temporal UI on :8233 (data and logs in .data/cluster).
cluster: postgres temporal $(TSERVER) $(TUI) build
	$(TSERVER_ENV) TEMPORAL_UI_DIR=$(TUI_DIR) ./bin/kycflow dev --cluster

# The fault campaign (docs/RELIABILITY.md): load while workers are killed,
# Temporal paused, PostgreSQL restarted and providers down, then verified.
# CHAOS adds flags, e.g. make chaos CHAOS='--topology dev --duration 5m'.
chaos: postgres temporal $(TSERVER) build
	$(TSERVER_ENV) ./bin/kycflow chaos $(CHAOS)

# Every package is tested under the race detector: the unit packages, the
# store (against its own PostgreSQL), and the integration packages (the CLI
# and the end-to-end suite, with the kycflow processes they start). Only the
# quality gates run without it (single-threaded statistics over thousands
# of generated names, reads of generated document photos, the face
# networks beside their reference: 10x slower instrumented;
# TestConcurrentSearch, TestConcurrentReads and selfie's TestDecideRetakes
# are their race tests). One build mode for all
# of it, and for staticcheck's reading of the packages: a cold run compiles
# each dependency once, not once plain and once instrumented.
INTEGRATION   := ./cmd/kycflow ./api/e2e
QUALITY_GATES := ^(TestEvalReport|TestBlockingRecall|TestRealListQuality|TestSubsetOfListsQuality|TestNameStructureQuality|TestTitleAndCommonName|TestStructureExplained|TestTitleStandsOnTheFamilyName|TestListsBesideEachOther|TestLoadOrderChangesNothing|TestReaderQuality|TestReadsTurnedDocuments|TestRetakes|TestVisualZone|TestAgainstFaceAPI)$$
RACE          := GOFLAGS="$(GOFLAGS) -race"
# All of go vet's analyzers, run by go test on each package it tests: a
# separate go vet ./... would analyse every dependency a second time.
VET := appends,asmdecl,assign,atomic,bools,buildtag,cgocall,composites,copylocks,defers,directive,errorsas,framepointer,hostport,httpresponse,ifaceassert,loopclosure,lostcancel,nilfunc,printf,shift,sigchanyzer,slog,stdmethods,stdversion,stringintconv,structtag,testinggoroutine,tests,timeformat,unmarshal,unreachable,unsafeptr,unusedresult,waitgroup
#
# All at once. The Temporal server's build and then the end-to-end suite
# are the longest path, so everything else runs at a lower priority (LOW)
# and takes the cores they leave: the suite mostly waits on timers and
# sockets, and is built to pass on a loaded machine. The integration
# packages' test binaries build first, beside the server (they compile
# nearly every dependency); the race run and staticcheck then read what
# they compiled. Debian's packages install beside the server build.
test:
	@$(MAKE) --no-print-directory -j8 test-integration static test-race test-quality

static: lint vulncheck

# The integration packages' test binaries, compiled while the server builds
# (go test below reuses the compiled packages).
integration-build:
	@mkdir -p bin/test
	$(RACE) $(GO) test -c -o bin/test/ $(INTEGRATION)

test-race: packages integration-build $(FACE_API)
	$(RACE) $(LOW) $(GO) test -count=1 -vet=$(VET) -timeout 12m -skip '$(QUALITY_GATES)' $$($(GO) list ./... | grep -v -e /cmd/kycflow$$ -e /api/e2e$$)

test-integration: $(TSERVER) $(AXE) $(FACE_API) packages integration-build
	$(TSERVER_ENV) AXE_JS=$(AXE) $(RACE) $(GO) test -count=1 -vet=$(VET) -timeout 12m $(INTEGRATION)

# The parsers' fuzz targets fuzz in make fuzz; their seed inputs run in
# every make test.
test-quality: packages
	$(LOW) $(GO) test -count=1 -timeout 20m -run '$(QUALITY_GATES)' ./engines/sanctions ./engines/mrzeval ./engines/mrzread ./engines/face

# The Go tools make test needs, built side by side on a fresh machine (each
# build leaves cores idle while it links or waits on a dependency).
tools:
	@$(MAKE) --no-print-directory -j3 $(TSERVER) $(STATICCHECK) $(GOVULNCHECK)

lint: $(STATICCHECK) integration-build
	$(RACE) $(LOW) $(STATICCHECK) ./...

# -scan package: every package the module imports is checked against the
# database, whether its vulnerable functions are reached or not — stricter
# than the default call-graph scan, and it needs no type-checking of every
# dependency from source (a cold run's 0.6 core-min).
vulncheck: $(GOVULNCHECK)
	$(LOW) $(GOVULNCHECK) -db $(VULNDB) -scan package ./...

$(STATICCHECK):
	$(LOW) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(GOVULNCHECK):
	$(LOW) $(GO) install golang.org/x/vuln/cmd/govulncheck@$(GOVULNCHECK_VERSION)

# Each fuzz target runs briefly (FUZZTIME inputs); go test -fuzz takes one
# target at a time. Not part of make test: fuzzing instruments every package
# a target's test binary links (for ./api: the standard library, echo, sqlx,
# protobuf), a build that costs a cold run minutes of CPU. Every target's
# seed inputs run in every make test all the same.
fuzz: fuzz-parsers
	$(GO) test -run='^$$' -fuzz='^FuzzCreateBusiness$$' -fuzztime=$(FUZZTIME) ./api
	$(GO) test -run='^$$' -fuzz='^FuzzCreateCustomer$$' -fuzztime=$(FUZZTIME) ./api
	$(GO) test -run='^$$' -fuzz='^FuzzCursor$$' -fuzztime=$(FUZZTIME) ./api
	$(GO) test -run='^$$' -fuzz='^FuzzParseObject$$' -fuzztime=$(FUZZTIME) ./api

fuzz-parsers:
	$(GO) test -run='^$$' -fuzz='^FuzzValidate$$' -fuzztime=$(FUZZTIME) ./engines/iban
	$(GO) test -run='^$$' -fuzz='^FuzzValidate$$' -fuzztime=$(FUZZTIME) ./engines/vatnum
	$(GO) test -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME) ./engines/mrz
	$(GO) test -run='^$$' -fuzz='^FuzzStrip$$' -fuzztime=$(FUZZTIME) ./engines/docimage
	$(GO) test -run='^$$' -fuzz='^FuzzRefused$$' -fuzztime=$(FUZZTIME) ./webhook
	$(GO) test -run='^$$' -fuzz='^FuzzSearch$$' -fuzztime=$(FUZZTIME) ./engines/sanctions

# Fast feedback while editing (under a minute warm): every package but the
# integration ones (the CLI and the e2e suite, which need the Temporal
# server) and the matcher's quality gates: the service-free tests, and the
# store's and the handlers' on a PostgreSQL cluster each starts.
unit: postgres reader
	$(GO) test -count=1 -skip '$(QUALITY_GATES)' $$($(GO) list ./... | grep -v -e /cmd/kycflow$$ -e /api/e2e$$)

deps: postgres reader temporal $(FACE_API)

# PostgreSQL's server from Debian's packages, when missing.
postgres:
	@$(HAVE_PG) || { \
		echo "installing PostgreSQL (Debian package postgresql)"; \
		$(SUDO) apt-get update -q && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql; }

# Tesseract and the OCR-B font, which the document reader needs, when
# missing.
reader:
	@command -v tesseract >/dev/null 2>&1 && [ -f /usr/share/fonts/opentype/ocr-b/OCRB.otf ] || { \
		echo "installing Tesseract and the OCR-B font (Debian packages tesseract-ocr fonts-ocr-b)"; \
		$(SUDO) apt-get update -q && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q tesseract-ocr fonts-ocr-b; }

# The Debian packages make test needs, those missing, in one apt-get (two
# at once would fight over dpkg's lock): PostgreSQL's server, Chromium for
# the browser test, openssl for the webhook verification example,
# Tesseract and the OCR-B font for reading identity documents.
packages:
	@missing=""; \
	$(HAVE_PG) || missing="$$missing postgresql"; \
	command -v chromium >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v openssl >/dev/null 2>&1 || missing="$$missing openssl"; \
	command -v tesseract >/dev/null 2>&1 || missing="$$missing tesseract-ocr"; \
	[ -f /usr/share/fonts/opentype/ocr-b/OCRB.otf ] || missing="$$missing fonts-ocr-b"; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -q && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	fi

# axe-core (see AXE above), its tarball's checksum checked.
$(AXE):
	@echo "fetching axe-core $(AXE_VERSION) from the npm registry"
	@tmp=$$(mktemp -d) && cd $$tmp && npm pack --silent axe-core@$(AXE_VERSION) >/dev/null && \
		echo "$(AXE_SHA256)  axe-core-$(AXE_VERSION).tgz" | sha256sum -c --quiet - && tar xzf axe-core-$(AXE_VERSION).tgz && \
		mkdir -p $(dir $(AXE)) && cp package/axe.min.js package/LICENSE $(dir $(AXE)) && rm -rf $$tmp

# The face models (see FACE_API above), checked, with the package's licence
# and the bundle the reference test runs.
face-models: $(FACE_API)
$(FACE_API):
	@echo "fetching @vladmandic/face-api $(FACE_API_VERSION) (the face models) from the npm registry"
	@tmp=$$(mktemp -d) && cd $$tmp && npm pack --silent @vladmandic/face-api@$(FACE_API_VERSION) >/dev/null && \
		echo "$(FACE_API_SHA256)  vladmandic-face-api-$(FACE_API_VERSION).tgz" | sha256sum -c --quiet - && \
		tar xzf vladmandic-face-api-$(FACE_API_VERSION).tgz && mkdir -p $(FACE_API_DIR)/model $(FACE_API_DIR)/dist && \
		cp package/LICENSE $(FACE_API_DIR)/ && cp package/dist/face-api.esm.js $(FACE_API_DIR)/dist/face-api.esm.mjs && \
		for m in tiny_face_detector face_landmark_68 face_recognition; do \
			cp package/model/$${m}_model-weights_manifest.json package/model/$${m}_model.bin $(FACE_API_DIR)/model/ || exit 1; \
		done && rm -rf $$tmp

# The Temporal CLI (dev server + UI), built from the Go module proxy; the first build takes a few minutes.
temporal: $(TEMPORAL)
$(TEMPORAL):
	@echo "building the Temporal CLI $(TEMPORAL_VERSION) (first time only, a few minutes)"
	$(GO) install -ldflags='-s -w' github.com/temporalio/cli/cmd/temporal@$(TEMPORAL_VERSION)

# The Temporal server with PostgreSQL persistence and its schema tool, built
# from the Go module proxy (once; a few minutes), for the tests. The
# compiler collects garbage less often (BUILD_GOGC): on empty caches the
# build took 9.4 core-min at Go's default and 8.3 at 400. (Not for all of
# make test: the race-instrumented tests' larger heaps cost more in page
# faults than the compiler saves; a cold run with GOGC=400 throughout spent
# 0.9 core-min more in the kernel.)
BUILD_GOGC ?= 400
temporal-server: $(TSERVER)
$(TSERVER):
	@echo "building the Temporal server $(TEMPORAL_SERVER_VERSION) (first time only, a few minutes)"
	GOGC=$(BUILD_GOGC) GOBIN=$(TSERVER_DIR) $(GO) install -ldflags='-s -w' go.temporal.io/server/cmd/server@$(TEMPORAL_SERVER_VERSION) \
		go.temporal.io/server/cmd/tools/sql@$(TEMPORAL_SERVER_VERSION)

# The Temporal UI server, for make cluster (once; a few minutes).
$(TUI):
	@echo "building the Temporal UI server $(TEMPORAL_UI_VERSION) (first time only, a few minutes)"
	GOBIN=$(TUI_DIR) $(GO) install -ldflags='-s -w' github.com/temporalio/ui-server/v2/cmd/server@$(TEMPORAL_UI_VERSION)

build:
	$(GO) build -o bin/kycflow ./cmd/kycflow

# The go benchmarks (the list one seeds 1M rows); the load command against a
# running stack is `./bin/kycflow bench` — docs/BENCHMARKS.md has both.
bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./engines/... ./store/

# Workflow histories for the replay tests (workflows/replay_test.go): one per
# distinct path the e2e suite's workflows take. New paths are added (and
# listed in SHA256SUMS); the histories already there stay, so today's code
# keeps replaying yesterday's (TestRecordedHistoriesKept).
histories: packages $(TSERVER) $(AXE)
	KYCFLOW_RECORD_HISTORIES=$(CURDIR)/workflows/testdata/histories $(TSERVER_ENV) AXE_JS=$(AXE) $(GO) test -count=1 ./api/e2e

# Screenshots of the verification pages (desktop and phone width), taken by
# the browser test in real Chromium.
screenshots: packages $(TSERVER) $(AXE)
	KYCFLOW_SCREENSHOTS=$(CURDIR)/docs/screenshots $(TSERVER_ENV) AXE_JS=$(AXE) $(GO) test -count=1 -run '^(TestBrowser(Photo)?Journey|TestConsole(FourEyes)?InBrowser|TestSelfieFaceReview)$$' ./api/e2e

clean:
	rm -rf bin .data
