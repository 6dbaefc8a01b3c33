package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcpchaos/mcpchaos/internal/mcptest"
)

// asMainEnv makes the test binary behave as mcpchaos itself. The demo
// re-executes "this binary" as its MCP server; under `go test` that is the
// test binary, which must then run main instead of the tests.
const asMainEnv = "MCPCHAOS_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	mcptest.Main() // the MCP server wrap's tests run behind it
	if os.Getenv(asMainEnv) == "1" {
		main()
		return
	}
	testscript.Main(m, map[string]func(){"mcpchaos": main})
}

// TestScripts runs the CLI end to end: testdata/script/*.txtar.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:  "testdata/script",
		Cmds: scriptCmds(),
		Setup: func(env *testscript.Env) error {
			env.Setenv(asMainEnv, "1")
			return nil
		},
	})
}
