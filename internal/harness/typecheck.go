package harness

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/fencelab/fencelab/internal/gotest"
	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/text"
)

// exportFiles returns the export data files of the target package's
// imports (see gotest.ExportFiles); or the reason the package cannot be
// type-checked on its own here.
func (p *prepared) exportFiles(ctx context.Context) (map[string]string, error) {
	if p.Package.UsesCgo() {
		return nil, errors.New("the package uses cgo")
	}
	return gotest.ExportFiles(ctx, p.Target.ModuleDir, p.Target.ImportPath)
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
	if err := p.Package.UseTypes(p.Target.ImportPath, gotest.Importer(exports)); err != nil {
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
			imp := gotest.Importer(exports)
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
