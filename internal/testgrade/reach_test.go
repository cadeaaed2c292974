package testgrade

import (
	"fmt"
	"go/types"
	"slices"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/exercise"
)

// handedOut lists what the exported API of the package at path hands out
// that reaches refuses: each exported function, variable, method (of a
// type or of its pointer) and struct field whose type reaches an
// unsafe.Pointer or a value of a refused package, as "path.Name" (or
// "path.Type.Name") and why.
func handedOut(t *testing.T, imp types.Importer, path string) []string {
	t.Helper()
	pkg, err := imp.Import(path)
	if err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
	var out []string
	add := func(name string, typ types.Type) {
		if why := reaches(typ, nil); why != "" {
			out = append(out, fmt.Sprintf("%s.%s: %s", path, name, why))
		}
	}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Func, *types.Var:
			add(name, obj.Type())
		case *types.TypeName:
			for _, typ := range []types.Type{obj.Type(), types.NewPointer(obj.Type())} {
				ms := types.NewMethodSet(typ)
				for i := range ms.Len() {
					if m := ms.At(i).Obj(); m.Exported() {
						add(name+"."+m.Name(), m.Type())
					}
				}
			}
			if st, ok := obj.Type().Underlying().(*types.Struct); ok {
				for i := range st.NumFields() {
					if f := st.Field(i); f.Exported() {
						add(name+"."+f.Name(), f.Type())
					}
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// What the standard packages a learner's file may import hand out that
// reaches the test binary's memory is known, each walled by the rules on
// types (reachProblems refuses any expression of such a type). A package
// added to exercise.StandardImports that hands out more fails this test, which names it:
// decide whether the rules wall it, then list it here.
func TestStandard_WhatItHandsOutIsKnown(t *testing.T) {
	imp := stdImporter(t)
	var got []string
	for _, path := range exercise.StandardImports {
		for _, item := range handedOut(t, imp, path) {
			name, _, _ := strings.Cut(item, ":")
			got = append(got, name)
		}
	}
	slices.Sort(got)
	want := []string{
		"encoding/json.InvalidUnmarshalError.Type",
		"encoding/json.MarshalerError.Type",
		"encoding/json.UnmarshalFieldError.Field",
		"encoding/json.UnmarshalFieldError.Type",
		"encoding/json.UnmarshalTypeError.Type",
		"encoding/json.UnsupportedTypeError.Type",
		"encoding/json.UnsupportedValueError.Value",
		"sync/atomic.CompareAndSwapPointer",
		"sync/atomic.LoadPointer",
		"sync/atomic.StorePointer",
		"sync/atomic.SwapPointer",
		"testing/quick.Config.Values",
		"testing/quick.Generator.Generate",
		"testing/quick.Value",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the allowed packages hand out:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
