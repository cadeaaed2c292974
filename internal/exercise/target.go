package exercise

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/progress"
)

// Target is a package that mutants rewrite, as go list reports it.
type Target struct {
	ImportPath string // import path of the package
	Module     string // module path
	ModuleDir  string // module root, absolute
	Dir        string // package directory, absolute
	Rel        string // package directory relative to the module root, "./stock"
	HasTests   bool   // it has test files
	// Uses are the packages that the package and its tests import,
	// directly or not (go list's Deps, TestImports and XTestImports).
	Uses []string
}

// FindTargets asks go list, run in dir, for every package that pattern
// names (a pattern such as ./... names many), in go list's order.
func FindTargets(ctx context.Context, goCmd, dir, pattern string, pr *progress.Reporter) ([]*Target, error) {
	pr.Phase("loading %s", pattern)
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.CommandContext(ctx, goCmd, "list", "-f",
		"{{.ImportPath}}\t{{.Dir}}\t{{with .Module}}{{.Dir}}\t{{.Path}}{{end}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}\t{{join .Deps \" \"}} {{join .TestImports \" \"}} {{join .XTestImports \" \"}}", pattern)
	cmd.Dir = dir
	stderr := &gotest.Lines{Fn: pr.GoLines()}
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		why := strings.TrimSpace(stderr.String())
		if why == "" {
			why = err.Error()
		}
		return nil, fmt.Errorf("go list %s: %s", pattern, why)
	}
	var ts []*Target
	for row := range strings.Lines(string(out)) {
		if strings.TrimSpace(row) == "" {
			continue
		}
		f := strings.Split(strings.TrimSuffix(row, "\n"), "\t")
		if len(f) != 7 {
			return nil, fmt.Errorf("go list %s: package is not in a module", pattern)
		}
		rel, err := filepath.Rel(f[2], f[1])
		if err != nil {
			return nil, err
		}
		if rel = filepath.ToSlash(rel); rel != "." {
			rel = "./" + rel
		}
		ts = append(ts, &Target{ImportPath: f[0], Dir: f[1], ModuleDir: f[2], Module: f[3], Rel: rel, HasTests: f[4] != "0" || f[5] != "0", Uses: strings.Fields(f[6])})
	}
	return ts, nil
}

// FindTarget is FindTargets of a pattern that must name exactly one package.
func FindTarget(ctx context.Context, goCmd, dir, pkg string, pr *progress.Reporter) (*Target, error) {
	ts, err := FindTargets(ctx, goCmd, dir, pkg, pr)
	if err != nil {
		return nil, err
	}
	if len(ts) != 1 {
		return nil, fmt.Errorf("%s names %d packages; -pkg must name exactly one", pkg, len(ts))
	}
	return ts[0], nil
}
