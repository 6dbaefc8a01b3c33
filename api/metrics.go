package api

import (
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mcpchaos/mcpchaos/agent-sim/report"
	"github.com/mcpchaos/mcpchaos/inject"
)

// metricsBuffer is the metrics consumer's subscription buffer: it only
// increments counters, so it keeps up unless starved; what it loses is
// counted in mcpchaos_events_lost_total.
const metricsBuffer = 8192

// metrics are the server's Prometheus collectors, in a registry of its
// own (two servers in one process, as in tests, do not collide).
type metrics struct {
	reg *prometheus.Registry

	injections  *prometheus.CounterVec
	exchanges   *prometheus.CounterVec
	connections *prometheus.CounterVec
	bytes       *prometheus.CounterVec
	eventsLost  prometheus.Counter

	verdicts     *prometheus.CounterVec
	findings     *prometheus.CounterVec
	callDuration *prometheus.HistogramVec
	runs         *prometheus.CounterVec
	runsActive   prometheus.Gauge

	liveCalls    *prometheus.CounterVec
	liveSessions *prometheus.CounterVec
	liveLabels   liveLabels

	requests       *prometheus.HistogramVec
	streams        prometheus.Gauge
	streamsDropped prometheus.Counter
}

func newMetrics(s *Server) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	f := promauto{m.reg}
	m.injections = f.counter("mcpchaos_injections_total", "Faults injected, by upstream, fault kind and rule.", "upstream", "fault", "rule")
	m.exchanges = f.counter("mcpchaos_upstream_exchanges_total",
		"HTTP exchanges through a proxy, by upstream, outcome (the upstream's status class, or no_reply) and the fault that hit it (none).",
		"upstream", "outcome", "fault")
	m.connections = f.counter("mcpchaos_upstream_connections_total", "Connections accepted by a proxy, by upstream and protocol.", "upstream", "protocol")
	m.bytes = f.counter("mcpchaos_upstream_bytes_total", "Bytes forwarded by a proxy, by upstream and direction (up: to the upstream).", "upstream", "direction")
	m.eventsLost = f.plain("mcpchaos_events_lost_total", "Data-path events the metrics consumer lost because it fell behind.")
	m.verdicts = f.counter("mcpchaos_tool_verdicts_total",
		"Judged tool calls of simulator runs, by tool and the channel the server answered in (success, tool_error, protocol_error, no_response, ...). Counted on the verdict, not the transport.",
		"tool", "channel")
	m.findings = f.counter("mcpchaos_tool_findings_total",
		"Findings of simulator runs, by tool, the channel of the call they concern (none: the run as a whole), finding ID and severity.",
		"tool", "channel", "finding", "severity")
	m.callDuration = f.histogram("mcpchaos_tool_call_duration_seconds", "Duration of simulated tool calls, by tool and channel.",
		[]float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10}, "tool", "channel")
	m.liveCalls = f.counter("mcpchaos_live_calls_total",
		"Live tool calls recorded by an MCP front (mcp upstreams, mcpchaos wrap --report), by front and tool (the first 64 of each seen; others: other), the channel the server answered in, and verdict (converged, loop, duplicate, a finding ID; ungraded without a grader).",
		"front", "tool", "channel", "verdict")
	m.liveSessions = f.counter("mcpchaos_live_sessions_total", "Live MCP sessions that ended, by front and verdict (converged, loop, duplicate, a finding ID; ungraded without a grader).",
		"front", "verdict")
	m.runs = f.counter("mcpchaos_runs_total", "Simulator runs started through the API, by final status.", "status")
	m.runsActive = f.gauge("mcpchaos_runs_active", "Simulator runs in progress.")
	m.requests = f.histogram("mcpchaos_api_request_duration_seconds", "Control API requests, by route, method and status.",
		prometheus.DefBuckets, "route", "method", "status")
	m.streams = f.gauge("mcpchaos_api_event_streams", "Open GET /v1/events streams.")
	m.streamsDropped = f.plain("mcpchaos_api_event_streams_dropped_total", "Event streams closed because the client fell behind or stopped reading (each was sent an event \"dropped\" first).")
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mcpchaos_faults", Help: "Faults in the rule table."},
			func() float64 { return float64(s.reg.Table().Load().Len()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mcpchaos_upstreams", Help: "Upstreams with a running proxy."},
			func() float64 { return float64(len(s.reg.Upstreams())) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "mcpchaos_live_calls_open", Help: "Live tool calls open now: the registry attributes upstream traffic to them."},
			func() float64 { return float64(s.live.Stats().Open) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "mcpchaos_live_records_dropped_total", Help: "Live calls and session changes the recorder lost because its queue was full, or grading them panicked."},
			func() float64 { return float64(s.live.Stats().Dropped) }),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// promauto registers collectors in one registry.
type promauto struct{ reg *prometheus.Registry }

func (p promauto) counter(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	p.reg.MustRegister(c)
	return c
}

func (p promauto) plain(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	p.reg.MustRegister(c)
	return c
}

func (p promauto) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	p.reg.MustRegister(g)
	return g
}

