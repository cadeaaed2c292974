package report

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/fencelab/fencelab/internal/mutation"
)

// Version is the version of the JSON form of a report, what mutate run
// -json prints, check -results and merge read, and the cache keeps. A
// reader takes its own version and those before it (1, which had no
// version field and no contract, rationale or seed; 2, whose isolation
// "full" is namespaces, then the only sandboxes), and refuses others.
const Version = 3

// jsonReport is the JSON form of a Report: its wire format, converted in
// one place (MarshalJSON, UnmarshalJSON).
type jsonReport struct {
	Version     int       `json:"version"`
	Module      string    `json:"module"`
	Package     string    `json:"package"`
	Packages    []string  `json:"packages,omitempty"`
	Shard       *Shard    `json:"shard,omitempty"`
	GoVersion   string    `json:"go_version"`
	Mode        string    `json:"mode"`
	Jobs        int       `json:"jobs"`
	Limit       float64   `json:"timeout_seconds"`
	MemoryLimit int64     `json:"memory_limit_bytes,omitempty"`
	Isolation   string    `json:"isolation,omitempty"`
	LandlockABI int       `json:"landlock_abi,omitempty"`
	Binds       []string  `json:"binds,omitempty"`
	Baseline    Baseline  `json:"baseline"`
	Mutants     []Mutant  `json:"mutants"`
	FlakyTests  []string  `json:"flaky_tests,omitempty"`
	Summary     Summary   `json:"summary"`
	Seconds     float64   `json:"seconds"`
	Phases      []Phase   `json:"phases,omitempty"`
	CPUSeconds  float64   `json:"cpu_seconds,omitempty"`
	CPUs        int       `json:"cpus,omitempty"`
	Efficiency  float64   `json:"efficiency,omitempty"`
	Cached      bool      `json:"cached,omitempty"`
	Dropped     []Dropped `json:"dropped,omitempty"`
	TCE         *TCE      `json:"tce,omitempty"`
	NotRun      []NotRun  `json:"not_run,omitempty"`
	Interrupted bool      `json:"interrupted,omitempty"`
}

// jsonMutant is the JSON form of a Mutant.
type jsonMutant struct {
	ID               string    `json:"id"`
	Package          string    `json:"package,omitempty"`
	Ordinal          int       `json:"ordinal,omitempty"`
	Step             int       `json:"step"`
	Title            string    `json:"title"`
	Target           string    `json:"target"`
	Kind             string    `json:"kind,omitempty"`
	Operator         string    `json:"operator,omitempty"`
	File             string    `json:"file"`
	Line             int       `json:"line"`
	Location         *Location `json:"location,omitempty"`
	Replacement      string    `json:"replacement,omitempty"`
	Contract         string    `json:"contract,omitempty"`
	Rationale        string    `json:"rationale,omitempty"`
	Seed             string    `json:"seed,omitempty"`
	Diff             string    `json:"diff,omitempty"`
	Points           int       `json:"points,omitempty"`
	Status           string    `json:"status"`
	DuplicateOf      string    `json:"duplicate_of,omitempty"`
	Dominator        bool      `json:"dominator,omitempty"`
	SubsumedBy       []string  `json:"subsumed_by,omitempty"`
	Build            string    `json:"build"`
	FailedTests      []string  `json:"failed_tests"`
	CoveredBy        []string  `json:"covered_by,omitempty"`
	FirstFailureOnly bool      `json:"first_failure_only,omitempty"`
	Partial          bool      `json:"partial,omitempty"`
	Failures         []Failure `json:"failures"`
	SkippedTests     []string  `json:"skipped_tests,omitempty"`
	FlakyTests       []string  `json:"flaky_tests,omitempty"`
	Reason           string    `json:"reason,omitempty"`
	Running          []string  `json:"running,omitempty"`
	SpinsAlone       bool      `json:"spins,omitempty"`
	Output           string    `json:"output,omitempty"`
	Seconds          float64   `json:"seconds"`
	TestSeconds      float64   `json:"test_seconds"`
	DecidingSeconds  float64   `json:"deciding_seconds,omitempty"`
	Reused           int       `json:"reused,omitempty"`
	ReusedFrom       string    `json:"reused_from,omitempty"`
}

// MarshalJSON writes r in its wire format, at the current Version.
func (r Report) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonReport{
		Version:     Version,
		Module:      r.Module,
		Package:     r.Package,
		Packages:    r.Packages,
		Shard:       r.Shard,
		GoVersion:   r.GoVersion,
		Mode:        string(r.Mode),
		Jobs:        r.Jobs,
		Limit:       r.Limit,
		MemoryLimit: r.MemoryLimit,
		Isolation:   string(r.Isolation),
		LandlockABI: r.LandlockABI,
		Binds:       r.Binds,
		Baseline:    r.Baseline,
		Mutants:     r.Mutants,
		FlakyTests:  r.FlakyTests,
		Summary:     r.Summary(),
		Seconds:     r.Seconds,
		Phases:      r.Phases,
		CPUSeconds:  r.CPUSeconds,
		CPUs:        r.CPUs,
		Efficiency:  r.Efficiency,
		Cached:      r.Cached,
		Dropped:     r.Dropped,
		TCE:         r.TCE,
		NotRun:      r.NotRun,
		Interrupted: r.Interrupted,
	})
}

