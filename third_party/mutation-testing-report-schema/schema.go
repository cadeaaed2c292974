// Package schema embeds the JSON schema of mutation testing reports (see
// README.md), which what mutate run -stryker writes follows.
package schema

import _ "embed"

// Version is the npm version of the schema.
const Version = "3.8.4"

// JSON is dist/src/mutation-testing-report-schema.json of the package.
//
//go:embed mutation-testing-report-schema.json
var JSON []byte
