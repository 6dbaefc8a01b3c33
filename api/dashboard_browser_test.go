package api_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/chromedp/chromedp/kb"
	"github.com/mcpchaos/mcpchaos/internal/browsertest"

	agentsim "github.com/mcpchaos/mcpchaos/agent-sim"
	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/demo"
	"github.com/mcpchaos/mcpchaos/inject"
)

// dashboardServer is a real API server on a loopback port, with a token,
// that the test can stop to see the page degrade.
type dashboardServer struct {
	reg    *inject.Registry
	base   string
	host   string
	client *api.Client
	stop   func()
}

// startDashboardServer starts one on addr ("127.0.0.1:0": any port).
func startDashboardServer(t *testing.T, addr string) *dashboardServer {
	t.Helper()
	reg := inject.New(inject.Options{})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// As `mcpchaos serve` does: runs get the demo carrier, and this test
	// binary stands in for {{ mcpchaos }} demo-server (see TestMain).
	srv := api.New(reg, api.Options{Token: testToken, EnableRuns: true, RunOptions: agentsim.RunOptions{Self: self, Concurrency: 2,
		Builtins: map[string]agentsim.Builtin{"carrier": demo.StartCarrier}}})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = srv.Close()
		_ = reg.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Serve: %v", err)
			}
		})
	}
	t.Cleanup(func() {
		stop()
		reg.Halt()
		_ = reg.Close()
	})
	base := "http://" + ln.Addr().String()
	c, err := api.NewClient(base, api.ClientOptions{Token: testToken, Actor: "dashboard test"})
	if err != nil {
		t.Fatal(err)
	}
	return &dashboardServer{reg: reg, base: base, host: ln.Addr().String(), client: c, stop: stop}
}

// browse is a headless Chromium tab whose every request to another host
// than the API server fails, and is recorded: the page must work with
// the network cut off from everything else.
type browse struct {
	t        *testing.T
	tab      context.Context
	mu       sync.Mutex
	allowed  []string
	foreign  []string
	console  []string // exceptions and policy violations
	shutdown func()
}

func newBrowser(t *testing.T, exe, host string) *browse {
	t.Helper()
	// One deadline for the whole test: the browser's life is bound to it.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	allocCtx, cancelAlloc := browsertest.Allocator(ctx, t, exe, 1440, 1000)
	tab, cancelTab := chromedp.NewContext(allocCtx)
	b := &browse{t: t, tab: tab}
	var wg sync.WaitGroup
	b.shutdown = func() {
		cancelTab()
		cancelAlloc()
		cancel()
		wg.Wait()
	}
	t.Cleanup(b.shutdown)
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}

	// Every request pauses until the guard lets it go on (the API
	// server) or fails it (anything else).
	paused := chromedp.Events(tab, fetch.RequestPaused)
	messages := chromedp.Console(tab)
	wg.Add(2)
	go func() {
		defer wg.Done()
		for ev, err := range paused {
			if err != nil {
				return
			}
			u, perr := url.Parse(ev.Request.URL)
			ok := perr == nil && u.Scheme == "http" && u.Host == host
			b.mu.Lock()
			if ok {
				b.allowed = append(b.allowed, ev.Request.URL)
			} else {
				b.foreign = append(b.foreign, ev.Request.URL)
			}
			b.mu.Unlock()
			if ok {
				_, _ = chromedp.Call(tab, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
			} else {
				_, _ = chromedp.Call(tab, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
			}
		}
	}()
	go func() {
		defer wg.Done()
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || strings.Contains(m.Text, "Content Security Policy") {
				b.mu.Lock()
				b.console = append(b.console, m.String())
				b.mu.Unlock()
			}
		}
	}()
	if _, err := chromedp.Call(tab, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
		t.Fatal(err)
	}
	return b
}

// do runs steps within d; on failure it reports what the page showed.
func (b *browse) do(what string, d time.Duration, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.tab, d)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v\npage: %s", what, err, b.describe())
	}
}

