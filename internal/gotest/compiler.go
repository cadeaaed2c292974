package gotest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Compiler compiles one package, with any of its files replaced, by
// running the compiler itself, as go build would but without the go
// command's own work for each compile: the package's imports are compiled
// once (their export data, from the build cache) and named in an
// importcfg. Only for a package of Go files alone: no cgo, assembly or
// embedded files.
type Compiler struct {
	compile    string   // the compiler
	importPath string   // -p
	lang       string   // -lang, the module's go version
	files      []string // the package's Go files, absolute
	importcfg  string   // the file that names every import's export data
}

// listed is what NewCompiler reads of go list -json.
type listed struct {
	ImportPath, Dir, Export       string
	GoFiles, CgoFiles, SFiles     []string
	EmbedFiles, SysoFiles, CFiles []string
	ImportMap                     map[string]string
	Module                        *struct{ GoVersion string }
	Standard, DepOnly, Incomplete bool
	Error                         *struct{ Err string }
}

// NewCompiler readies the compiles of package pkg of the module in dir
// (go list's pattern, "./stock"), writing its importcfg in tmp. It returns
// an error when the package needs more than the compiler (cgo, assembly,
// embedded files), or go list fails.
func NewCompiler(ctx context.Context, goCmd, dir, pkg, tmp string) (*Compiler, error) {
	cmd := command(ctx, goCmd, "list", "-export", "-deps", "-json", pkg)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := output(cmd)
	if err != nil {
		return nil, fmt.Errorf("go list -export %s: %v: %s", pkg, err, strings.TrimSpace(stderr.String()))
	}
	var (
		cfg    strings.Builder
		target *listed
	)
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			return nil, err
		}
		if p.Error != nil {
			return nil, errors.New(p.Error.Err)
		}
		if !p.DepOnly {
			target = &p
			continue
		}
		if p.Export != "" {
			fmt.Fprintf(&cfg, "packagefile %s=%s\n", p.ImportPath, p.Export)
		}
	}
	if target == nil {
		return nil, fmt.Errorf("go list -export %s: no package", pkg)
	}
	if n := len(target.CgoFiles) + len(target.SFiles) + len(target.EmbedFiles) + len(target.SysoFiles) + len(target.CFiles); n > 0 {
		return nil, fmt.Errorf("%s has cgo, assembly or embedded files", pkg)
	}
	for from, to := range target.ImportMap {
		fmt.Fprintf(&cfg, "importmap %s=%s\n", from, to)
	}
	c := &Compiler{importPath: target.ImportPath, lang: "go1.16", importcfg: filepath.Join(tmp, "importcfg")}
	if target.Module != nil && target.Module.GoVersion != "" {
		c.lang = "go" + target.Module.GoVersion
		if v := strings.Split(target.Module.GoVersion, "."); len(v) > 2 {
			c.lang = "go" + v[0] + "." + v[1] // -lang takes no patch release
		}
	}
	for _, f := range target.GoFiles {
		c.files = append(c.files, filepath.Join(target.Dir, f))
	}
	tool := command(ctx, goCmd, "env", "GOTOOLDIR")
	tool.Dir = dir
	toolDir, err := output(tool)
	if err != nil {
		return nil, fmt.Errorf("go env GOTOOLDIR: %v", err)
	}
	c.compile = filepath.Join(strings.TrimSpace(string(toolDir)), "compile")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(c.importcfg, []byte(cfg.String()), 0o644); err != nil {
		return nil, err
	}
	return c, nil
}

// Assembly compiles the package, with each file of files (absolute path:
// content) in place of the package's own, in dir, and returns the
// compiler's listing of its code (-S), without DWARF.
func (c *Compiler) Assembly(ctx context.Context, dir string, files map[string][]byte) ([]byte, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	args := []string{"-p", c.importPath, "-importcfg", c.importcfg, "-lang", c.lang, "-complete", "-S", "-dwarf=false", "-o", filepath.Join(dir, "pkg.o")}
	for _, f := range c.files {
		// The compiler takes the files of one directory: the replaced
		// ones are written in dir, the others linked there.
		if len(files) > 0 {
			in := filepath.Join(dir, filepath.Base(f))
			if src, ok := files[f]; ok {
				if err := os.WriteFile(in, src, 0o644); err != nil {
					return nil, err
				}
			} else if err := os.Symlink(f, in); err != nil {
				return nil, err
			}
			f = in
		}
		args = append(args, f)
	}
	cmd := command(ctx, c.compile, args...)
	cmd.Dir = dir
	stdout, _, err := compiled(ctx, cmd, c.importPath)
	return stdout, err
}
