package harness

import (
	"context"
	"errors"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"

	"golang.org/x/tools/go/packages"

	"github.com/fencelab/fencelab/internal/mutation"
)

// importer returns an importer of the target package's imports, from the
// export data that go builds for them (cached like any build), or nil and
// the reason when the package cannot be type-checked on its own here. It
// reads the export data of a package only when the type check needs it.
func (p *Prepared) importer(ctx context.Context) (types.Importer, error) {
	if p.Package.UsesCgo() {
		return nil, errors.New("the package uses cgo")
	}
	pkgs, err := packages.Load(&packages.Config{
		Context: ctx,
		Mode:    packages.NeedName | packages.NeedImports | packages.NeedDeps | packages.NeedExportFile,
		Dir:     p.Target.ModuleDir,
	}, p.Target.ImportPath)
	if err != nil {
		return nil, err
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("go list %s gave %d packages", p.Target.ImportPath, len(pkgs))
	}
	// Export data names the packages it refers to by their paths; the
	// target's own imports are looked up as its source writes them.
	exports := map[string]string{}
	packages.Visit(pkgs, nil, func(pkg *packages.Package) {
		exports[pkg.PkgPath] = pkg.ExportFile
	})
	for path, dep := range pkgs[0].Imports {
		exports[path] = dep.ExportFile
	}
	fset := token.NewFileSet()
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file := exports[path]
		if file == "" {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return os.Open(file)
	}), nil
}

// typeCheck type-checks the standalone form of every mutant and returns,
// by id, the compiler's messages for those that are not valid Go. Such a
// mutant is build-failed in either mode: the switched build never holds
// it, where the other switches could make it compile.
func (p *Prepared) typeCheck(ctx context.Context, cfg Config) map[string]string {
	imp, err := p.importer(ctx)
	if err != nil {
		cfg.Progress.Printf("not type-checking the mutants (their builds will tell): %v", err)
		return nil
	}
	invalid := map[string]string{}
	for _, a := range p.Applied {
		err := p.Package.TypeCheck(p.Target.ImportPath, imp, a, p.Target.ModuleDir)
		var te *mutation.TypeError
		if errors.As(err, &te) {
			invalid[a.Mutant.ID] = te.Messages
		}
	}
	return invalid
}
