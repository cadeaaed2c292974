// Package cache keeps the results of mutation runs, keyed by a hash of
// everything that can change them, so that a run on an unchanged tree is
// answered without running anything.
//
// Each mutant's result is kept on its own, under the key of the tree and
// the mutant's definition, beside the run's baseline: a run of mutants
// that have all run on the same tree, in any company, comes from the cache
// whole; a run that adds one mutant runs that one only. Each is kept once
// more as Outcomes, with the key of each of its tests' functions, under
// the key of the tree but those functions: a run after an edit to some
// tests runs those alone (see harness's per-test reuse).
//
// The key of a tree covers the files of the mutated package and of every
// package of the same module it or its tests import (testdata included),
// go.mod and go.sum, the go command's version and build settings, the
// environment variables that Go and the tests read (GO*, CGO_*, RAPID_*),
// the flags that change results, and the mutate program itself. Anything
// else a test reads is not covered; -no-cache runs anyway.
package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fencelab/fencelab/internal/filesum"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/report"
)

// version changes when the format of keys or entries does.
const version = "v4"

// Inputs are everything the key of a tree is made of: what the results of
// every mutant of a run depend on, but the mutant itself.
type Inputs struct {
	Files   map[string]string `json:"files"`   // path relative to the module root: SHA-256
	GoEnv   map[string]string `json:"go_env"`  // go env values
	Env     map[string]string `json:"env"`     // environment variables tests may read
	Flags   map[string]string `json:"flags"`   // flags that change results
	Harness string            `json:"harness"` // SHA-256 of the mutate program

	root string   // the module root
	dirs []string // the directories whose files are in Files
}

// mutantDef is the part of a mutant that the results depend on.
type mutantDef struct {
	ID, Title, Contract, Rationale, Seed, Target, Find, Replace string
	Step, Occurrence, Line                                      int
	Kind                                                        mutation.Kind
}

// MutantKey returns the key of the results of m on the tree of key tree.
func MutantKey(tree string, m *mutation.Mutant) string {
	data, err := json.Marshal(struct {
		Tree   string    `json:"tree"`
		Mutant mutantDef `json:"mutant"`
	}{tree, mutantDef{ID: m.ID, Title: m.Title, Contract: m.Contract, Rationale: m.Rationale,
		Seed: m.Seed, Target: m.Target, Find: m.Find, Replace: m.Replace, Step: m.Step,
		Occurrence: m.Occurrence, Line: m.Line, Kind: m.Kind}})
	if err != nil {
		panic(err) // strings and numbers always marshal
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Key returns the hex SHA-256 of in.
func (in Inputs) Key() string {
	data, err := json.Marshal(struct {
		Version string `json:"version"`
		Inputs
	}{version, in})
	if err != nil {
		panic(err) // maps of strings always marshal
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// GoEnvNames are the go env values that change what a build or a test
// does: Collect needs them.
var GoEnvNames = []string{"GOVERSION", "GOOS", "GOARCH", "CGO_ENABLED", "GOFLAGS", "GOEXPERIMENT", "GOAMD64", "GOARM64", "GOWORK"}

// Collect gathers the inputs of a run on the package pkg (as go names it)
// of the module at moduleDir, with the go command's settings goEnv (at
// least GoEnvNames) and flags that change results. dirs are the
// directories of the packages of the module that pkg and its tests
// import, its own included, when the caller knows them; nil asks go list.
func Collect(ctx context.Context, goCmd, moduleDir, pkg string, dirs []string, goEnv, flags map[string]string) (Inputs, error) {
	if goCmd == "" {
		goCmd = "go"
	}
	in := Inputs{GoEnv: map[string]string{}, Env: map[string]string{}, Flags: flags, root: moduleDir, dirs: dirs}
	var err error
	if in.dirs == nil {
		if in.dirs, err = moduleDirs(ctx, goCmd, moduleDir, pkg); err != nil {
			return in, err
		}
	}
	if in.Files, err = in.hash(); err != nil {
		return in, err
	}
	for _, name := range GoEnvNames {
		in.GoEnv[name] = goEnv[name]
	}
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GO") || strings.HasPrefix(k, "CGO_") || strings.HasPrefix(k, "RAPID_") {
			in.Env[k] = v
		}
	}
	if in.Harness, err = executableHash(); err != nil {
		return in, err
	}
	return in, nil
}

// hash hashes the files of the module that in covers, as they are now.
func (in Inputs) hash() (map[string]string, error) {
	files := map[string]string{}
	for _, dir := range in.dirs {
		if err := hashDir(in.root, dir, files); err != nil {
			return nil, err
		}
	}
	for _, name := range []string{"go.mod", "go.sum"} {
		if err := hashFile(in.root, filepath.Join(in.root, name), files); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
	}
	return files, nil
}

// Rehash returns in with its files hashed again: if one of them changed
// since Collect, its key differs.
func (in Inputs) Rehash() (Inputs, error) {
	files, err := in.hash()
	in.Files = files
	return in, err
}

// moduleDirs lists the directories of the packages of the main module that
// pkg and its tests import, pkg's own included.
func moduleDirs(ctx context.Context, goCmd, moduleDir, pkg string) ([]string, error) {
	cmd := exec.CommandContext(ctx, goCmd, "list", "-deps", "-test",
		"-f", "{{if and .Module .Module.Main}}{{.Dir}}{{end}}", pkg)
	cmd.Dir = moduleDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s: %s", pkg, strings.TrimSpace(stderr.String()))
	}
	var dirs []string
	for line := range strings.Lines(string(out)) {
		if dir := strings.TrimSpace(line); dir != "" && !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	slices.Sort(dirs)
	return dirs, nil
}

// hashDir hashes the files of dir and everything under its testdata.
func hashDir(root, dir string, sums map[string]string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case e.Type().IsRegular():
			if err := hashFile(root, path, sums); err != nil {
				return err
			}
		case e.IsDir() && e.Name() == "testdata":
			err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
				if err != nil || !d.Type().IsRegular() {
					return err
				}
				return hashFile(root, p, sums)
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

func hashFile(root, path string, sums map[string]string) error {
	sum, err := filesum.Hex(path)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return err
	}
	sums[filepath.ToSlash(rel)] = sum
	return nil
}

// executableHash identifies the running mutate program: a change to the
// harness or to the catalog is a change of results. It is hashed once.
var executableHash = sync.OnceValues(func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filesum.Hex(exe)
})

// Tool returns the path of the go command's tool name (such as test2json)
// for the toolchain of goEnv (GOROOT, GOVERSION, GOCACHE): the one kept
// from an earlier call if it is still there, or else what find returns,
// which is kept. Asking go for a tool costs a check of its build.
func Tool(name string, goEnv map[string]string, find func() (string, error)) (string, error) {
	data, err := json.Marshal([]string{name, goEnv["GOROOT"], goEnv["GOVERSION"], goEnv["GOCACHE"], goEnv["GOOS"], goEnv["GOARCH"]})
	if err != nil {
		panic(err) // strings always marshal
	}
	sum := sha256.Sum256(data)
	key := "tool-" + hex.EncodeToString(sum[:])
	var path string
	if load(key, &path) && filepath.IsAbs(path) {
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return path, nil
		}
	}
	if path, err = find(); err != nil {
		return "", err
	}
	store(key, path)
	return path, nil
}

