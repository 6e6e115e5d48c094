# vibe — build, install, test, bench, lint.
#
# FTS5 needs the sqlite_fts5 build tag on every build, test and vet; the
# sqlite-vec bindings need sqlite3.h (Debian: libsqlite3-dev). GOFLAGS
# carries the tag so every `go` command below (and any you type after
# `export GOFLAGS=-tags=sqlite_fts5`) agrees.
export GOFLAGS := -tags=sqlite_fts5
GO      ?= go
BIN     := bin
# VERSION changes with any change to the sources (`git describe`, plus a hash
# of the uncommitted and untracked files when there are any), so the hooks
# tell a resident worker of an earlier build apart (internal/buildinfo).
VERSION ?= $(shell v=$$(git describe --tags --always 2>/dev/null) || v=dev; \
	if [ -n "$$(git status --porcelain 2>/dev/null)" ]; then \
	v=$$v-dirty.$$( { git diff HEAD; git ls-files -o --exclude-standard -z | xargs -0 -r cat; } 2>/dev/null | sha256sum | cut -c1-8); fi; echo $$v)
LDFLAGS := -s -w -X github.com/vibe-science/vibe/internal/buildinfo.Version=$(VERSION)
# The per-event hook binaries are small pure-Go clients (internal/relay),
# built without cgo; vibe-hook, the CLI and the worker carry SQLite.
CLIENTS := vibe-session-start vibe-prompt-submit vibe-pre-tool-use vibe-post-tool-use vibe-stop vibe-session-end
HOOKS   := $(CLIENTS) vibe-hook
CMDS    := vibe-hook vibe vibe-embed-worker

.PHONY: all build install link dist docs test unit e2e validate bench lint deps-check forensic clean

all: build

## build: compile the hook binaries, the handler binary, the CLI and the worker into bin/
build:
	@mkdir -p $(BIN)
	@echo "==> building the hook clients (pure Go)"
	CGO_ENABLED=0 $(GO) build $(BUILDFLAGS) -ldflags '$(LDFLAGS)' -o $(BIN)/ $(addprefix ./cmd/,$(CLIENTS))
	@echo "==> building vibe, vibe-hook and vibe-embed-worker (cgo and SQLite: a first build takes a few minutes)"
	$(GO) build $(BUILDFLAGS) -ldflags '$(LDFLAGS)' -o $(BIN)/ $(addprefix ./cmd/,$(CMDS))
	$(GO) build -o bench/out/empty-go ./bench/empty

## install: build (showing each package), set up VIBE_HOME, the database and the
## Claude Code plugin, then put vibe on PATH (or print how)
install: BUILDFLAGS := -v
install: build
	@echo "==> vibe setup: folders, database, embed worker, Claude Code plugin"
	$(BIN)/vibe setup
	@$(MAKE) -s link

# The plugin's version (.claude-plugin/plugin.json): a release is tagged
# v$(PLUGIN_VERSION), and the plugin's bootstrap (plugin/bootstrap.sh)
# downloads the archives of exactly this version.
PLUGIN_VERSION = $(shell sed -n 's/^[[:space:]]*"version"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' .claude-plugin/plugin.json | head -n 1)
DIST    ?= dist
ARCHIVE  = vibe_$(PLUGIN_VERSION)_$(shell $(GO) env GOOS)_$(shell $(GO) env GOARCH).tar.gz
SHA256   = $(shell command -v sha256sum >/dev/null 2>&1 && echo sha256sum || echo shasum -a 256)

