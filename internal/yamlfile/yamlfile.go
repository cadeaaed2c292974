// Package yamlfile reads small YAML files strictly, keeping the position of
// every node so that each error can name file:line:col and say how to fix
// the input.
package yamlfile

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/fencelab/fencelab/internal/infile"
	"github.com/fencelab/fencelab/internal/suggest"
	"github.com/fencelab/fencelab/internal/text"
)

// Pos is a position in a file; lines and columns count from 1.
type Pos struct {
	File      string
	Line, Col int
}

// String is file:line:col, the file's name escaped (see text.Name).
func (p Pos) String() string {
	return fmt.Sprintf("%s:%d:%d", text.Name(p.File), p.Line, p.Col)
}

// Error is an error at a position in an input file.
type Error struct {
	Pos Pos
	Msg string
	err error // what it is, if a caller may ask: ErrEmpty
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

func (e *Error) Unwrap() error { return e.err }

// ErrEmpty is what the error of a file that holds no YAML document (it
// is empty, blank, or only comments) is.
var ErrEmpty = errors.New("no YAML document")

// Node is a YAML node of a file.
type Node struct {
	file string
	n    ast.Node
}

// MaxSize bounds the files Parse reads. The files it is for are written by
// hand and hold a few kilobytes; the YAML parser's time and memory grow
// faster than the file.
const MaxSize = 1 << 20

// Parse parses data, the contents of file, which must hold exactly one
// non-empty YAML document of at most MaxSize bytes.
func Parse(file string, data []byte) (Node, error) {
	if len(data) > MaxSize {
		return Node{}, &Error{Pos: Pos{file, 1, 1}, Msg: fmt.Sprintf("the file has %d bytes, more than the %d this tool reads: is it the right file?", len(data), MaxSize)}
	}
	// A byte order mark, which some editors write first, is no content.
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if strings.TrimSpace(string(data)) == "" {
		return Node{}, &Error{Pos: Pos{file, 1, 1}, Msg: "the file is empty", err: ErrEmpty}
	}
	if pos, b, ok := firstInvalid(data); ok {
		return Node{}, &Error{Pos: Pos{file, pos.Line, pos.Col}, Msg: fmt.Sprintf("not UTF-8: byte 0x%02X cannot start or continue a character here; save the file as UTF-8", b)}
	}
	if pos, ok := tooDeep(data); ok {
		return Node{}, &Error{Pos: Pos{file, pos.Line, pos.Col}, Msg: fmt.Sprintf("nested more than %d deep: the files this tool reads are a few levels deep", maxDepth)}
	}

	// Duplicate keys are reported by Node.Map, with a better message.
	f, err := parser.ParseBytes(data, 0, parser.AllowDuplicateMapKey())
	if err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) && ye.GetToken() != nil {
			p := ye.GetToken().Position
			msg := "not valid YAML: " + ye.GetMessage()
			if strings.Contains(ye.GetMessage(), "'\t'") {
				msg = "a tab where YAML wants spaces: indent with spaces, not tabs"
			}
			return Node{}, &Error{Pos: Pos{file, p.Line, p.Column}, Msg: msg}
		}
		return Node{}, &Error{Pos: Pos{file, 1, 1}, Msg: "not valid YAML: " + err.Error()}
	}
	var docs []*ast.DocumentNode
	for _, d := range f.Docs {
		if d.Body != nil {
			docs = append(docs, d)
		}
	}
	switch len(docs) {
	case 0:
		return Node{}, &Error{Pos: Pos{file, 1, 1}, Msg: "the file holds no YAML document", err: ErrEmpty}
	case 1:
		return Node{file, docs[0].Body}, nil
	default:
		return Node{}, Node{file, docs[1].Body}.Errorf("a second YAML document: put everything in one")
	}
}

// maxDepth bounds how deep a file's collections may nest, in brackets
// or by indentation: the parser's time grows faster than the depth.
const maxDepth = 32