func (p promauto) histogram(name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	p.reg.MustRegister(h)
	return h
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// count counts one of the registry's events. It is called from the one
// goroutine the server starts to consume the bus; the bus never waits for
// it.
func (m *metrics) count(e inject.Event) {
	switch e.Type {
	case inject.EventInjection:
		upstream, rule := e.Upstream, e.Rule
		if e.Protocol == inject.ProtocolMCP { // a live tamper, maybe reported from outside
			upstream, rule = m.liveLabels.front(upstream), m.liveLabels.rule(rule)
		}
		m.injections.WithLabelValues(upstream, e.Fault, rule).Inc()
	case inject.EventExchange:
		fault := e.Fault
		if fault == "" {
			fault = "none"
		}
		m.exchanges.WithLabelValues(e.Upstream, outcome(e.Status), fault).Inc()
	case inject.EventConnOpen:
		m.connections.WithLabelValues(e.Upstream, e.Protocol).Inc()
	case inject.EventConnClose:
		m.bytes.WithLabelValues(e.Upstream, "up").Add(float64(e.BytesUp))
		m.bytes.WithLabelValues(e.Upstream, "down").Add(float64(e.BytesDown))
	case inject.EventDropped:
		m.eventsLost.Add(float64(e.Count))
	case inject.EventCall:
		m.liveCalls.WithLabelValues(m.liveLabels.front(e.Upstream), m.liveLabels.tool(e.Tool), e.Channel, verdictLabel(e.Verdict)).Inc()
	case inject.EventSessionClose:
		m.liveSessions.WithLabelValues(m.liveLabels.front(e.Upstream), verdictLabel(e.Verdict)).Inc()
	}
}

// outcome names an exchange's result: the upstream's status class, or
// no_reply when it did not answer.
func outcome(status int) string {
	if status <= 0 {
		return "no_reply"
	}
	return fmt.Sprintf("%dxx", status/100)
}

// observeReport counts a finished run's verdicts: each judged call by its
// channel, each finding with the channel of the call it concerns. This is
// where "100% transport success while every call fails" shows up.
func (m *metrics) observeReport(status string, rep report.Report) {
	m.runs.WithLabelValues(status).Inc()
	for _, run := range rep.Runs {
		channels := make(map[int]string, len(run.Calls))
		for _, c := range run.Calls {
			ch := string(c.Channel)
			channels[c.N] = ch
			m.verdicts.WithLabelValues(c.Tool, ch).Inc()
			m.callDuration.WithLabelValues(c.Tool, ch).Observe((time.Duration(c.ElapsedMS) * time.Millisecond).Seconds())
		}
		for _, f := range run.Findings {
			ch, ok := channels[f.Call]
			if !ok {
				ch = "none"
			}
			m.findings.WithLabelValues(f.Tool, ch, f.ID, string(f.Severity)).Inc()
		}
	}
}
