package exercise

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/progress"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/suggest"
	"github.com/fencelab/fencelab/internal/text"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

// Selection says which mutants a command works on: those of mutants files
// (the module's catalog when none is named), or those generated from a
// package's code by operator, narrowed to some ids, to the lines changed
// since a git ref, and to one shard of the whole.
type Selection struct {
	// Dir is a directory of the module: "" is the current directory.
	Dir      string
	Files    []string // mutants files; none: the module's catalog
	Pkg      string   // the package to mutate, as go names it here; with Generate, a pattern such as ./...
	Only     []string // ids; in a run of a pattern, qualified by package ("lease:store-renew-negation-1")
	Generate bool     // generate the mutants from the code instead of reading files
	Diff     string   // a git ref: only mutants on lines changed since it
	Shard    string   // "k/n": only the k-th of n slices of the mutants
	// Withheld accepts a withheld catalog (see File.Withheld): its plan is
	// the package alone, with no mutant. Without it, such a catalog is
	// ErrWithheld.
	Withheld bool
	Progress *progress.Reporter
}

// Plan is what a selection runs: a unit per package, in go list's order.
type Plan struct {
	Root    string // the module root
	Package string // the package, or the pattern, that the plan mutates
	Multi   bool   // a pattern: ids and test names are qualified by package
	Units   []*Unit
	// Shard is the slice of the whole that the plan runs, if -shard said.
	Shard *report.Shard
	// Notes say what the selection left out, and why.
	Notes []string
}

// Unit is the mutants of one package.
type Unit struct {
	Target *Target
	// Testers are the packages whose tests run against the mutants of a
	// package of a pattern that has no tests of its own: those of the
	// pattern that use it. None: its own tests.
	Testers []*Target
	Source  *mutation.Package
	Set     *Set // the mutants files read; nil for generated mutants
	// Qual prefixes the ids of the unit's mutants in a run of a pattern
	// ("lease:"); "" otherwise.
	Qual string
	// All are every mutant of the files or of the package's code; Mutants
	// those that -only chose; Applied those of them that run, applied,
	// after -diff and -shard, each at its place in the whole selection
	// (Ordinals, from 1).
	All      []*mutation.Mutant
	Mutants  []*mutation.Mutant
	Applied  []*mutation.Applied
	Ordinals []int
}

// Worksheet returns the closing questions of the unit's exercise: those
// of its mutants files; none for generated mutants.
func (u *Unit) Worksheet() []Question {
	if u.Set == nil {
		return nil
	}
	return u.Set.Worksheet
}

// Story returns the document that tells the story of the unit's exercise
// (see File.Story), from the module root; "" for none.
func (u *Unit) Story() string {
	if u.Set == nil {
		return ""
	}
	return u.Set.Story
}

// RelFile returns the path of a's file relative to the module root, with
// forward slashes.
func (t *Target) RelFile(a *mutation.Applied) string {
	rel, err := filepath.Rel(t.ModuleDir, a.File)
	if err != nil {
		return a.File
	}
	return filepath.ToSlash(rel)
}

// IsPattern reports whether pkg names packages by a pattern.
func IsPattern(pkg string) bool { return strings.Contains(pkg, "...") }

// Choose reads or generates the mutants of sel and narrows them to its
// ids, without applying them: enough to list them.
func Choose(ctx context.Context, sel Selection) (*Plan, error) {
	root, err := FindRoot(cmp.Or(sel.Dir, "."))
	if err != nil {
		return nil, err
	}
	plan := &Plan{Root: root}
	switch {
	case IsPattern(sel.Pkg):
		err = plan.generatePattern(ctx, sel)
	case sel.Generate:
		err = plan.generate(ctx, sel)
	default:
		err = plan.read(sel)
	}
	if err != nil {
		return nil, err
	}
	if err := plan.only(sel); err != nil {
		return nil, err
	}
	return plan, nil
}

