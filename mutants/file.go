package mutants

import (
	"fmt"
	"os"
	"strings"

	"github.com/fencelab/fencelab/internal/suggest"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

// fields are the keys of a mutant in a mutants file, in the order they are
// documented.
var fields = []string{"id", "step", "title", "contract", "rationale", "seed", "target", "kind", "find", "replace"}

// required are the fields a mutants file must give for every mutant.
var required = []string{"id", "target", "kind", "find", "replace"}

// LoadFile reads the mutants defined in a YAML file:
//
//	mutants:
//	  - id: renew-at-expiry
//	    step: 5
//	    title: Renew accepts a lease at its exact expiry
//	    target: Store.Renew
//	    kind: string          # expr, stmt, body or string
//	    find: until>?
//	    replace: until>=?
//
// Every error names the file, line and column of the offending field.
// Targets are checked when the mutants are applied to a package.
func LoadFile(path string) ([]*Mutant, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	root, err := yamlfile.Parse(path, data)
	if err != nil {
		return nil, err
	}
	top, err := root.Map()
	if err != nil {
		return nil, err
	}
	if err := yamlfile.CheckKeys(top, "a mutants file", "mutants"); err != nil {
		return nil, err
	}
	if len(top) == 0 {
		return nil, root.Errorf("no mutants: the file needs a list under \"mutants:\"")
	}
	items, err := top[0].Value.Seq()
	if err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, top[0].KeyAt.Errorf("the list of mutants is empty")
	}
	var ms []*Mutant
	seen := map[string]yamlfile.Pos{}
	for _, item := range items {
		m, err := decodeMutant(item)
		if err != nil {
			return nil, err
		}
		if first, dup := seen[m.ID]; dup {
			return nil, m.errorf("id", "duplicate id %q (first at line %d): ids must be unique", m.ID, first.Line)
		}
		seen[m.ID] = m.Defined["id"]
		ms = append(ms, m)
	}
	return ms, nil
}

func decodeMutant(item yamlfile.Node) (*Mutant, error) {
	entries, err := item.Map()
	if err != nil {
		return nil, err
	}
	if err := yamlfile.CheckKeys(entries, "a mutant", fields...); err != nil {
		return nil, err
	}
	m := &Mutant{Defined: map[string]yamlfile.Pos{}}
	for _, e := range entries {
		m.Defined[e.Key] = e.Value.Pos()
		var err error
		switch e.Key {
		case "step":
			m.Step, err = e.Value.Int()
			if err == nil && m.Step < 0 {
				err = e.Value.Errorf("step must be 0 or more")
			}
		case "kind":
			var k string
			k, err = e.Value.String()
			m.Kind = Kind(k)
		default:
			// find and replace are Go source: "0" stays "0".
			var text string
			if e.Key == "find" || e.Key == "replace" {
				text, err = e.Value.Text()
			} else {
				text, err = e.Value.String()
			}
			*stringField(m, e.Key) = strings.TrimRight(text, "\n")
		}
		if err != nil {
			return nil, err
		}
	}
	for _, f := range required {
		if _, ok := m.Defined[f]; !ok {
			name := m.ID
			if name == "" {
				name = "without an id"
			}
			return nil, item.Errorf("mutant %s: missing field %q (needs: %s)", name, f, strings.Join(required, ", "))
		}
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

func stringField(m *Mutant, key string) *string {
	switch key {
	case "id":
		return &m.ID
	case "title":
		return &m.Title
	case "contract":
		return &m.Contract
	case "rationale":
		return &m.Rationale
	case "seed":
		return &m.Seed
	case "target":
		return &m.Target
	case "find":
		return &m.Find
	case "replace":
		return &m.Replace
	}
	panic("unknown field " + key)
}

// Combine appends extra to base, rejecting an id that base already uses.
func Combine(base, extra []*Mutant) ([]*Mutant, error) {
	ids := map[string]bool{}
	for _, m := range base {
		ids[m.ID] = true
	}
	for _, m := range extra {
		if ids[m.ID] {
			return nil, m.errorf("id", "id %q is already taken by the built-in catalog; choose another (mutate list shows the catalog)", m.ID)
		}
	}
	return append(append([]*Mutant(nil), base...), extra...), nil
}

// Lookup returns the mutant with id, or an error that suggests the closest
// id.
func Lookup(ms []*Mutant, id string) (*Mutant, error) {
	ids := make([]string, len(ms))
	for i, m := range ms {
		if m.ID == id {
			return m, nil
		}
		ids[i] = m.ID
	}
	return nil, fmt.Errorf("no mutant %q%s", id, suggest.Hint(id, ids))
}
