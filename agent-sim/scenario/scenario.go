package scenario

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/driver"
	"github.com/mcpchaos/mcpchaos/agent-sim/judge"
	"github.com/mcpchaos/mcpchaos/agent-sim/persona"
	"github.com/mcpchaos/mcpchaos/config"
)

// Scenario is a script for the simulator, as written in a YAML file (see
// docs/scenarios.md): the server to drive, the upstreams beneath it and
// the rules that break them, the agent's settings, the steps, and how to
// count side effects.
type Scenario struct {
	// Name labels the scenario in reports; it defaults to the file's
	// base name.
	Name        string
	Description string
	// File is the path the scenario was read from.
	File string
	// Server is the server spec with its {{ upstream "name" }} templates
	// unresolved; see [Scenario.ResolveServer].
	Server    driver.ServerSpec
	Upstreams []config.Upstream
	// ProxyEnv is set by server.proxy_env: Upstreams then holds the
	// run's forward upstream, ProxyEnvName.
	ProxyEnv *ProxyEnv
	Rules    []config.Rule
	Agent    AgentSettings
	Steps    []Step
	// Followups are the arguments to use for a tool that a reply points
	// to (a check-state or next-action tool), by tool name.
	Followups map[string]map[string]any
	// FollowupLines are the followups' lines in File, by tool name, so
	// that a followup the server does not fit is reported where it is
	// written.
	FollowupLines map[string]int
	SideEffects   []SideEffectSpec
	Expect        Expect
	// Matrix, when set, makes the scenario stand for several runs: see
	// [Scenario.Cells].
	Matrix Matrix
	// Files are rendered into the run's own temporary directory before
	// the server starts; see [FileSpec].
	Files []FileSpec
}

// AgentSettings configure the scripted agent.
type AgentSettings struct {
	// Personas and Hosts span the run matrix; defaults: diligent, and
	// every built-in host profile.
	Personas []string
	Hosts    []string
	// HostProfiles are the scenario's own host profiles, usable in Hosts.
	HostProfiles []persona.HostProfile
	// Budget is how many tool calls a run may make; default 8.
	Budget int
	// CallTimeout bounds each call; default 5s.
	CallTimeout time.Duration
	// LateGrace is how long a call with no answer by CallTimeout stays
	// open to catch a late reply; default DefaultLateGrace(CallTimeout),
	// zero turns it off.
	LateGrace time.Duration
	// WriteTools names tools that write, for the judge, on top of those
	// seen committing a side effect.
	WriteTools []string
}

// Step is one tool call the agent means to make.
type Step struct {
	Tool string
	Args map[string]any
	// Invalid marks input that is deliberately invalid: the reply is
	// graded for the input-validation channel (MC011), not as a failure,
	// and the arguments are not checked against the tool's schema.
	Invalid bool
	// Line is the step's line in the scenario's File (0: unknown), for
	// errors found once the server has listed its tools.
	Line int
}

// Expect is what CI holds the runs to.
type Expect struct {
	// MaxCalls, when positive, is the most calls a run may make.
	MaxCalls int
	// FailOn is the severity at or above which a finding fails CI;
	// empty means never.
	FailOn judge.Severity
}

// Defaults for agent settings.
const (
	DefaultBudget      = 8
	DefaultCallTimeout = 5 * time.Second
	DefaultPersona     = "diligent"
)

var scenarioFields = []string{"name", "description", "server", "upstreams", "rules", "agent", "steps", "followups", "side_effects", "expect", "matrix", "files"}

