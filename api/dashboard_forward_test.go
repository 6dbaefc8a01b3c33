package api_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/mcpchaos/mcpchaos/api"
	"github.com/mcpchaos/mcpchaos/internal/browsertest"
)

// TestDashboardForwardHosts: a forward upstream's destinations are
// cards of their own, a declared one before any traffic and a reached
// one once a client named it, each saying which forward upstream it is
// reached through and how; the fault form offers them, and a fault put
// on a destination is shown on its card.
func TestDashboardForwardHosts(t *testing.T) {
	exe := browsertest.Path(t)
	srv := startDashboardServer(t, "127.0.0.1:0")
	ctx := t.Context()
	up := strings.TrimPrefix(backend(t).URL, "http://")
	web, err := srv.client.AddUpstream(ctx, api.UpstreamRequest{Name: "web", Protocol: "forward", ForwardSettings: api.ForwardSettings{
		Resolve: []string{"api.example.test:80=" + up},
		Hosts:   []api.ForwardHost{{Name: "ledger", Host: "ledger.example.test"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	// A client of the forward proxy names api.example.test.
	c, err := net.DialTimeout("tcp", web.Listen, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, "GET http://api.example.test/x HTTP/1.1\r\nHost: api.example.test\r\nConnection: close\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("through the forward proxy: %v %v", resp, err)
	}

	b := newBrowser(t, exe, srv.host)
	b.do("opening the dashboard", 20*time.Second,
		chromedp.Navigate(srv.base+"/"),
		chromedp.WaitVisible(chromedp.ID("token-input")),
		chromedp.SendKeys(chromedp.ID("token-input"), testToken+kb.Enter),
		chromedp.WaitVisible(chromedp.CSS(`#upstreams article[data-key="web"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#upstreams article[data-key="ledger"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#upstreams article[data-key="api.example.test"]`)),
	)
	meta := func(key string) string {
		return evaluate[string](b, `document.querySelector('#upstreams article[data-key="`+key+`"]').textContent`)
	}
	if m := meta("api.example.test"); !strings.Contains(m, "via web") || !strings.Contains(m, "http :80 → "+up) {
		t.Errorf("the reached destination's card says %q; want via web, http :80 → %s", m, up)
	}
	if m := meta("ledger"); !strings.Contains(m, "ledger.example.test via web") || !strings.Contains(m, "not reached yet") {
		t.Errorf("the declared destination's card says %q", m)
	}
	if m := meta("web"); !strings.Contains(m, "HTTP_PROXY") {
		t.Errorf("the forward upstream's card says %q", m)
	}
	b.do("adding a fault on a destination", 20*time.Second,
		choose("f-upstream", "ledger"),
		choose("f-kind", "http_error"),
		chromedp.WaitVisible(chromedp.ID("f-param-status")),
		chromedp.SendKeys(chromedp.ID("f-name"), "ledger-503"),
		chromedp.SendKeys(chromedp.ID("f-ttl"), "5m"),
		chromedp.Click(chromedp.ID("f-submit")),
		chromedp.WaitVisible(chromedp.CSS(`#upstreams article[data-key="ledger"] tr[data-key="ledger-503"]`)),
	)
	if f, err := srv.client.Fault(ctx, "ledger-503"); err != nil || f.Upstream != "ledger" {
		t.Fatalf("the fault the page created: %+v %v", f, err)
	}
}
