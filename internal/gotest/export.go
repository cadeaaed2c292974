package gotest

import (
	"context"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"

	"golang.org/x/tools/go/packages"
)

// ExportFiles returns the export data files of the packages at paths and
// of every package they import, which go builds for them in the module at
// dir (cached like any build), by import path. Export data names the
// packages it refers to by their paths; the imports of the packages at
// paths are found too as their sources write them (a vendored package).
func ExportFiles(ctx context.Context, dir string, paths ...string) (map[string]string, error) {
	pkgs, err := packages.Load(&packages.Config{
		Context: ctx,
		Mode:    packages.NeedName | packages.NeedImports | packages.NeedDeps | packages.NeedExportFile,
		Dir:     dir,
	}, paths...)
	if err != nil {
		return nil, err
	}
	if len(pkgs) != len(paths) {
		return nil, fmt.Errorf("go list of %d packages gave %d", len(paths), len(pkgs))
	}
	exports := map[string]string{}
	var errs []packages.Error
	packages.Visit(pkgs, nil, func(pkg *packages.Package) {
		exports[pkg.PkgPath] = pkg.ExportFile
		errs = append(errs, pkg.Errors...)
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", errs[0].Msg)
	}
	for _, pkg := range pkgs {
		for path, dep := range pkg.Imports {
			exports[path] = dep.ExportFile
		}
	}
	return exports, nil
}

// Importer returns an importer that reads the export data of a package
// from exports (see ExportFiles) only when a type check needs it. An
// importer is for one goroutine.
func Importer(exports map[string]string) types.Importer {
	fset := token.NewFileSet()
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file := exports[path]
		if file == "" {
			return nil, fmt.Errorf("no export data for %q", path)
		}
		return os.Open(file)
	})
}