// UnmarshalJSON reads r from its wire format.
func (r *Report) UnmarshalJSON(data []byte) error {
	var w jsonReport
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	if w.Version < 0 || w.Version > Version {
		return fmt.Errorf("a report of version %d; this mutate reads versions 1 to %d (a newer mutate wrote it?)", w.Version, Version)
	}
	if w.Isolation == isolationFull {
		w.Isolation = string(IsolationNamespaces)
	}
	*r = Report{
		Module:      w.Module,
		Package:     w.Package,
		Packages:    w.Packages,
		Shard:       w.Shard,
		GoVersion:   w.GoVersion,
		Mode:        Mode(w.Mode),
		Jobs:        w.Jobs,
		Limit:       w.Limit,
		MemoryLimit: w.MemoryLimit,
		Isolation:   Isolation(w.Isolation),
		LandlockABI: w.LandlockABI,
		Binds:       w.Binds,
		Baseline:    w.Baseline,
		Mutants:     w.Mutants,
		FlakyTests:  w.FlakyTests,
		Seconds:     w.Seconds,
		Phases:      w.Phases,
		CPUSeconds:  w.CPUSeconds,
		CPUs:        w.CPUs,
		Efficiency:  w.Efficiency,
		Cached:      w.Cached,
		Dropped:     w.Dropped,
		TCE:         w.TCE,
		NotRun:      w.NotRun,
		Interrupted: w.Interrupted,
	}
	return nil
}

// MarshalJSON writes m in its wire format.
func (m Mutant) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonMutant{
		ID:               m.ID,
		Package:          m.Package,
		Ordinal:          m.Ordinal,
		Step:             m.Step,
		Title:            m.Title,
		Target:           m.Target,
		Kind:             string(m.Kind),
		Operator:         string(m.Operator),
		File:             m.File,
		Line:             m.Line,
		Location:         m.Location,
		Replacement:      m.Replacement,
		Contract:         m.Contract,
		Rationale:        m.Rationale,
		Seed:             m.Seed,
		Diff:             m.Diff,
		Points:           m.Points,
		Status:           string(m.Status),
		DuplicateOf:      m.DuplicateOf,
		Dominator:        m.Dominator,
		SubsumedBy:       m.SubsumedBy,
		Build:            string(m.Build),
		FailedTests:      m.FailedTests,
		CoveredBy:        m.CoveredBy,
		FirstFailureOnly: m.FirstFailureOnly,
		Partial:          m.Partial,
		Failures:         m.Failures,
		SkippedTests:     m.SkippedTests,
		FlakyTests:       m.FlakyTests,
		Reason:           m.Reason,
		Running:          m.Running,
		SpinsAlone:       m.SpinsAlone,
		Output:           m.Output,
		Seconds:          m.Seconds,
		TestSeconds:      m.TestSeconds,
		DecidingSeconds:  m.DecidingSeconds,
		Reused:           m.Reused,
		ReusedFrom:       reusedFrom(m),
	})
}

// reusedFrom is when the oldest reused outcome of m ran, in RFC 3339; ""
// when none was reused.
func reusedFrom(m Mutant) string {
	if m.Reused == 0 || m.ReusedFrom.IsZero() {
		return ""
	}
	return m.ReusedFrom.UTC().Format(time.RFC3339)
}

// UnmarshalJSON reads m from its wire format.
func (m *Mutant) UnmarshalJSON(data []byte) error {
	var w jsonMutant
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*m = Mutant{
		ID:               w.ID,
		Package:          w.Package,
		Ordinal:          w.Ordinal,
		Step:             w.Step,
		Title:            w.Title,
		Target:           w.Target,
		Kind:             mutation.Kind(w.Kind),
		Operator:         mutation.Operator(w.Operator),
		File:             w.File,
		Line:             w.Line,
		Location:         w.Location,
		Replacement:      w.Replacement,
		Contract:         w.Contract,
		Rationale:        w.Rationale,
		Seed:             w.Seed,
		Diff:             w.Diff,
		Points:           w.Points,
		Status:           Status(w.Status),
		DuplicateOf:      w.DuplicateOf,
		Dominator:        w.Dominator,
		SubsumedBy:       w.SubsumedBy,
		Build:            Mode(w.Build),
		FailedTests:      w.FailedTests,
		CoveredBy:        w.CoveredBy,
		FirstFailureOnly: w.FirstFailureOnly,
		Partial:          w.Partial,
		Failures:         w.Failures,
		SkippedTests:     w.SkippedTests,
		FlakyTests:       w.FlakyTests,
		Reason:           w.Reason,
		Running:          w.Running,
		SpinsAlone:       w.SpinsAlone,
		Output:           w.Output,
		Seconds:          w.Seconds,
		TestSeconds:      w.TestSeconds,
		DecidingSeconds:  w.DecidingSeconds,
		Reused:           w.Reused,
	}
	if w.ReusedFrom != "" {
		from, err := time.Parse(time.RFC3339, w.ReusedFrom)
		if err != nil {
			return fmt.Errorf("mutant %s: reused_from: %w", w.ID, err)
		}
		m.ReusedFrom = from
	}
	return nil
}
