package harness

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fencelab/fencelab/internal/modcopy"
	"github.com/fencelab/fencelab/internal/mutation"
)

// runDir is the private world of one run of a test binary: a copy of the
// package directory, at the package's place in an otherwise empty mirror
// of the module, which is the binary's working directory; and a HOME and a
// TMPDIR of its own. A test that deletes its testdata, writes a file next
// to its source or opens "../x.db" changes its own copy only, never the
// source tree nor the copy of another run.
type runDir struct {
	root string // everything of the run is under it
	pkg  string // the copy of the package directory
	home string
	tmp  string
}

// newRunDir makes the run directory of one run, a new directory of a
// random name beside every other run's: its path says nothing of what
// runs in it (the baseline, a mutant, a confirmation).
func (p *prepared) newRunDir() (*runDir, error) {
	runs := filepath.Join(p.tmp, "runs")
	if err := os.MkdirAll(runs, 0o711); err != nil { // passed through, never listed, as the scratch directory
		return nil, err
	}
	dir, err := os.MkdirTemp(runs, "")
	if err != nil {
		return nil, err
	}
	// The sandbox's user (nobody, when root runs mutate) reads it.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	rd := &runDir{
		root: dir,
		pkg:  filepath.Join(dir, "mod", filepath.FromSlash(p.tester.Rel)),
		home: filepath.Join(dir, "home"),
		tmp:  filepath.Join(dir, "tmp"),
	}
	for _, d := range []string{rd.home, rd.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := copyPackageDir(p.tester.Dir, rd.pkg); err != nil {
		return nil, err
	}
	return rd, nil
}

// linkBinary links the test binary bin into the sandbox's bin directory
// (or copies it, across file systems), and writes beside it the files that
// name the active mutant and the coverage file, if env sets mutation's
// variables for them; a blind run's, none (nothing beside its binary
// names a mutant, even opaquely). It returns the link and the coverage
// file.
func (rd *runDir) linkBinary(bin string, env []string, blind bool) (link, cover string, err error) {
	dir := filepath.Join(rd.root, "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	link = filepath.Join(dir, filepath.Base(bin))
	if err := os.Link(bin, link); err != nil {
		if err := modcopy.File(bin, link); err != nil {
			return "", "", err
		}
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		var suffix string
		switch k {
		case mutation.SwitchEnv:
			suffix = mutation.ActiveSuffix
		case mutation.CoverEnv:
			suffix, cover = mutation.CoverSuffix, v
		default:
			continue
		}
		if v == "" || blind {
			continue
		}
		if err := os.WriteFile(link+suffix, []byte(v), 0o444); err != nil {
			return "", "", err
		}
	}
	return link, cover, nil
}

// env returns the environment a binary runs with in the sandbox: HOME,
// TMPDIR and the XDG directories in it, and the go command's caches where
// they are for mutate, so that a test that runs go does not start cold.
// A blind run (see Options.Blind) gets no caches, and nothing else of
// this process's environment but what blindEnv lets through.
func (rd *runDir) env(goEnv map[string]string, blind bool) []string {
	env := []string{
		"HOME=" + rd.home,
		"TMPDIR=" + rd.tmp,
		"XDG_CACHE_HOME=" + filepath.Join(rd.home, ".cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(rd.home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(rd.home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(rd.home, ".local", "state"),
	}
	if blind {
		env = append(env, "PATH="+blindPath)
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); blindEnv(k) {
				env = append(env, kv)
			}
		}
		return env
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		if v := goEnv[k]; v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// blindPath is the PATH of a blind run: the system's directories, none of
// the user's.
const blindPath = "/usr/local/bin:/usr/bin:/bin"

// blindEnv reports whether a blind run gets the variable name of this
// process's environment: the locale and the time zone, which say how a
// program should behave and nothing of who runs it. Everything else (a
// grader's token, the directory it was started in, its PATH and go
// settings) stays out.
func blindEnv(name string) bool {
	return name == "LANG" || name == "LANGUAGE" || name == "TZ" || strings.HasPrefix(name, "LC_")
}

// clean replaces the sandbox's paths in s, which a test printed, with what
// they stand for: $TMPDIR, $HOME, and paths relative to the package
// directory. Messages then read the same from run to run and say nothing
// of where mutate keeps its files.
func (rd *runDir) clean(s string) string {
	if s == "" {
		return s
	}
	return strings.NewReplacer(
		rd.tmp, "$TMPDIR",
		rd.home, "$HOME",
		rd.pkg+string(filepath.Separator), "",
		rd.pkg, ".",
		rd.root, "$SANDBOX",
	).Replace(s)
}

// copyPackageDir copies the files of the package directory src into dst:
// its regular files and every subdirectory that holds no package of its
// own (testdata among them; a directory with Go files outside testdata,
// or with a go.mod, is another package).
func copyPackageDir(src, dst string) error {
	return modcopy.CopyIf(src, dst, func(rel string, d fs.DirEntry) bool {
		return !d.IsDir() || d.Name() != ".git" && d.Name() != "vendor" && !isOtherPackage(filepath.Join(src, filepath.FromSlash(rel)))
	})
}

// isOtherPackage reports whether the directory dir, below a package
// directory, holds a package or module of its own. Directories named
// testdata never do: go ignores them.
func isOtherPackage(dir string) bool {
	if filepath.Base(dir) == "testdata" || strings.Contains(filepath.ToSlash(dir), "/testdata/") {
		return false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !e.IsDir() && (e.Name() == "go.mod" || strings.HasSuffix(e.Name(), ".go")) {
			return true
		}
	}
	return false
}
