package predict

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fencelab/fencelab/internal/classout"
	"github.com/fencelab/fencelab/internal/report"
)

// The class page has a cell per learner and mutant, the share of the
// valid files exact per mutant (an invalid file is a row, with its
// learner, and in no share), precision and recall per learner, the tests
// missed most often, and the invalid files with their problems.
func TestClass_WriteHTML(t *testing.T) {
	rep := &report.Report{Mutants: []report.Mutant{killed("m1", "TestA"), killed("m2", "TestA", "TestB")}}
	alice := Compare(loadString(t, known, "learner: alice\npredictions:\n  m1: {fails: [TestA]}\n  m2: {fails: [TestA]}\n"), rep, CreditExact)
	bob := Compare(loadString(t, known, "learner: <b>bob</b>\npredictions:\n  m1: {fails: [TestA]}\n  m2: {fails: [TestP]}\n"), rep, CreditExact)
	invalid := []Invalid{{File: "carol.yaml", Learner: "carol", Problems: []string{"carol.yaml:3:7: unknown test \"TestZ\""}}}
	var buf bytes.Buffer
	model := Compare(loadString(t, known, "learner: model\npredictions:\n  m1: {fails: [TestA]}\n  m2: {fails: [TestA, TestB]}\n"), rep, CreditExact)
	model.Model = true
	if err := newClass([]*Score{alice, model, bob}, invalid).WriteHTML(&buf); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, want := range []string{
		`<h1>The class: 3 learners, 2 mutants</h1>`,
		"<style>\n" + string(classout.PageStyle) + "\ntd.exact {",
		`<td class="cell exact" data-learner="alice" data-mutant="m1" title="exact: TestA">✓</td>`,
		`<td class="cell differs" data-learner="alice" data-mutant="m2" title="differs: missed TestB">✗</td>`,
		`<td class="cell differs" data-learner="&lt;b&gt;bob&lt;/b&gt;" data-mutant="m2" title="differs: missed TestA, TestB; wrongly predicted TestP">✗</td>`,
		`<td class="num">1/2</td><td class="num">1/2</td><td class="num">1.00</td><td class="num">0.67</td>`, // alice: 2 right, 0 wrong, 1 missed
		`<td class="num">1/2</td><td class="num">1/2</td><td class="num">0.50</td><td class="num">0.33</td>`, // bob: 1 right, 1 wrong, 2 missed
		`<tr class="model"><td colspan="7">The model answer, not counted in the class:</td></tr>
<tr class="model"><th title="`,
		`<td class="num">2/2</td><td class="num">2/2</td><td class="num">1.00</td><td class="num">1.00</td></tr>`,
		`<tr class="invalid"><th title="carol.yaml">carol<br><code>carol.yaml</code></th>`,
		`<td class="cell invalid" data-learner="carol" data-mutant="m2"`,
		`<td class="share" data-mutant="m1" title="2 of 2 valid files predicted m1 exactly">100%</td>`,
		`<td class="share" data-mutant="m2" title="0 of 2 valid files predicted m2 exactly">0%</td>`,
		`<tr><th><code>m2</code></th><td>killed</td><td class="num">exact in 0 of 2 valid files</td><td><code>TestB</code> (2), <code>TestA</code> (1)</td></tr>`,
		`<tr><th><code>m1</code></th><td>killed</td><td class="num">exact in 2 of 2 valid files</td><td>none</td></tr>`,
		`<h3>carol: <code>carol.yaml</code></h3>`,
		`<li><code>carol.yaml:3:7: unknown test &#34;TestZ&#34;</code></li>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the class page lacks %s", want)
		}
	}
	if strings.Contains(page, "<b>bob") {
		t.Error("a learner's name is not escaped")
	}
}
