package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fencelab/fencelab/internal/cache"
	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/sandbox"
	"github.com/fencelab/fencelab/internal/text"
)

// build compiles the test binary of the target with files (absolute path:
// source) overlaid on the package, none for the reference, into dir. A
// package that does not compile gives a *gotest.BuildError. With keep, the
// binary also stays in the cache directory until a build of the same
// sources asks for it again (the plain and the switched build of a
// package, which runs repeat): go then checks it rather than link it anew.
func (p *prepared) build(ctx context.Context, cfg config, dir string, files map[string][]byte, keep bool, extra ...string) (string, error) {
	env, err := tempEnv(dir)
	if err != nil {
		return "", err
	}
	flags := slices.Clone(extra)
	// Nothing reads a test binary's DWARF, and linking without it is
	// faster; unless the user's GOFLAGS says how to link.
	if !strings.Contains(p.goEnv["GOFLAGS"], "-ldflags") {
		flags = append(flags, "-ldflags=-w")
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
		Go: cfg.Go, Dir: p.Target.ModuleDir, Package: p.tester.Rel, Flags: flags, Env: env,
		Stderr: cfg.Progress.GoLines(),
	}
	if keep {
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
	if root == "" || !p.isolated {
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

// exec runs a test binary in a sandbox of its own, made afresh under dir
// and removed after the run, with env added to its environment and args to
// its flags, and returns its result with the sandbox's paths cleaned from
// every message. No run sees what another left in its sandbox.
//
// The binary runs as a link in the sandbox's bin directory, beside files
// that name the active mutant and the coverage file, if env names them
// (see mutation.ActiveSuffix): a test that runs its own binary again, with
// an environment of its own, runs the same mutant. Where namespaces are
// available, the binary runs in its own (see package sandbox): the sandbox
// and the coverage file's directory are all it can write, the bin
// directory is read-only, /tmp and /dev/shm are its own, and its end is
// the end of everything it started. A run whose sandbox's init was killed
// from outside says nothing of the binary, and runs once more.
func (p *prepared) exec(ctx context.Context, cfg config, bin, dir string, env, args []string, lim limits, onEvent func(gotest.Event)) (*gotest.Result, error) {
	res, err := p.execOnce(ctx, cfg, bin, dir, env, args, lim, onEvent)
	if err == nil && res.Lost != "" && ctx.Err() == nil {
		return p.execOnce(ctx, cfg, bin, dir, env, args, lim, onEvent)
	}
	return res, err
}

func (p *prepared) execOnce(ctx context.Context, cfg config, bin, dir string, env, args []string, lim limits, onEvent func(gotest.Event)) (*gotest.Result, error) {
	sb, err := p.newSandbox(dir)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(sb.root)
	link, cover, err := sb.linkBinary(bin, env)
	if err != nil {
		return nil, err
	}
	e := gotest.Exec{
		Test2JSON: p.test2json, Binary: link, Dir: sb.pkg, ImportPath: p.tester.ImportPath,
		Env: append(sb.env(p.goEnv), env...), Args: args, Timeout: lim.wall, CPULimit: lim.cpu, OnEvent: onEvent,
		Finished: filepath.Join(sb.root, "finished.prof"), Memory: p.memory,
	}
	if p.isolated {
		spec := sandbox.Default(sb.root)
		// What records coverage (the switched build's reached sites, a
		// coverage profile) writes in its run's directory.
		if cover != "" {
			spec.Writable = append(spec.Writable, filepath.Dir(cover))
		}
		for _, arg := range args {
			if profile, ok := strings.CutPrefix(arg, "-test.coverprofile="); ok {
				spec.Writable = append(spec.Writable, filepath.Dir(profile))
			}
		}
		// The other runs' directories are out of sight: the scratch
		// directory is private, with only this run's in it. Its HOME and
		// TMPDIR are private too: what its tests write there counts
		// against the limit of its private directories (the scratch
		// directory may be in memory, /dev/shm).
		spec.Private = append(spec.Private, p.tmp, sb.home, sb.tmp)
		spec.ReadOnly = []string{filepath.Dir(link)}
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
		e.Isolate = &spec
	}
	res, err := cfg.runner().Exec(ctx, e)
	if err != nil {
		return nil, err
	}
	for _, t := range res.Tests {
		for i, line := range t.Output {
			t.Output[i] = sb.clean(line)
		}
	}
	res.Output = sb.clean(res.Output)
	return res, nil
}

// switchedBuild is the test binary of the switched package, and its run
// with no mutant active.
type switchedBuild struct {
	sw       *mutation.Switched
	bin      string // "" when no mutant could be switched
	inactive *gotest.Result
	err      error // a harness error
}

func (sb *switchedBuild) switched(id string) bool {
	return sb != nil && sb.bin != "" && slices.Contains(sb.sw.Included, id)
}

// compileError matches the position of a compiler message: file:line:col,
// or file:line alone, as the compiler writes it past column 255.
var compileError = regexp.MustCompile(`(?m)^(\S+?\.go):(\d+):(?:\d+:)? `)

// buildSwitched builds one test binary with every mutant switched in but
// those of invalid, which are not valid Go; the mutants it cannot switch
// are marked for coverage (see mutation.Package.Switch). When the build
// fails, the mutants whose switches or marks the compiler's messages point
// at are left out, or unmarked, and the build is tried again; only when
// no message points at a switch does every mutant get a build of its own.
func buildSwitched(ctx context.Context, cfg config, p *prepared, invalid map[string]string) *switchedBuild {
	exclude, noMark := map[string]string{}, map[string]bool{}
	for id := range invalid {
		exclude[id] = "not valid Go on its own"
		noMark[id] = true
	}
	for attempt := 0; ; attempt++ {
		sw, err := p.Package.Switch(cfg.Mutants, exclude, noMark)
		if err != nil {
			return &switchedBuild{err: fmt.Errorf("switched build: %w", err)}
		}
		if len(sw.Marked()) == 0 {
			return &switchedBuild{sw: sw}
		}
		bin, err := p.build(ctx, cfg, filepath.Join(p.tmp, "switch", strconv.Itoa(attempt)), sw.Files, true)
		if err == nil {
			return &switchedBuild{sw: sw, bin: bin}
		}
		var be *gotest.BuildError
		if !errors.As(err, &be) {
			return &switchedBuild{err: fmt.Errorf("switched build: %w", err)}
		}
		blamed := map[string]bool{}
		for _, m := range compileError.FindAllStringSubmatch(be.Output, -1) {
			line, _ := strconv.Atoi(m[2])
			for _, id := range sw.Blame(m[1], line) {
				blamed[id] = true
			}
		}
		if len(blamed) == 0 && len(sw.Constants) > 0 {
			// A constant made a variable is used where Go needs a
			// constant: those mutants get builds of their own, where it
			// stays one.
			for _, id := range sw.Constants {
				exclude[id] = "its constant, which the switched build makes a variable, is used where Go needs a constant"
			}
			continue
		}
		if len(blamed) == 0 {
			// Nothing to blame but the switching itself.
			for _, id := range sw.Marked() {
				if _, ok := exclude[id]; !ok {
					exclude[id] = "the switched build does not compile: " + text.FirstLine(be.Output)
				}
				noMark[id] = true
			}
			continue
		}
		for id := range blamed {
			if slices.Contains(sw.Included, id) {
				exclude[id] = "its switched form does not compile"
			} else {
				noMark[id] = true
			}
		}
	}
}

// runInactive runs the switched binary with no mutant active.
func runInactive(ctx context.Context, cfg config, p *prepared, sb *switchedBuild, limit time.Duration) (*gotest.Result, error) {
	res, err := p.exec(ctx, cfg, sb.bin, filepath.Join(p.tmp, "inactive"), []string{mutation.SwitchEnv + "="}, nil, limits{wall: limit}, nil)
	if err != nil {
		return nil, fmt.Errorf("switched build, no mutant active: %w", err)
	}
	return res, nil
}

// checkInactive compares the run of the switched binary with no mutant
// active with the plain baseline: it must pass exactly like it, or no result
// of the switched build can be trusted.
func checkInactive(cfg config, b *Baseline) error {
	res := b.switched.inactive
	if res == nil {
		return nil
	}
	if res.TimedOut {
		return fmt.Errorf("the switched build with no mutant active timed out, where the reference passed")
	}
	want, got := b.Result.Names(), res.Names()
	if !passed(res) || !slices.Equal(got, want) {
		var why []string
		for _, name := range res.Failed() {
			why = append(why, name+" failed")
		}
		for _, name := range want {
			if !slices.Contains(got, name) {
				why = append(why, name+" did not run")
			}
		}
		return fmt.Errorf("the switched build with no mutant active does not pass like the reference (%s)", strings.Join(why, ", "))
	}
	cfg.Progress.Printf("switched build, no mutant active: %s passed (%.1fs)", text.Count(len(res.Tests), "test", "tests"), res.Wall)
	return nil
}

// isDir reports whether path is a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
