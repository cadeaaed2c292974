package harness

import (
	"strconv"
	"sync"
)

// killers are the tests that killed the mutants of each target so far,
// and of each line of it: a mutant's neighbours are the other mutants of
// its function, the nearest those of its line, and the test that caught
// one is the likeliest to catch the next (PIT orders its tests so).
type killers struct {
	mu sync.Mutex
	by map[string]map[string]bool // target, or target and line: top-level test names
}

func newKillers() *killers { return &killers{by: map[string]map[string]bool{}} }

func lineKey(target string, line int) string { return target + "\x00" + strconv.Itoa(line) }

// record notes that failed killed a mutant of target at line.
func (k *killers) record(target string, line int, failed []string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, key := range []string{target, lineKey(target, line)} {
		if k.by[key] == nil {
			k.by[key] = map[string]bool{}
		}
		for _, name := range failed {
			k.by[key][topLevel(name)] = true
		}
	}
}

// phases splits tests into the runs of an early-kill mutant of target at
// line, each stopped at its first failing test and run only if the one
// before passed: first the likeliest killer alone, the fastest of the
// tests that killed a mutant of the same line, or else of the same
// function, so that its failure is its failure alone; then the fast
// tests, within their own short limit, so that a slow or hanging test
// does not hold up a kill; then every test together, in source order, as
// go test runs them (a test that fails only after another is not missed,
// and a survivor's tests run once, but for the fast ones).
func (k *killers) phases(target string, line int, tests []string, durations map[string]float64) [][]string {
	k.mu.Lock()
	var likeliest string
	for _, key := range []string{lineKey(target, line), target} {
		for _, t := range tests {
			if k.by[key][t] && (likeliest == "" || durations[t] < durations[likeliest]) {
				likeliest = t
			}
		}
		if likeliest != "" {
			break
		}
	}
	k.mu.Unlock()
	var phases [][]string
	if likeliest != "" && len(tests) > 1 {
		phases = append(phases, []string{likeliest})
	}
	var fast []string
	for _, t := range tests {
		if durations[t] <= fastTest && t != likeliest {
			fast = append(fast, t)
		}
	}
	if len(fast) > 0 && len(fast) < len(tests) && !(likeliest != "" && len(fast) == len(tests)-1) {
		phases = append(phases, fast)
	}
	return append(phases, tests)
}