// Select is Choose, then every chosen mutant applied to its package (the
// error of a mutant that does not apply is a yamlfile.Errors with every
// such mutant's problem), narrowed to the lines changed since sel.Diff,
// numbered, and narrowed to sel.Shard.
func Select(ctx context.Context, sel Selection) (*Plan, error) {
	var shardK, shardN int
	if sel.Shard != "" {
		var err error
		if shardK, shardN, err = parseShard(sel.Shard); err != nil {
			return nil, err
		}
	}
	plan, err := Choose(ctx, sel)
	if err != nil {
		return nil, err
	}
	if err := plan.apply(ctx, sel); err != nil {
		return nil, err
	}
	if sel.Diff != "" {
		if err := plan.inDiff(ctx, sel.Diff); err != nil {
			return nil, err
		}
	}
	total := 0
	for _, u := range plan.Units {
		for range u.Applied {
			total++
			u.Ordinals = append(u.Ordinals, total)
		}
	}
	if shardN > 0 {
		plan.Shard = &report.Shard{Index: shardK, Count: shardN, Total: total}
		// Every n-th mutant from the k-th: each slice has mutants of every
		// package and function, in numbers that differ by one at most.
		for _, u := range plan.Units {
			u.keep(func(i int) bool { return (u.Ordinals[i]-1)%shardN == shardK-1 })
		}
	}
	return plan, nil
}

// Count returns how many mutants the plan runs.
func (p *Plan) Count() int {
	n := 0
	for _, u := range p.Units {
		n += len(u.Applied)
	}
	return n
}

// note records what the selection left out, and why.
func (p *Plan) note(format string, args ...any) {
	p.Notes = append(p.Notes, fmt.Sprintf(format, args...))
}

// keep keeps the applied mutants of u at the indexes for which f is true.
func (u *Unit) keep(f func(i int) bool) {
	var applied []*mutation.Applied
	var ordinals []int
	for i, a := range u.Applied {
		if f(i) {
			applied = append(applied, a)
			if len(u.Ordinals) > 0 {
				ordinals = append(ordinals, u.Ordinals[i])
			}
		}
	}
	u.Applied, u.Ordinals = applied, ordinals
}

// generatePattern generates the mutants of every package that the pattern
// names and that has tests.
func (p *Plan) generatePattern(ctx context.Context, sel Selection) error {
	if !sel.Generate {
		return fmt.Errorf("-pkg %s names packages by a pattern, which needs -generate: a catalog's mutants are written for one package", sel.Pkg)
	}
	p.Multi, p.Package = true, sel.Pkg
	ts, err := findTargets(ctx, "", "", sel.Pkg, sel.Progress)
	if err != nil {
		return err
	}
	for _, t := range ts {
		// A package with no tests of its own is reached by the tests of
		// the packages of the pattern that use it, as PIT and Stryker do.
		var testers []*Target
		if !t.HasTests {
			for _, other := range ts {
				if other.HasTests && slices.Contains(other.Uses(), t.ImportPath) {
					testers = append(testers, other)
				}
			}
			if len(testers) == 0 {
				p.note("%s has no tests, and no package of %s with tests uses it: no mutant of it could be killed; left out", t.Rel, sel.Pkg)
				continue
			}
			var names []string
			for _, o := range testers {
				names = append(names, o.Rel)
			}
			p.note("%s has no tests of its own: its mutants run against the tests of %s", t.Rel, strings.Join(names, ", "))
		}
		src, err := mutation.Load(t.Dir)
		if err != nil {
			return err
		}
		ms := src.Generate()
		p.Units = append(p.Units, &Unit{Target: t, Testers: testers, Source: src, Qual: report.Qualifier(t.Rel), All: ms, Mutants: ms})
	}
	return nil
}

