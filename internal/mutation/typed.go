package mutation

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"
)

// typing is what go/types says of the reference package: the type of
// each expression, by its extent in the source.
type typing struct {
	pkg *types.Package
	of  map[extent]types.Type
}

type extent struct{ pos, end token.Pos }

// UseTypes type-checks the reference package (its import path, and imp
// to resolve its imports). A switched build then calls, at each value
// switch, a helper of the value's own type, with no type parameters:
// valid Go at any language version the module's go.mod names, and typed
// from the context where an untyped constant stands (-1 beside a
// float64). Without it, the helpers are generic and infer their type from
// their arguments.
func (p *Package) UseTypes(path string, imp types.Importer) error {
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	files := make([]*ast.File, len(p.files))
	for i, sf := range p.files {
		files[i] = sf.ast
	}
	conf := types.Config{Importer: imp, Error: func(error) {}}
	pkg, err := conf.Check(path, p.fset, files, info)
	if err != nil {
		return err
	}
	t := &typing{pkg: pkg, of: make(map[extent]types.Type, len(info.Types))}
	for e, tv := range info.Types {
		if tv.IsValue() {
			t.of[extent{e.Pos(), e.End()}] = tv.Type
		}
	}
	p.typed = t
	return nil
}

// helpers are the typed helpers that one switched build calls: one set
// per type, numbered in the order the types are first met.
type helpers struct {
	typed   *typing
	index   map[string]int // type, as written in the helper file: its number
	types   []string
	kinds   []map[string]bool // by number: the helpers of the type
	ints    []bool            // by number: the type is an integer
	imports map[string]string // import path: its name in the helper file
	generic bool              // some switch calls a generic helper
}

func newHelpers(t *typing) *helpers {
	return &helpers{typed: t, index: map[string]int{}, imports: map[string]string{}}
}

// retype renames the generic helper that call names to the helper of the
// type of the expression it stands for (at extent at), or returns why the
// type cannot be written in the package. A call of no helper, or without
// types, stays as it is.
func (h *helpers) retype(call *ast.CallExpr, at extent) string {
	fn, ok := call.Fun.(*ast.Ident)
	if !ok || !isHelper(fn.Name) {
		return ""
	}
	if h.typed == nil {
		h.generic = true
		return ""
	}
	t, ok := h.typed.of[at]
	if !ok {
		h.generic = true // go/types recorded nothing there: let the compiler infer
		return ""
	}
	if b, ok := t.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		t = types.Default(t)
	}
	switch h.nameable(t) {
	case generic:
		h.generic = true
		return ""
	case unnameable:
		return fmt.Sprintf("its type, %s, cannot be written in the package", types.TypeString(t, types.RelativeTo(h.typed.pkg)))
	}
	name := types.TypeString(t, h.qualifier)
	n, ok := h.index[name]
	if !ok {
		n = len(h.types)
		h.index[name] = n
		h.types = append(h.types, name)
		h.kinds = append(h.kinds, map[string]bool{})
		b, isBasic := t.Underlying().(*types.Basic)
		h.ints = append(h.ints, isBasic && b.Info()&types.IsInteger != 0)
	}
	kind := fn.Name
	if kind == arithIntFunc {
		kind = arithFunc
	}
	h.kinds[n][kind] = true
	fn.Name = fmt.Sprintf("%s%d", kind, n)
	return ""
}

func isHelper(name string) bool {
	return name == pickFunc || name == arithFunc || name == arithIntFunc || name == negFunc
}

// qualifier names another package in the helper file by an import of its
// own.
func (h *helpers) qualifier(p *types.Package) string {
	if p == h.typed.pkg {
		return ""
	}
	name, ok := h.imports[p.Path()]
	if !ok {
		name = fmt.Sprintf("mutatei%d", len(h.imports))
		h.imports[p.Path()] = name
	}
	return name
}

type nameability int

const (
	nameable nameability = iota
	generic              // it has a type parameter: only a generic helper can take it
	unnameable
)

// nameable says whether t can be written at the top level of the package.
func (h *helpers) nameable(t types.Type) nameability {
	worst := nameable
	var walk func(t types.Type)
	see := func(n nameability) { worst = max(worst, n) }
	walk = func(t types.Type) {
		switch t := t.(type) {
		case *types.Basic:
			if t.Kind() == types.UntypedNil || t.Kind() == types.Invalid {
				see(unnameable)
			}
		case *types.TypeParam:
			see(generic)
		case *types.Alias:
			h.object(t.Obj(), see)
			walk(types.Unalias(t))
		case *types.Named:
			h.object(t.Obj(), see)
			for i := range t.TypeArgs().Len() {
				walk(t.TypeArgs().At(i))
			}
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Chan:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		case *types.Signature:
			for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
				for i := range tup.Len() {
					walk(tup.At(i).Type())
				}
			}
		case *types.Struct:
			for i := range t.NumFields() {
				f := t.Field(i)
				if !f.Exported() && f.Pkg() != h.typed.pkg {
					see(unnameable)
				}
				walk(f.Type())
			}
		case *types.Interface:
			for i := range t.NumExplicitMethods() {
				m := t.ExplicitMethod(i)
				if !m.Exported() && m.Pkg() != h.typed.pkg {
					see(unnameable)
				}
				walk(m.Type())
			}
			for i := range t.NumEmbeddeds() {
				walk(t.EmbeddedType(i))
			}
		default:
			see(unnameable)
		}
	}
	walk(t)
	return worst
}

// object says whether the type name obj can be written in the package: a
// package-level name of the package itself, or an exported one of a
// package it may import.
func (h *helpers) object(obj *types.TypeName, see func(nameability)) {
	if obj.Pkg() == nil { // error, comparable, any
		return
	}
	if obj.Parent() != nil && obj.Parent() != obj.Pkg().Scope() {
		see(unnameable) // declared in a function
		return
	}
	if obj.Pkg() == h.typed.pkg {
		return
	}
	if !obj.Exported() || !importable(h.typed.pkg.Path(), obj.Pkg().Path()) {
		see(unnameable)
	}
}

// importable reports whether package from may import path: not another
// tree's internal package, nor a vendored one.
func importable(from, path string) bool {
	if strings.HasPrefix(path, "vendor/") || strings.Contains(path, "/vendor/") {
		return false
	}
	i := strings.LastIndex(path, "/internal/")
	switch {
	case i >= 0:
		return from == path[:i] || strings.HasPrefix(from, path[:i]+"/")
	case strings.HasSuffix(path, "/internal"):
		parent := strings.TrimSuffix(path, "/internal")
		return from == parent || strings.HasPrefix(from, parent+"/")
	case strings.HasPrefix(path, "internal/") || path == "internal":
		return false // the standard library's own
	}
	return true
}

// source returns the typed helpers' declarations and the imports they
// need.
func (h *helpers) source() (decls string, imports []string) {
	var b strings.Builder
	for n, typ := range h.types {
		k := h.kinds[n]
		for _, kind := range []string{pickFunc, arithFunc, negFunc} {
			if !k[kind] {
				continue
			}
			if kind == arithFunc && h.ints[n] {
				b.WriteString(helperDecl(arithIntFunc, fmt.Sprintf("%s%d", kind, n), "", typ))
			} else {
				b.WriteString(helperDecl(kind, fmt.Sprintf("%s%d", kind, n), "", typ))
			}
		}
	}
	for path, name := range h.imports {
		imports = append(imports, fmt.Sprintf("%s %q", name, path))
	}
	sort.Strings(imports)
	return b.String(), imports
}
