// Package reportschema checks documents against JSON schemas: the schema
// of mutation testing reports (the npm package
// mutation-testing-report-schema, vendored under third_party with its
// license), which what mutate run -stryker writes must follow, and, with
// ValidateFile, any schema file (Gradescope's results, a GitHub Classroom
// runner's result, check's JSON). Only tests use it.
package reportschema

import (
	"bytes"
	"fmt"
	"os"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	schema "github.com/fencelab/fencelab/third_party/mutation-testing-report-schema"
)

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema.JSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mutation-testing-report-schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mutation-testing-report-schema.json")
})

// Validate returns an error, naming every place that breaks the schema,
// unless data is a JSON document that follows it.
func Validate(data []byte) error {
	sch, err := compiled()
	if err != nil {
		return fmt.Errorf("the schema: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return sch.Validate(inst)
}

// ValidateFile returns an error, naming every place that breaks it, unless
// data is a JSON document that follows the JSON schema in the file schema.
func ValidateFile(schema string, data []byte) error {
	raw, err := os.ReadFile(schema)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("%s: %w", schema, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(schema, doc); err != nil {
		return err
	}
	sch, err := c.Compile(schema)
	if err != nil {
		return fmt.Errorf("%s: %w", schema, err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return sch.Validate(inst)
}
