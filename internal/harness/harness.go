// Package harness runs a package's test suite against each mutant and
// records which tests fail.
//
// Mutated files never touch the source tree: they are written to a
// temporary directory and handed to go with -overlay. In overlay mode each
// mutant gets its own `go test` build. In switch mode one build holds every
// mutant at once (see mutants.Switched), and its test binary runs once per
// mutant with the mutant named in the environment; a mutant whose switched
// form does not compile falls back to a build of its own. The temporary
// directory is removed when the run ends, including when it is interrupted.
package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/report"
	"github.com/fencelab/fencelab/mutants"
)

// Limits for a mutant's run when Config.Timeout is zero: this many times
// the baseline's wall-clock time, and never less than MinTimeout.
const (
	TimeoutFactor = 10
	MinTimeout    = 60 * time.Second
)

// Modes of a run.
const (
	ModeSwitch  = "switch"  // one build for all mutants, chosen at run time
	ModeOverlay = "overlay" // one build per mutant
)

// Config says what to run.
type Config struct {
	Dir      string // the directory go runs in, inside the module
	Package  string // the package to mutate, as go names it: "./lease"
	Mutants  []*mutants.Mutant
	Mode     string        // ModeSwitch or ModeOverlay; "" is ModeSwitch
	Jobs     int           // mutants run at the same time; at least 1
	Timeout  time.Duration // per mutant run; 0 derives it from the baseline
	Go       string        // the go command; "go" if empty
	Progress io.Writer     // one line per finished step; nil for none
}

func (c Config) mode() string {
	if c.Mode == "" {
		return ModeSwitch
	}
	return c.Mode
}

// Target is the package that mutants rewrite, as go list reports it.
type Target struct {
	ImportPath string // import path of the package
	Module     string // module path
	ModuleDir  string // module root, absolute
	Dir        string // package directory, absolute
	Rel        string // package directory relative to the module root, "./lease"
}

// FindTarget asks go list where pkg lives.
func FindTarget(ctx context.Context, goCmd, dir, pkg string) (*Target, error) {
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.CommandContext(ctx, goCmd, "list", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{with .Module}}{{.Dir}}\t{{.Path}}{{end}}", pkg)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %s", pkg, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 1 {
		return nil, fmt.Errorf("%s names %d packages; -pkg must name exactly one", pkg, len(lines))
	}
	f := strings.Split(lines[0], "\t")
	if len(f) != 4 {
		return nil, fmt.Errorf("go list %s: package is not in a module", pkg)
	}
	rel, err := filepath.Rel(f[2], f[1])
	if err != nil {
		return nil, err
	}
	if rel = filepath.ToSlash(rel); rel != "." {
		rel = "./" + rel
	}
	return &Target{ImportPath: f[0], Dir: f[1], ModuleDir: f[2], Module: f[3], Rel: rel}, nil
}

// Prepared is a set of mutants applied to their package, ready to run. It
// owns a temporary directory: Close removes it.
type Prepared struct {
	Target  *Target
	Package *mutants.Package
	Applied []*mutants.Applied
	tmp     string
}

// Prepare locates the package and applies every mutant, so that a mutant
// that drifted or names an unknown function is reported before anything
// runs.
func Prepare(ctx context.Context, cfg Config) (*Prepared, error) {
	switch cfg.Mode {
	case "", ModeSwitch, ModeOverlay:
	default:
		return nil, fmt.Errorf("unknown mode %q: want switch or overlay", cfg.Mode)
	}
	t, err := FindTarget(ctx, cfg.Go, cfg.Dir, cfg.Package)
	if err != nil {
		return nil, err
	}
	pkg, err := mutants.Load(t.Dir)
	if err != nil {
		return nil, err
	}
	p := &Prepared{Target: t, Package: pkg}
	for _, m := range cfg.Mutants {
		a, err := pkg.Apply(m)
		if err != nil {
			return nil, err
		}
		p.Applied = append(p.Applied, a)
	}
	if p.tmp, err = os.MkdirTemp(ScratchDir(), "mutate-"); err != nil {
		return nil, err
	}
	return p, nil
}

