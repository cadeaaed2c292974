//go:build linux

package scripttest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/rogpeppe/go-internal/testscript"
)

// browsers are the names a Chromium or Chrome goes by on a PATH.
var browsers = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell", "chrome"}

// findBrowser returns the path of a Chromium or Chrome, or "".
func findBrowser() string {
	for _, name := range browsers {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	return ""
}

// seen is what a person sees on an HTML report: the totals of the
// mutation-testing-elements viewer, read through its shadow DOM, and the
// marks of the kill matrix, each read from its row's and its column's
// headers as they are drawn.
type seen struct {
	Totals map[string]string `json:"totals"` // the "All files" row: column: figure
	Marks  []struct {
		Test, Mutant, Title string
		Visible             bool
	} `json:"marks"`
}

// readPage is run in the page once the viewer has drawn its table.
const readPage = `(() => {
  const app = document.querySelector('mutation-test-report-app').shadowRoot;
  const table = app.querySelector('mte-mutant-view').shadowRoot.querySelector('mte-metrics-table').shadowRoot;
  const totals = {};
  const all = [...table.querySelectorAll('tbody tr')].find(tr => tr.title === 'All files');
  for (const td of all.querySelectorAll('td[aria-describedby^="tooltip-"]')) {
    totals[td.getAttribute('aria-describedby').slice('tooltip-'.length)] = td.textContent.trim();
  }
  const grid = document.getElementById('kill-matrix');
  const heads = [...grid.tHead.rows[0].cells].map(th => th.textContent.trim());
  const marks = [];
  for (const tr of grid.tBodies[0].rows) {
    for (const td of tr.cells) {
      if (td.tagName !== 'TD' || td.textContent.trim() === '') continue;
      const r = td.getBoundingClientRect();
      marks.push({Test: tr.cells[0].textContent.trim(), Mutant: heads[td.cellIndex], Title: td.title,
        Visible: r.width > 0 && r.height > 0 && getComputedStyle(td).visibility === 'visible'});
    }
  }
  return JSON.stringify({totals, marks});
})()`

// readIcons draws each icon of the viewer's font stack on a canvas, with
// the glyphs the page embeds, and returns how many are drawn as glyphs of
// their own rather than as the box of a missing one (the mark of an
// unassigned code point).
const readIcons = `(async () => {
  const icons = [...document.querySelector('.icons').textContent];
  const font = '32px "Noto Color Emoji"';
  await document.fonts.load(font, icons.join(''));
  const pixels = s => {
    const c = document.createElement('canvas'); c.width = c.height = 48;
    const g = c.getContext('2d'); g.font = font; g.fillText(s, 4, 36);
    return g.getImageData(0, 0, 48, 48).data.join(',');
  };
  const box = pixels('\u{10FFFD}');
  return icons.filter(i => pixels(i) !== box).length + ' of ' + icons.length;
})()`

// drawn is true once the viewer's table of totals is in its shadow DOM.
const drawn = `(() => {
  const app = document.querySelector('mutation-test-report-app');
  const view = app && app.shadowRoot && app.shadowRoot.querySelector('mte-mutant-view');
  const table = view && view.shadowRoot && view.shadowRoot.querySelector('mte-metrics-table');
  return !!(table && table.shadowRoot && table.shadowRoot.querySelector('td[aria-describedby="tooltip-killed"]'));
})()`

// browse HTML SHOT opens the HTML report in headless Chromium and prints
// what a person sees: "viewer killed=N survived=N timeout=N
// runtimeErrors=N compileErrors=N", read from the viewer's totals, "icons
// N of M", the icons drawn as glyphs (not boxes) with no emoji font of the
// system's and no network, then "mark TEST MUTANT" for every visible mark
// of the kill matrix, which must
// carry a message to show on hover. It saves a screenshot of the whole
// page as SHOT in the test's artifact directory (go test -artifacts keeps
// it). Scripts guard it with [browser].
func cmdBrowse(artifacts string) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: browse HTML SHOT")
		}
		browser := findBrowser()
		if browser == "" {
			ts.Fatalf("no Chromium or Chrome on PATH (looked for %v)", browsers)
		}
		page := (&url.URL{Scheme: "file", Path: ts.MkAbs(args[0])}).String()
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(browser),
			chromedp.NoSandbox, // as root in CI containers
			chromedp.DisableGPU,
			chromedp.WindowSize(1280, 900),
			chromedp.UserDataDir(ts.MkAbs(".browser")),
			// Chromium keeps a socket directory in TMPDIR, and leaves
			// it there: it goes with the script's work directory.
			chromedp.Env("TMPDIR="+ts.MkAbs(".browser")),
		)
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		defer cancelAlloc()
		bctx, cancelBrowser := chromedp.NewContext(actx)
		defer cancelBrowser()
		// Guards against a hang of the browser only: the page has
		// everything it needs and draws in well under a second.
		ctx, cancel := context.WithTimeout(bctx, 2*time.Minute)
		defer cancel()
		if err := chromedp.Do(ctx, chromedp.Navigate(page), chromedp.Poll[chromedp.Void](drawn)); err != nil {
			ts.Fatalf("%s: the viewer did not draw its table: %v", args[0], err)
		}
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](readPage))
		ts.Check(err)
		var s seen
		ts.Check(json.Unmarshal([]byte(raw), &s))
		fmt.Fprintf(ts.Stdout(), "viewer killed=%s survived=%s timeout=%s runtimeErrors=%s compileErrors=%s\n",
			s.Totals["killed"], s.Totals["survived"], s.Totals["timeout"], s.Totals["runtimeErrors"], s.Totals["compileErrors"])
		icons, err := chromedp.Run(ctx, chromedp.Evaluate[string](readIcons, chromedp.EvalAwaitPromise))
		ts.Check(err)
		fmt.Fprintf(ts.Stdout(), "icons %s\n", icons)
		for _, m := range s.Marks {
			if !m.Visible || m.Title == "" {
				ts.Fatalf("the mark of %s under %s is hidden or has no message: %+v", m.Test, m.Mutant, m)
			}
			fmt.Fprintf(ts.Stdout(), "mark %s %s\n", m.Test, m.Mutant)
		}
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		ts.Check(err)
		ts.Check(os.WriteFile(filepath.Join(artifacts, args[1]), shot, 0o644))
		ts.Logf("screenshot: %s", filepath.Join(artifacts, args[1]))
	}
}
