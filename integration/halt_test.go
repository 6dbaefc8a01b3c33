package integration

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/api"
)

// TestHaltHealsTraffic holds requests through the shared mcpchaos's
// config-declared proxy with a fault added over the API, then halts: the
// held request completes at once, and new ones pass.
func TestHaltHealsTraffic(t *testing.T) {
	e := need(t)
	s := e.demoStack(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	proxy := "http://" + s.chaos.HostPort(fmt.Sprint(haltProxyPort))
	const name = "hold lookups"
	_, err := s.chaos.Client.AddFault(ctx, api.FaultRequest{Name: name, Upstream: "carrier", When: `method == "GET"`,
		TTL: "2m", Fault: api.FaultSpec{Kind: "timeout"}})
	if err != nil {
		t.Fatal(err)
	}

	// The client's own timeout bounds the test if halting does not heal.
	hc := &http.Client{Timeout: 20 * time.Second}
	held := make(chan error, 1)
	go func() { held <- get(hc, proxy+"/shipments?order_id=halt") }()

	// Wait until the fault holds the request (never a sleep: the fault's
	// hit count says so).
	err = e.pool.Retry(func() error {
		rctx, rcancel := context.WithTimeout(ctx, probeTimeout)
		defer rcancel()
		f, err := s.chaos.Client.Fault(rctx, name)
		if err != nil {
			return err
		}
		if f.Hits < 1 {
			return errors.New("the fault has not hit yet")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-held:
		t.Fatalf("the request was not held by the timeout fault: %v", err)
	default:
	}

	res, err := s.chaos.Client.Halt(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.FaultsRemoved < 1 {
		t.Errorf("halt removed %d faults", res.FaultsRemoved)
	}
	select {
	case err := <-held:
		if err != nil {
			t.Errorf("the held request, after halt: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the held request did not complete within 10s of halt")
	}
	if err := get(hc, proxy+"/shipments?order_id=halt"); err != nil {
		t.Errorf("a request after halt: %v", err)
	}
	if fs, err := s.chaos.Client.Faults(ctx, ""); err != nil || len(fs) != 0 {
		t.Errorf("faults after halt: %v %v", fs, err)
	}
}

// get fails unless GET url answers 200.
func get(hc *http.Client, url string) error {
	resp, err := hc.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}