// ScratchDir returns where runs keep their temporary files: $MUTATE_TMPDIR
// if set, else /dev/shm where it is a writable directory that may hold and
// execute test binaries (in memory: the suite's SQLite files then cost no
// disk syncs, which halves its run time), else the system's temporary
// directory.
func ScratchDir() string {
	if dir := os.Getenv("MUTATE_TMPDIR"); dir != "" {
		return dir
	}
	const shm = "/dev/shm"
	if fi, err := os.Stat(shm); err == nil && fi.IsDir() && roomy(shm) {
		if probe, err := os.MkdirTemp(shm, "mutate-probe-"); err == nil {
			os.Remove(probe)
			return shm
		}
	}
	return os.TempDir()
}

// Close removes the temporary files of the runs.
func (p *Prepared) Close() error {
	if p.tmp == "" {
		return nil
	}
	return os.RemoveAll(p.tmp)
}

// RelFile returns the path of a's file relative to the module root, with
// forward slashes.
func (p *Prepared) RelFile(a *mutants.Applied) string {
	rel, err := filepath.Rel(p.Target.ModuleDir, a.File)
	if err != nil {
		return a.File
	}
	return filepath.ToSlash(rel)
}

// BaselineError is returned when the unmutated suite does not pass: no
// mutant can be judged against a red or flaky baseline.
type BaselineError struct {
	Package     string
	Flaky       bool              // the two runs disagreed
	Failed      []string          // tests that failed in the first run
	Messages    map[string]string // their messages
	Output      string            // what the test binary printed outside any test
	BuildOutput string            // when the package does not build
}

func (e *BaselineError) Error() string {
	var b strings.Builder
	switch {
	case e.BuildOutput != "":
		fmt.Fprintf(&b, "the unmutated package %s does not build:\n%s", e.Package, strings.TrimRight(e.BuildOutput, "\n"))
	case e.Flaky:
		fmt.Fprintf(&b, "the unmutated suite of %s is flaky: it failed, then passed or failed differently when run again; no mutant can be judged against it. Failed the first time:", e.Package)
	default:
		fmt.Fprintf(&b, "the unmutated suite of %s fails, twice; fix it before running mutants. Failed:", e.Package)
	}
	for _, name := range e.Failed {
		fmt.Fprintf(&b, "\n  %s", name)
		if msg := e.Messages[name]; msg != "" {
			fmt.Fprintf(&b, "\n%s", report.Indent(msg, "      "))
		}
	}
	if len(e.Failed) == 0 && e.Output != "" {
		fmt.Fprintf(&b, " no test, but the test binary said:\n%s", report.Indent(e.Output, "      "))
	}
	return b.String()
}

// Baseline is a passing run of the unmutated suite, and in switch mode the
// switched build made while it ran.
type Baseline struct {
	Result   *gotest.Result
	Wall     time.Duration
	switched *switchedBuild
}

// Run runs the baseline and then every prepared mutant; see RunBaseline and
// RunMutants.
func Run(ctx context.Context, cfg Config, p *Prepared) (*report.Report, error) {
	b, err := RunBaseline(ctx, cfg, p)
	if err != nil {
		return nil, err
	}
	return RunMutants(ctx, cfg, p, b)
}

// RunBaseline runs the unmutated suite, and once more if it fails, to tell
// a red suite from a flaky one; either is a *BaselineError. In switch mode
// it builds the switched test binary at the same time.
func RunBaseline(ctx context.Context, cfg Config, p *Prepared) (*Baseline, error) {
	var (
		sb *switchedBuild
		wg sync.WaitGroup
	)
	if cfg.mode() == ModeSwitch {
		// The switched build, and its run with no mutant active, while the
		// plain baseline runs.
		wg.Go(func() {
			if sb = buildSwitched(ctx, cfg, p); sb.err == nil && sb.bin != "" {
				// No limit is derived yet; the test binary's own default
				// of ten minutes applies unless -timeout says otherwise.
				sb.inactive, sb.inactiveWall, sb.err = runInactive(ctx, cfg, p, sb, cfg.Timeout)
			}
		})
	}
	res, wall, err := baseline(ctx, cfg, p.Target, filepath.Join(p.tmp, "baseline"))
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	progressf(cfg.Progress, "baseline %s: %d tests passed (%.1fs)", p.Target.Rel, len(res.Tests), wall.Seconds())
	b := &Baseline{Result: res, Wall: wall, switched: sb}
	if sb != nil && sb.err == nil {
		for _, a := range p.Applied {
			if why, ok := sb.sw.Excluded[a.Mutant.ID]; ok {
				progressf(cfg.Progress, "%s: a build of its own: %s", a.Mutant.ID, why)
			}
		}
		sb.err = checkInactive(cfg, b)
	}
	return b, nil
}

