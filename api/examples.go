package api

import (
	"io/fs"
	"net/http"
	"path"
	"strings"

	"github.com/mcpchaos/mcpchaos/agent-sim/scenario"
	"github.com/mcpchaos/mcpchaos/examples"
)

// Example is one of the example scenarios compiled into the binary (the
// demo matrix of `mcpchaos demo`), as GET /v1/examples lists it.
type Example struct {
	// Name is the file's name without .yaml: "careless-timeout"; GET
	// /v1/examples/{name} returns the file.
	Name string `json:"name"`
	// Scenario and Description are the scenario's own name and
	// description.
	Scenario    string `json:"scenario"`
	Description string `json:"description,omitempty"`
}

// ExampleList is the body of GET /v1/examples.
type ExampleList struct {
	Examples []Example `json:"examples"`
}

// exampleDir is the folder of examples.Demo that holds the scenarios.
const exampleDir = "demo"

// listExamples serves GET /v1/examples. The examples need the built-in
// demo server and carrier, which `mcpchaos serve` provides to runs; POST
// the YAML of GET /v1/examples/{name} to /v1/runs to run one.
func (s *Server) listExamples(w http.ResponseWriter, r *http.Request) {
	entries, err := fs.ReadDir(examples.Demo, exampleDir)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := []Example{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".yaml")
		if !ok {
			continue
		}
		ex := Example{Name: name, Scenario: name}
		data, err := fs.ReadFile(examples.Demo, path.Join(exampleDir, e.Name()))
		if err == nil {
			// The files are tested to parse (`mcpchaos demo`); should one
			// not, it is still listed under its file name, and POST
			// /v1/runs reports the mistake with its position.
			if sc, perr := scenario.Parse(e.Name(), data); perr == nil {
				ex.Scenario, ex.Description = sc.Name, sc.Description
			}
		}
		out = append(out, ex)
	}
	writeJSON(w, http.StatusOK, ExampleList{Examples: out})
}

// getExample serves GET /v1/examples/{name}: the scenario file, as YAML.
func (s *Server) getExample(w http.ResponseWriter, r *http.Request) {
	name := param(r, "name")
	var data []byte
	err := fs.ErrNotExist
	if !strings.ContainsAny(name, `/\`) {
		data, err = fs.ReadFile(examples.Demo, path.Join(exampleDir, name+".yaml"))
	}
	if err != nil {
		s.fail(w, r, errorf(http.StatusNotFound, CodeNotFound, "no example %q (see GET /v1/examples)", name))
		return
	}
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(data)
}