// tooDeep returns the position where data nests deeper than maxDepth: an
// opening bracket of a flow collection (one that starts a value, or is
// within a flow collection; outside quotes and comments), or a line
// indented more than maxDepth levels of two spaces.
func tooDeep(data []byte) (Pos, bool) {
	line, col, depth, indent := 1, 0, 0, 0
	var quote byte
	comment, start := false, true
	prev := byte('\n') // the last character of the line that is not a space
	for i, b := range data {
		col++
		switch {
		case b == '\n':
			line, col, comment, start, indent, prev = line+1, 0, false, true, 0, '\n'
			if quote == '\'' {
				quote = 0 // a single-quoted scalar ends with its line, here
			}
			continue
		case start && b == ' ':
			if indent++; indent > 2*maxDepth {
				return Pos{Line: line, Col: col}, true
			}
			continue
		case b == ' ' || b == '\t' || comment:
			continue
		case quote != 0:
			if b == quote {
				quote = 0
			}
		case b == '#' && (i == 0 || data[i-1] == ' ' || data[i-1] == '\t' || data[i-1] == '\n'):
			comment = true
		case b == '"' || b == '\'':
			quote = b
		case (b == '[' || b == '{') && (depth > 0 || strings.IndexByte(":-?,\n", prev) >= 0):
			if depth++; depth > maxDepth {
				return Pos{Line: line, Col: col}, true
			}
		case (b == ']' || b == '}') && depth > 0:
			depth--
		}
		start, prev = false, b
	}
	return Pos{}, false
}

// firstInvalid returns the position of the first byte of data that is not
// part of valid UTF-8, and the byte; false if all of data is.
func firstInvalid(data []byte) (Pos, byte, bool) {
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return Pos{Line: line, Col: col}, data[i], true
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
	return Pos{}, 0, false
}

// ReadFile reads and parses the file at path (see infile.Read); a
// problem of its YAML is an Errors of one, at its position.
func ReadFile(path string) (Node, error) {
	return readWith(path, infile.Read)
}

// ReadClassFile is ReadFile of one of a class's files, a learner's: a link
// to a file outside its directory is refused (see infile.ReadConfined).
func ReadClassFile(path string) (Node, error) {
	return readWith(path, infile.ReadConfined)
}

func readWith(path string, read func(string, int64) ([]byte, error)) (Node, error) {
	data, err := read(path, MaxSize)
	if err != nil {
		return Node{}, err
	}
	n, err := Parse(path, data)
	if err != nil {
		return Node{}, Errors{err}
	}
	return n, nil
}

// Pos returns the position of n.
func (n Node) Pos() Pos {
	node := n.n
	// A mapping's own token is its first ':'; point at its first key.
	switch m := node.(type) {
	case *ast.MappingNode:
		if len(m.Values) > 0 {
			node = m.Values[0].Key
		}
	case *ast.MappingValueNode:
		node = m.Key
	}
	tk := node.GetToken()
	if tk == nil {
		return Pos{File: n.file, Line: 1, Col: 1}
	}
	return Pos{n.file, tk.Position.Line, tk.Position.Column}
}

// Errorf returns an error at the position of n.
func (n Node) Errorf(format string, args ...any) error {
	return &Error{Pos: n.Pos(), Msg: fmt.Sprintf(format, args...)}
}

// Kind names the kind of n for error messages: "a mapping", "a list", "a
// string", "a number", "true or false", "null", or "an alias".
func (n Node) Kind() string {
	switch n.n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "true or false"
	case *ast.NullNode:
		return "null"
	case *ast.AliasNode, *ast.AnchorNode:
		return "an anchor or alias"
	default:
		return n.n.Type().String()
	}
}

// IsNull reports whether n is null or empty ("key:" with no value).
func (n Node) IsNull() bool {
	_, ok := n.n.(*ast.NullNode)
	return ok
}

// Entry is one key of a mapping and its value.
type Entry struct {
	Key   string
	KeyAt Node
	Value Node
}

// Map returns the entries of mapping n in file order. Duplicate keys, and
// keys that are not plain scalars, are errors.
func (n Node) Map() ([]Entry, error) {
	entries, errs := n.Entries()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return entries, nil
}

