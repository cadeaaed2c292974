// Package predict reads a learner's predictions of which tests fail under
// each mutant, and compares them with the tests that did.
//
// A prediction file is YAML, keyed by mutant id:
//
//	learner: alice            # optional
//	predictions:
//	  take-boundary:
//	    fails: [TestTake_AllOfThem]   # [] predicts the mutant survives
//	    why: taking the last two of two items must work
//	  take-all:
//	    fails:                # with no why: not answered yet
//	    why:
//
// An entry whose fails is empty (null) and whose why is empty is not
// answered: it is counted apart, never as a prediction that the mutant
// survives, which fails: [] says. An entry's answer answers its step's
// question, if the exercise asks one; worksheet answers the exercise's
// closing questions, by id. Answers are read, never graded:
//
//	worksheet:
//	  earlier-steps: |
//	    Step 1 keeps every row...
//
// Validation is strict, and every error names file:line:col and says how
// to fix the file.
package predict

import (
	"errors"
	"slices"
	"strings"

	"github.com/fencelab/fencelab/internal/suggest"
	"github.com/fencelab/fencelab/internal/text"
	"github.com/fencelab/fencelab/internal/yamlfile"
)

// File is one learner's predictions.
type File struct {
	Path        string
	Learner     string
	Predictions []*Prediction // in file order
	// Worksheet are the answers to the exercise's closing questions, by
	// question id; a question left empty has none.
	Worksheet   map[string]string
	root        yamlfile.Node
	predictions yamlfile.Node // the "predictions:" key, for errors about it
	// meant are the ids that a misspelt id seems to be: that mistake has
	// its error, and their predictions are not missing too.
	meant []string
}

// Name returns the learner's name, or the file's path when it gives none.
func (f *File) Name() string {
	if f.Learner != "" {
		return f.Learner
	}
	return f.Path
}

// Lookup returns the prediction for mutant id, or nil.
func (f *File) Lookup(id string) *Prediction {
	for _, p := range f.Predictions {
		if p.Mutant == id {
			return p
		}
	}
	return nil
}

// Prediction is what a learner expects of one mutant.
type Prediction struct {
	Mutant string
	Fails  []string // full test names; a subtest is "Parent/sub"; empty: survives
	Why    string
	Answer string // to the step's question, if the exercise asks one
	// Answered says that the learner predicted: fails is a list, [] for
	// a survivor. An entry left as the template wrote it is not.
	Answered bool
	failAt   []yamlfile.Node
}

// Known is what predictions may name.
type Known struct {
	Mutants []string // ids, in catalog order
	// Required are the ids that a file must predict unless partial; nil
	// means every one of Mutants.
	Required []string
	// Tests are the names of the suite's tests. With TopLevelOnly they are
	// the top-level names only (go test -list), and only the part of a
	// predicted name before its first "/" is checked.
	Tests        []string
	TopLevelOnly bool
	// Questions are the ids of the exercise's closing questions, which a
	// file's worksheet may answer.
	Questions []string
}

