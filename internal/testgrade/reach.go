package testgrade

import (
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"runtime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fencelab/fencelab/internal/exercise"
	"github.com/fencelab/fencelab/internal/text"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

// The rules on imports (see Rules) keep out the packages that reach a test
// binary's memory, files or environment; the rules here keep out what the
// allowed packages would hand out of them anyway, whatever the file
// imports. They look at the file after its type check, by type:
//
//   - a reflect value or type, or an unsafe.Pointer, in a test's hands is
//     any memory of its binary, machine code included: encoding/json's
//     errors carry a reflect.Value (whose UnsafePointer method needs no
//     import of unsafe), testing/quick takes functions of reflect values,
//     sync/atomic's pointer functions take and give unsafe.Pointer. No
//     expression or instantiation of the file may have a type that holds
//     one, nor a value of any package the file may not import (see
//     reaches): its methods would reach what the package does.
//   - testing.Main, MainStart and the Run functions run tests of the file's
//     own making: MainStart's deps are handed the heap profile's file on
//     the host, and the command line's patterns.
//   - a value of more than maxValue bytes is in every build of the file,
//     on the grader's disk and in its memory (a composite literal of 128
//     MiB makes each build's object and binary that much bigger): no
//     expression or type of the file may be that big.
//   - an address tells one build of a test binary from another (where the
//     linker put a function, a string, a variable), which is enough to
//     tell a chaff from the reference without running either: fmt, the
//     one package that turns an address into text a test can read, may
//     format nothing it would print as an address (see fmtProblems).

// maxValue bounds the size of a value, or a type, of a learner's file.
const maxValue = 16 << 20

// testingRunners are the functions of package testing that run tests of a
// file's own making.
var testingRunners = []string{"Main", "MainStart", "RunTests", "RunExamples", "RunBenchmarks"}

// reachProblems returns the problems of the learner's file f, type-checked
// with info, by the rules above; allowed are the packages beyond exercise.StandardImports
// that the exercise's catalog lets it import, whose values it may hold.
func reachProblems(fset *token.FileSet, f *ast.File, info *types.Info, allowed []string) yamlfile.Errors {
	var errs yamlfile.Errors
	seen := map[token.Pos]bool{}
	at := func(pos token.Pos, format string, args ...any) {
		if seen[pos] {
			return
		}
		seen[pos] = true
		p := fset.Position(pos)
		errs = append(errs, &yamlfile.Error{Pos: yamlfile.Pos{File: p.Filename, Line: p.Line, Col: p.Column}, Msg: fmt.Sprintf(format, args...)})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case ast.Expr:
			id, _ := n.(*ast.Ident)
			// A name of the file's own is refused where what it names got
			// its type, not again at every use.
			own := id != nil && info.Uses[id] != nil && isOwn(info.Uses[id], f)
			if tv, ok := info.Types[n]; ok && tv.Type != nil && !own {
				if why := reaches(tv.Type, allowed); why != "" {
					at(n.Pos(), "%s is of type %s, which is refused: %s", short(n), tv.Type, why)
					return false
				}
				if size := sizeOf(tv.Type); size > maxValue {
					at(n.Pos(), "%s is a value of %s, which is refused: every build of the file would hold it (at most %s)", short(n), text.Bytes(size), text.Bytes(maxValue))
					return false
				}
			}
			if id != nil {
				if obj := info.Uses[id]; obj != nil && obj.Pkg() != nil && obj.Pkg().Path() == "testing" && slices.Contains(testingRunners, obj.Name()) {
					if _, isFunc := obj.(*types.Func); isFunc {
						at(id.Pos(), "testing.%s is refused: it runs tests of the file's own making, around the grader's", obj.Name())
					}
				}
				if inst, ok := info.Instances[id]; ok {
					for i := range inst.TypeArgs.Len() {
						if why := reaches(inst.TypeArgs.At(i), allowed); why != "" {
							at(id.Pos(), "%s is instantiated with %s, which is refused: %s", id.Name, inst.TypeArgs.At(i), why)
						}
					}
				}
			}
			if call, ok := n.(*ast.CallExpr); ok {
				for _, p := range fmtProblems(info, call) {
					at(p.pos, "%s", p.msg)
				}
			}
		}
		return true
	})
	return errs
}

// sizes are the sizes of the gc compiler on this machine.
var sizes = types.SizesFor("gc", runtime.GOARCH)

// sizeOf returns the size of a value of type t, in bytes; 0 if it has none
// (a type of type parameters).
func sizeOf(t types.Type) (size int64) {
	defer func() {
		if recover() != nil {
			size = 0 // go/types's sizes of a type parameter
		}
	}()
	return sizes.Sizeof(t)
}

// isOwn reports whether obj is declared in the file f.
func isOwn(obj types.Object, f *ast.File) bool {
	return obj.Pos() >= f.Pos() && obj.Pos() < f.End()
}

