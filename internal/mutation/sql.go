package mutation

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// sqlMethods are the methods of database/sql (DB, Tx, Conn, Stmt) whose
// string arguments are SQL; a wrapper with the same names is taken to be
// one too.
var sqlMethods = map[string]bool{
	"Exec": true, "ExecContext": true, "Query": true, "QueryContext": true,
	"QueryRow": true, "QueryRowContext": true, "Prepare": true, "PrepareContext": true,
}

// sqlStatements are the words an SQL statement starts with.
var sqlStatements = map[string]bool{
	"SELECT": true, "INSERT": true, "UPDATE": true, "DELETE": true, "REPLACE": true,
	"WITH": true, "UPSERT": true, "MERGE": true,
}

// sqlSwaps is the data of the SQL operators on a comparison: for each,
// what it turns each comparison into, and whether that comparison must be
// in a condition (an "=" elsewhere assigns).
var sqlSwaps = []struct {
	op          Operator
	swap        map[string]string
	inCondition bool
}{
	{OpSQLBoundary, map[string]string{"<": "<=", "<=": "<", ">": ">=", ">=": ">"}, false},
	{OpSQLNegation, map[string]string{"=": "!=", "==": "!=", "!=": "=", "<>": "="}, true},
}

// sqlCall generates the SQL mutants of the string literals, and of the
// package's string constants, that call passes to a database/sql method.
func (g *generator) sqlCall(target string, fd *ast.FuncDecl, call *ast.CallExpr) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || !sqlMethods[sel.Sel.Name] {
		return
	}
	for _, arg := range call.Args {
		switch arg := arg.(type) {
		case *ast.BasicLit:
			if arg.Kind == token.STRING {
				g.sqlLiteral(target, fd.Body, arg)
			}
		case *ast.Ident:
			g.sqlNames[arg.Name] = true
		}
	}
}

// sqlConsts generates the SQL mutants of the file's package-level string
// constants and variables that a database/sql call of the package takes
// (by name, as far as Generate can tell without types).
func (g *generator) sqlConsts(f *ast.File) {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST && gd.Tok != token.VAR || hasIgnore(gd.Doc) {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if len(vs.Names) != 1 || len(vs.Values) != 1 {
				continue
			}
			lit, ok := vs.Values[0].(*ast.BasicLit)
			name := vs.Names[0].Name
			if !ok || lit.Kind != token.STRING || !g.sqlNames[name] {
				continue
			}
			g.sqlLiteral(name, vs, lit)
		}
	}
}

// sqlLiteral generates the SQL mutants of lit, a literal in scope, the
// body of target or its const or var spec.
func (g *generator) sqlLiteral(target string, scope ast.Node, lit *ast.BasicLit) {
	value, err := strconv.Unquote(lit.Value)
	if err != nil || g.ignoredAt(lit) {
		return
	}
	toks := lexSQL(value)
	if len(toks) == 0 || !sqlStatements[strings.ToUpper(toks[0].text)] {
		return
	}
	add := func(op Operator, from, to int, replace string) {
		m := g.mutant(target, op, String, value[from:to], replace)
		g.add(m, scope, func(s *site) bool { return s.node == lit && s.at == from })
	}
	conditions := sqlConditions(toks)
	for _, sw := range sqlSwaps {
		for i, t := range toks {
			to, ok := sw.swap[t.text]
			if !ok || t.kind != sqlOp || sw.inCondition && !conditions[i] {
				continue
			}
			// The comparison with its operands, as written.
			from, end := t.start, t.end
			if i > 0 {
				from = toks[i-1].start
			}
			if i+1 < len(toks) {
				end = toks[i+1].end
			}
			add(sw.op, from, end, value[from:t.start]+to+value[t.end:end])
		}
	}
	for _, w := range sqlWheres(toks) {
		if len(w.terms) < 2 {
			continue
		}
		for k := range w.terms {
			var kept []string
			for j, term := range w.terms {
				if j != k {
					kept = append(kept, value[term.from:term.to])
				}
			}
			add(OpSQLWhere, w.from, w.to, value[w.from:w.terms[0].from]+strings.Join(kept, " AND "))
		}
	}
	for i := 0; i+1 < len(toks); i++ {
		if !strings.EqualFold(toks[i].text, "OR") {
			continue
		}
		next := toks[i+1]
		var to string
		switch strings.ToUpper(next.text) {
		case "IGNORE":
			to = "REPLACE"
		case "REPLACE":
			to = "IGNORE"
		default:
			continue
		}
		if next.text != strings.ToUpper(next.text) {
			to = strings.ToLower(to)
		}
		add(OpSQLConflict, toks[i].start, next.end, value[toks[i].start:next.start]+to)
	}
}

// sqlToken is a token of SQL, at value[start:end].
type sqlToken struct {
	kind       sqlKind
	text       string
	start, end int
}

type sqlKind int

const (
	sqlWord  sqlKind = iota // a keyword or a name
	sqlOp                   // an operator
	sqlPunct                // ( ) , ; .
	sqlOther                // a number, a string, a quoted name, a parameter
)

