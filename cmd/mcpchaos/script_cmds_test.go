package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCmds are the testscript commands the CLI tests add:
//
//	exits N PROG ARGS...   run PROG and require exit code N
//	samereport A.json B.json   the two JSON reports judged the same cells alike
//	emptydir DIR   DIR exists and holds nothing
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"exits":      cmdExits,
		"samereport": cmdSameReport,
		"emptydir":   cmdEmptyDir,
	}
}

func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits N PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	err = ts.Exec(args[1], args[2:]...)
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	if code != want {
		ts.Fatalf("%s exited %d, want %d", args[1], code, want)
	}
}

// cmdSameReport compares what two JSON reports judged: for each run in
// order, its cell (scenario, persona, host), its seed, and its findings
// (id, severity, tool). Times, durations and quoted text are left out:
// text carries the OS's ephemeral ports and the exact wording of a
// network error, which a replay does not fix.
func cmdSameReport(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: samereport A.json B.json")
	}
	a, b := reportDigest(ts, args[0]), reportDigest(ts, args[1])
	same := slices.Equal(a, b)
	if same == neg {
		ts.Fatalf("reports differ=%v:\n%s\n--- vs ---\n%s", !same, strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
}

func reportDigest(ts *testscript.TestScript, name string) []string {
	data, err := os.ReadFile(ts.MkAbs(name))
	ts.Check(err)
	var rep struct {
		Seed uint64 `json:"seed"`
		Runs []struct {
			Scenario, Persona, Host string
			Seed                    uint64
			Findings                []struct{ ID, Severity, Tool string }
		} `json:"runs"`
	}
	ts.Check(json.Unmarshal(data, &rep))
	out := []string{fmt.Sprintf("seed %d, %d runs", rep.Seed, len(rep.Runs))}
	for _, r := range rep.Runs {
		var fs []string
		for _, f := range r.Findings {
			fs = append(fs, f.ID+"/"+f.Severity+"/"+f.Tool)
		}
		slices.Sort(fs)
		out = append(out, fmt.Sprintf("%s | %s | %s | %d | %s", r.Scenario, r.Persona, r.Host, r.Seed, strings.Join(fs, " ")))
	}
	return out
}

func cmdEmptyDir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: emptydir DIR")
	}
	entries, err := os.ReadDir(ts.MkAbs(args[0]))
	ts.Check(err)
	for _, e := range entries {
		ts.Logf("left in %s: %s", args[0], e.Name())
	}
	if len(entries) > 0 {
		ts.Fatalf("%s holds %d entries", args[0], len(entries))
	}
}
