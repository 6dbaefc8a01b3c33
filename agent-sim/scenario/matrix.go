package scenario

import (
	"errors"
	"slices"

	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"github.com/mcpchaos/mcpchaos/config"
)

// MaxMatrixEntries bounds each axis of a scenario's matrix and
// MaxMatrixCells their product, so that a file (or a run posted to the
// API) cannot ask for an unbounded number of runs.
const (
	MaxMatrixEntries = 256
	MaxMatrixCells   = 1024
)

// CellSep joins a scenario's name to its matrix entries in a cell's name:
// "create_shipment / response_lost / create_shipment".
const CellSep = " / "

// Matrix is what one scenario file crosses: each fault (a rule added to
// the scenario's own) with each tool (a step that replaces the
// scenario's steps). Either axis may be empty.
type Matrix struct {
	Faults []config.Rule
	Tools  []MatrixTool
}

// MatrixTool is one entry of matrix.tools: the one step its cells run,
// and which faults of matrix.faults it is crossed with: all when faults
// is left out, none when it is the empty list (faults: [], one cell with
// no matrix fault: how an invalid call is checked).
type MatrixTool struct {
	Step    Step
	Faults  []string
	NoFault bool
}

var matrixToolFields = []string{"tool", "args", "invalid", "faults"}

func (sc *Scenario) decodeMatrix(n config.Node) error {
	m, err := n.Mapping("faults", "tools")
	if err != nil || !n.Present() {
		return err
	}
	faults := m.Get("faults")
	items, err := faults.Items()
	if err != nil {
		return err
	}
	if len(items) > MaxMatrixEntries {
		return faults.Errorf(config.ErrInvalid, "%d faults, more than %d", len(items), MaxMatrixEntries)
	}
	if sc.Matrix.Faults, err = config.DecodeRules(faults, sc.Upstreams); err != nil {
		return err
	}
	for i, r := range sc.Matrix.Faults {
		if slices.ContainsFunc(sc.Rules, func(o config.Rule) bool { return o.Name == r.Name }) {
			fm, _ := items[i].Mapping()
			return fm.Get("name").Errorf(config.ErrDuplicate, "%q is also the name of a rule under rules; a matrix fault is added to them", r.Name)
		}
	}
	tools := m.Get("tools")
	if items, err = tools.Items(); err != nil {
		return err
	}
	if len(items) > MaxMatrixEntries {
		return tools.Errorf(config.ErrInvalid, "%d tools, more than %d", len(items), MaxMatrixEntries)
	}
	seen := map[string]bool{}
	for _, it := range items {
		tm, err := it.Mapping(matrixToolFields...)
		if err != nil {
			return err
		}
		st, err := decodeStep(it, tm)
		if err != nil {
			return err
		}
		mt := MatrixTool{Step: st}
		fn := tm.Get("faults")
		if mt.Faults, err = fn.Strings(); err != nil {
			return err
		}
		mt.NoFault = tm.Has("faults") && len(mt.Faults) == 0
		for _, f := range mt.Faults {
			if !slices.ContainsFunc(sc.Matrix.Faults, func(r config.Rule) bool { return r.Name == f }) {
				return fn.Errorf(config.ErrInvalid, "%q is not the name of a fault under matrix.faults", f)
			}
		}
		key := transcript.CallKey(st.Tool, st.Args)
		if st.Invalid {
			key += " invalid"
		}
		if seen[key] {
			return it.Errorf(config.ErrDuplicate, "the same call to %q is listed twice", st.Tool)
		}
		seen[key] = true
		sc.Matrix.Tools = append(sc.Matrix.Tools, mt)
	}
	if len(sc.Matrix.Faults) == 0 && len(sc.Matrix.Tools) == 0 {
		return n.Errorf(config.ErrRequired, "needs faults, tools or both to cross")
	}
	if cells := len(sc.Cells()); cells > MaxMatrixCells {
		return n.Errorf(config.ErrInvalid, "%d cells, more than %d: split the file", cells, MaxMatrixCells)
	}
	return nil
}

// Cells returns the scenarios sc stands for: sc itself without a matrix;
// else one per fault × tool, named "scenario / fault / tool" (or
// "scenario / fault", "scenario / tool" when an axis is empty). A cell
// shares everything else with sc. An invalid call's tool is written
// "tool (invalid)", so that it names a different cell than the valid one.
func (sc *Scenario) Cells() []*Scenario {
	mx := sc.Matrix
	if len(mx.Faults) == 0 && len(mx.Tools) == 0 {
		return []*Scenario{sc}
	}
	tools := mx.Tools
	if len(tools) == 0 {
		tools = []MatrixTool{{}}
	}
	var out []*Scenario
	for _, t := range tools {
		faults := mx.Faults
		if len(faults) == 0 || t.NoFault {
			faults = []config.Rule{{}}
		}
		for _, f := range faults {
			if len(t.Faults) > 0 && !slices.Contains(t.Faults, f.Name) {
				continue
			}
			c := *sc
			c.Matrix = Matrix{}
			c.Name = sc.Name
			if f.Name != "" {
				c.Name += CellSep + f.Name
				c.Rules = append(slices.Clip(sc.Rules), f)
			}
			if t.Step.Tool != "" {
				c.Name += CellSep + t.Step.Tool
				if t.Step.Invalid {
					c.Name += " (invalid)"
				}
				c.Steps = []Step{t.Step}
			}
			out = append(out, &c)
		}
	}
	return out
}

// ExpandCells replaces each scenario with its matrix cells.
func ExpandCells(scenarios []*Scenario) []*Scenario {
	var out []*Scenario
	for _, sc := range scenarios {
		out = append(out, sc.Cells()...)
	}
	return out
}

// CheckCells is [Check] for every cell of sc, each problem once.
func CheckCells(sc *Scenario, tools []transcript.Tool) error {
	var errs []error
	seen := map[string]bool{}
	for _, c := range sc.Cells() {
		err := Check(c, tools)
		if err == nil {
			continue
		}
		var list []error
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			list = j.Unwrap()
		} else {
			list = []error{err}
		}
		for _, e := range list {
			if !seen[e.Error()] {
				seen[e.Error()] = true
				errs = append(errs, e)
			}
		}
	}
	return errors.Join(errs...)
}