// generate generates the mutants of the package sel.Pkg names, or else
// the catalog's, or else the one in the current directory.
func (p *Plan) generate(ctx context.Context, sel Selection) error {
	if len(sel.Files) > 0 {
		return errors.New("-generate and -mutants exclude each other: the mutants come from the code, or from the files")
	}
	dir, pkg := "", sel.Pkg
	if q := qualifierOf(sel.Only); pkg == "" && q != "" {
		// A qualified id names its package, relative to the module root.
		dir, pkg = p.Root, "./"+q
	} else if pkg == "" {
		pkg = "."
		if cat, err := LoadFile(filepath.Join(p.Root, filepath.FromSlash(Catalog))); err == nil && cat.Package != "" {
			dir, pkg = p.Root, cat.Package
		}
	}
	t, err := FindTarget(ctx, "", dir, pkg, sel.Progress)
	if err != nil {
		return err
	}
	src, err := mutation.Load(t.Dir)
	if err != nil {
		return err
	}
	ms := src.Generate()
	if len(ms) == 0 {
		return fmt.Errorf("package %s has no code that an operator applies to", t.Rel)
	}
	p.Units = []*Unit{{Target: t, Source: src, All: ms, Mutants: ms}}
	p.Package = t.Rel
	return nil
}

// read reads the mutants files, or the catalog; apply then finds their
// package (see packageOf).
func (p *Plan) read(sel Selection) error {
	set, err := Load(p.Root, sel.Files)
	if err != nil {
		return err
	}
	if set.Withheld && !sel.Withheld {
		return ErrWithheld
	}
	p.Units = []*Unit{{Set: set, All: set.Mutants, Mutants: set.Mutants}}
	return nil
}

// packageOf returns where go names the package of the files of set, and
// as what: -pkg, or the one the files name, or the catalog's.
func packageOf(root string, set *Set, pkg string) (dir, name string, err error) {
	switch {
	case pkg != "":
		return "", pkg, nil
	case set.Package != "":
		return root, set.Package, nil
	}
	// A learner's own file of mutants for the module's exercise need
	// not say which package it mutates.
	if cat, err := LoadFile(filepath.Join(root, filepath.FromSlash(Catalog))); err == nil && cat.Package != "" {
		return root, cat.Package, nil
	}
	var names []string
	for _, f := range set.Files {
		names = append(names, f.Path)
	}
	return "", "", fmt.Errorf("no package to mutate: %s names none, and the module has no %s that does; add \"package: ./dir\" to it, or pass -pkg", strings.Join(names, ", "), Catalog)
}

// only narrows the units' mutants to sel.Only.
func (p *Plan) only(sel Selection) error {
	if len(sel.Only) == 0 {
		return nil
	}
	var known []string
	byID := map[string]*mutation.Mutant{}
	unitOf := map[string]*Unit{}
	bare := map[string][]string{} // a bare id: the qualified ids it may mean
	for _, u := range p.Units {
		u.Mutants = nil
		for _, m := range u.All {
			known = append(known, u.Qual+m.ID)
			byID[u.Qual+m.ID], unitOf[u.Qual+m.ID] = m, u
			// Every id has one form, qualified by its package, and a
			// run of one package may leave the qualifier out.
			if u.Target != nil && u.Qual == "" {
				q := report.Qualifier(u.Target.Rel) + m.ID
				byID[q], unitOf[q] = m, u
			}
			if u.Qual != "" {
				bare[m.ID] = append(bare[m.ID], u.Qual+m.ID)
			}
		}
	}
	for _, id := range sel.Only {
		id = strings.TrimSpace(id)
		if qs := bare[id]; p.Multi && len(qs) > 1 {
			return fmt.Errorf("-only %s: mutants of several packages have that id: name one with its package (%s)", id, strings.Join(qs, ", "))
		} else if len(qs) == 1 {
			id = qs[0]
		}
		m, ok := byID[id]
		if !ok {
			cmd := "go tool mutate list"
			if p.Multi {
				cmd += " -generate -pkg " + sel.Pkg
			}
			return fmt.Errorf("no mutant %q%s (%s shows them)", id, suggest.Hint(id, known), cmd)
		}
		u := unitOf[id]
		u.Mutants = append(u.Mutants, m)
	}
	return nil
}