## dist: this platform's release archive, $(DIST)/vibe_<version>_<os>_<arch>.tar.gz
## (bin/ as make build makes it), and its line in $(DIST)/checksums.txt; with
## RELEASE_TAG (the release workflow) the tag must be v<plugin.json version>
## and the binaries report that version
dist:
	@if [ -n "$(RELEASE_TAG)" ] && [ "$(RELEASE_TAG)" != "v$(PLUGIN_VERSION)" ]; then \
		echo "dist: the tag $(RELEASE_TAG) is not v$(PLUGIN_VERSION), the version in .claude-plugin/plugin.json; the plugin would download an archive that does not exist. Raise the version there or tag v$(PLUGIN_VERSION)"; exit 1; fi
	rm -rf $(DIST)/stage
	$(MAKE) build BIN=$(DIST)/stage/bin $(if $(RELEASE_TAG),VERSION=$(PLUGIN_VERSION))
	tar -C $(DIST)/stage -czf $(DIST)/$(ARCHIVE) bin
	@cd $(DIST) && { grep -v " $(ARCHIVE)$$" checksums.txt 2>/dev/null; $(SHA256) $(ARCHIVE); } > checksums.tmp && mv checksums.tmp checksums.txt
	rm -rf $(DIST)/stage
	@echo "==> $(DIST)/$(ARCHIVE)"; cat $(DIST)/checksums.txt

## docs: regenerate the CLI reference (docs/cli/*.md) and man pages (docs/man/*.1) from the commands
docs:
	$(GO) run ./cmd/vibe gen-docs docs

## link: link bin/vibe into ~/.local/bin when that folder is on PATH, else print the PATH line
link:
	@dir="$$HOME/.local/bin"; target="$(CURDIR)/$(BIN)/vibe"; \
	case ":$$PATH:" in \
	*":$$dir:"*) \
		if [ -e "$$dir/vibe" ] && [ ! -L "$$dir/vibe" ]; then \
			echo "==> $$dir/vibe exists and is not vibe's link; left alone. Run vibe as $$target"; \
		else \
			mkdir -p "$$dir" && ln -sfn "$$target" "$$dir/vibe" && echo "==> linked $$dir/vibe -> $$target (already on your PATH)"; \
		fi;; \
	*) \
		echo "==> vibe is not on your PATH. Add this line to your shell's startup file (~/.bashrc, ~/.zshrc):"; \
		echo "    export PATH=\"$(CURDIR)/$(BIN):\$$PATH\"";; \
	esac

## test: everything CI runs: lint, unit tests, the real-client E2E suite
test: lint unit e2e

unit: build
	VIBE_REQUIRE_TEST_MODEL=1 $(GO) test -count=1 -timeout 30m ./...

## e2e: drive the pinned Claude Code against a loopback mock (installs the client on first use)
e2e: build
	VIBE_E2E_REQUIRE=1 VIBE_CLAUDE_BIN="$$(bash .ci/install-claude.sh)" \
		$(GO) test -count=1 -tags 'sqlite_fts5 e2e' ./internal/e2e/... ./internal/client/...

## bench: hook latency percentiles next to an empty Go binary and node -e 0, the
## resting worker, prompt-submit over 50k memories (go run ./bench: the built
## binaries, the worker's socket and the CLI), then the Go benchmarks of the
## packages' internals: KNN, embedding throughput, recall@5, vibe ui pages, ...
bench: build
	$(GO) run ./bench -bin $(BIN) -empty bench/out/empty-go -out bench/hooks.json
	$(GO) test -run '^$$' -bench '^BenchmarkKNN$$' -benchtime 50x ./internal/worker   # KNN p50 at 10k and 100k random vectors: the worker's index (and its load), sqlite-vec's scan
	VIBE_REQUIRE_TEST_MODEL=1 $(GO) test -run '^$$' -bench '^BenchmarkEmbed$$' -benchtime 1x ./internal/embed/hugotembed   # texts/s of each model shape, batches of 32, and the peak RSS with it
	VIBE_REQUIRE_TEST_MODEL=1 $(GO) test -run '^$$' -bench '^BenchmarkRetrieval$$' -benchtime 1x ./internal/recall   # recall@5 on the retrieval set: words alone, fused with each embedder, queries lost
	$(GO) test -run '^$$' -bench Pages -benchtime 100x ./internal/viewer   # vibe ui pages over 100k spine entries
	$(GO) test -run '^$$' -bench 'OutputSummary1MB|Scrub|Load' -benchtime 20x ./internal/spine ./internal/privacy   # the secret detector: a 1 MB output's summary, Scrub, gitleaks' load
	$(GO) test -run '^$$' -bench Scan -benchtime 20x ./internal/artifact   # the tracker's look at a project, beside 50k files outside research or not
	$(GO) test -run '^$$' -bench ManPageCorpus -benchtime 1x ./internal/permission   # PreToolUse's analyser per command: p50, p99, max over 1,710 man-page commands

