GO ?= go

.PHONY: help run test gate vet lint bench

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-8s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

run: ## the mutation run: every catalog mutant against the suite, as a kill matrix
	$(GO) run ./cmd/mutate run

test: ## run every test
	$(GO) test ./...

gate: ## the CI gate: exit 0 only if every mutant is killed (writes mutate-junit.xml)
	$(GO) run ./cmd/mutate run -junit mutate-junit.xml

vet: ## go vet
	$(GO) vet ./...

lint: vet ## go vet, staticcheck, and gofmt
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo "gofmt needed"; exit 1; }

bench: ## benchmarks: lease against raw UPDATEs, then a mutation run against its baseline
	bench/lease.sh
	$(GO) run ./bench/mutatebench
