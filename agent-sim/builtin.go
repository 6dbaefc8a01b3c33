package agentsim

import "context"

// Builtin starts an upstream that mcpchaos itself provides, named in a
// scenario as `target: builtin:NAME` (the demo's carrier API). It returns
// the target's base URL or host:port, and a function that stops it and
// waits for it. A fresh one is started for every run of the matrix, so
// runs do not share state.
type Builtin func(ctx context.Context) (target string, stop func() error, err error)
