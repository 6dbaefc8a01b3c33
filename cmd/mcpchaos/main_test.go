package main

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// asMainEnv makes the test binary behave as mcpchaos itself. The demo
// re-executes "this binary" as its MCP server; under `go test` that is the
// test binary, which must then run main instead of the tests.
const asMainEnv = "MCPCHAOS_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		main()
		return
	}
	testscript.Main(m, map[string]func(){"mcpchaos": main})
}

// TestScripts runs the CLI end to end: testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv(asMainEnv, "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"exitcode": exitCode},
	})
}

// exitCode is the script command "exitcode N PROGRAM [ARG...]": run the
// program (its output is then checked like exec's) and fail unless it
// exits with N. exec alone tells zero from non-zero; the exit codes
// tell a usage error (2) from a failed run (3).
func exitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}
