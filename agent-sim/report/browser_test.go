package report

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/mcpchaos/mcpchaos/internal/browsertest"
)

// offline reports whether a request stays on this machine without a
// network: the report file itself, inline data, or about:blank.
func offline(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil {
		return false
	}
	switch u.Scheme {
	case "file", "data", "about":
		return true
	}
	return false
}

// TestHTMLReportInBrowser renders the HTML report in headless Chromium
// with the network blocked, and checks that a reader gets the table and
// the chart: the page must be self-contained, so that a CI artifact
// opens anywhere. UPDATE_SCREENSHOT=1 also writes docs/report-html.png.
func TestHTMLReportInBrowser(t *testing.T) {
	exe := browsertest.Path(t)
	rep := fixtureReport(t)
	var page bytes.Buffer
	if err := rep.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	// One deadline for everything: the browser's start, the page, the
	// checks. The first Run binds the browser's life to this context.
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	allocCtx, cancelAlloc := browsertest.Allocator(ctx, t, exe, 1280, 800)
	defer cancelAlloc()

	// Every request the page makes, from the first event of the tab on;
	// the listener runs in the tab's read loop, so it only records.
	var mu sync.Mutex
	var requests, online []string
	tab, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok && e.Request != nil {
			mu.Lock()
			defer mu.Unlock()
			requests = append(requests, e.Request.URL)
			if !offline(e.Request.URL) {
				online = append(online, e.Request.URL)
			}
		}
	}))
	defer cancelTab()

	// The network domain reports every request; the block list makes
	// sure that one slipping past the check could not load anyway.
	block := func(ctx context.Context, tt *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tt, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		var patterns []*network.BlockPattern
		for _, scheme := range []string{"http", "https", "ws", "wss"} {
			patterns = append(patterns, &network.BlockPattern{URLPattern: scheme + "://*:*/*", Block: true})
		}
		_, err := cdp.Call(ctx, tt, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: patterns})
		return err
	}
	fileURL := (&url.URL{Scheme: "file", Path: file}).String()
	if err := chromedp.Do(tab, chromedp.Func(block), chromedp.Navigate(fileURL), chromedp.WaitVisible(chromedp.CSS("table"))); err != nil {
		t.Fatalf("opening %s in %s: %v", fileURL, exe, err)
	}

	// The table: a header row, then one row per run, in report order.
	rows, err := chromedp.Run(tab, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("table tr")).map(r => r.innerText)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(rep.Runs)+1 {
		t.Fatalf("table has %d rows, want a header and %d runs: %q", len(rows), len(rep.Runs), rows)
	}
	if !strings.Contains(rows[0], "Scenario") || !strings.Contains(rows[0], "Committed") {
		t.Errorf("header row = %q", rows[0])
	}
	for i, run := range rep.Runs {
		if r := rows[i+1]; !strings.Contains(r, run.Scenario) || !strings.Contains(r, run.Persona) || !strings.Contains(r, run.Host) {
			t.Errorf("row %d = %q, want %s / %s / %s", i+1, r, run.Scenario, run.Persona, run.Host)
		}
	}

	// The chart: an inline svg the browser laid out, with a bar per run
	// that ran and a label per run.
	type chartInfo struct {
		Inline      bool     `json:"inline"`
		Width       float64  `json:"width"`
		Height      float64  `json:"height"`
		Bars        int      `json:"bars"`
		WideBars    int      `json:"wideBars"`
		Labels      []string `json:"labels"`
		Subresource int      `json:"subresource"`
	}
	info, err := chromedp.Run(tab, chromedp.Evaluate[chartInfo](`(() => {
		const svg = document.querySelector("svg");
		if (!svg) return {inline: false};
		const box = svg.getBoundingClientRect();
		const bars = Array.from(svg.querySelectorAll("rect"));
		return {
			inline: svg.namespaceURI === "http://www.w3.org/2000/svg" && svg.closest("body") !== null,
			width: box.width, height: box.height,
			bars: bars.length,
			wideBars: bars.filter(r => r.getBBox().width >= 10).length,
			labels: Array.from(svg.querySelectorAll("text[text-anchor=end]")).map(t => t.textContent),
			subresource: performance.getEntriesByType("resource").length,
		};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if !info.Inline || info.Width < 200 || info.Height < 50 {
		t.Fatalf("no inline svg chart laid out: %+v", info)
	}
	ran := 0
	for _, run := range rep.Runs {
		if run.Error == "" {
			ran++
		}
	}
	// Each run that ran draws a budget track, a calls bar, a side-effect
	// bar and an intended mark; the wide ones include at least every
	// budget track.
	if info.Bars < 4*ran || info.WideBars < ran {
		t.Errorf("chart has %d rects (%d at least 10px wide), want at least %d (%d)", info.Bars, info.WideBars, 4*ran, ran)
	}
	if len(info.Labels) != len(rep.Runs) {
		t.Errorf("chart labels = %q, want one per run", info.Labels)
	}
	for i, run := range rep.Runs {
		if i < len(info.Labels) && !strings.HasPrefix(info.Labels[i], run.Scenario) {
			t.Errorf("chart label %d = %q, want it to start with %q", i, info.Labels[i], run.Scenario)
		}
	}
	// Self-contained means no subresource at all, not even a file next
	// to the report: the artifact is copied alone.
	if info.Subresource != 0 {
		t.Errorf("the page loaded %d subresource(s); the report must be one self-contained file", info.Subresource)
	}

	png, err := chromedp.Run(tab, chromedp.FullScreenshot(100)) // quality 100: PNG
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), "report-html.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
	if os.Getenv("UPDATE_SCREENSHOT") == "1" {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "report-html.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	mu.Lock()
	defer mu.Unlock()
	if len(requests) == 0 {
		t.Error("saw no request at all: the network listener is not working, so the offline check proves nothing")
	}
	if len(online) > 0 {
		t.Errorf("the report made requests that need a network: %q", online)
	}
}