// limitFor returns the limit of one run: the configured one, or one derived
// from the baseline's wall-clock time (0 before the baseline is known).
func limitFor(cfg Config, baseline time.Duration) time.Duration {
	if cfg.Timeout > 0 {
		return cfg.Timeout
	}
	return max(MinTimeout, TimeoutFactor*baseline)
}

// RunMutants runs every prepared mutant, cfg.Jobs at a time, and returns
// the report with the mutants in the order of cfg.Mutants.
func RunMutants(ctx context.Context, cfg Config, p *Prepared, b *Baseline) (*report.Report, error) {
	start := time.Now()
	limit := limitFor(cfg, b.Wall)
	sb := b.switched
	if sb != nil && sb.err != nil {
		return nil, sb.err
	}

	results := make([]report.Mutant, len(p.Applied))
	jobs := max(cfg.Jobs, 1)
	sem := make(chan struct{}, jobs)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		done     int
		firstErr error
	)
	for i, a := range p.Applied {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			r, err := runMutant(ctx, cfg, p, sb, a, filepath.Join(p.tmp, "mutant", strconv.Itoa(i)), limit)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("mutant %s: %w", a.Mutant.ID, err)
				}
				return
			}
			results[i] = r
			done++
			progressf(cfg.Progress, "[%d/%d] %s: %s (%.1fs)", done, len(p.Applied), a.Mutant.ID, describe(r), r.Seconds)
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return &report.Report{
		Module:    p.Target.Module,
		Package:   p.Target.Rel,
		GoVersion: GoVersion(ctx, cfg.Go),
		Mode:      cfg.mode(),
		Jobs:      jobs,
		Limit:     limit.Seconds(),
		Baseline:  report.Baseline{Tests: len(b.Result.Tests), Seconds: b.Wall.Seconds(), TestNames: b.Result.Names()},
		Mutants:   results,
		Summary:   report.Summarize(results),
		Seconds:   (b.Wall + time.Since(start)).Seconds(),
	}, nil
}

// baseline runs the unmutated suite, and once more if it fails.
func baseline(ctx context.Context, cfg Config, t *Target, dir string) (*gotest.Result, time.Duration, error) {
	env, err := tempEnv(dir)
	if err != nil {
		return nil, 0, err
	}
	cmd := gotest.Command{Go: cfg.Go, Dir: t.ModuleDir, Package: t.Rel, Env: env}
	res, wall, err := gotest.Run(ctx, cmd)
	if err != nil {
		return nil, 0, fmt.Errorf("baseline: %w", err)
	}
	if res.BuildFailed {
		return nil, 0, &BaselineError{Package: t.Rel, BuildOutput: res.BuildOutput}
	}
	if res.Passed && len(res.Failed()) == 0 {
		return res, wall, nil
	}
	failed := res.Failed()
	msgs := map[string]string{}
	for _, name := range failed {
		msgs[name] = res.Message(name)
	}
	again, _, err := gotest.Run(ctx, cmd)
	if err != nil {
		return nil, 0, fmt.Errorf("baseline: %w", err)
	}
	flaky := again.Passed || strings.Join(again.Failed(), "\n") != strings.Join(failed, "\n")
	return nil, 0, &BaselineError{Package: t.Rel, Flaky: flaky, Failed: failed, Messages: msgs, Output: res.Output}
}

// switchedBuild is the test binary of the switched package, and its run
// with no mutant active.
type switchedBuild struct {
	sw           *mutants.Switched
	bin          string // "" when no mutant could be switched
	inactive     *gotest.Result
	inactiveWall time.Duration
	err          error // a harness error
}

func (sb *switchedBuild) switched(id string) bool {
	return sb != nil && sb.bin != "" && slices.Contains(sb.sw.Included, id)
}

// compileError matches the position of a compiler message.
var compileError = regexp.MustCompile(`(?m)^(\S+?\.go):(\d+):\d+: `)

