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
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/tools/go/packages"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/text"
)

// exportFiles returns the export data files of the target package's
// imports, which go builds for them (cached like any build), by import
// path; or the reason the package cannot be type-checked on its own here.
func (p *prepared) exportFiles(ctx context.Context) (map[string]string, error) {
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
	return exports, nil
}

// newImporter returns an importer that reads the export data of a package
// from exports only when a type check needs it. An importer is for one
// goroutine.
func newImporter(exports map[string]string) types.Importer {
	fset := token.NewFileSet()
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file := exports[path]
		if file == "" {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return os.Open(file)
	})
}

// typeCheck type-checks the standalone form of every mutant, on every
// CPU, and returns, by id, the compiler's messages for those that are not
// valid Go. Such a mutant is build-failed in either mode, and the switched
// build leaves it out.
func (p *prepared) typeCheck(ctx context.Context, cfg config) map[string]string {
	exports, err := p.exportFiles(ctx)
	if ctx.Err() != nil {
		return nil // interrupted: the build says so
	}
	if err != nil {
		cfg.Progress.Printf("not type-checking the mutants (their builds will tell): %v", err)
		return nil
	}
	if err := p.Package.UseTypes(p.Target.ImportPath, newImporter(exports)); err != nil {
		cfg.Progress.Printf("the switched build's helpers infer their types (go/types: %v)", text.FirstLine(err.Error()))
	}
	var (
		mu      sync.Mutex
		invalid = map[string]string{}
		next    atomic.Int64
		wg      sync.WaitGroup
	)
	for range min(runtime.GOMAXPROCS(0), len(p.Applied)) {
		wg.Go(func() {
			imp := newImporter(exports)
			for i := int(next.Add(1)) - 1; i < len(p.Applied) && ctx.Err() == nil; i = int(next.Add(1)) - 1 {
				a := p.Applied[i]
				err := p.Package.TypeCheck(p.Target.ImportPath, imp, a, p.Target.ModuleDir)
				var te *mutation.TypeError
				if errors.As(err, &te) {
					mu.Lock()
					invalid[a.Mutant.ID] = te.Messages
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return invalid
}
