package report

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
)

// Shard is one of the slices of a run that -shard k/n makes.
type Shard struct {
	Index int `json:"index"` // k, from 1
	Count int `json:"count"` // n
	Total int `json:"total"` // mutants in the whole run
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Qualifier returns what qualifies the ids and test names of a package in
// a run of a pattern: its directory relative to the module root ("lease",
// "internal/cache", "." for the root), then ":".
func Qualifier(pkg string) string {
	return path.Clean(strings.TrimPrefix(pkg, "./")) + ":"
}

// Qualify prefixes the ids of r's mutants and the names of its tests with
// the qualifier of its package, and sets each mutant's package, so that
// the reports of several packages can be joined.
func (r *Report) Qualify() {
	q := Qualifier(r.Package)
	quals := func(names []string) []string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = q + n
		}
		return out
	}
	for i := range r.Mutants {
		m := &r.Mutants[i]
		m.ID, m.Package = q+m.ID, r.Package
		m.FailedTests = quals(m.FailedTests)
		if m.CoveredBy != nil {
			m.CoveredBy = quals(m.CoveredBy)
		}
		m.Running = quals(m.Running)
		for j := range m.Failures {
			m.Failures[j].Test = q + m.Failures[j].Test
		}
	}
	for i := range r.Dropped {
		r.Dropped[i].ID = q + r.Dropped[i].ID
	}
	r.Baseline.TestNames = quals(r.Baseline.TestNames)
}

// QualifyTests gives the tests of a qualified report the qualifier of the
// package they belong to, tester, instead of that of pkg: the mutants of
// a package with no tests of its own are run by another's.
func (r *Report) QualifyTests(pkg, tester string) {
	from, to := Qualifier(pkg), Qualifier(tester)
	requal := func(names []string) []string {
		for i, n := range names {
			names[i] = to + strings.TrimPrefix(n, from)
		}
		return names
	}
	for i := range r.Mutants {
		m := &r.Mutants[i]
		requal(m.FailedTests)
		requal(m.CoveredBy)
		requal(m.Running)
		for j := range m.Failures {
			m.Failures[j].Test = to + strings.TrimPrefix(m.Failures[j].Test, from)
		}
	}
	requal(r.Baseline.TestNames)
}

// Join joins the reports of the packages of one run of a pattern, each
// qualified (Qualify), into one, in the order given.
func Join(pattern string, parts []*Report) *Report {
	out := &Report{Package: pattern, Mutants: []Mutant{}}
	for _, p := range parts {
		out.Packages = append(out.Packages, p.Package)
		out.Mutants = append(out.Mutants, p.Mutants...)
		out.Dropped = append(out.Dropped, p.Dropped...)
		out.Baseline.TestNames = append(out.Baseline.TestNames, p.Baseline.TestNames...)
		out.Baseline.Seconds += p.Baseline.Seconds
		out.Seconds += p.Seconds
		out.Limit, out.MemoryLimit = max(out.Limit, p.Limit), max(out.MemoryLimit, p.MemoryLimit)
		out.Isolation = out.Isolation.join(p.Isolation)
		out.LandlockABI = joinABI(out.LandlockABI, p.LandlockABI)
		out.Binds = joinBinds(out.Binds, p.Binds)
		out.Module, out.GoVersion, out.Mode, out.Jobs = p.Module, p.GoVersion, p.Mode, p.Jobs
		out.Cached = p.Cached && (out.Cached || len(out.Packages) == 1)
		out.TCE = out.TCE.add(p.TCE)
		out.Interrupted = out.Interrupted || p.Interrupted
	}
	slices.Sort(out.Baseline.TestNames)
	out.Baseline.Tests = len(out.Baseline.TestNames)
	out.Subsume()
	return out
}

// add returns the sum of what t and u did; nil when neither ran.
func (t *TCE) add(u *TCE) *TCE {
	if t == nil || u == nil {
		return cmp.Or(t, u)
	}
	return &TCE{Compiled: t.Compiled + u.Compiled, Equivalent: t.Equivalent + u.Equivalent, Duplicates: t.Duplicates + u.Duplicates, Seconds: t.Seconds + u.Seconds}
}

