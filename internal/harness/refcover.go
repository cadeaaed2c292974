package harness

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/gotest"
)

// Coverage without a switched build (-mode=overlay, or a switched build
// that does not behave as the reference) comes from the reference itself,
// built with Go's coverage of the package under test: each test runs
// alone, and the blocks of code that its profile says ran are matched
// with the mutants' sites. A site outside every block of the profile (a
// package-level constant, a declaration's line) is not known: its mutant
// runs every test.

// block is one block of a coverage profile: from line.col to line.col of
// a file, and whether it ran.
type block struct {
	file       string // base name
	start, end [2]int
	ran        bool
}

// parseProfile returns the blocks of a text coverage profile of the
// package importPath.
func parseProfile(data []byte, importPath string) ([]block, error) {
	var blocks []block
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "mode: ") {
			continue
		}
		// importpath/file.go:1.2,3.4 statements count
		name, rest, ok := strings.Cut(line, ":")
		fields := strings.Fields(rest)
		if !ok || len(fields) != 3 {
			return nil, fmt.Errorf("coverage profile: line %q", line)
		}
		dir, file := filepath.Split(filepath.FromSlash(name))
		if filepath.ToSlash(filepath.Clean(dir)) != importPath {
			continue
		}
		from, to, ok := strings.Cut(fields[0], ",")
		start, err1 := profilePos(from)
		end, err2 := profilePos(to)
		count, err3 := strconv.Atoi(fields[2])
		if !ok || err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("coverage profile: line %q", line)
		}
		blocks = append(blocks, block{file: file, start: start, end: end, ran: count > 0})
	}
	return blocks, sc.Err()
}

func profilePos(s string) ([2]int, error) {
	l, c, _ := strings.Cut(s, ".")
	line, err1 := strconv.Atoi(l)
	col, err2 := strconv.Atoi(c)
	if err1 != nil || err2 != nil {
		return [2]int{}, fmt.Errorf("position %q", s)
	}
	return [2]int{line, col}, nil
}

// holds reports whether b holds the position of file at line, col.
func (b block) holds(file string, line, col int) bool {
	at := [2]int{line, col}
	return b.file == file && !before(at, b.start) && before(at, b.end)
}

func before(a, b [2]int) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }

// siteBlocks returns, for each mutant of p whose site starts in a block of
// blocks, the index of that block.
func siteBlocks(p *prepared, blocks []block) map[string]int {
	at := map[string]int{}
	for _, a := range p.Applied {
		file := filepath.Base(a.File)
		for i, b := range blocks {
			if b.holds(file, a.Start.Line, a.Start.Column) {
				at[a.Mutant.ID] = i
				break
			}
		}
	}
	return at
}

// buildCovered builds the reference test binary with coverage of the
// package under test.
func (p *prepared) buildCovered(ctx context.Context, cfg config) (string, error) {
	return p.build(ctx, cfg, filepath.Join(p.tmp, "covered"), nil, false,
		"-cover", "-covermode=set", "-coverpkg="+p.Target.ImportPath)
}

// referenceCoverage measures coverage with the reference built with Go's
// coverage (see above), for the mutants of p.
func referenceCoverage(ctx context.Context, cfg config, p *prepared, b *Baseline) (*coverage, error) {
	bin, err := p.buildCovered(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("coverage build: %w", err)
	}
	profile := func(ctx context.Context, dir string, limit time.Duration, args ...string) (*gotest.Result, []block, error) {
		file := filepath.Join(dir, "cover.out")
		res, err := p.exec(ctx, cfg, bin, nil, append(args, "-test.coverprofile="+file), limits{wall: limit}, nil)
		if err != nil {
			return nil, nil, err
		}
		data, err := os.ReadFile(file)
		if os.IsNotExist(err) {
			return res, nil, nil // it never finished: nothing is known to have run
		}
		if err != nil {
			return nil, nil, err
		}
		blocks, err := parseProfile(data, p.Target.ImportPath)
		return res, blocks, err
	}
	// A run of no test lists every block: which one holds each site.
	dir := filepath.Join(p.tmp, "cover", "blocks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	_, blocks, err := profile(ctx, dir, baselineTimeout(cfg), "-test.run=^$")
	if err != nil {
		return nil, fmt.Errorf("coverage: %w", err)
	}
	sites := siteBlocks(p, blocks)
	var marked []string
	for _, a := range p.Applied {
		if _, ok := sites[a.Mutant.ID]; ok {
			marked = append(marked, a.Mutant.ID)
		}
	}
	probe := func(ctx context.Context, test, dir string, limit time.Duration) (*gotest.Result, []string, error) {
		res, ran, err := profile(ctx, dir, limit, runOnly([]string{test}))
		if err != nil || len(ran) != len(blocks) {
			return res, nil, err
		}
		var ids []string
		for _, id := range marked {
			if ran[sites[id]].ran {
				ids = append(ids, id)
			}
		}
		return res, ids, nil
	}
	return runCoverage(ctx, cfg, p, b, probe, marked, nil, nil)
}