// buildSwitched builds one test binary with every mutant switched in. When
// the build fails, the mutants whose switches the compiler's messages point
// at are left out and the build is tried again; messages that point at no
// switch leave every mutant out.
func buildSwitched(ctx context.Context, cfg Config, p *Prepared) *switchedBuild {
	dir := filepath.Join(p.tmp, "switch")
	env, err := tempEnv(dir)
	if err != nil {
		return &switchedBuild{err: err}
	}
	exclude := map[string]string{}
	for attempt := 0; ; attempt++ {
		sw, err := p.Package.Switch(cfg.Mutants, exclude)
		if err != nil {
			return &switchedBuild{err: fmt.Errorf("switched build: %w", err)}
		}
		if len(sw.Included) == 0 {
			return &switchedBuild{sw: sw}
		}
		overlay, err := writeOverlay(filepath.Join(dir, fmt.Sprint("src", attempt)), sw.Files)
		if err != nil {
			return &switchedBuild{err: err}
		}
		bin := filepath.Join(dir, "switched.test")
		cmd := gotest.Command{Go: cfg.Go, Dir: p.Target.ModuleDir, Package: p.Target.Rel, Env: env,
			Flags: []string{"-vet=off", "-overlay=" + overlay}}
		msgs, err := gotest.Build(ctx, cmd, bin)
		if err == nil {
			return &switchedBuild{sw: sw, bin: bin}
		}
		if ctx.Err() != nil {
			return &switchedBuild{err: ctx.Err()}
		}
		blamed, unattributed := map[string]bool{}, false
		for _, m := range compileError.FindAllStringSubmatch(msgs, -1) {
			line, _ := strconv.Atoi(m[2])
			ids := sw.Blame(m[1], line)
			unattributed = unattributed || len(ids) == 0
			for _, id := range ids {
				blamed[id] = true
			}
		}
		if unattributed || len(blamed) == 0 {
			// Nothing to blame but the switching itself.
			for _, id := range sw.Included {
				exclude[id] = "the switched build does not compile: " + firstLine(msgs)
			}
			continue
		}
		for id := range blamed {
			exclude[id] = "its switched form does not compile"
		}
	}
}

// runInactive runs the switched binary with no mutant active.
func runInactive(ctx context.Context, cfg Config, p *Prepared, sb *switchedBuild, limit time.Duration) (*gotest.Result, time.Duration, error) {
	env, err := tempEnv(filepath.Join(p.tmp, "inactive"))
	if err != nil {
		return nil, 0, err
	}
	res, wall, err := gotest.RunBinary(ctx, gotest.Binary{
		Go: cfg.Go, Path: sb.bin, Dir: p.Target.Dir, ImportPath: p.Target.ImportPath,
		Env: append(env, mutants.SwitchEnv+"="), Timeout: limit,
	})
	if err != nil {
		return nil, 0, fmt.Errorf("switched build, no mutant active: %w", err)
	}
	return res, wall, nil
}

// checkInactive compares the run of the switched binary with no mutant
// active with the plain baseline: it must pass exactly like it, or no result
// of the switched build can be trusted.
func checkInactive(cfg Config, b *Baseline) error {
	res := b.switched.inactive
	if res == nil {
		return nil
	}
	if res.TimedOut {
		return fmt.Errorf("the switched build with no mutant active timed out; rerun with -mode=overlay")
	}
	want, got := b.Result.Names(), res.Names()
	if !res.Passed || len(res.Failed()) > 0 || !slices.Equal(got, want) {
		var why []string
		for _, name := range res.Failed() {
			why = append(why, "  failed: "+name)
		}
		for _, name := range want {
			if !slices.Contains(got, name) {
				why = append(why, "  did not run: "+name)
			}
		}
		return fmt.Errorf("the switched build with no mutant active does not pass like the plain baseline; rerun with -mode=overlay:\n%s", strings.Join(why, "\n"))
	}
	progressf(cfg.Progress, "switched build, no mutant active: %d tests passed (%.1fs)", len(res.Tests), b.switched.inactiveWall.Seconds())
	return nil
}

