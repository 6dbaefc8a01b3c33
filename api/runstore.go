package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/agent-sim/report"
)

// runStore remembers runs: every running one, and the last keep finished
// ones.
type runStore struct {
	keep int
	mu   sync.Mutex
	seq  int
	byID map[string]*runState
	ids  []string // in submission order
}

// runState is one run; its fields are guarded by the store's mutex, except
// done, which is closed once when it finishes.
type runState struct {
	view   Run
	report json.RawMessage
	cancel context.CancelFunc
	done   chan struct{}
}

func newRunStore(keep int) *runStore {
	return &runStore{keep: keep, byID: map[string]*runState{}}
}

// start registers a new run, refusing when maxActive are running.
func (rs *runStore) start(scenario string, now time.Time, maxActive int, cancel context.CancelFunc) (*runState, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	active := 0
	for _, st := range rs.byID {
		if st.view.Status == RunRunning {
			active++
		}
	}
	if active >= maxActive {
		return nil, errorf(http.StatusTooManyRequests, CodeTooManyRuns,
			"%d runs are in progress, the most this server allows; wait for one to finish", active)
	}
	rs.seq++
	st := &runState{
		view:   Run{ID: fmt.Sprintf("run-%d", rs.seq), Status: RunRunning, Scenario: scenario, SubmittedAt: now.UTC()},
		cancel: cancel,
		done:   make(chan struct{}),
	}
	rs.byID[st.view.ID] = st
	rs.ids = append(rs.ids, st.view.ID)
	rs.evictLocked()
	return st, nil
}

// evictLocked forgets the oldest finished runs beyond keep.
func (rs *runStore) evictLocked() {
	finished := 0
	for _, id := range rs.ids {
		if rs.byID[id].view.Status != RunRunning {
			finished++
		}
	}
	kept := rs.ids[:0]
	for _, id := range rs.ids {
		if finished > rs.keep && rs.byID[id].view.Status != RunRunning {
			delete(rs.byID, id)
			finished--
			continue
		}
		kept = append(kept, id)
	}
	rs.ids = kept
}

func (rs *runStore) progress(st *runState, done, total int) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	st.view.Progress = RunProgress{Done: done, Total: total}
}

// finish records the outcome of agentsim.Run.
func (rs *runStore) finish(st *runState, rep report.Report, runErr error, ctxErr error, now time.Time) {
	raw, err := json.Marshal(rep)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	t := now.UTC()
	st.view.FinishedAt = &t
	st.view.Status = RunDone
	switch {
	case runErr != nil && ctxErr != nil:
		st.view.Status, st.view.Error = RunCancelled, runErr.Error()
	case runErr != nil:
		st.view.Status, st.view.Error = RunFailed, runErr.Error()
	}
	if err == nil {
		st.report = raw
	}
	sum := summaryView(rep.Summary)
	st.view.Summary = &sum
	close(st.done)
	rs.evictLocked()
}

func summaryView(s report.Summary) RunSummary {
	out := RunSummary{Runs: s.Runs, Converged: s.Converged, Failed: s.Failed, Worst: string(s.Worst),
		Findings: map[string]int{}, ByID: map[string]int{}}
	for k, v := range s.Findings {
		out.Findings[string(k)] = v
	}
	for k, v := range s.ByID {
		out.ByID[k] = v
	}
	return out
}

// get returns a run's view (with its report when withReport) and state.
func (rs *runStore) get(id string, withReport bool) (Run, *runState, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	st, ok := rs.byID[id]
	if !ok {
		return Run{}, nil, false
	}
	v := st.view
	if withReport {
		v.Report = st.report
	}
	return v, st, true
}

func (rs *runStore) list() []Run {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	out := make([]Run, 0, len(rs.ids))
	for _, id := range rs.ids {
		out = append(out, rs.byID[id].view)
	}
	return out
}

// forget removes a finished run.
func (rs *runStore) forget(id string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if st, ok := rs.byID[id]; ok && st.view.Status != RunRunning {
		delete(rs.byID, id)
		for i, x := range rs.ids {
			if x == id {
				rs.ids = append(rs.ids[:i], rs.ids[i+1:]...)
				break
			}
		}
	}
}