// waitFor polls a JavaScript predicate until it is truthy, within d.
func (b *browse) waitFor(what string, d time.Duration, predicate string) {
	b.t.Helper()
	b.do(what, d+5*time.Second, chromedp.Steps(func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(d), chromedp.WithPollingInterval(50*time.Millisecond))(ctx, t)
		return chromedp.Void{}, err
	}))
}

// describe is what the page shows, for failure messages.
func (b *browse) describe() string {
	ctx, cancel := context.WithTimeout(b.tab, 5*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`["status", "banner", "form-status", "run-status", "notice", "live-stats", "live-sessions"]
		.map(id => { const e = document.getElementById(id); return e ? id + "=" + JSON.stringify(e.textContent.trim().slice(0, 800)) : id + " missing"; })
		.join(" ")`))
	if err != nil {
		return err.Error()
	}
	return s
}

func evaluate[T any](b *browse, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.tab, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// choose selects an option as a person would: the value changes and the
// page hears a change event.
func choose(id, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const s = document.getElementById(%q);
		s.value = %q;
		if (s.value !== %q) throw new Error("no option " + %q);
		s.dispatchEvent(new Event("change", {bubbles: true}));
	})()`, id, value, value, value))
}

// proxied sends a request through the upstream's proxy.
func proxied(t *testing.T, listen, m, path string) (int, string) {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	req, err := http.NewRequest(m, "http://"+listen+path, strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s through the proxy: %v", m, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestDashboardInBrowser drives the dashboard in headless Chromium, with
// every request to another host than the API server blocked: the token is
// asked for and kept in the session; an expression error is shown next to
// the field with its position and creates nothing; a fault added through
// the page breaks a proxied request; the timeline shows the injection; a
// run of an example scenario shows its verdicts and findings; Halt all
// (confirmed from the keyboard) heals the request; and a server that goes
// away is shown as such. UPDATE_SCREENSHOT=1 also writes docs/dashboard.png.
func TestDashboardInBrowser(t *testing.T) {
	exe := browsertest.Path(t)
	srv := startDashboardServer(t, "127.0.0.1:0")
	ctx := t.Context()

	// An HTTP upstream in front of a test backend, and a TCP one with a
	// fault created through the API, which the page must show too.
	carrier, err := srv.client.AddUpstream(ctx, api.UpstreamRequest{Name: "carrier", Protocol: "http", Target: backend(t).URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.client.AddUpstream(ctx, api.UpstreamRequest{Name: "db", Protocol: "tcp", Target: echoServer(t)}); err != nil {
		t.Fatal(err)
	}
	half := 0.5
	if _, err := srv.client.AddFault(ctx, api.FaultRequest{Name: "slow-db", Upstream: "db", When: "conn % 2 == 0",
		Fault:       api.FaultSpec{Kind: "latency", Params: map[string]any{"delay": "800ms", "jitter": "200ms"}},
		Probability: &half, TTL: "10m"}); err != nil {
		t.Fatal(err)
	}
	if status, body := proxied(t, carrier.Listen, "GET", "/shipments"); status != 200 || body != "ok" {
		t.Fatalf("before any fault: %d %q", status, body)
	}

	b := newBrowser(t, exe, srv.host)

	// The page asks for the token, and keeps it in this tab's session.
	b.do("opening the dashboard", 20*time.Second,
		chromedp.Navigate(srv.base+"/"),
		chromedp.WaitVisible(chromedp.ID("token-input")),
		chromedp.SendKeys(chromedp.ID("token-input"), testToken+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`#upstreams article[data-key="carrier"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#upstreams tr[data-key="slow-db"]`)),
		chromedp.WaitReady(chromedp.CSS(`#f-kind option[value="http_error"]`)),
	)
	if got := evaluate[string](b, `sessionStorage.getItem("mcpchaos.token")`); got != testToken {
		t.Errorf("sessionStorage token = %q", got)
	}
	if n := evaluate[int](b, `localStorage.length + document.cookie.length`); n != 0 {
		t.Errorf("the token (or something) went to localStorage or a cookie: %d", n)
	}
	// Every control has a label.
	if unlabelled := evaluate[[]string](b, `[...document.querySelectorAll("input, select, textarea")]
		.filter(e => e.labels.length === 0 && !e.getAttribute("aria-label")).map(e => e.id || e.outerHTML)`); len(unlabelled) > 0 {
		t.Errorf("controls without a label: %q", unlabelled)
	}

	// An expression error: shown next to "when" with its line and column
	// (the API's), the field marked invalid and focused, nothing created.
	const badWhen = `method == "GET" &&`
	_, apiErr := srv.client.AddFault(ctx, api.FaultRequest{Name: "probe", Upstream: "carrier", When: badWhen,
		Fault: api.FaultSpec{Kind: "http_error"}})
	var ae *api.Error
	if !errors.As(apiErr, &ae) || ae.Field != "when" || ae.Line == 0 {
		t.Fatalf("the API's answer to %q: %v", badWhen, apiErr)
	}
	b.do("filling the form with a bad expression", 20*time.Second,
		choose("f-upstream", "carrier"),
		choose("f-kind", "http_error"),
		chromedp.WaitVisible(chromedp.ID("f-param-status")),
		chromedp.SendKeys(chromedp.ID("f-name"), "carrier-503"),
		chromedp.SendKeys(chromedp.ID("f-when"), badWhen),
		chromedp.SendKeys(chromedp.ID("f-ttl"), "5m"),
		chromedp.Click(chromedp.ID("f-submit")),
		chromedp.WaitVisible(chromedp.ID("f-when-error")),
	)
	shown := evaluate[string](b, `document.getElementById("f-when-error").textContent`)
	if want := fmt.Sprintf("Line %d, column %d: ", ae.Line, ae.Column); !strings.Contains(shown, want) || !strings.Contains(shown, ae.Message) {
		t.Errorf("error next to when = %q, want %q and %q", shown, want, ae.Message)
	}
	if got := evaluate[string](b, `document.activeElement.id + " " + document.getElementById("f-when").getAttribute("aria-invalid")`); got != "f-when true" {
		t.Errorf("focus and aria-invalid after the error = %q", got)
	}
	// The error box sits right after the field it is about.
	if next := evaluate[string](b, `document.getElementById("f-when").nextElementSibling.id`); next != "f-when-error" {
		t.Errorf("the element after the when field is %q", next)
	}
	faults, err := srv.client.Faults(ctx, "")
	if err != nil || len(faults) != 1 || faults[0].Name != "slow-db" {
		t.Fatalf("faults after the bad expression: %+v %v; want only slow-db", faults, err)
	}

	// The same form, the expression fixed: the fault is created and shown
	// with its rule, hit count and a TTL that counts down.
	row := `#upstreams article[data-key="carrier"] tr[data-key="carrier-503"]`
	b.do("adding the fault", 20*time.Second,
		chromedp.Evaluate[chromedp.Void](`document.getElementById("f-when").value = ""`),
		chromedp.SendKeys(chromedp.ID("f-when"), `method == "GET"`),
		chromedp.WaitNotVisible(chromedp.ID("f-when-error")),
		chromedp.Click(chromedp.ID("f-submit")),
		chromedp.WaitVisible(chromedp.CSS(row)),
	)
	f, err := srv.client.Fault(ctx, "carrier-503")
	if err != nil || f.Upstream != "carrier" || f.Fault.Kind != "http_error" || f.When != `method == "GET"` || f.TTL != "5m0s" {
		t.Fatalf("the fault the page created: %+v %v", f, err)
	}
	first := evaluate[string](b, `document.querySelector('`+row+` .ttl').textContent`)
	if !regexp.MustCompile(`^(5:00|4:5\d)$`).MatchString(first) {
		t.Errorf("TTL shown = %q, want about 5:00", first)
	}
	b.waitFor("the TTL counting down", 5*time.Second, `document.querySelector('`+row+` .ttl').textContent !== "`+first+`"`)
	if when := evaluate[string](b, `document.querySelector('`+row+` code.when').textContent`); when != `method == "GET"` {
		t.Errorf("rule shown = %q", when)
	}

	// The fault breaks a proxied request as configured, and only the
	// requests its rule matches...
	if status, _ := proxied(t, carrier.Listen, "GET", "/shipments"); status != 503 {
		t.Fatalf("through the proxy with the fault: %d, want 503", status)
	}
	if status, body := proxied(t, carrier.Listen, "POST", "/shipments"); status != 200 || body != "ok" {
		t.Fatalf("a POST through the proxy with the GET fault: %d %q, want 200 ok", status, body)
	}
	// ...and the page sees it: the timeline and the hit count.
	b.waitFor("the injection in the timeline", 10*time.Second,
		`[...document.querySelectorAll('#timeline li[data-type="injection"]')].some(li => li.textContent.includes("carrier-503") && li.textContent.includes("http_error"))`)
	b.waitFor("the hit count", 10*time.Second, `document.querySelector('`+row+` .hits').textContent === "1"`)
	b.waitFor("the exchange in the timeline", 10*time.Second,
		`[...document.querySelectorAll('#timeline li[data-type="exchange"]')].some(li => li.textContent.includes("GET /shipments") && li.textContent.includes("http_error"))`)

	// A run of an example scenario: verdicts by tool and the findings.
	b.do("starting a run", 20*time.Second,
		chromedp.WaitReady(chromedp.CSS(`#example option[value="careless-unreachable"]`)),
		choose("example", "careless-unreachable"),
	)
	b.waitFor("the example's YAML", 10*time.Second, `document.getElementById("scenario").value.includes("careless / unreachable")`)
	b.do("starting a run", 10*time.Second, chromedp.Click(chromedp.ID("run-submit")))
	b.waitFor("the run's findings", 90*time.Second,
		`document.querySelector("#report h3") && document.querySelector("#report h3").textContent.includes("careless / unreachable") &&
		 document.querySelector("#report .findings") && document.querySelector("#report .findings").textContent.includes("MC001")`)
	b.waitFor("the verdict counters", 10*time.Second,
		`!document.getElementById("verdicts").hidden && document.getElementById("verdicts").textContent.includes("create_shipment") &&
		 document.getElementById("verdicts").textContent.includes("protocol error")`)

	b.screenshot(t, "dashboard.png")

	// Halt all, from the keyboard: Enter opens the dialog with the focus
	// on Cancel; Escape closes it and halts nothing.
	b.do("opening the halt dialog", 10*time.Second,
		chromedp.Focus(chromedp.ID("halt")),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.ID("halt-dialog")),
	)
	if got := evaluate[string](b, `document.activeElement.id`); got != "halt-cancel" {
		t.Errorf("focus in the halt dialog = %q, want halt-cancel", got)
	}
	if what := evaluate[string](b, `document.getElementById("halt-what").textContent`); !strings.Contains(what, "2 faults will be removed") {
		t.Errorf("the dialog says %q", what)
	}
	b.do("cancelling the halt", 10*time.Second,
		chromedp.KeyEvent(kb.Escape),
		chromedp.WaitNotVisible(chromedp.ID("halt-dialog")),
	)
	if faults, err := srv.client.Faults(ctx, ""); err != nil || len(faults) != 2 {
		t.Fatalf("after cancelling the halt: %+v %v; want both faults", faults, err)
	}
	if status, _ := proxied(t, carrier.Listen, "GET", "/shipments"); status != 503 {
		t.Fatalf("through the proxy after cancelling the halt: %d, want 503", status)
	}
	// Tab to "Halt all" in the dialog, Enter: everything stops.
	b.do("halting", 20*time.Second,
		chromedp.Focus(chromedp.ID("halt")),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitVisible(chromedp.ID("halt-dialog")),
		chromedp.KeyEvent(kb.Tab),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitNotVisible(chromedp.ID("halt-dialog")),
		chromedp.WaitNotPresent(chromedp.CSS(row)),
		chromedp.WaitNotPresent(chromedp.CSS(`#upstreams tr[data-key="slow-db"]`)),
	)
	if faults, err := srv.client.Faults(ctx, ""); err != nil || len(faults) != 0 {
		t.Fatalf("after Halt all: %+v %v", faults, err)
	}
	if status, body := proxied(t, carrier.Listen, "GET", "/shipments"); status != 200 || body != "ok" {
		t.Fatalf("through the proxy after Halt all: %d %q, want 200 ok", status, body)
	}
	b.waitFor("the halt notice", 5*time.Second, `document.getElementById("notice").textContent.includes("2 fault(s) removed")`)

	// The page loaded nothing from anywhere but the API server.
	if others := evaluate[[]string](b, `performance.getEntriesByType("resource").map(e => e.name).filter(n => new URL(n).host !== location.host)`); len(others) > 0 {
		t.Errorf("resources from other hosts: %q", others)
	}

	// The server goes away: the page says so, and keeps retrying.
	srv.stop()
	b.waitFor("the degraded state", 20*time.Second,
		`!document.getElementById("banner").hidden && document.getElementById("banner").textContent.includes("unreachable") &&
		 document.getElementById("status").textContent === "Offline" && document.body.classList.contains("stale")`)
	b.waitFor("the retry countdown", 10*time.Second, `/Retrying in \d+s|Retrying now/.test(document.getElementById("banner").textContent)`)

	// A server back on the same address (a fresh one: no upstream) is
	// found again by the retries, with the token the tab kept.
	again := startDashboardServer(t, srv.host)
	b.waitFor("the recovery", 40*time.Second,
		`document.getElementById("banner").hidden && document.getElementById("status").textContent === "Live" &&
		 !document.body.classList.contains("stale") && !document.getElementById("no-upstreams").hidden`)
	// Its events number from 1 again, and still reach the timeline.
	carrier, err = again.client.AddUpstream(ctx, api.UpstreamRequest{Name: "carrier", Protocol: "http", Target: backend(t).URL})
	if err != nil {
		t.Fatal(err)
	}
	if status, _ := proxied(t, carrier.Listen, "GET", "/after-restart"); status != 200 {
		t.Fatalf("through the new server's proxy: %d", status)
	}
	b.waitFor("an event of the new server", 10*time.Second,
		`[...document.querySelectorAll('#timeline li[data-type="exchange"]')].some(li => li.textContent.includes("GET /after-restart"))`)

	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.allowed) == 0 {
		t.Error("no request was intercepted: the network guard is not working, so the check proves nothing")
	}
	if len(b.foreign) > 0 {
		t.Errorf("the page requested other hosts than the API server: %q", b.foreign)
	}
	if len(b.console) > 0 {
		t.Errorf("the page threw or broke its policy: %q", b.console)
	}
}

// screenshot saves the page; with UPDATE_SCREENSHOT=1 also to docs/.
func (b *browse) screenshot(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.tab, 20*time.Second)
	defer cancel()
	// From the top, as a person opening the page sees it (the header is
	// sticky, and would otherwise sit where the last focus scrolled to).
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.activeElement.blur(); window.scrollTo(0, 0)`)); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: PNG
	if err != nil {
		t.Fatal(err)
	}
	// go test -artifacts keeps it (in -outputdir); otherwise it goes with the test.
	shot := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", shot, len(png))
	if os.Getenv("UPDATE_SCREENSHOT") == "1" {
		if err := os.WriteFile(filepath.Join("..", "docs", name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
