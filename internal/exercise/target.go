package exercise

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	// Deps are the packages that the package imports, directly or not;
	// TestImports those that its tests import directly (go list's
	// TestImports and XTestImports).
	Deps, TestImports []string
}

// Uses returns the packages that the package and its tests import:
// Deps, then TestImports.
func (t *Target) Uses() []string { return slices.Concat(t.Deps, t.TestImports) }

// findTargets asks go list, run in dir, for every package that pattern
// names (a pattern such as ./... names many), in go list's order.
func findTargets(ctx context.Context, goCmd, dir, pattern string, pr *progress.Reporter) ([]*Target, error) {
	pr.Phase("loading %s", pattern)
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.CommandContext(ctx, goCmd, "list", "-f",
		"{{.ImportPath}}\t{{.Dir}}\t{{with .Module}}{{.Dir}}\t{{.Path}}{{end}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}\t{{join .Deps \" \"}}\t{{join .TestImports \" \"}} {{join .XTestImports \" \"}}", pattern)
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
		if len(f) != 8 {
			return nil, fmt.Errorf("go list %s: package is not in a module", pattern)
		}
		rel, err := filepath.Rel(f[2], f[1])
		if err != nil {
			return nil, err
		}
		if rel = filepath.ToSlash(rel); rel != "." {
			rel = "./" + rel
		}
		ts = append(ts, &Target{ImportPath: f[0], Dir: f[1], ModuleDir: f[2], Module: f[3], Rel: rel, HasTests: f[4] != "0" || f[5] != "0",
			Deps: strings.Fields(f[6]), TestImports: strings.Fields(f[7])})
	}
	return ts, nil
}

// ModuleDirs returns, sorted, the directories of the package and of the
// packages of its module that it or its tests import, directly or not, as
// far as go list's answer for the package alone tells them: it names
// what the package imports, directly or not, but only what its tests
// import directly. ok is false when a test imports a package whose own
// imports may hold more of the module: one of the module that the package
// does not import, or one outside the standard library (at goroot) that
// it does not import either. Packages of other modules of a workspace are
// not told apart from others either: with a workspace, ok is false.
func (t *Target) ModuleDirs(goroot string, workspace bool) (dirs []string, ok bool) {
	if workspace {
		return nil, false
	}
	deps := map[string]bool{t.ImportPath: true}
	for _, path := range t.Deps {
		deps[path] = true
	}
	for _, path := range t.TestImports {
		if !deps[path] && (t.inModule(path) || !isStandard(goroot, path)) {
			return nil, false
		}
	}
	dirs = append([]string{t.Dir}, t.PackageDirs(t.Uses())...)
	slices.Sort(dirs)
	return dirs, true
}

// PackageDirs returns the directories of those of paths that are packages
// of t's module other than t (its root's included), each once, in the
// order of paths. A path under the module's whose directory is not here,
// or is a nested module's (it has a go.mod), is another module's.
func (t *Target) PackageDirs(paths []string) []string {
	var dirs []string
	for _, path := range paths {
		if !t.inModule(path) || path == t.ImportPath {
			continue
		}
		dir := filepath.Join(t.ModuleDir, filepath.FromSlash(strings.TrimPrefix(path, t.Module)))
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || slices.Contains(dirs, dir) {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && dir != t.ModuleDir {
			continue
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

// inModule reports whether the package at path is one of t's module.
func (t *Target) inModule(path string) bool {
	return path == t.Module || strings.HasPrefix(path, t.Module+"/")
}

// isStandard reports whether the package at path is one of the standard
// library at goroot: its path has no dot in its first element, and it is
// a directory of goroot/src.
func isStandard(goroot, path string) bool {
	first, _, _ := strings.Cut(path, "/")
	if goroot == "" || strings.Contains(first, ".") {
		return false
	}
	fi, err := os.Stat(filepath.Join(goroot, "src", filepath.FromSlash(path)))
	return err == nil && fi.IsDir()
}

// FindTarget is findTargets of a pattern that must name exactly one package.
func FindTarget(ctx context.Context, goCmd, dir, pkg string, pr *progress.Reporter) (*Target, error) {
	ts, err := findTargets(ctx, goCmd, dir, pkg, pr)
	if err != nil {
		return nil, err
	}
	if len(ts) != 1 {
		return nil, fmt.Errorf("%s names %d packages; -pkg must name exactly one", pkg, len(ts))
	}
	return ts[0], nil
}
