package harness

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/progress"
)

// Target is the package that mutants rewrite, as go list reports it.
type Target struct {
	ImportPath string // import path of the package
	Module     string // module path
	ModuleDir  string // module root, absolute
	Dir        string // package directory, absolute
	Rel        string // package directory relative to the module root, "./stock"
	HasTests   bool   // it has test files
}

// FindTarget asks go list where cfg's package lives.
func FindTarget(ctx context.Context, cfg Config) (*Target, error) {
	ts, err := FindTargets(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if len(ts) != 1 {
		return nil, fmt.Errorf("%s names %d packages; -pkg must name exactly one", cfg.Package, len(ts))
	}
	return ts[0], nil
}

// FindTargets asks go list for every package that cfg.Package names (a
// pattern such as ./... names many), in go list's order.
func FindTargets(ctx context.Context, cfg Config) ([]*Target, error) {
	cfg.Progress.Phase("loading %s", cfg.Package)
	goCmd := cfg.Go
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.CommandContext(ctx, goCmd, "list", "-f",
		"{{.ImportPath}}\t{{.Dir}}\t{{with .Module}}{{.Dir}}\t{{.Path}}{{end}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}", cfg.Package)
	cmd.Dir = cfg.Dir
	stderr := &gotest.Lines{Fn: goStderr(cfg.Progress)}
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		why := strings.TrimSpace(stderr.String())
		if why == "" {
			why = err.Error()
		}
		return nil, fmt.Errorf("go list %s: %s", cfg.Package, why)
	}
	var ts []*Target
	for row := range strings.Lines(strings.TrimSpace(string(out))) {
		f := strings.Split(strings.TrimSuffix(row, "\n"), "\t")
		if len(f) != 6 {
			return nil, fmt.Errorf("go list %s: package is not in a module", cfg.Package)
		}
		rel, err := filepath.Rel(f[2], f[1])
		if err != nil {
			return nil, err
		}
		if rel = filepath.ToSlash(rel); rel != "." {
			rel = "./" + rel
		}
		ts = append(ts, &Target{ImportPath: f[0], Dir: f[1], ModuleDir: f[2], Module: f[3], Rel: rel, HasTests: f[4] != "0" || f[5] != "0"})
	}
	return ts, nil
}

// goStderr returns a function that shows the lines in which the go
// command says that it downloads a module as progress: on a cold module
// cache they are the first minutes of a run.
func goStderr(pr *progress.Reporter) func(string) {
	var once sync.Once
	return func(line string) {
		if mod, ok := strings.CutPrefix(line, "go: downloading "); ok {
			once.Do(func() { pr.Printf("downloading modules") })
			pr.Status("downloading %s", mod)
		}
	}
}
