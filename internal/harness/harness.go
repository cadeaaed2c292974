// Package harness runs a package's test suite against each mutant and
// records which tests fail.
//
// Mutated files never touch the source tree: each one is written to a
// temporary directory and handed to `go test -overlay`. The directory is
// removed when the run ends, including when it is interrupted.
package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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

// Config says what to run.
type Config struct {
	Dir      string // the directory go runs in, inside the module
	Package  string // the package to mutate, as go names it: "./lease"
	Mutants  []*mutants.Mutant
	Jobs     int           // mutants run at the same time; at least 1
	Timeout  time.Duration // per mutant run; 0 derives it from the baseline
	Go       string        // the go command; "go" if empty
	Progress io.Writer     // one line per finished step; nil for none
}

// Target is the package that mutants rewrite, as go list reports it.
type Target struct {
	Module    string // module path
	ModuleDir string // module root, absolute
	Dir       string // package directory, absolute
	Rel       string // package directory relative to the module root, "./lease"
}

// FindTarget asks go list where cfg.Package lives.
func FindTarget(ctx context.Context, goCmd, dir, pkg string) (*Target, error) {
	if goCmd == "" {
		goCmd = "go"
	}
	cmd := exec.CommandContext(ctx, goCmd, "list", "-f", "{{.Dir}}\t{{with .Module}}{{.Dir}}\t{{.Path}}{{end}}", pkg)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %s", pkg, strings.TrimSpace(stderr.String()))
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\t")
	if len(f) != 3 {
		return nil, fmt.Errorf("go list %s: package is not in a module", pkg)
	}
	rel, err := filepath.Rel(f[1], f[0])
	if err != nil {
		return nil, err
	}
	if rel = filepath.ToSlash(rel); rel != "." {
		rel = "./" + rel
	}
	return &Target{Module: f[2], ModuleDir: f[1], Dir: f[0], Rel: rel}, nil
}

// Prepared is a set of mutants applied to their package, ready to run.
type Prepared struct {
	Target  *Target
	Applied []*mutants.Applied
}

// Prepare locates the package and applies every mutant, so that a mutant
// that drifted or names an unknown function is reported before anything
// runs.
func Prepare(ctx context.Context, cfg Config) (*Prepared, error) {
	t, err := FindTarget(ctx, cfg.Go, cfg.Dir, cfg.Package)
	if err != nil {
		return nil, err
	}
	pkg, err := mutants.Load(t.Dir)
	if err != nil {
		return nil, err
	}
	p := &Prepared{Target: t}
	for _, m := range cfg.Mutants {
		a, err := pkg.Apply(m)
		if err != nil {
			return nil, err
		}
		p.Applied = append(p.Applied, a)
	}
	return p, nil
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
	return b.String()
}

// Baseline is a passing run of the unmutated suite.
type Baseline struct {
	Result *gotest.Result
	Wall   time.Duration
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
// a red suite from a flaky one; either is a *BaselineError.
func RunBaseline(ctx context.Context, cfg Config, p *Prepared) (*Baseline, error) {
	tmp, err := os.MkdirTemp("", "mutate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	res, wall, err := baseline(ctx, cfg, p.Target, tmp)
	if err != nil {
		return nil, err
	}
	progressf(cfg.Progress, "baseline %s: %d tests passed (%.1fs)", p.Target.Rel, len(res.Tests), wall.Seconds())
	return &Baseline{Result: res, Wall: wall}, nil
}

// RunMutants runs every prepared mutant, cfg.Jobs at a time, and returns
// the report with the mutants in the order of cfg.Mutants.
func RunMutants(ctx context.Context, cfg Config, p *Prepared, b *Baseline) (*report.Report, error) {
	start := time.Now()
	tmp, err := os.MkdirTemp("", "mutate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	limit := cfg.Timeout
	if limit == 0 {
		limit = max(MinTimeout, TimeoutFactor*b.Wall)
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
			r, err := runMutant(ctx, cfg, p, a, filepath.Join(tmp, fmt.Sprint(i)), limit)
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
		GoVersion: goVersion(ctx, cfg.Go),
		Mode:      "overlay",
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
	return nil, 0, &BaselineError{Package: t.Rel, Flaky: flaky, Failed: failed, Messages: msgs}
}

// runMutant runs the suite against one mutant, delivered by an overlay
// written under dir.
func runMutant(ctx context.Context, cfg Config, p *Prepared, a *mutants.Applied, dir string, limit time.Duration) (report.Mutant, error) {
	r := report.Mutant{
		ID: a.Mutant.ID, Step: a.Mutant.Step, Title: a.Mutant.Title, Target: a.Mutant.Target,
		File: p.RelFile(a), Line: a.Line, FailedTests: []string{}, Failures: []report.Failure{},
	}
	overlay, err := writeOverlay(dir, a)
	if err != nil {
		return r, err
	}
	env, err := tempEnv(dir)
	if err != nil {
		return r, err
	}
	cmd := gotest.Command{
		Go: cfg.Go, Dir: p.Target.ModuleDir, Package: p.Target.Rel, Env: env,
		Flags: []string{"-vet=off", "-overlay=" + overlay, fmt.Sprintf("-timeout=%s", limit)},
		// The go command's own limit would fire first and kill the binary
		// with a stack dump; ours also covers the build.
		Timeout: limit + 30*time.Second,
	}
	var res *gotest.Result
	var wall time.Duration
	for attempt := 0; attempt < 2; attempt++ {
		res, wall, err = gotest.Run(ctx, cmd)
		if err != nil {
			return r, err
		}
		if !res.TimedOut {
			break
		}
		// Re-run once to confirm: a loaded machine can stall a run that
		// would have finished.
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

// writeOverlay writes the mutated file and the overlay that maps the
// reference file to it, and returns the overlay's path.
func writeOverlay(dir string, a *mutants.Applied) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	file := filepath.Join(dir, filepath.Base(a.File))
	if err := os.WriteFile(file, a.Mutated, 0o644); err != nil {
		return "", err
	}
	data, err := json.Marshal(map[string]map[string]string{"Replace": {a.File: file}})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, "overlay.json")
	return overlay, os.WriteFile(overlay, data, 0o644)
}

func describe(r report.Mutant) string {
	switch r.Status {
	case report.Killed:
		switch n := len(r.FailedTests); n {
		case 0:
		case 1:
			return "killed by 1 test"
		default:
			return fmt.Sprintf("killed by %d tests", n)
		}
		return "killed (the test binary failed)"
	}
	return r.Status
}

func goVersion(ctx context.Context, goCmd string) string {
	if goCmd == "" {
		goCmd = "go"
	}
	out, err := exec.CommandContext(ctx, goCmd, "env", "GOVERSION").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func progressf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, "mutate: "+format+"\n", args...)
	}
}

// IsBaseline reports whether err is a BaselineError.
func IsBaseline(err error) bool {
	var be *BaselineError
	return errors.As(err, &be)
}
