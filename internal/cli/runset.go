package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/harness"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/internal/suggest"
)

// runSet is what one run runs: a session per package (several for a
// pattern such as ./...), narrowed by -diff and -shard.
type runSet struct {
	sessions []*session
	multi    bool // a pattern: ids and test names are qualified by package
	root     string
	ordinal  map[*mutation.Mutant]int // place in the whole run, from 1
	shard    *report.Shard
}

// Close closes every session.
func (rs *runSet) Close() {
	for _, s := range rs.sessions {
		s.Close()
	}
}

// isPattern reports whether pkg names packages by a pattern.
func isPattern(pkg string) bool { return strings.Contains(pkg, "...") }

// openRun opens the sessions of a run: the one package that mf chooses, or
// with a pattern every package it names that has tests, each with its
// generated mutants.
func (c *call) openRun(ctx context.Context, mf *mutantFlags, rf *runFlags) (*runSet, error) {
	root, err := exercise.FindRoot(".")
	if err != nil {
		return nil, err
	}
	rs := &runSet{root: root}
	if !isPattern(mf.pkg) {
		s, err := c.open(ctx, mf, rf, nil)
		if err != nil {
			return nil, err
		}
		rs.sessions = []*session{s}
		return rs, nil
	}
	if !mf.generate {
		return nil, fmt.Errorf("-pkg %s names packages by a pattern, which needs -generate: a catalog's mutants are written for one package", mf.pkg)
	}
	rs.multi = true
	ts, err := harness.FindTargets(ctx, harness.Config{Package: mf.pkg})
	if err != nil {
		return nil, err
	}
	only, err := onlyByPackage(mf.only)
	if err != nil {
		return nil, err
	}
	var known []string
	for _, t := range ts {
		if !t.HasTests {
			fmt.Fprintf(c.stderr, "mutate: %s has no tests: no mutant of it could be killed; left out\n", t.Rel)
			continue
		}
		src, err := mutation.Load(t.Dir)
		if err != nil {
			rs.Close()
			return nil, err
		}
		ms := src.Generate()
		q := report.Qualifier(t.Rel)
		for _, m := range ms {
			known = append(known, q+m.ID)
		}
		ch := &chosen{pkg: t.Rel, dir: t.ModuleDir, all: ms, mutants: ms, target: t, source: src}
		if mf.only != "" {
			ch.mutants = nil
			for _, m := range ms {
				if only[q+m.ID] {
					ch.mutants = append(ch.mutants, m)
					delete(only, q+m.ID)
				}
			}
		}
		if len(ch.mutants) == 0 {
			continue
		}
		cfg := rf.config(ch, c.stderr)
		p, err := harness.Prepare(ctx, cfg)
		if err != nil {
			rs.Close()
			return nil, err
		}
		rs.sessions = append(rs.sessions, &session{chosen: ch, cfg: cfg, Prepared: p})
	}
	for id := range only {
		rs.Close()
		return nil, fmt.Errorf("-only: no mutant %q%s (go tool mutate list -generate -pkg %s shows them)", id, suggest.Hint(id, known), mf.pkg)
	}
	return rs, nil
}

// onlyByPackage parses -only in a run of a pattern, whose ids are
// qualified: "lease:store-claim-boundary-1".
func onlyByPackage(only string) (map[string]bool, error) {
	ids := map[string]bool{}
	if only == "" {
		return ids, nil
	}
	for id := range strings.SplitSeq(only, ",") {
		id = strings.TrimSpace(id)
		if !strings.Contains(id, ":") {
			return nil, fmt.Errorf("-only %s: in a run of a pattern, name a mutant with its package, as list shows it (lease:store-claim-boundary-1)", id)
		}
		ids[id] = true
	}
	return ids, nil
}

// keep keeps the mutants of s for which f is true.
func (s *session) keep(f func(a *mutation.Applied) bool) {
	var applied []*mutation.Applied
	var ms []*mutation.Mutant
	for _, a := range s.Applied {
		if f(a) {
			applied = append(applied, a)
			ms = append(ms, a.Mutant)
		}
	}
	s.Applied, s.cfg.Mutants, s.mutants = applied, ms, ms
}

// count returns how many mutants the sessions hold.
func (rs *runSet) count() int {
	n := 0
	for _, s := range rs.sessions {
		n += len(s.Applied)
	}
	return n
}

