// Package elements embeds the mutation-testing-elements web component (see
// README.md), which draws a report in the mutation-testing-report-schema.
package elements

import _ "embed"

// Version is the npm version of the component.
const Version = "3.8.4"

// JS is dist/mutation-test-elements.js of the component.
//
//go:embed mutation-test-elements.js
var JS string
