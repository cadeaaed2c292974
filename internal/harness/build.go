package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/cache"
	"github.com/fencelab/fencelab/internal/gotest"
)

// build compiles the test binary of the target with files (absolute path:
// source) overlaid on the package, none for the reference, into dir. A
// package that does not compile gives a *gotest.BuildError. With keep, the
// binary also stays in the cache directory until a build of the same
// sources asks for it again (the plain and the switched build of a
// package, which runs repeat): go then checks it rather than link it anew;
// such a binary is shared by runs, read-only, and its hash checked after
// each (see binaries). A blind run keeps none.
func (p *prepared) build(ctx context.Context, cfg config, dir string, files map[string][]byte, keep bool, extra ...string) (string, error) {
	env, err := tempEnv(dir)
	if err != nil {
		return "", err
	}
	flags := slices.Clone(extra)
	// Nothing reads a test binary's symbol table or DWARF (a panic's
	// stack names its functions from the binary's own tables), and
	// linking without them is faster; unless the user's GOFLAGS says how
	// to link.
	if !strings.Contains(p.goEnv["GOFLAGS"], "-ldflags") {
		flags = append(flags, "-ldflags=-s -w")
	}
	// A blind run's binaries name their files by import path, not by
	// where the grader keeps them: a panic's trace shows a learner no
	// directory of the grader's (its copy of the module, Go's root, the
	// module cache), and the same sources compile from Go's build cache
	// wherever the next grading copies them.
	if cfg.Blind {
		flags = append(flags, "-trimpath")
	}
	if len(files) > 0 {
		overlay, err := writeOverlay(filepath.Join(dir, "src"), files)
		if err != nil {
			return "", err
		}
		flags = append(flags, "-overlay="+overlay)
	}
	bin := filepath.Join(dir, "pkg.test")
	c := gotest.Compile{
		Dir: p.Target.ModuleDir, Package: p.tester.Rel, Flags: flags, Env: env,
		Stderr: cfg.Progress.GoLines(), Say: func(msg string) { cfg.Progress.Printf("%s", msg) },
	}
	// A blind run's builds compile a learner's file, whose generics or
	// literals could make a build take without end: each is bounded.
	if cfg.Blind {
		c.Limits = blindLimits()
	}
	// A blind run's binaries hold a learner's tests: none outlives it.
	if keep && !cfg.Blind {
		c.Keep = p.keptPath(files)
		c.Changed = func(string) {
			cfg.Progress.Printf("the kept test binary of %s had changed since it was linked (its content hash differs); linked again", p.tester.Rel)
		}
	}
	if err := cfg.runner().Build(ctx, c, bin); err != nil {
		return "", err
	}
	if keep {
		// Shared by the mutants' runs: read-only, and checked after each.
		if err := os.Chmod(bin, 0o555); err != nil {
			return "", err
		}
		if err := p.bins.record(bin); err != nil {
			return "", err
		}
	}
	return bin, nil
}

// keptBinaries is how many test binaries the cache directory keeps.
const keptBinaries = 12

// keptRoot returns the directory of the kept test binaries; "" if there is
// no cache directory.
func keptRoot() string {
	dir, err := cache.Dir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "bin")
}

// keptPath returns where the test binary of the target with files
// overlaid is kept; "" if nowhere.
func (p *prepared) keptPath(files map[string][]byte) string {
	root := keptRoot()
	if root == "" || p.tier == "" {
		// What a run without sandboxes builds, its tests could replace.
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%q %q\n", p.Target.ModuleDir, p.tester.ImportPath)
	for _, path := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(h, "%q %x\n", path, sha256.Sum256(files[path]))
	}
	return filepath.Join(root, hex.EncodeToString(h.Sum(nil))[:32], "pkg.test")
}

// compileError matches the position of a compiler message: file:line:col,
// or file:line alone, as the compiler writes it past column 255.
var compileError = regexp.MustCompile(`(?m)^(\S+?\.go):(\d+):(?:\d+:)? `)

// isDir reports whether path is a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