// short names the expression e in a message: its source, cut.
func short(e ast.Expr) string {
	s := types.ExprString(e)
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:39]) + "…"
	}
	return s
}

// reaches says why a value of type t is refused, "" if it is not: it is,
// holds or hands out through its structure an unsafe.Pointer or a value of
// a refused package that allowed does not name (see refused: reflect's
// values and types, os's files);
// through its elements, the fields of a struct type written out, the
// parameters and results of a function, the methods of an interface
// written out. A named type of another package is looked at by its
// package, name and type arguments only: what it keeps in its fields
// reaches a file only through a selector, whose own type is looked at.
func reaches(t types.Type, allowed []string) string {
	return reachesSeen(t, allowed, map[types.Type]bool{})
}

// unsafePointerWhy says why an unsafe.Pointer is refused.
const unsafePointerWhy = "an unsafe.Pointer reads and writes any memory of the test binary"

func reachesSeen(t types.Type, allowed []string, seen map[types.Type]bool) string {
	if t == nil || seen[t] {
		return ""
	}
	seen[t] = true
	var parts []types.Type
	switch t := types.Unalias(t).(type) {
	case *types.Basic:
		if t.Kind() == types.UnsafePointer {
			return unsafePointerWhy
		}
	case *types.Named:
		if pkg := t.Obj().Pkg(); pkg != nil && !slices.Contains(allowed, pkg.Path()) {
			if why := exercise.RefusedImport(pkg.Path()); why != "" {
				return fmt.Sprintf("a value of package %s, which %s", pkg.Path(), why)
			}
		}
		for i := range t.TypeArgs().Len() {
			parts = append(parts, t.TypeArgs().At(i))
		}
	case *types.Pointer:
		parts = append(parts, t.Elem())
	case *types.Slice:
		parts = append(parts, t.Elem())
	case *types.Array:
		parts = append(parts, t.Elem())
	case *types.Chan:
		parts = append(parts, t.Elem())
	case *types.Map:
		parts = append(parts, t.Key(), t.Elem())
	case *types.Struct:
		for i := range t.NumFields() {
			parts = append(parts, t.Field(i).Type())
		}
	case *types.Tuple:
		for i := range t.Len() {
			parts = append(parts, t.At(i).Type())
		}
	case *types.Signature:
		parts = append(parts, t.Params(), t.Results())
	case *types.Interface:
		for i := range t.NumMethods() {
			parts = append(parts, t.Method(i).Type())
		}
	}
	for _, p := range parts {
		if why := reachesSeen(p, allowed, seen); why != "" {
			return why
		}
	}
	return ""
}

// A problem of an expression.
type problem struct {
	pos token.Pos
	msg string
}

// fmtPrinters are fmt's functions that print their operands, with the
// index of their format parameter (-1: none, every operand as %v).
var fmtPrinters = map[string]int{
	"Print": -1, "Println": -1, "Sprint": -1, "Sprintln": -1, "Fprint": -1, "Fprintln": -1, "Append": -1, "Appendln": -1,
	"Printf": 0, "Sprintf": 0, "Errorf": 0, "Fprintf": 1, "Appendf": 1,
}

// fmtProblems returns what is refused of call, if it calls one of fmt's
// printers: a format that is not a constant, or that holds an explicit
// argument index or %p; an operand that fmt would print as an address
// (see printsAddress), or one whose type does not say (an interface with
// neither Error nor String), under a verb other than %T.
func fmtProblems(info *types.Info, call *ast.CallExpr) []problem {
	fn := calledFunc(info, call)
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "fmt" {
		return nil
	}
	format, ok := fmtPrinters[fn.Name()]
	if !ok || call.Ellipsis.IsValid() {
		if ok {
			return []problem{{call.Ellipsis, fmt.Sprintf("fmt.%s's operands must be written out, not spread from a slice: fmt may not print an address", fn.Name())}}
		}
		return nil
	}
	operands := call.Args[format+1:]
	verbs := make([]rune, len(operands))
	for i := range verbs {
		verbs[i] = 'v'
	}
	if format >= 0 {
		if format >= len(call.Args) {
			return nil
		}
		tv := info.Types[call.Args[format]]
		if tv.Value == nil || tv.Value.Kind() != constant.String {
			return []problem{{call.Args[format].Pos(), fmt.Sprintf("fmt.%s's format must be a constant: what it prints is checked, and fmt may not print an address", fn.Name())}}
		}
		var err error
		if verbs, err = formatVerbs(constant.StringVal(tv.Value), len(operands)); err != nil {
			return []problem{{call.Args[format].Pos(), fmt.Sprintf("fmt.%s's format %s %s", fn.Name(), tv.Value, err)}}
		}
	}
	var out []problem
	for i, arg := range operands {
		if verbs[i] == 'T' || verbs[i] == '*' {
			continue
		}
		t := info.TypeOf(arg)
		if t == nil {
			continue
		}
		if where := printsAddress(t, verbs[i]); where != "" {
			out = append(out, problem{arg.Pos(), fmt.Sprintf("%s, a %s printed with %%%c by fmt.%s, is refused: fmt would print %s, an address that tells one build of the test binary from another", short(arg), t, verbs[i], fn.Name(), where)})
		}
	}
	return out
}