// runMutant runs the suite against one mutant: the switched binary with
// the mutant active, or a build of its own delivered by an overlay written
// under dir.
func runMutant(ctx context.Context, cfg Config, p *Prepared, sb *switchedBuild, a *mutants.Applied, dir string, limit time.Duration) (report.Mutant, error) {
	r := report.Mutant{
		ID: a.Mutant.ID, Step: a.Mutant.Step, Title: a.Mutant.Title, Target: a.Mutant.Target,
		File: p.RelFile(a), Line: a.Line, FailedTests: []string{}, Failures: []report.Failure{},
		Build: ModeOverlay,
	}
	env, err := tempEnv(dir)
	if err != nil {
		return r, err
	}
	var run func() (*gotest.Result, time.Duration, error)
	if sb.switched(a.Mutant.ID) {
		r.Build = ModeSwitch
		bin := gotest.Binary{
			Go: cfg.Go, Path: sb.bin, Dir: p.Target.Dir, ImportPath: p.Target.ImportPath,
			Env: append(env, mutants.SwitchEnv+"="+a.Mutant.ID), Timeout: limit,
		}
		run = func() (*gotest.Result, time.Duration, error) { return gotest.RunBinary(ctx, bin) }
	} else {
		overlay, err := writeOverlay(dir, map[string][]byte{a.File: a.Mutated})
		if err != nil {
			return r, err
		}
		cmd := gotest.Command{
			Go: cfg.Go, Dir: p.Target.ModuleDir, Package: p.Target.Rel, Env: env,
			Flags: []string{"-vet=off", "-overlay=" + overlay, fmt.Sprintf("-timeout=%s", limit)},
			// The test binary's own alarm fires first, with a stack dump;
			// ours also covers the build.
			Timeout: limit + 30*time.Second,
		}
		run = func() (*gotest.Result, time.Duration, error) { return gotest.Run(ctx, cmd) }
	}
	var (
		res  *gotest.Result
		wall time.Duration
	)
	for range 2 {
		// Run again once to confirm a timeout: a loaded machine can stall
		// a run that would have finished.
		if res, wall, err = run(); err != nil || !res.TimedOut {
			break
		}
	}
	if err != nil {
		return r, err
	}
	r.Seconds, r.TestSeconds = wall.Seconds(), res.Elapsed
	switch {
	case res.BuildFailed:
		r.Status, r.Output = report.BuildFailed, res.BuildOutput
	case res.TimedOut:
		r.Status = report.Timeout
	case res.Passed && len(res.Failed()) == 0:
		r.Status = report.Survived
	default:
		r.Status = report.Killed
		r.FailedTests = res.Failed()
		for _, name := range r.FailedTests {
			r.Failures = append(r.Failures, report.Failure{Test: name, Message: res.Message(name)})
		}
		if len(r.FailedTests) == 0 {
			r.Output = res.Output
		}
	}
	return r, nil
}

// tempEnv returns the environment that puts every temporary file of a go
// test run, the go command's work directory and the tests' own, under dir,
// so that removing the run's directory removes them even when the run was
// killed before it could clean up.
func tempEnv(dir string) ([]string, error) {
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	return []string{"TMPDIR=" + tmp, "GOTMPDIR=" + tmp}, nil
}

// writeOverlay writes files (absolute path in the package: source) under
// dir and the overlay that maps each path to its copy, and returns the
// overlay's path.
func writeOverlay(dir string, files map[string][]byte) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	replace := map[string]string{}
	for path, src := range files {
		file := filepath.Join(dir, filepath.Base(path))
		if err := os.WriteFile(file, src, 0o644); err != nil {
			return "", err
		}
		replace[path] = file
	}
	data, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, "overlay.json")
	return overlay, os.WriteFile(overlay, data, 0o644)
}

func describe(r report.Mutant) string {
	if r.Status != report.Killed {
		return r.Status
	}
	switch n := len(r.FailedTests); n {
	case 0:
		return "killed (the test binary failed)"
	case 1:
		return "killed by 1 test"
	default:
		return fmt.Sprintf("killed by %d tests", n)
	}
}

// GoVersion returns the version of the go command.
func GoVersion(ctx context.Context, goCmd string) string {
	if goCmd == "" {
		goCmd = "go"
	}
	out, err := exec.CommandContext(ctx, goCmd, "env", "GOVERSION").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			return line
		}
	}
	return strings.TrimSpace(s)
}

func progressf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, "mutate: "+format+"\n", args...)
	}
}
