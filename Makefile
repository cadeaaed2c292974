GO ?= go

.PHONY: help run test short load gate check report bench lint

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-8s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

run: ## the mutation run: every catalog mutant against the suite, as a kill matrix
	$(GO) tool mutate run

test: ## run every test
	$(GO) test ./...

short: ## the everyday lane: every test but those that build and run real test binaries
	$(GO) test -short ./...

load: ## every test beside 6 busy loops and a go build -a std loop, as on a busy runner (bench/load.sh)
	bench/load.sh

gate: ## the CI gate: exit 0 only if every mutant is killed; writes mutate-junit.xml
	$(GO) tool mutate run -junit mutate-junit.xml

check: ## check every prediction file under predictions/ against a run (the model answer's grade, not its answers)
	$(GO) tool mutate check predictions/*.yaml

report: ## regenerate the generated parts of REPORT.md from a run; write the HTML report to mutate-report.html
	$(GO) tool mutate report
	$(GO) tool mutate run -q -html mutate-report.html >/dev/null

bench: ## benchmarks: lease against raw UPDATEs, then mutation runs against their baseline
	bench/lease.sh
	$(GO) run ./bench/mutatebench

lint: ## gofmt, go vet and staticcheck
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo "gofmt needed"; exit 1; }
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
