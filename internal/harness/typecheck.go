package harness

import (
	"context"
	"errors"
	"fmt"
	"go/types"

	"golang.org/x/tools/go/packages"

	"github.com/fencelab/fencelab/mutants"
)

// importer returns an importer of the target package's imports, from the
// export data that go builds for them (cached like any build), or nil and
// the reason when the package cannot be type-checked on its own here.
func (p *Prepared) importer(ctx context.Context, cfg Config) (types.Importer, error) {
	if p.Package.UsesCgo() {
		return nil, errors.New("the package uses cgo")
	}
	pkgs, err := packages.Load(&packages.Config{
		Context: ctx,
		Mode:    packages.NeedName | packages.NeedImports | packages.NeedDeps | packages.NeedTypes,
		Dir:     p.Target.ModuleDir,
	}, p.Target.ImportPath)
	if err != nil {
		return nil, err
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("go list %s gave %d packages", p.Target.ImportPath, len(pkgs))
	}
	imports := pkgs[0].Imports
	return importerFunc(func(path string) (*types.Package, error) {
		if path == "unsafe" {
			return types.Unsafe, nil
		}
		dep := imports[path]
		if dep == nil || dep.Types == nil {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return dep.Types, nil
	}), nil
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// typeCheck type-checks the standalone form of every mutant and returns,
// by id, the compiler's messages for those that are not valid Go. Such a
// mutant is build-failed in either mode: the switched build never holds
// it, where the other switches could make it compile.
func (p *Prepared) typeCheck(ctx context.Context, cfg Config) map[string]string {
	imp, err := p.importer(ctx, cfg)
	if err != nil {
		cfg.Progress.Printf("not type-checking the mutants (their builds will tell): %v", err)
		return nil
	}
	invalid := map[string]string{}
	for _, a := range p.Applied {
		err := p.Package.TypeCheck(p.Target.ImportPath, imp, a, p.Target.ModuleDir)
		var te *mutants.TypeError
		if errors.As(err, &te) {
			invalid[a.Mutant.ID] = te.Messages
		}
	}
	return invalid
}
