package gotest

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

func parseFile(t *testing.T, name string) *Result {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := Parse(f)
	if err != nil {
		t.Fatalf("Parse(%s) error = %v", name, err)
	}
	return res
}

func TestParse_OutcomesOfTestsAndSubtests(t *testing.T) {
	res := parseFile(t, "mixed.jsonl")
	if res.Passed {
		t.Fatal("Passed = true, want false")
	}
	want := map[string]string{
		"TestPass": Pass, "TestFail": Fail, "TestSub": Fail, "TestSub/ok": Pass,
		"TestSub/bad_one": Fail, "TestSkip": Skip, "Example": Fail,
	}
	if len(res.Tests) != len(want) {
		t.Fatalf("Parse() found tests %v, want %d", res.Names(), len(want))
	}
	for name, outcome := range want {
		if got := res.Tests[name].Outcome; got != outcome {
			t.Errorf("%s outcome = %q, want %q", name, got, outcome)
		}
	}
	if got, want := strings.Join(res.Failed(), ","), "Example,TestFail,TestSub,TestSub/bad_one"; got != want {
		t.Errorf("Failed() = %s, want %s", got, want)
	}
	if res.Elapsed != 0.003 {
		t.Errorf("Elapsed = %v, want 0.003", res.Elapsed)
	}
}