// Load reads and parses a scenario file.
func Load(path string) (*Scenario, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse parses data, the content of the scenario file called name.
// Errors are *config.Error naming the file, line and field. A document
// that uses a variable ({{ var "NAME" }}) needs [ParseVars].
func Parse(name string, data []byte) (*Scenario, error) {
	data, _, err := ExpandVars(name, data, nil)
	if err != nil {
		return nil, err
	}
	root, err := config.Document(name, data)
	if err != nil {
		return nil, err
	}
	return decodeScenario(root)
}

func decodeScenario(root config.Node) (*Scenario, error) {
	m, err := root.Mapping(scenarioFields...)
	if err != nil {
		return nil, err
	}
	sc := &Scenario{File: root.File()}
	if sc.Name, err = m.Get("name").String(); err != nil {
		return nil, err
	}
	if sc.Name == "" {
		base := filepath.Base(sc.File)
		sc.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if sc.Description, err = m.Get("description").String(); err != nil {
		return nil, err
	}
	var hosts []config.HostEntry
	if sc.Upstreams, hosts, err = config.DecodeUpstreamsHosts(m.Get("upstreams"), BuiltinPrefix); err != nil {
		return nil, err
	}
	if err := sc.decodeProxyEnv(m.Get("server"), hosts); err != nil {
		return nil, err
	}
	if sc.Rules, err = config.DecodeRules(m.Get("rules"), sc.Upstreams); err != nil {
		return nil, err
	}
	if err := sc.decodeMatrix(m.Get("matrix")); err != nil {
		return nil, err
	}
	if err := sc.decodeFiles(m.Get("files")); err != nil {
		return nil, err
	}
	if err := sc.decodeServer(m.Get("server")); err != nil {
		return nil, err
	}
	if err := sc.decodeAgent(m.Get("agent")); err != nil {
		return nil, err
	}
	if err := sc.decodeSteps(m.Get("steps")); err != nil {
		return nil, err
	}
	if sc.Followups, sc.FollowupLines, err = decodeFollowups(m.Get("followups")); err != nil {
		return nil, err
	}
	if sc.SideEffects, err = decodeSideEffects(m.Get("side_effects"), sc); err != nil {
		return nil, err
	}
	if err := sc.decodeExpect(m.Get("expect")); err != nil {
		return nil, err
	}
	return sc, nil
}

func (sc *Scenario) decodeSteps(n config.Node) error {
	if !n.Present() && len(sc.Matrix.Tools) > 0 {
		return nil // each cell runs its matrix tool
	}
	if !n.Present() {
		return n.Errorf(config.ErrRequired, "at least one step is required, e.g. - tool: create_order")
	}
	items, err := n.Items()
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return n.Errorf(config.ErrRequired, "at least one step is required, e.g. - tool: create_order")
	}
	for _, it := range items {
		m, err := it.Mapping("tool", "args", "invalid")
		if err != nil {
			return err
		}
		st, err := decodeStep(it, m)
		if err != nil {
			return err
		}
		sc.Steps = append(sc.Steps, st)
	}
	return nil
}

// decodeStep reads one step's fields from m, the mapping of it.
func decodeStep(it config.Node, m config.Mapping) (Step, error) {
	st := Step{Line: it.Line()}
	var err error
	if st.Tool, err = m.Get("tool").String(); err != nil {
		return st, err
	}
	if st.Tool == "" {
		return st, m.Get("tool").Errorf(config.ErrRequired, "is required")
	}
	if st.Args, err = decodeArgs(m.Get("args")); err != nil {
		return st, err
	}
	st.Invalid, err = m.Get("invalid").Bool(false)
	return st, err
}

// decodeArgs reads a tool's arguments: a mapping of any values.
func decodeArgs(n config.Node) (map[string]any, error) {
	if !n.Present() {
		return nil, nil
	}
	if _, err := n.Mapping(); err != nil {
		return nil, err
	}
	v, err := n.Value()
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	return m, nil
}

func decodeFollowups(n config.Node) (map[string]map[string]any, map[string]int, error) {
	m, err := n.Mapping()
	if err != nil {
		return nil, nil, err
	}
	if len(m.Keys()) == 0 {
		return nil, nil, nil
	}
	out := make(map[string]map[string]any, len(m.Keys()))
	lines := make(map[string]int, len(m.Keys()))
	for _, k := range m.Keys() {
		args, err := decodeArgs(m.Get(k))
		if err != nil {
			return nil, nil, err
		}
		if args == nil {
			args = map[string]any{}
		}
		out[k], lines[k] = args, m.Get(k).Line()
	}
	return out, lines, nil
}

func (sc *Scenario) decodeExpect(n config.Node) error {
	m, err := n.Mapping("max_calls", "fail_on")
	if err != nil {
		return err
	}
	if sc.Expect.MaxCalls, err = m.Get("max_calls").Int(); err != nil {
		return err
	}
	if sc.Expect.MaxCalls < 0 {
		return m.Get("max_calls").Errorf(config.ErrInvalid, "must not be negative")
	}
	sev, err := m.Get("fail_on").String()
	if err != nil {
		return err
	}
	switch judge.Severity(sev) {
	case judge.SeverityInfo, judge.SeverityWarning, judge.SeverityError:
		sc.Expect.FailOn = judge.Severity(sev)
	case "", "never":
		if !m.Has("fail_on") {
			sc.Expect.FailOn = judge.SeverityError
		}
	default:
		return m.Get("fail_on").Errorf(config.ErrInvalid, "%q is not a severity (info, warning, error or never)", sev)
	}
	return nil
}

// BuiltinPrefix marks a built-in upstream target.
const BuiltinPrefix = "builtin:"