// Load reads and validates a prediction file. Unless partial, every known
// mutant must have a prediction.
func Load(path string, known Known, partial bool) (*File, error) {
	root, err := yamlfile.ReadClassFile(path)
	var ye *yamlfile.Error
	if errors.Is(err, yamlfile.ErrEmpty) && errors.As(err, &ye) {
		ye.Msg += ": go tool mutate template prints a prediction file to fill in"
	}
	if err != nil {
		return nil, err
	}
	f := &File{Path: path, root: root}
	errs := f.decode(known)
	if len(errs) == 0 || f.predictions != (yamlfile.Node{}) {
		errs = append(errs, f.Check(known, partial)...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return f, nil
}

// decode reads the structure of the file and checks the mutant ids.
func (f *File) decode(known Known) yamlfile.Errors {
	if f.root.Kind() != "a mapping" {
		return yamlfile.Errors{f.root.Errorf("a prediction file is a mapping that starts with \"predictions:\", got %s", f.root.Kind())}
	}
	top, errs := f.root.Entries()
	if err := yamlfile.CheckKeys(top, "a prediction file", "learner", "predictions", "worksheet"); err != nil {
		errs = append(errs, err)
	}
	found := false
	for _, e := range top {
		switch e.Key {
		case "learner":
			if e.Value.IsNull() {
				continue
			}
			var err error
			if f.Learner, err = e.Value.String(); err != nil {
				errs = append(errs, e.Value.Errorf("learner must be a name, got %s", e.Value.Kind()))
			}
		case "predictions":
			found = true
			f.predictions = e.KeyAt
			errs = append(errs, f.decodePredictions(e.Value, known)...)
		case "worksheet":
			errs = append(errs, f.decodeWorksheet(e.Value, known)...)
		}
	}
	if !found && len(errs) == 0 {
		errs = append(errs, f.root.Errorf("no \"predictions:\" mapping: run mutate template for a file to fill in"))
	}
	return errs
}

func (f *File) decodePredictions(n yamlfile.Node, known Known) yamlfile.Errors {
	if n.IsNull() {
		return yamlfile.Errors{n.Errorf("\"predictions:\" is empty: give one entry per mutant id (mutate list shows them)")}
	}
	if n.Kind() != "a mapping" {
		return yamlfile.Errors{n.Errorf("\"predictions:\" must map mutant ids to predictions, got %s", n.Kind())}
	}
	entries, errs := n.Entries()
	for _, e := range entries {
		if !slices.Contains(known.Mutants, e.Key) {
			errs = append(errs, e.KeyAt.Errorf("unknown mutant id %s%s; mutate list shows the ids",
				text.Quote(e.Key), suggest.Hint(e.Key, known.Mutants)))
			if meant := suggest.Closest(e.Key, known.Mutants); meant != "" {
				f.meant = append(f.meant, meant)
			}
			continue
		}
		p, perrs := decodePrediction(e)
		errs = append(errs, perrs...)
		if p != nil {
			f.Predictions = append(f.Predictions, p)
		}
	}
	return errs
}

// decodeWorksheet reads the answers to the closing questions: a mapping
// of question ids to text.
func (f *File) decodeWorksheet(n yamlfile.Node, known Known) yamlfile.Errors {
	if n.IsNull() {
		return nil
	}
	if n.Kind() != "a mapping" {
		return yamlfile.Errors{n.Errorf("worksheet must map question ids to answers, got %s", n.Kind())}
	}
	if len(known.Questions) == 0 {
		return yamlfile.Errors{n.Errorf("this exercise has no worksheet: remove \"worksheet:\"")}
	}
	entries, errs := n.Entries()
	f.Worksheet = map[string]string{}
	for _, e := range entries {
		if !slices.Contains(known.Questions, e.Key) {
			errs = append(errs, e.KeyAt.Errorf("unknown question %s%s; the questions are: %s",
				text.Quote(e.Key), suggest.Hint(e.Key, known.Questions), strings.Join(known.Questions, ", ")))
			continue
		}
		if e.Value.IsNull() {
			continue
		}
		answer, err := e.Value.String()
		if err != nil {
			errs = append(errs, e.Value.Errorf("the answer to %s must be text, got %s", e.Key, e.Value.Kind()))
			continue
		}
		if answer = strings.TrimSpace(answer); answer != "" {
			f.Worksheet[e.Key] = answer
		}
	}
	return errs
}

func decodePrediction(e yamlfile.Entry) (*Prediction, yamlfile.Errors) {
	if e.Value.Kind() != "a mapping" {
		return nil, yamlfile.Errors{e.Value.Errorf("%s must be a mapping with \"fails:\" and \"why:\", got %s", e.Key, e.Value.Kind())}
	}
	fields, errs := e.Value.Entries()
	if err := yamlfile.CheckKeys(fields, "a prediction", "fails", "why", "answer"); err != nil {
		errs = append(errs, err)
	}
	p := &Prediction{Mutant: e.Key}
	for _, fe := range fields {
		switch fe.Key {
		case "why", "answer":
			if fe.Value.IsNull() {
				continue
			}
			text, err := fe.Value.String()
			if err != nil {
				errs = append(errs, fe.Value.Errorf("%s must be text, got %s", fe.Key, fe.Value.Kind()))
				continue
			}
			if fe.Key == "why" {
				p.Why = text
			} else {
				p.Answer = strings.TrimSpace(text)
			}
		case "fails":
			if fe.Value.IsNull() {
				continue // not answered, unless why says otherwise
			}
			p.Answered = true
			p.Fails = []string{}
			items, err := fe.Value.Seq()
			if err != nil {
				errs = append(errs, fe.Value.Errorf("fails must be a list of test names, such as [TestX, TestY/sub], or [] if you expect the mutant to survive; got %s", fe.Value.Kind()))
				continue
			}
			for _, item := range items {
				name, err := item.String()
				if err != nil {
					errs = append(errs, item.Errorf("a test name must be a string, got %s", item.Kind()))
					continue
				}
				if i := slices.Index(p.Fails, name); i >= 0 {
					errs = append(errs, item.Errorf("%s is listed twice (first at line %d)", text.Quote(name), p.failAt[i].Pos().Line))
					continue
				}
				p.Fails = append(p.Fails, name)
				p.failAt = append(p.failAt, item)
			}
		}
	}
	if !p.Answered && p.Why != "" {
		errs = append(errs, e.KeyAt.Errorf("%s has a why but no fails: list the tests you expect to fail, or write fails: [] if you expect the mutant to survive", e.Key))
	}
	return p, errs
}

// Check checks the test names against known.Tests and, unless partial,
// that every known mutant has a prediction. Load calls it; call it again
// with the full names of a baseline run to check subtest names too.
func (f *File) Check(known Known, partial bool) yamlfile.Errors {
	var errs yamlfile.Errors
	for _, p := range f.Predictions {
		for i, name := range p.Fails {
			check := name
			if known.TopLevelOnly {
				check, _, _ = strings.Cut(name, "/")
			}
			if !slices.Contains(known.Tests, check) {
				errs = append(errs, p.failAt[i].Errorf("mutant %s: unknown test %s%s; the suite's tests are listed at the end of mutate template's output",
					p.Mutant, text.Quote(name), suggest.Hint(name, known.Tests)))
			}
		}
	}
	if !partial {
		required := known.Required
		if required == nil {
			required = known.Mutants
		}
		var missing []string
		for _, id := range required {
			if f.Lookup(id) == nil && !slices.Contains(f.meant, id) {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			at := f.root
			if f.predictions != (yamlfile.Node{}) {
				at = f.predictions
			}
			errs = append(errs, at.Errorf("no prediction for %s: add %s, or pass -partial to check only what is there",
				strings.Join(missing, ", "), text.Plural(len(missing), "it", "them")))
		}
	}
	return errs
}