// calledFunc returns the function call calls, if it is one by name.
func calledFunc(info *types.Info, call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch fun := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = fun
	case *ast.SelectorExpr:
		id = fun.Sel
	default:
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}

// formatVerbs returns the verb of each of n operands of the format s: '*'
// for an operand that a width or precision takes, 'v' for those no verb
// takes (fmt prints them as %v, after "%!(EXTRA"). It refuses %p and
// explicit argument indexes.
func formatVerbs(s string, n int) ([]rune, error) {
	verbs := make([]rune, 0, n)
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		i++
		for ; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '[':
				return nil, errors.New("holds an explicit argument index, which is refused: which operand a verb prints must be plain")
			case c == '*':
				verbs = append(verbs, '*')
				continue
			case strings.IndexByte("+-# 0.", c) >= 0 || c >= '0' && c <= '9':
				continue
			}
			break
		}
		if i >= len(s) {
			break
		}
		verb, size := utf8.DecodeRuneInString(s[i:])
		i += size - 1
		switch verb {
		case '%':
			continue
		case 'p':
			return nil, errors.New("holds %p, which is refused: it prints an address")
		}
		verbs = append(verbs, verb)
	}
	for len(verbs) < n {
		verbs = append(verbs, 'v')
	}
	return verbs[:n], nil
}

// methodVerbs are the verbs under which fmt prints an operand by its Error
// or String method, when it has one (fmt's handleMethods; %w is Errorf's
// %v of an error).
const methodVerbs = "vsqxXw"

// printsAddress returns what of a value of type t fmt would print as an
// address under verb: "" if nothing. fmt prints a pointer, a channel, a
// function or an unsafe.Pointer as an address, but a pointer to a struct,
// array, slice or map at the top as & and what it points to; an operand
// or exported field with an Error or String method by that method, under
// methodVerbs (below an unexported field, by nothing but its value); an
// interface by the value it holds, which its type cannot say, unless it
// has Error or String.
func printsAddress(t types.Type, verb rune) string {
	return printsAddressAt(t, strings.ContainsRune(methodVerbs, verb), 0, "its value", map[types.Type]bool{})
}

func printsAddressAt(t types.Type, methods bool, depth int, what string, seen map[types.Type]bool) string {
	if methods && hasTextMethod(t) || seen[t] {
		return ""
	}
	seen[t] = true
	defer delete(seen, t)
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Kind() == types.UnsafePointer {
			return what
		}
	case *types.Interface:
		return what + " (an interface with neither Error nor String, whose value may be a pointer)"
	case *types.Pointer:
		if depth == 0 {
			switch u.Elem().Underlying().(type) {
			case *types.Struct, *types.Array, *types.Slice, *types.Map:
				return printsAddressAt(u.Elem(), methods, depth+1, what, seen)
			}
		}
		return what
	case *types.Chan, *types.Signature:
		return what
	case *types.Slice:
		return printsAddressAt(u.Elem(), methods, depth+1, "an element of "+what, seen)
	case *types.Array:
		return printsAddressAt(u.Elem(), methods, depth+1, "an element of "+what, seen)
	case *types.Map:
		if w := printsAddressAt(u.Key(), methods, depth+1, "a key of "+what, seen); w != "" {
			return w
		}
		return printsAddressAt(u.Elem(), methods, depth+1, "a value of "+what, seen)
	case *types.Struct:
		for i := range u.NumFields() {
			f := u.Field(i)
			field := "its field " + f.Name()
			if depth > 0 {
				field = "the field " + f.Name() + " of " + what
			}
			// fmt asks an exported field for its methods; an unexported
			// one, and all below it, it prints as they are.
			if w := printsAddressAt(f.Type(), methods && f.Exported(), depth+1, field, seen); w != "" {
				return w
			}
		}
	}
	return ""
}

// hasTextMethod reports whether a value of type t has a method Error() or
// String() of a string: fmt prints it by that.
func hasTextMethod(t types.Type) bool {
	ms := types.NewMethodSet(t)
	for _, name := range []string{"Error", "String"} {
		sel := ms.Lookup(nil, name) // exported: any package's
		if sel == nil {
			continue
		}
		sig, ok := sel.Type().(*types.Signature)
		if ok && sig.Params().Len() == 0 && sig.Results().Len() == 1 && types.Identical(sig.Results().At(0).Type(), types.Typ[types.String]) {
			return true
		}
	}
	return false
}