// Merge puts the reports of the shards of one run (-shard k/n, for every
// k) back together: the report of the whole run, its mutants in their
// order. It refuses shards of different runs, a shard given twice or
// missing, and mutants that are not each in exactly one shard.
func Merge(shards []*Report) (*Report, error) {
	if err := checkShards(shards); err != nil {
		return nil, err
	}
	first := shards[0]
	out := *first
	out.Shard, out.Mutants, out.Dropped, out.Seconds, out.Cached, out.TCE, out.NotRun = nil, []Mutant{}, nil, 0, true, nil, nil
	names := map[string]bool{}
	out.Baseline = Baseline{}
	ordinals := map[int]string{}
	for _, r := range shards {
		for _, m := range r.Mutants {
			if other, dup := ordinals[m.Ordinal]; dup || m.Ordinal < 1 {
				return nil, fmt.Errorf("mutant %s has place %d in the run, as has %s", m.ID, m.Ordinal, other)
			}
			ordinals[m.Ordinal] = m.ID
			out.Mutants = append(out.Mutants, m)
		}
		for _, t := range r.Baseline.TestNames {
			names[t] = true
		}
		out.addShard(r)
	}
	// A package that did not run has no mutants in any shard.
	if got, want := len(out.Mutants)+len(out.Dropped), first.Shard.Total; got != want && len(out.NotRun) == 0 {
		return nil, fmt.Errorf("the shards hold %d mutants, the run %d", got, want)
	}
	slices.SortFunc(out.Mutants, func(a, b Mutant) int { return cmp.Compare(a.Ordinal, b.Ordinal) })
	for i := range out.Mutants {
		out.Mutants[i].Ordinal = 0
	}
	out.Baseline.TestNames = slices.Sorted(maps.Keys(names))
	if out.Packages != nil {
		// A shard of a run of a pattern ran only the packages of its
		// mutants.
		out.Packages = nil
		for _, m := range out.Mutants {
			if !slices.Contains(out.Packages, m.Package) {
				out.Packages = append(out.Packages, m.Package)
			}
		}
	}
	out.Baseline.Tests = len(out.Baseline.TestNames)
	out.Subsume()
	return &out, nil
}

// checkShards checks that shards are every shard of one run, once each,
// and none interrupted.
func checkShards(shards []*Report) error {
	if len(shards) == 0 {
		return fmt.Errorf("no reports to merge")
	}
	first := shards[0]
	if first.Shard == nil {
		return fmt.Errorf("report 1 is not a shard: run mutate run -shard k/n -json for each k")
	}
	n := first.Shard.Count
	seen := make([]bool, n+1)
	for i, r := range shards {
		switch {
		case r.Shard == nil:
			return fmt.Errorf("report %d is not a shard: run mutate run -shard k/n -json for each k", i+1)
		case r.Shard.Count != n || r.Shard.Total != first.Shard.Total || r.Module != first.Module || r.Package != first.Package:
			return fmt.Errorf("report %d is shard %s of %d mutants of %s %s, report 1 shard %s of %d mutants of %s %s: not one run",
				i+1, r.Shard, r.Shard.Total, r.Module, r.Package, first.Shard, first.Shard.Total, first.Module, first.Package)
		case r.Shard.Index < 1 || r.Shard.Index > n:
			return fmt.Errorf("report %d is shard %s: no such shard", i+1, r.Shard)
		case seen[r.Shard.Index]:
			return fmt.Errorf("shard %s is given twice", r.Shard)
		case r.Interrupted:
			return fmt.Errorf("shard %s was interrupted: its result is partial; run it again", r.Shard)
		}
		seen[r.Shard.Index] = true
	}
	var missing []string
	for k := 1; k <= n; k++ {
		if !seen[k] {
			missing = append(missing, fmt.Sprintf("%d/%d", k, n))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("shard %s missing: merge needs every shard of the run", strings.Join(missing, ", "))
	}
	return nil
}

// addShard adds what shard s ran beside the others to r: its dropped
// mutants, its limits and times (the shards run side by side), whether
// it was cached, its TCE and the packages it could not run.
func (r *Report) addShard(s *Report) {
	r.Dropped = append(r.Dropped, s.Dropped...)
	r.Baseline.Seconds = max(r.Baseline.Seconds, s.Baseline.Seconds)
	r.Seconds = max(r.Seconds, s.Seconds)
	r.Limit, r.MemoryLimit = max(r.Limit, s.Limit), max(r.MemoryLimit, s.MemoryLimit)
	r.Isolation = r.Isolation.join(s.Isolation)
	r.LandlockABI = joinABI(r.LandlockABI, s.LandlockABI)
	r.Binds = joinBinds(r.Binds, s.Binds)
	r.Cached = r.Cached && s.Cached
	r.TCE = r.TCE.add(s.TCE)
	for _, nr := range s.NotRun {
		if !slices.ContainsFunc(r.NotRun, func(o NotRun) bool { return o.Package == nr.Package }) {
			r.NotRun = append(r.NotRun, nr)
		}
	}
}

// joinBinds returns the directories of a and b, each once, in order.
func joinBinds(a, b []string) []string {
	for _, dir := range b {
		if !slices.Contains(a, dir) {
			a = append(a, dir)
		}
	}
	return a
}
