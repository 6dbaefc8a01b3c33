package main

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/mcpchaos/mcpchaos/bench/internal/ctlapi"
	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// newControl returns the control server: PUT /rules/{name} puts a rule
// and answers how long PutRule took inside this process, DELETE
// /rules/{name} removes it. It is the harness's counterpart of
// Toxiproxy's REST API, so both control planes are timed over loopback
// HTTP alike; the in-process figure shows what the HTTP hop adds.
func newControl(reg *inject.Registry) *http.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("PUT /rules/{name}", func(w http.ResponseWriter, r *http.Request) {
		var in ctlapi.Rule
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rule := rules.Rule{
			Name: r.PathValue("name"), Upstream: in.Upstream,
			Fault: rules.FaultSpec{Kind: in.Kind, Params: in.Params},
		}
		t0 := time.Now()
		_, err := reg.PutRule(rule)
		took := time.Since(t0)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(ctlapi.Took{Nanos: int64(took)})
	})
	mux.HandleFunc("DELETE /rules/{name}", func(w http.ResponseWriter, r *http.Request) {
		if err := reg.RemoveRule(r.PathValue("name")); err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	return &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
}