// Entries returns the entries of mapping n in file order, and an error for
// each key that repeats an earlier one or is not a plain scalar; those
// entries are left out, so that one problem is reported once.
func (n Node) Entries() ([]Entry, []error) {
	var values []*ast.MappingValueNode
	switch m := n.n.(type) {
	case *ast.MappingNode:
		values = m.Values
	case *ast.MappingValueNode:
		values = []*ast.MappingValueNode{m}
	default:
		return nil, []error{n.Errorf("want a mapping of keys to values, got %s", n.Kind())}
	}
	var errs []error
	entries := make([]Entry, 0, len(values))
	seen := map[string]Node{}
	for _, v := range values {
		key := Node{n.file, v.Key}
		var name string
		switch k := v.Key.(type) {
		case *ast.StringNode:
			name = k.Value
		case *ast.IntegerNode, *ast.BoolNode, *ast.FloatNode:
			name = k.GetToken().Value
		default:
			errs = append(errs, key.Errorf("a key must be a plain word, got %s", key.Kind()))
			continue
		}
		if first, dup := seen[name]; dup {
			errs = append(errs, key.Errorf("duplicate key %s (first at line %d): keep one", text.Quote(name), first.Pos().Line))
			continue
		}
		seen[name] = key
		entries = append(entries, Entry{Key: name, KeyAt: key, Value: Node{n.file, v.Value}})
	}
	return entries, errs
}

// CheckKeys returns an error for the first entry whose key is not one of
// known, with the closest known key as a hint.
func CheckKeys(entries []Entry, what string, known ...string) error {
	for _, e := range entries {
		if !slices.Contains(known, e.Key) {
			return e.KeyAt.Errorf("unknown field %s in %s%s; the fields are: %s",
				text.Quote(e.Key), what, suggest.Hint(e.Key, known), strings.Join(known, ", "))
		}
	}
	return nil
}

// Seq returns the items of list n; null is an empty list.
func (n Node) Seq() ([]Node, error) {
	switch s := n.n.(type) {
	case *ast.SequenceNode:
		items := make([]Node, len(s.Values))
		for i, v := range s.Values {
			items[i] = Node{n.file, v}
		}
		return items, nil
	case *ast.NullNode:
		return nil, nil
	default:
		return nil, n.Errorf("want a list, got %s", n.Kind())
	}
}

// String returns the value of string n.
func (n Node) String() (string, error) {
	switch s := n.n.(type) {
	case *ast.StringNode:
		return s.Value, nil
	case *ast.LiteralNode:
		return s.Value.Value, nil
	default:
		return "", n.Errorf("want a string, got %s", n.Kind())
	}
}

// Text returns the text of any scalar n as written (a number stays "0",
// not 0), for fields whose values are source code.
func (n Node) Text() (string, error) {
	switch s := n.n.(type) {
	case *ast.StringNode, *ast.LiteralNode:
		return n.String()
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
		return s.GetToken().Value, nil
	default:
		return "", n.Errorf("want text, got %s", n.Kind())
	}
}

// Bool returns the value of boolean n: true or false.
func (n Node) Bool() (bool, error) {
	b, ok := n.n.(*ast.BoolNode)
	if !ok {
		return false, n.Errorf("want true or false, got %s", n.Kind())
	}
	return b.Value, nil
}

// Int returns the value of integer n.
func (n Node) Int() (int, error) {
	i, ok := n.n.(*ast.IntegerNode)
	if !ok {
		return 0, n.Errorf("want a whole number, got %s", n.Kind())
	}
	switch v := i.Value.(type) {
	case int64:
		return int(v), nil
	case uint64:
		if v <= 1<<31 {
			return int(v), nil
		}
	}
	return 0, n.Errorf("number %s is out of range", i.GetToken().Value)
}

// Errors is every problem found in one or more files, one per line.
type Errors []error

// Error lists the problems in the order of their positions in the file,
// those without one last.
func (e Errors) Error() string {
	sorted := slices.Clone(e)
	slices.SortStableFunc(sorted, func(a, b error) int {
		pa, oka := posOf(a)
		pb, okb := posOf(b)
		switch {
		case !oka || !okb:
			return cmp.Compare(boolRank(!oka), boolRank(!okb))
		case pa.File != pb.File:
			return strings.Compare(pa.File, pb.File)
		case pa.Line != pb.Line:
			return cmp.Compare(pa.Line, pb.Line)
		}
		return cmp.Compare(pa.Col, pb.Col)
	})
	msgs := make([]string, len(sorted))
	for i, err := range sorted {
		msgs[i] = err.Error()
	}
	return strings.Join(msgs, "\n")
}

// posOf returns the position of a problem, if it has one.
func posOf(err error) (Pos, bool) {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Pos, true
	}
	return Pos{}, false
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Unwrap returns the problems, so that errors.As finds one of them.
func (e Errors) Unwrap() []error { return e }
