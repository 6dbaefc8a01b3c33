package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/mcpchaos/mcpchaos/api"
)

// healthTimeout bounds the whole health check: Docker runs it every few
// seconds and kills it at the HEALTHCHECK timeout anyway; a check that
// answers "unhealthy" itself is more useful than one that is killed.
const healthTimeout = 2 * time.Second

// exitUnhealthy is the exit code Docker's HEALTHCHECK reads as unhealthy
// (it reserves every code but 0 and 1).
const exitUnhealthy = 1

func runHealthcheck(ctx context.Context, args []string, std stdio) int {
	fs := newFlags("healthcheck", "[--api URL]", `
Check that a running "mcpchaos serve" answers GET /healthz: exit 0 when it
does, 1 otherwise. It is the container image's HEALTHCHECK, so it needs
nothing but this binary (no shell, no curl). /healthz needs no token.

The default address is $MCPCHAOS_API; else, in a container, the port of
$MCPCHAOS_API_ADDR (the address serve listens on) on 127.0.0.1; else
http://127.0.0.1:7777.`, std)
	url := fs.String("api", defaultHealthURL(), "control API URL (env MCPCHAOS_API)")
	timeout := fs.Duration("timeout", healthTimeout, "give up after this long")
	if done, code := parse(fs, args, std); done {
		// Docker reads any code but 0 as unhealthy; keep 2 for usage
		// errors so a mistyped HEALTHCHECK is told apart in `docker
		// inspect`.
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(std.err, "mcpchaos healthcheck: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if err := checkHealth(ctx, *url, *timeout); err != nil {
		fmt.Fprintf(std.err, "mcpchaos healthcheck: unhealthy: %v\n", err)
		return exitUnhealthy
	}
	fmt.Fprintln(std.out, "healthy")
	return exitOK
}

// checkHealth gets /healthz from the API at url within timeout.
func checkHealth(ctx context.Context, url string, timeout time.Duration) error {
	cl, err := newAPIClient(url)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	h, err := cl.Health(ctx)
	if err != nil {
		return fmt.Errorf("GET %s/healthz: %w", url, err)
	}
	if h.Status != "ok" {
		return fmt.Errorf("GET %s/healthz: status %q", url, h.Status)
	}
	return nil
}

// defaultHealthURL is $MCPCHAOS_API, else the loopback URL of the port in
// $MCPCHAOS_API_ADDR (which the image sets, so that changing the API's
// port with that variable moves the health check along), else the
// default address.
func defaultHealthURL() string {
	if v := os.Getenv("MCPCHAOS_API"); v != "" {
		return v
	}
	if v := os.Getenv("MCPCHAOS_API_ADDR"); v != "" && v != "off" {
		if _, port, err := net.SplitHostPort(v); err == nil && port != "" {
			return "http://" + net.JoinHostPort("127.0.0.1", port)
		}
	}
	return "http://" + api.DefaultAddr
}
