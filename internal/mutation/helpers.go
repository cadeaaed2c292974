package mutation

import (
	"fmt"
	"go/token"
	"strings"
)

// arithOps are the operators that mutateArith applies, each with the rune
// that names it in a call; the helpers' switches are written from it.
var arithOps = []struct {
	tok token.Token
	op  rune
}{{token.ADD, '+'}, {token.SUB, '-'}, {token.MUL, '*'}, {token.QUO, '/'}, {token.REM, '%'}}

// arithOp returns the rune of the arithmetic operator t.
func arithOp(t token.Token) (rune, bool) {
	for _, a := range arithOps {
		if a.tok == t {
			return a.op, true
		}
	}
	return 0, false
}

// helperDecl returns the declaration of the helper of kind (pickFunc,
// arithFunc, arithIntFunc or negFunc) called name, with type parameters
// params ("" for a typed helper) over values of type typ: every helper,
// generic or typed, is written here.
//
//   - mutatePick(on, mutant, original) returns mutant if on, and original
//     otherwise;
//   - mutateArith(on, x, y, mutant, original) returns x op y with the
//     operator of the side that is on (mutateArithInt, for integers,
//     knows %);
//   - mutateNeg(on, x) returns x if on, and -x otherwise.
func helperDecl(kind, name, params, typ string) string {
	var body string
	switch kind {
	case pickFunc:
		return fmt.Sprintf("\nfunc %s%s(on bool, mutant, original %s) %s {\n\tif on {\n\t\treturn mutant\n\t}\n\treturn original\n}\n", name, params, typ, typ)
	case negFunc:
		return fmt.Sprintf("\nfunc %s%s(on bool, x %s) %s {\n\tif on {\n\t\treturn x\n\t}\n\treturn -x\n}\n", name, params, typ, typ)
	case arithFunc, arithIntFunc:
		var b strings.Builder
		for _, a := range arithOps {
			if a.tok == token.QUO || a.tok == token.REM && kind != arithIntFunc {
				continue // division is the last return
			}
			fmt.Fprintf(&b, "\tcase '%c':\n\t\treturn x %c y\n", a.op, a.op)
		}
		body = b.String()
	default:
		panic("mutation: no helper " + kind)
	}
	return fmt.Sprintf("\nfunc %s%s(on bool, x, y %s, mutant, original rune) %s {\n\top := original\n\tif on {\n\t\top = mutant\n\t}\n\tswitch op {\n%s\t}\n\treturn x / y\n}\n", name, params, typ, typ, body)
}

// genericHelpers are the helpers of a value whose type has a type
// parameter. A typed helper does the same for one type.
var genericHelpers = helperDecl(pickFunc, pickFunc, "[T any]", "T") + `
type mutateNumber interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64 | ~complex64 | ~complex128
}

type mutateInteger interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}
` + helperDecl(arithFunc, arithFunc, "[T mutateNumber]", "T") +
	helperDecl(arithIntFunc, arithIntFunc, "[T mutateInteger]", "T") +
	helperDecl(negFunc, negFunc, "[T mutateNumber]", "T")