## forensic: the blueprint's section-15 checklist as tests, scored per section
forensic: build
	VIBE_E2E_REQUIRE=1 VIBE_CLAUDE_BIN="$$(bash .ci/install-claude.sh)" VIBE_REQUIRE_TEST_MODEL=1 \
		$(GO) run ./internal/forensic/run

# The lint tools, pinned; one folder per version, so a bump reinstalls.
LINT_TAGS         := sqlite_fts5,e2e
STATICCHECK_V     := v0.8.2
DEADCODE_V        := v0.52.0
LINT_CACHE        ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/vibe-lint
STATICCHECK       := $(LINT_CACHE)/staticcheck-$(STATICCHECK_V)/staticcheck
DEADCODE          := $(LINT_CACHE)/deadcode-$(DEADCODE_V)/deadcode

## lint: formatting, vet, the hook-binary dependency rule, staticcheck, and
## deadcode (no function unreachable from the binaries and the tests, e2e
## tests included); both tools are pinned and installed once into a cache
lint: deps-check $(STATICCHECK) $(DEADCODE)
	@out="$$(gofmt -l cmd internal db bench blueprints skill)"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet -tags $(LINT_TAGS) ./...
	$(STATICCHECK) -tags $(LINT_TAGS) ./...
	@out="$$($(DEADCODE) -tags $(LINT_TAGS) -test ./...)"; if [ -n "$$out" ]; then \
		echo "deadcode: these functions are reached neither from a binary nor from a test; delete them (or call them):"; \
		echo "$$out"; exit 1; fi

$(STATICCHECK):
	GOBIN=$(@D) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_V)

$(DEADCODE):
	GOBIN=$(@D) $(GO) install golang.org/x/tools/cmd/deadcode@$(DEADCODE_V)

## deps-check: no hook binary may link hugot (the embedder), cobra (the CLI) or
## the JSON Schema library; the per-event clients (on Linux) link only what
## package syscall links already, and relay, wire, vibehome and buildinfo:
## each other package's code they ran cost start-up time (internal/relay)
CLIENT_DEPS := ^(internal/|runtime$$|unsafe$$|errors$$|sync(/atomic)?$$|io$$|iter$$|cmp$$|slices$$|math/bits$$|syscall$$|github\.com/vibe-science/vibe/(internal/(relay|wire|vibehome|buildinfo)|cmd/vibe-[a-z-]+)$$)
deps-check:
	@for h in $(CLIENTS); do \
		bad="$$(GOOS=linux CGO_ENABLED=0 $(GO) list -deps ./cmd/$$h | grep -vE '$(CLIENT_DEPS)' || true)"; \
		if [ -n "$$bad" ]; then echo "$$h links what a per-event client must not (it relays to the worker or runs vibe-hook):"; echo "$$bad"; exit 1; fi; \
	done
	@for h in $(HOOKS); do \
		bad="$$($(GO) list -deps ./cmd/$$h | grep -E 'knights-analytics|spf13/cobra|santhosh-tekuri' || true)"; \
		if [ -n "$$bad" ]; then echo "$$h links forbidden packages:"; echo "$$bad"; exit 1; fi; \
	done; echo "deps-check: hook binaries link neither hugot, cobra nor the JSON Schema library; the per-event clients only the runtime, syscall and their four packages"

clean:
	rm -rf $(BIN) $(DIST)
