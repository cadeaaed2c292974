package harness

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/sandbox"
)

// exec runs a test binary in a run directory of its own (see runDir), made
// afresh and removed after the run, with env added to its environment and
// args to its flags, and returns its result with the run directory's paths
// cleaned from every message. No run sees what another left in its run
// directory, and nothing of a run directory's path says what runs in it.
//
// The binary runs as a link in the run directory's bin directory, beside files
// that name the active mutant and the coverage file, if env names them
// (see mutation.ActiveSuffix): a test that runs its own binary again, with
// an environment of its own, runs the same mutant. In a sandbox (see
// package sandbox, and sandboxSpec) its copy of the package, its HOME and
// TMPDIR and the files its testing package writes are all it can write,
// the bin directory is read-only, cfg.Hide and the other runs are out of
// its reach, and its end is the end of everything it started. A run whose
// sandbox's init was killed from outside says nothing of the binary, and
// runs once more.
func (p *prepared) exec(ctx context.Context, cfg config, bin string, env, args []string, lim limits, onEvent func(gotest.Event)) (*gotest.Result, error) {
	res, err := p.execOnce(ctx, cfg, bin, env, args, lim, onEvent)
	if err == nil && res.Lost != "" && ctx.Err() == nil {
		return p.execOnce(ctx, cfg, bin, env, args, lim, onEvent)
	}
	return res, err
}

func (p *prepared) execOnce(ctx context.Context, cfg config, bin string, env, args []string, lim limits, onEvent func(gotest.Event)) (*gotest.Result, error) {
	rd, err := p.newRunDir()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(rd.root)
	link, cover, err := rd.linkBinary(bin, env, cfg.Blind)
	if err != nil {
		return nil, err
	}
	e := gotest.Exec{
		Test2JSON: p.test2json, Binary: link, Dir: rd.pkg, ImportPath: p.tester.ImportPath,
		Env: append(rd.env(p.goEnv, cfg.Blind), env...), Clean: cfg.Blind, Args: args, Timeout: lim.wall, CPULimit: lim.cpu, OnEvent: onEvent,
		Finished: filepath.Join(rd.root, "finished.prof"), Memory: p.memory,
	}
	if p.tier != "" {
		spec, err := p.sandboxSpec(cfg, rd, e.Finished, cover, args)
		if err != nil {
			return nil, err
		}
		e.Isolate = spec
		if p.tier == sandbox.Landlock && p.memory > 0 {
			// Landlock has no private file system to bound what the run
			// writes in its own directories: that counts as memory it
			// holds (they are in memory, on /dev/shm, as a rule).
			e.Written = slices.Concat(spec.Copies, spec.Own)
		}
	}
	res, err := cfg.runner().Exec(ctx, e)
	if err != nil {
		return nil, err
	}
	for _, t := range res.Tests {
		for i, line := range t.Output {
			t.Output[i] = rd.clean(line)
		}
	}
	res.Output = rd.clean(res.Output)
	return res, nil
}

// sandboxSpec returns the sandbox of a run of the run directory rd. The
// run directory is read-only: the copy of the package is the sandbox's
// own (with namespaces, in its private file system: what a test writes
// there counts against the run's memory limit), and so are its HOME and
// TMPDIR. The files its testing package writes at the end (finished),
// and what records coverage (the switched build's reached sites, cover;
// a coverage profile that args name), are the host's, each bounded.
func (p *prepared) sandboxSpec(cfg config, rd *runDir, finished, cover string, args []string) (*sandbox.Spec, error) {
	spec := sandbox.Default()
	spec.Tier = p.tier
	spec.ReadOnly = append([]string{rd.root}, cfg.Binds...)
	spec.Copies = []string{filepath.Join(rd.root, "mod")}
	spec.Own = []string{rd.home, rd.tmp}
	spec.Files = []string{finished}
	if cover != "" {
		spec.Files = append(spec.Files, cover)
	}
	for _, arg := range args {
		if profile, ok := strings.CutPrefix(arg, "-test.coverprofile="); ok {
			spec.Files = append(spec.Files, profile)
		}
	}
	for _, file := range spec.Files {
		if err := touch(file); err != nil {
			return nil, err
		}
	}
	// The other runs' directories are out of sight: the scratch directory
	// is private, with only this run's in it.
	spec.Private = append(spec.Private, p.tmp)
	spec.Private = append(spec.Private, cfg.Hide...)
	if goroot := p.goEnv["GOROOT"]; filepath.IsAbs(goroot) && isDir(goroot) {
		spec.ReadOnly = append(spec.ReadOnly, goroot) // for a test that runs go
	}
	spec.HostNetwork, spec.PrivateSize = cfg.Network, p.memory
	// A test that runs go finds the caches warm, and cannot change them.
	for _, k := range []string{"GOCACHE", "GOMODCACHE"} {
		if dir := p.goEnv[k]; filepath.IsAbs(dir) && isDir(dir) {
			spec.Overlay = append(spec.Overlay, dir)
		}
	}
	return &spec, nil
}

// touch makes path an empty file if it is not one already.
func touch(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// runOnly returns the flag that runs only the top-level tests named, and
// all of their subtests.
func runOnly(tests []string) string {
	quoted := make([]string, len(tests))
	for i, t := range tests {
		quoted[i] = regexp.QuoteMeta(t)
	}
	return "-test.run=^(?:" + strings.Join(quoted, "|") + ")$"
}