// Dir returns the directory the results are kept in.
func Dir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "fencelab-mutate", version), nil
}

// LoadRun returns the report of a run of the tree of key, without its
// mutants: where and how it ran, and its baseline.
func LoadRun(key string) (*report.Report, bool) {
	var r report.Report
	if !load("run-"+key, &r) || len(r.Baseline.TestNames) == 0 {
		return nil, false
	}
	return &r, true
}

// StoreRun keeps rep, without its mutants, as the run of the tree of key.
func StoreRun(key string, rep *report.Report) error {
	r := *rep
	r.Mutants, r.Cached = nil, false
	return store("run-"+key, &r)
}

// LoadMutant returns the result of the mutant of key (see MutantKey).
func LoadMutant(key string) (report.Mutant, bool) {
	var m report.Mutant
	if !load(key, &m) || m.ID == "" {
		return report.Mutant{}, false
	}
	return m, true
}

// StoreMutant keeps the result of the mutant of key if its status's row
// says it may be kept (report.Mutant.Cacheable); any other runs again next
// time.
func StoreMutant(key string, m report.Mutant) error {
	if !m.Cacheable() {
		return nil
	}
	return store(key, m)
}

// LoadBaseline returns the baseline stored under key, if there is one.
func LoadBaseline(key string) (report.Baseline, bool) {
	var b report.Baseline
	if !load(key, &b) || len(b.TestNames) == 0 {
		return report.Baseline{}, false
	}
	return b, true
}

// StoreBaseline keeps the baseline of a run under key, the key of its tree
// with no mutants.
func StoreBaseline(key string, b report.Baseline) error {
	return store(key, b)
}

// Outcomes are what a mutant's run leaves for a later run of the same
// tree but its tests' functions (see harness's per-test reuse): the key
// of each top-level test's function, when its outcome was that of a run
// of the whole suite, and the mutant's result then.
type Outcomes struct {
	Tests  map[string]string `json:"tests"` // top-level test: the key of its function
	Mutant report.Mutant     `json:"mutant"`
	When   time.Time         `json:"when"` // when its tests ran
}

// LoadOutcomes returns the outcomes kept under key (see OutcomesKey).
func LoadOutcomes(key string) (Outcomes, bool) {
	var o Outcomes
	if !load("outcomes-"+key, &o) || o.Mutant.ID == "" || len(o.Tests) == 0 {
		return Outcomes{}, false
	}
	return o, true
}

// StoreOutcomes keeps o under key.
func StoreOutcomes(key string, o Outcomes) error {
	return store("outcomes-"+key, o)
}

// LoadTrusted returns the top-level tests that passed, without any
// mutant, in every one of enough runs (see harness's trust) of the test
// binary whose content hashes to sum, each as the flags of those runs, a
// NUL, and its name: a fact about that binary, true in any later run of
// it.
func LoadTrusted(sum string) map[string]bool {
	var tests []string
	trusted := map[string]bool{}
	if load("trusted-"+sum, &tests) {
		for _, t := range tests {
			trusted[t] = true
		}
	}
	return trusted
}

// StoreTrusted keeps tests (flags, NUL, name) as trusted for the binary
// whose content hashes to sum (see LoadTrusted), beside those kept before.
func StoreTrusted(sum string, tests []string) error {
	all := LoadTrusted(sum)
	for _, t := range tests {
		all[t] = true
	}
	return store("trusted-"+sum, slices.Sorted(maps.Keys(all)))
}

func load(key string, v any) bool {
	dir, err := Dir()
	if err != nil {
		return false
	}
	data, err := os.ReadFile(filepath.Join(dir, key+".json"))
	return err == nil && json.Unmarshal(data, v) == nil
}

// store writes v as the JSON of key, atomically.
func store(key string, v any) error {
	dir, err := Dir()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, key+".*.tmp")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, key+".json"))
}