// apply finds the package of the files (generated units have theirs) and
// applies every chosen mutant of each unit; units with none chosen are
// left out.
func (p *Plan) apply(ctx context.Context, sel Selection) error {
	var errs yamlfile.Errors
	var units []*Unit
	for _, u := range p.Units {
		if len(u.Mutants) == 0 && (u.Set == nil || !u.Set.Withheld) {
			continue
		}
		written := ""
		if u.Target == nil {
			dir, pkg, err := packageOf(p.Root, u.Set, sel.Pkg)
			if err != nil {
				return err
			}
			if sel.Pkg != "" && u.Set.Package != "" && u.Set.Package != sel.Pkg {
				written = u.Set.Package
			}
			if u.Target, err = FindTarget(ctx, "", dir, pkg, sel.Progress); err != nil {
				return err
			}
			if u.Source, err = mutation.Load(u.Target.Dir); err != nil {
				return err
			}
			p.Package = u.Target.Rel
		}
		var left []string
		for _, m := range u.Mutants {
			a, err := u.Source.Apply(m)
			if err != nil && m.Generated() {
				// Made from this very code a moment ago: a mutant that
				// cannot be made again is the generator's fault, never a
				// reason to stop the run.
				left = append(left, fmt.Sprintf("%s (%s in %s)", u.Qual+m.ID, m.Operator, m.Target))
				continue
			}
			if err != nil {
				if written != "" && errors.Is(err, mutation.ErrUnknownTarget) {
					p.note("the mutants are written for package %s, and -pkg names %s", written, sel.Pkg)
					written = ""
				}
				errs = append(errs, err)
				continue
			}
			u.Applied = append(u.Applied, a)
		}
		if len(left) > 0 {
			p.note("left out %s that could not be made again from the code: %s (a fault of mutate's: please report it)",
				text.Count(len(left), "generated mutant", "generated mutants"), strings.Join(left, ", "))
		}
		units = append(units, u)
	}
	if len(errs) > 0 {
		return errs
	}
	p.Units = units
	return nil
}

// parseShard parses -shard k/n.
func parseShard(s string) (k, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("-shard %s: want k/n with 1 <= k <= n, such as 2/4", s)
	}
	return k, n, nil
}

// Names returns the ids of the plan's mutants, qualified in a run of a
// pattern: all of them (what a prediction file may name), and those that
// run (what it must predict); and the names of its packages' top-level
// tests, read from their test files.
func (p *Plan) Names() (all, run, tests []string, err error) {
	for _, u := range p.Units {
		for _, m := range u.All {
			all = append(all, u.Qual+m.ID)
		}
		for _, a := range u.Applied {
			run = append(run, u.Qual+a.Mutant.ID)
		}
		names, err := mutation.TopLevel(u.Target.Dir)
		if err != nil {
			return nil, nil, nil, err
		}
		for _, name := range names {
			tests = append(tests, u.Qual+name)
		}
	}
	return all, run, tests, nil
}

// Pending returns a report of the mutants that the plan runs, with
// nothing run: what each is, and what a prediction of it is worth.
func (p *Plan) Pending() *report.Report {
	rep := &report.Report{}
	for _, u := range p.Units {
		for _, a := range u.Applied {
			m := a.Mutant
			rep.Mutants = append(rep.Mutants, report.Mutant{ID: u.Qual + m.ID, Step: m.Step, Title: m.Title, Target: m.Target, Contract: m.Contract, Points: m.Points})
		}
	}
	return rep
}

// Keep returns a copy of the plan that runs only the applied mutants for
// which keep is true, each at its place in the whole selection (its
// ordinal); p itself is left as it is.
func (p *Plan) Keep(keep func(*mutation.Mutant) bool) *Plan {
	q := *p
	q.Units = nil
	for _, u := range p.Units {
		v := *u
		v.keep(func(i int) bool { return keep(u.Applied[i].Mutant) })
		q.Units = append(q.Units, &v)
	}
	return &q
}

// qualifierOf returns the package directory that every id of ids is
// qualified by ("lease" for lease:store-renew-negation-1), or "" when they
// do not all name the same one.
func qualifierOf(ids []string) string {
	q := ""
	for i, id := range ids {
		dir, _, ok := strings.Cut(strings.TrimSpace(id), ":")
		if !ok || (i > 0 && dir != q) {
			return ""
		}
		q = dir
	}
	return q
}
