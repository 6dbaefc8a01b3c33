package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	agentsim "github.com/mcpchaos/mcpchaos/agent-sim"
	"github.com/mcpchaos/mcpchaos/agent-sim/persona"
	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
)

// ErrRunsDisabled is the answer to POST /v1/runs on a server started
// without runs (403, code runs_disabled).
var ErrRunsDisabled = errors.New("runs are disabled on this server: a run starts the scenario's commands on the server's host; " +
	"start it with `mcpchaos serve --runs` (MCPCHAOS_RUNS=true) to let API clients run commands on this host")

// maxWait caps a long poll (GET /v1/runs/{id}?wait=...).
const maxWait = time.Minute

// scenarioMedia are the media types POST /v1/runs accepts: a scenario is
// YAML, and JSON is YAML too.
var scenarioMedia = []string{"application/yaml", "application/x-yaml", "text/yaml", "application/json"}

// startRun serves POST /v1/runs: the body is a scenario document; the
// query may set seed, persona and host (comma-separated overrides) and
// name (the document's name in error messages). The run goes on in a
// goroutine the server owns; the response is 202 with its id.
func (s *Server) startRun(w http.ResponseWriter, r *http.Request) {
	if !s.opts.EnableRuns {
		s.fail(w, r, ErrRunsDisabled)
		return
	}
	if err := requireMedia(r, scenarioMedia...); err != nil {
		s.fail(w, r, err)
		return
	}
	data, err := readBody(w, r, s.opts.MaxBodyBytes)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	q := r.URL.Query()
	name := q.Get("name")
	if name == "" {
		name = "scenario"
	}
	sc, err := scenario.Parse(name, data)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ro, err := s.runOptions(r, sc)
	if err == nil {
		err = s.checkRunTargets(r, sc)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !s.track() {
		s.fail(w, r, errorf(http.StatusServiceUnavailable, CodeUnavailable, "the server is shutting down"))
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	st, err := s.runs.start(sc.Name, s.opts.Clock.Now(), s.opts.MaxActiveRuns, cancel)
	if err != nil {
		cancel()
		s.wg.Done()
		s.fail(w, r, err)
		return
	}
	ro.Progress = func(done, total int) { s.runs.progress(st, done, total) }
	ro.Logger = s.log.With().Str("run", st.view.ID).Logger()
	s.metrics.runsActive.Inc()
	go func() {
		defer s.wg.Done()
		defer cancel()
		rep, err := agentsim.Run(ctx, []*scenario.Scenario{sc}, ro)
		s.runs.finish(st, rep, err, ctx.Err(), s.opts.Clock.Now())
		s.metrics.runsActive.Dec()
		v, _, _ := s.runs.get(st.view.ID, false)
		s.metrics.observeReport(v.Status, rep)
	}()
	v, _, _ := s.runs.get(st.view.ID, false)
	s.record(r, http.StatusAccepted, "run.start", v.ID, "scenario="+sc.Name)
	w.Header().Set("Location", "/v1/runs/"+v.ID)
	writeJSON(w, http.StatusAccepted, v)
}

// runOptions builds the run's options from the template and the query,
// checking up front what agentsim.Run would only report once started.
func (s *Server) runOptions(r *http.Request, sc *scenario.Scenario) (agentsim.RunOptions, error) {
	q := r.URL.Query()
	ro := s.opts.RunOptions
	ro.Personas, ro.Hosts = splitComma(q.Get("persona")), splitComma(q.Get("host"))
	if v := q.Get("seed"); v != "" {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return ro, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "seed", Message: "seed must be an unsigned integer"}
		}
		ro.Seed = seed
	}
	personas := ro.Personas
	if len(personas) == 0 {
		personas = sc.Agent.Personas
	}
	for _, p := range personas {
		if _, err := persona.ByName(p); err != nil {
			return ro, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "persona", Message: err.Error()}
		}
	}
	for _, h := range ro.Hosts {
		if _, err := persona.HostByName(h, sc.Agent.HostProfiles); err != nil {
			return ro, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "host", Message: err.Error()}
		}
	}
	for i, u := range sc.Upstreams {
		if b, ok := strings.CutPrefix(u.Target, scenario.BuiltinPrefix); ok && ro.Builtins[b] == nil {
			return ro, &Error{Status: http.StatusBadRequest, Code: CodeInvalidScenario, Field: fmt.Sprintf("upstreams[%d].target", i),
				Message: fmt.Sprintf("%q is not a built-in upstream of this server", u.Target)}
		}
	}
	return ro, nil
}

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, RunList{Runs: s.runs.list()})
}

// getRun serves GET /v1/runs/{id}; wait=DURATION holds the request until
// the run finishes or the wait (at most a minute) is over.
func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	id := param(r, "id")
	_, st, ok := s.runs.get(id, false)
	if !ok {
		s.fail(w, r, errorf(http.StatusNotFound, CodeNotFound, "run %q does not exist (or was forgotten)", id))
		return
	}
	if v := r.URL.Query().Get("wait"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			s.fail(w, r, &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "wait",
				Message: "wait must be a duration like 30s"})
			return
		}
		t := time.NewTimer(min(d, maxWait))
		select {
		case <-st.done:
		case <-t.C:
		case <-r.Context().Done():
		case <-s.ctx.Done():
		}
		t.Stop()
	}
	v, _, _ := s.runs.get(id, true)
	writeJSON(w, http.StatusOK, v)
}

// deleteRun cancels a running run (202) or forgets a finished one (204).
func (s *Server) deleteRun(w http.ResponseWriter, r *http.Request) {
	id := param(r, "id")
	v, st, ok := s.runs.get(id, false)
	if !ok {
		s.fail(w, r, errorf(http.StatusNotFound, CodeNotFound, "run %q does not exist (or was forgotten)", id))
		return
	}
	if v.Status == RunRunning {
		st.cancel()
		s.record(r, http.StatusAccepted, "run.cancel", id, "")
		writeJSON(w, http.StatusAccepted, v)
		return
	}
	s.runs.forget(id)
	s.record(r, http.StatusNoContent, "run.forget", id, "")
	w.WriteHeader(http.StatusNoContent)
}
