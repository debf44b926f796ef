# Workflow++ — one binary, wfpp. `make help` lists the targets.
SHELL := /bin/bash
GO ?= go
BIN := bin/wfpp
PKGS := ./...
GOLANGCI_VERSION := v2.15.0
TEMPL_VERSION := $(shell $(GO) list -m -f '{{.Version}}' github.com/a-h/templ 2>/dev/null)

.PHONY: help build run run/headless test test/race test/short lint generate bench screenshots fuzz assets clean

help: ## show this help
	@grep -E '^[a-zA-Z/_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-12s %s\n", $$1, $$2}'

build: ## build bin/wfpp
	$(GO) build -o $(BIN) ./cmd/wfpp

run: build ## serve on http://localhost:8080 with the embedded store (data in ./data) and the sample process
	$(BIN) serve

run/headless: build ## run the sample approval process once in memory and print its outcome
	$(BIN) run testdata/approval.bpmn --vars '{"amount": 1200, "requester": "ada"}' --complete-tasks --task-vars '{"approved": true}'

test: ## run every test with the race detector (installs what the tests need)
	$(GO) vet $(PKGS)
	$(GO) test -race -count=1 -timeout 12m $(PKGS)

test/race: test ## alias of test: every test runs with -race

test/short: ## quick run without the race detector
	$(GO) test -count=1 $(PKGS)

lint: ## golangci-lint (v2) with .golangci.yml: gofumpt, depguard layering; govulncheck when its database answers
	$(GO) run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION) run --allow-parallel-runners ./...
	bash scripts/vulncheck.sh

generate: ## regenerate templ components (generated files are committed)
	cd web && $(GO) run github.com/a-h/templ/cmd/templ@$(TEMPL_VERSION) generate

bench: ## engine benchmarks and wfpp bench (figures go to BENCHMARKS.md)
	$(GO) test -run xxx -bench . -benchmem ./engine/...
	$(GO) run ./cmd/wfpp bench --duration 10s

screenshots: ## run the browser tests and save their screenshots in docs/screenshots
	$(GO) test -count=1 -run Browser ./server -update-screenshots

fuzz: ## 30 s of each fuzz target
	@for p in ./engine/bpmn ./engine/dag ./engine/graph ./engine/script; do \
	  for f in $$($(GO) test -list 'Fuzz.*' $$p | grep ^Fuzz); do \
	    $(GO) test -run xxx -fuzz "^$$f$$" -fuzztime 30s $$p || exit 1; done; done

assets: ## refresh the vendored bpmn-js and form-js bundles from npm (needs Node)
	bash scripts/assets.sh

clean: ## remove build output
	rm -rf bin