// inDiff keeps the mutants whose rewritten code is on a line that changed
// since the git ref (in the working tree, against ref), or in a file git
// does not track yet.
func (rs *runSet) inDiff(ctx context.Context, ref string) error {
	changed, err := changedLines(ctx, rs.root, ref)
	if err != nil {
		return err
	}
	for _, s := range rs.sessions {
		s.keep(func(a *mutation.Applied) bool {
			lines, ok := changed[a.File]
			if !ok {
				return false
			}
			if lines == nil { // untracked: every line is new
				return true
			}
			for l := a.Start.Line; l <= max(a.End.Line, a.Start.Line); l++ {
				if lines[l] {
					return true
				}
			}
			return false
		})
	}
	return nil
}

// hunk matches the header of a hunk of a unified diff with no context,
// whose new side starts at line c and spans d lines (1 when d is absent).
var hunk = regexp.MustCompile(`^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@`)

// changedLines returns, by absolute path, the lines of each file of the
// module that differ from ref (added or changed; nil for an untracked
// file, every line of which is new).
func changedLines(ctx context.Context, root, ref string) (map[string]map[int]bool, error) {
	git := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("-diff %s: git %s: %s", ref, strings.Join(args, " "), strings.TrimSpace(stderr.String()+" "+err.Error()))
		}
		return out, nil
	}
	if _, err := git("rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		return nil, fmt.Errorf("-diff %s: not a commit of the repository at %s", ref, root)
	}
	out, err := git("diff", "--no-color", "--no-ext-diff", "--unified=0", "--relative", ref, "--", ".")
	if err != nil {
		return nil, err
	}
	changed := map[string]map[int]bool{}
	var file string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "+++ "); ok {
			file = ""
			if name != "/dev/null" {
				file = filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(name, "b/")))
				changed[file] = map[int]bool{}
			}
			continue
		}
		m := hunk.FindStringSubmatch(line)
		if m == nil || file == "" {
			continue
		}
		start, _ := strconv.Atoi(m[1])
		n := 1
		if m[2] != "" {
			n, _ = strconv.Atoi(m[2])
		}
		for l := start; l < start+n; l++ {
			changed[file][l] = true
		}
	}
	untracked, err := git("ls-files", "--others", "--exclude-standard", "--full-name", "-z")
	if err != nil {
		return nil, err
	}
	top, err := git("rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	for name := range strings.SplitSeq(strings.TrimRight(string(untracked), "\x00"), "\x00") {
		if name != "" {
			changed[filepath.Join(strings.TrimSpace(string(top)), filepath.FromSlash(name))] = nil
		}
	}
	return changed, nil
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

// numberAndShard gives each mutant its place in the whole run and, with
// -shard k/n, keeps the k-th of n slices: every n-th mutant from the k-th,
// so that each slice has mutants of every package and function, in
// numbers that differ by one at most.
func (rs *runSet) numberAndShard(shard string) error {
	rs.ordinal = map[*mutation.Mutant]int{}
	i := 0
	for _, s := range rs.sessions {
		for _, a := range s.Applied {
			i++
			rs.ordinal[a.Mutant] = i
		}
	}
	if shard == "" {
		return nil
	}
	k, n, err := parseShard(shard)
	if err != nil {
		return err
	}
	rs.shard = &report.Shard{Index: k, Count: n, Total: i}
	for _, s := range rs.sessions {
		s.keep(func(a *mutation.Applied) bool { return (rs.ordinal[a.Mutant]-1)%n == k-1 })
	}
	return nil
}

// run runs every session that has mutants, and returns the report of the
// run: one package's, or for a pattern the packages' joined.
func (rs *runSet) run(ctx context.Context, pattern string) (*report.Report, error) {
	var parts []*report.Report
	for _, s := range rs.sessions {
		if len(s.Applied) == 0 {
			continue
		}
		rep, err := s.Run(ctx, s.cfg)
		if err != nil {
			return nil, err
		}
		if rs.shard != nil {
			byID := map[string]int{}
			for _, a := range s.Applied {
				byID[a.Mutant.ID] = rs.ordinal[a.Mutant]
			}
			for i := range rep.Mutants {
				rep.Mutants[i].Ordinal = byID[rep.Mutants[i].ID]
			}
		}
		if rs.multi {
			rep.Qualify()
		}
		parts = append(parts, rep)
	}
	var rep *report.Report
	switch {
	case rs.multi:
		rep = report.Join(pattern, parts)
	case len(parts) == 1:
		rep = parts[0]
	default:
		// -diff or -shard left nothing to run.
		s := rs.sessions[0]
		rep = &report.Report{Module: s.Target.Module, Package: s.Target.Rel, Mode: string(s.cfg.Mode), Jobs: s.cfg.Jobs, Mutants: []report.Mutant{}}
	}
	rep.Shard = rs.shard
	return rep, nil
}