// lexSQL splits SQL into tokens, without its comments and spaces.
func lexSQL(s string) []sqlToken {
	var toks []sqlToken
	for i := 0; i < len(s); {
		c := s[i]
		start := i
		kind := sqlOther
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case strings.HasPrefix(s[i:], "--"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		case strings.HasPrefix(s[i:], "/*"):
			if end := strings.Index(s[i+2:], "*/"); end >= 0 {
				i += end + 4
			} else {
				i = len(s)
			}
			continue
		case c == '\'' || c == '"' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			i++
			for i < len(s) {
				if s[i] == closer {
					if i+1 < len(s) && s[i+1] == closer && closer != ']' {
						i += 2 // a doubled quote stands for itself
						continue
					}
					break
				}
				i++
			}
			i = min(i+1, len(s))
		case isWordByte(c):
			kind = sqlWord
			for i < len(s) && (isWordByte(s[i]) || s[i] >= '0' && s[i] <= '9' || s[i] == '$') {
				i++
			}
		case c >= '0' && c <= '9':
			for i < len(s) && (isWordByte(s[i]) || s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
				i++
			}
		case c == '?' || c == '$' || c == ':' || c == '@':
			i++
			for i < len(s) && (isWordByte(s[i]) || s[i] >= '0' && s[i] <= '9') {
				i++
			}
		case strings.ContainsRune("(),;.", rune(c)):
			kind = sqlPunct
			i++
		default:
			kind = sqlOp
			for _, op := range []string{"<=", ">=", "<>", "!=", "==", "||", "<<", ">>"} {
				if strings.HasPrefix(s[i:], op) {
					i += len(op)
					break
				}
			}
			if i == start {
				i++
			}
		}
		toks = append(toks, sqlToken{kind: kind, text: s[start:i], start: start, end: i})
	}
	return toks
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// sqlWhere is a WHERE clause, from its keyword to its end, and its
// top-level AND terms.
type sqlWhere struct {
	from, to int
	terms    []span2
}

type span2 struct{ from, to int }

// sqlClauseEnds are the words that end a condition at its depth.
var sqlClauseEnds = map[string]bool{
	"ORDER": true, "GROUP": true, "LIMIT": true, "RETURNING": true, "UNION": true, "EXCEPT": true,
	"INTERSECT": true, "HAVING": true, "WINDOW": true, "OFFSET": true, "WHERE": true, "JOIN": true,
	"LEFT": true, "RIGHT": true, "INNER": true, "CROSS": true, "FULL": true, "NATURAL": true, "ON": true,
	"SET": true, "DO": true, "VALUES": true, "FROM": true,
}

// sqlConditionStarts are the words a condition follows.
var sqlConditionStarts = map[string]bool{"WHERE": true, "HAVING": true, "ON": true, "WHEN": true}

// sqlConditions returns the indexes of the tokens inside a condition:
// after WHERE, HAVING, ON or WHEN, up to the end of that clause.
func sqlConditions(toks []sqlToken) map[int]bool {
	in := map[int]bool{}
	for i, t := range toks {
		if t.kind != sqlWord || !sqlConditionStarts[strings.ToUpper(t.text)] {
			continue
		}
		end := clauseEnd(toks, i+1)
		for j := i + 1; j < end; j++ {
			in[j] = true
		}
	}
	return in
}

// clauseEnd returns the index of the token that ends the clause whose
// first token is toks[from]: a word of sqlClauseEnds or ";" at its
// depth, a ")" that closes an outer one, or the end.
func clauseEnd(toks []sqlToken, from int) int {
	depth := 0
	for j := from; j < len(toks); j++ {
		t := toks[j]
		switch {
		case t.text == "(":
			depth++
		case t.text == ")":
			if depth == 0 {
				return j
			}
			depth--
		case depth == 0 && (t.text == ";" || t.kind == sqlWord && sqlClauseEnds[strings.ToUpper(t.text)] || strings.EqualFold(t.text, "THEN")):
			return j
		}
	}
	return len(toks)
}

// sqlWheres returns every WHERE clause of toks, with its top-level AND
// terms (the AND of a BETWEEN is not one).
func sqlWheres(toks []sqlToken) []sqlWhere {
	var out []sqlWhere
	for i, t := range toks {
		if t.kind != sqlWord || !strings.EqualFold(t.text, "WHERE") {
			continue
		}
		end := clauseEnd(toks, i+1)
		if end == i+1 {
			continue
		}
		w := sqlWhere{from: t.start, to: toks[end-1].end}
		depth, between, termStart := 0, false, i+1
		for j := i + 1; j < end; j++ {
			switch u := strings.ToUpper(toks[j].text); {
			case u == "(":
				depth++
			case u == ")":
				depth--
			case depth == 0 && u == "BETWEEN":
				between = true
			case depth == 0 && u == "AND" && toks[j].kind == sqlWord:
				if between {
					between = false
					continue
				}
				w.terms = append(w.terms, span2{toks[termStart].start, toks[j-1].end})
				termStart = j + 1
			}
		}
		if termStart < end {
			w.terms = append(w.terms, span2{toks[termStart].start, toks[end-1].end})
		}
		out = append(out, w)
	}
	return out
}
