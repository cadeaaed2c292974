GO ?= go

.PHONY: help run test vet lint bench

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-8s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

run: ## walk the stale-worker scenario of the lease package
	$(GO) test -count=1 -run '^Example$$' -v ./lease

test: ## run every test
	$(GO) test ./...

vet: ## go vet
	$(GO) vet ./...

lint: vet ## go vet and staticcheck
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

bench: ## lease benchmarks: claim→complete cycle against raw UPDATE transactions, with the ratio
	bench/lease.sh