func TestParse_MessagesDropFraming(t *testing.T) {
	res := parseFile(t, "mixed.jsonl")
	tests := []struct{ name, want string }{
		{"TestFail", "gt_test.go:4: a log line\ngt_test.go:4: got 1, want 2\ngt_test.go:4: multi\n    line"},
		{"TestSub/bad_one", "gt_test.go:5: sub failed"},
		{"TestSub", ""},
		{"Example", "got:\nx\nwant:\ny"},
		{"NoSuchTest", ""},
	}
	for _, tc := range tests {
		if got := res.Message(tc.name); got != tc.want {
			t.Errorf("Message(%s) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A line of output that looks like the testing package's own timeout
// panic is only output: whether a run timed out is for the harness's clock
// to say.
func TestParse_TimeoutTextIsNotATimeout(t *testing.T) {
	res := parseFile(t, "timeout.jsonl")
	if res.TimedOut || res.Passed {
		t.Fatalf("TimedOut, Passed = %v, %v; want false, false", res.TimedOut, res.Passed)
	}
	if got := strings.Join(res.Failed(), ","); got != "" {
		t.Fatalf("Failed() = %s, want none", got)
	}
	if got := strings.Join(res.Unfinished(), ","); got != "TestHang" {
		t.Fatalf("Unfinished() = %s, want TestHang", got)
	}
}

func TestParse_RejectsBrokenEvent(t *testing.T) {
	_, err := Parse(strings.NewReader("{\"Action\":\"run\",\n"))
	if err == nil {
		t.Fatal("Parse(broken JSON) error = nil, want an error")
	}
}

func TestParse_PassingPackage(t *testing.T) {
	res, err := Parse(strings.NewReader(`{"Action":"start","Package":"p"}
go: downloading example.com/m v1.0.0
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.5}
{"Action":"pass","Package":"p","Elapsed":0.6}
`))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Passed || len(res.Failed()) != 0 || res.Elapsed != 0.6 || res.Tests["TestA"].Elapsed != 0.5 {
		t.Fatalf("Parse() = %+v, want a passing package with TestA", res)
	}
}

// When one test panics, the binary stops with other parallel tests still
// running; only the one that failed is a failure.
func TestParse_PanicFailsOnlyThePanickingTest(t *testing.T) {
	res := parseFile(t, "panic.jsonl")
	if res.Passed {
		t.Fatal("Passed = true, want false")
	}
	if got := strings.Join(res.Failed(), ","); got != "TestPanics" {
		t.Fatalf("Failed() = %s, want TestPanics (TestWaits was only running beside it)", got)
	}
	if got := strings.Join(res.Unfinished(), ","); got != "TestWaits" {
		t.Fatalf("Unfinished() = %s, want TestWaits", got)
	}
	if !strings.Contains(res.Message("TestPanics"), "assignment to entry in nil map") {
		t.Fatalf("Message(TestPanics) = %q, want the panic", res.Message("TestPanics"))
	}
}

// A line that a test did not log, such as what a process it started
// printed, can be another test's; the message keeps the test's own lines
// and a panic, and falls back to everything only when nothing was logged.
func TestMessage_KeepsLoggedLinesAndPanics(t *testing.T) {
	res, err := Parse(strings.NewReader(`{"Action":"run","Test":"TestA"}
{"Action":"output","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Test":"TestA","Output":"child of TestB says hello\n"}
{"Action":"output","Test":"TestA","Output":"    a_test.go:9: got 1\n"}
{"Action":"output","Test":"TestA","Output":"        want 2\n"}
{"Action":"output","Test":"TestA","Output":"--- FAIL: TestA (0.00s)\n"}
{"Action":"fail","Test":"TestA"}
{"Action":"run","Test":"TestP"}
{"Action":"output","Test":"TestP","Output":"    p_test.go:3: before\n"}
{"Action":"output","Test":"TestP","Output":"--- FAIL: TestP (0.00s)\n"}
{"Action":"output","Test":"TestP","Output":"panic: boom [recovered]\n"}
{"Action":"output","Test":"TestP","Output":"goroutine 7 [running]:\n"}
{"Action":"fail","Test":"TestP"}
{"Action":"run","Test":"ExampleX"}
{"Action":"output","Test":"ExampleX","Output":"got:\n"}
{"Action":"output","Test":"ExampleX","Output":"1\n"}
{"Action":"fail","Test":"ExampleX"}
`))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"TestA":    "a_test.go:9: got 1\n    want 2",
		"TestP":    "p_test.go:3: before\npanic: boom [recovered]\ngoroutine 7 [running]:",
		"ExampleX": "got:\n1",
	} {
		if got := res.Message(name); got != want {
			t.Errorf("Message(%s) = %q, want %q", name, got, want)
		}
	}
}

// Code under test can print the framing test2json reads: an outcome for a
// test that has not started, or a second outcome for one that finished,
// cannot come from the testing package, and the result says so.
func TestParse_ForgedFramingIsNamed(t *testing.T) {
	for _, tc := range []struct{ name, events, want string }{
		{"OutcomeOfATestNotStarted", `{"Action":"run","Test":"TestA"}
{"Action":"fail","Test":"TestAdd"}
{"Action":"pass","Test":"TestA"}
`, "a fail of TestAdd, which had not started, was reported"},
		{"SecondOutcome", `{"Action":"run","Test":"TestDiv"}
{"Action":"pass","Test":"TestDiv"}
{"Action":"fail","Test":"TestDiv"}
`, "a fail of TestDiv was reported after its pass"},
		{"StartedTwice", `{"Action":"run","Test":"TestA"}
{"Action":"run","Test":"TestA"}
`, "TestA started twice"},
		{"Genuine", `{"Action":"run","Test":"TestA"}
{"Action":"run","Test":"TestA/sub"}
{"Action":"pause","Test":"TestA/sub"}
{"Action":"cont","Test":"TestA/sub"}
{"Action":"pass","Test":"TestA/sub"}
{"Action":"pass","Test":"TestA"}
{"Action":"pass"}
`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Parse(strings.NewReader(tc.events))
			if err != nil {
				t.Fatal(err)
			}
			if res.Forged != tc.want {
				t.Fatalf("Forged = %q, want %q", res.Forged, tc.want)
			}
		})
	}
}

// A test that prints without end keeps the first and the last outputCap
// bytes of its output, and a line that says how much was dropped.
func TestParse_OutputIsClippedToItsHeadAndTail(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"Action":"run","Test":"TestLoud"}` + "\n")
	line := strings.Repeat("x", 999) // 1000 bytes with its newline
	const lines = 1000
	for i := range lines {
		fmt.Fprintf(&b, `{"Action":"output","Test":"TestLoud","Output":"%03d%s\n"}`+"\n", i, line[3:])
	}
	b.WriteString(`{"Action":"fail","Test":"TestLoud"}` + "\n")
	res, err := Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	out := res.Tests["TestLoud"].Output
	kept := 2 * (outputCap / 1000) // lines of 1000 bytes in head and tail
	if len(out) != kept+1 {
		t.Fatalf("%d lines kept, want %d and the note", len(out), kept)
	}
	dropped := lines - kept
	if want := fmt.Sprintf("[… %d bytes of output dropped (%d lines) …]", dropped*1000, dropped); out[kept/2] != want {
		t.Errorf("the note = %q, want %q", out[kept/2], want)
	}
	if !strings.HasPrefix(out[0], "000") || !strings.HasPrefix(out[len(out)-1], "999") {
		t.Errorf("first and last lines kept = %.3s…, %.3s…; want 000…, 999…", out[0], out[len(out)-1])
	}
}

// subtestStream writes the events of a run of n passing subtests of
// TestMany, each logging a line, and one that fails.
func subtestStream(n int) string {
	var b strings.Builder
	b.WriteString(`{"Action":"run","Test":"TestMany"}` + "\n")
	for i := range n {
		name := fmt.Sprintf("TestMany/case_%06d", i)
		fmt.Fprintf(&b, `{"Action":"run","Test":%q}`+"\n", name)
		fmt.Fprintf(&b, `{"Action":"output","Test":%q,"Output":"    many_test.go:12: checked case %d of the table, as it should be\n"}`+"\n", name, i)
		fmt.Fprintf(&b, `{"Action":"pass","Test":%q}`+"\n", name)
	}
	b.WriteString(`{"Action":"run","Test":"TestMany/broken"}` + "\n")
	b.WriteString(`{"Action":"output","Test":"TestMany/broken","Output":"    many_test.go:20: broken\n"}` + "\n")
	b.WriteString(`{"Action":"fail","Test":"TestMany/broken"}` + "\n")
	b.WriteString(`{"Action":"fail","Test":"TestMany"}` + "\n" + `{"Action":"fail"}` + "\n")
	return b.String()
}

// A run keeps the names of its passing tests, never their output: what
// it holds grows with the names of many subtests, not with what they log.
// A failure's message is kept.
func TestParse_PassingTestsKeepNoOutput(t *testing.T) {
	res, err := Parse(strings.NewReader(subtestStream(1000)))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tests) != 1002 {
		t.Fatalf("%d tests, want 1002", len(res.Tests))
	}
	for name, test := range res.Tests {
		if test.Outcome == Pass && len(test.Output) != 0 {
			t.Fatalf("%s passed and kept %q", name, test.Output)
		}
	}
	if got := res.Message("TestMany/broken"); got != "many_test.go:20: broken" {
		t.Errorf("Message(broken) = %q", got)
	}
}

// BenchmarkParse_Subtests measures what a run of 100,000 subtests, each
// logging a line, costs to read: allocated bytes per run (B/op), and
// what the result holds once read, per subtest (held-B/subtest).
func BenchmarkParse_Subtests(b *testing.B) {
	const n = 100_000
	stream := subtestStream(n)
	var held uint64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, err := Parse(strings.NewReader(stream))
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		held = after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
		runtime.KeepAlive(res)
	}
	b.ReportMetric(float64(held)/n, "held-B/subtest")
}
