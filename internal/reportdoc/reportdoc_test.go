package reportdoc

import (
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/mutation"
	"github.com/fencelab/fencelab/internal/predict"
	"github.com/fencelab/fencelab/internal/report"
)

func TestRewrite(t *testing.T) {
	doc := "# Title\n\n<!-- BEGIN mutate report: a -->\nold a\n<!-- END mutate report: a -->\n\nprose\n<!-- BEGIN mutate report: b -->\n<!-- END mutate report: b -->\n"
	got, err := Rewrite([]byte(doc), map[string]string{"a": "new a\n", "b": "new b\n"})
	if err != nil {
		t.Fatal(err)
	}
	want := "# Title\n\n<!-- BEGIN mutate report: a -->\nnew a\n<!-- END mutate report: a -->\n\nprose\n<!-- BEGIN mutate report: b -->\nnew b\n<!-- END mutate report: b -->\n"
	if string(got) != want {
		t.Fatalf("Rewrite() =\n%s\nwant\n%s", got, want)
	}
	again, err := Rewrite(got, map[string]string{"a": "new a\n", "b": "new b\n"})
	if err != nil || string(again) != want {
		t.Fatalf("Rewrite() of its own output changed it: %v\n%s", err, again)
	}
}

func TestRewrite_Errors(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"Unknown", "<!-- BEGIN mutate report: zz -->\n<!-- END mutate report: zz -->\n", `line 1: unknown block "zz"`},
		{"NoEnd", "x\n<!-- BEGIN mutate report: a -->\n", `block "a" has no END marker`},
		{"EndWithoutBegin", "<!-- END mutate report: a -->\n", `line 1: END "a" without its BEGIN`},
		{"Nested", "<!-- BEGIN mutate report: a -->\n<!-- BEGIN mutate report: a -->\n", `line 2: BEGIN "a" inside block "a"`},
		{"MissingBlock", "no markers\n", `no block for a: add <!-- BEGIN mutate report: NAME --> and <!-- END mutate report: NAME --> where each belongs`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Rewrite([]byte(tc.doc), map[string]string{"a": "x\n"})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Rewrite() error = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestBlocks(t *testing.T) {
	cat := []*mutation.Mutant{
		{ID: "init-not-idempotent", Step: 1, Target: "schema", Kind: mutation.String, Find: "IF NOT EXISTS ", Replace: ""},
		{ID: "enqueue-replace", Step: 2, Target: "Store.Enqueue", Kind: mutation.String, Find: "OR IGNORE", Replace: "OR REPLACE"},
	}
	exp := []*mutation.Mutant{{ID: "x", Step: 4, Target: "Store.Claim", Kind: mutation.Stmt, Find: "fence++", Replace: ""}}
	rep := &report.Report{
		Baseline: report.Baseline{TestNames: []string{"TestA", "TestB", "TestC"}},
		Mutants: []report.Mutant{
			{ID: cat[0].ID, Status: report.Killed, FailedTests: []string{"TestA", "TestB"}},
			{ID: cat[1].ID, Status: report.Survived, FailedTests: []string{}},
			{ID: "x", Status: report.Killed, FailedTests: []string{"TestB"}},
		},
	}
	score := &predict.Score{Exact: 1, Total: 2, Precision: predict.Ratio{N: 2, D: 2}, Recall: predict.Ratio{N: 2, D: 4}, Matches: []predict.Match{
		{Mutant: cat[0].ID, Step: 1, Predicted: []string{"TestA"}, Failed: []string{"TestA", "TestB"}, Right: []string{"TestA"},
			Missed: []predict.Missed{{Test: "TestB"}}},
		{Mutant: cat[1].ID, Step: 2, Predicted: []string{}, Exact: true},
	}}
	blocks := Blocks(Input{Report: rep, Catalog: cat, Experiments: exp, ExperimentFiles: []string{"more.yaml"},
		Diffs: map[string]string{cat[0].ID: "-a\n+b\n"}, Predictions: "p.yaml", Score: score})
	checks := map[string][]string{
		"matrix": {"| test | 1 | 2 |", "| `TestA` | ✗ |   |", "| `TestB` | ✗ |   |", "| **tests that failed** | 2 | 0 |",
			"1 of the 3 tests and subtests failed under no catalog mutant: `TestC`."},
		"mutant init-not-idempotent": {"```diff\n-a\n+b\n```", "- Predicted in `p.yaml`: `TestA`",
			"- Failed under the mutant (killed): `TestA`, `TestB`", "- The prediction differs: missed `TestB`; wrong none."},
		"mutant enqueue-replace": {"- Predicted in `p.yaml`: none (survives)", "(survived): none", "The prediction is exact."},
		"experiments":            {"| 4 | `x` | in `Store.Claim`, delete `fence++` | killed | `TestB` |"},
		"summary": {"- The catalog: 2 mutants: 1 killed, 1 survived, 0 crashed, 0 timeout, 0 build-failed.",
			"- The experiments (`more.yaml`): 1 mutant:", "- `p.yaml`: 1 of 2 exact, precision 1.00, recall 0.50."},
		"scores": {"| 1 | `init-not-idempotent` | 1 | 2 | 1 | 1 | 0 | ✗ |"},
	}
	for name, wants := range checks {
		for _, want := range wants {
			if !strings.Contains(blocks[name], want) {
				t.Errorf("block %q lacks %q:\n%s", name, want, blocks[name])
			}
		}
	}
}
