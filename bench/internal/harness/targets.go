package harness

import (
	"time"

	"github.com/mcpchaos/mcpchaos/bench/internal/load"
	"github.com/mcpchaos/mcpchaos/bench/internal/sysproc"
)

// Target names, as printed.
const (
	tDirect  = "direct"
	tPlain   = "plain"
	tMcpTCP  = "mcpchaos tcp"
	tMcpHTTP = "mcpchaos http"
	tToxi    = "toxiproxy"
	// The forward upstream: plain HTTP in absolute form, and CONNECT
	// tunnels (no interception).
	tFwdHTTP   = "forward http"
	tFwdTunnel = "forward tunnel"
)

// targetOrder is the column order of the report.
func targetOrder() []string {
	return []string{tDirect, tPlain, tMcpTCP, tMcpHTTP, tFwdHTTP, tFwdTunnel, tToxi}
}

// target is one thing load is driven at.
type target struct {
	name string
	// http and bulk are the addresses HTTP and bulk loads go to; empty
	// when the target does not take that load.
	http, bulk string
	// httpVia and bulkVia say how those loads go through a forward
	// proxy at http or bulk (the zero value: they do not).
	httpVia, bulkVia load.Via
	// pid is the proxy process whose CPU is read; 0 for direct.
	pid int
	// live describes the rule-change test; nil when it does not apply.
	live *liveSpec
	// mem describes the memory test; nil when it does not apply.
	mem *memSpec
	// big describes the large-body test; nil when it does not apply.
	big *bigSpec
}

// liveSpec: which proxy, address and probe the rule-change test uses.
type liveSpec struct {
	ctl   controller
	role  string
	addr  string
	probe load.Probe
}

// memSpec: which program the memory test starts afresh, for which role.
type memSpec struct {
	kind  string
	role  string
	probe load.Probe
}

// cpu returns the target's CPU sampler, nil for direct.
func (t *target) cpu() load.Sampler {
	if t.pid == 0 {
		return nil
	}
	pid := t.pid
	return func() (time.Duration, error) { return sysproc.CPU(pid) }
}

// buildTargets lays out the targets over the running programs; toxi may
// be nil (Toxiproxy left out).
func buildTargets(up, plain, mcp, toxi *instance) []*target {
	ts := []*target{
		{name: tDirect, http: up.addrs[roleHTTP], bulk: up.addrs[roleBulk], big: &bigSpec{}},
		{name: tPlain, http: plain.addrs[roleHTTP], bulk: plain.addrs[roleBulk], pid: plain.p.pid(),
			mem: &memSpec{kind: kindPlain, role: roleEcho, probe: load.EchoProbe},
			big: &bigSpec{kind: kindPlain, role: roleHTTP}},
		{name: tMcpTCP, http: mcp.addrs[roleHTTP], bulk: mcp.addrs[roleBulk], pid: mcp.p.pid(),
			live: &liveSpec{ctl: mcp.ctl, role: roleEcho, addr: mcp.addrs[roleEcho], probe: load.EchoProbe},
			mem:  &memSpec{kind: kindMcpchaos, role: roleEcho, probe: load.EchoProbe},
			big:  &bigSpec{kind: kindMcpchaos, role: roleHTTP}},
		{name: tMcpHTTP, http: mcp.addrs[roleWeb], pid: mcp.p.pid(),
			live: &liveSpec{ctl: mcp.ctl, role: roleWeb, addr: mcp.addrs[roleWeb], probe: load.HTTPProbe},
			mem:  &memSpec{kind: kindMcpchaos, role: roleWeb, probe: load.HTTPProbe},
			big:  &bigSpec{kind: kindMcpchaos, role: roleWeb, latency: true}},
		{name: tFwdHTTP, http: mcp.addrs[roleFwd], pid: mcp.p.pid(), httpVia: load.Via{Absolute: up.addrs[roleHTTP]}},
		{name: tFwdTunnel, http: mcp.addrs[roleFwd], bulk: mcp.addrs[roleFwd], pid: mcp.p.pid(),
			httpVia: load.Via{Connect: up.addrs[roleHTTP]}, bulkVia: load.Via{Connect: up.addrs[roleBulk]}},
	}
	if toxi != nil {
		ts = append(ts, &target{name: tToxi, http: toxi.addrs[roleHTTP], bulk: toxi.addrs[roleBulk], pid: toxi.p.pid(),
			live: &liveSpec{ctl: toxi.ctl, role: roleEcho, addr: toxi.addrs[roleEcho], probe: load.EchoProbe},
			mem:  &memSpec{kind: kindToxi, role: roleEcho, probe: load.EchoProbe},
			big:  &bigSpec{kind: kindToxi, role: roleHTTP, latency: true}})
	}
	return ts
}

// rotate returns ts starting at index r mod len(ts): each round starts
// with a different target, so no target always runs first (cold) or
// right after the heaviest one.
func rotate(ts []*target, r int) []*target {
	k := r % len(ts)
	out := append([]*target(nil), ts[k:]...)
	return append(out, ts[:k]...)
}
