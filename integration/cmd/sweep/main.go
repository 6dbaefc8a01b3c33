// Command sweep removes what killed mcpchaos integration test runs left in
// the Docker engine: containers, networks and volumes labelled
// org.mcpchaos.integration whose creating process is gone
// (integration.Sweep). It prints what it removed.
//
//	go run github.com/mcpchaos/mcpchaos/integration/cmd/sweep
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ory/dockertest/v3"

	"github.com/mcpchaos/mcpchaos/integration"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pool, err := dockertest.NewPool("")
	if err != nil {
		fmt.Fprintf(os.Stderr, "sweep: %v\n", err)
		os.Exit(1)
	}
	removed, err := integration.Sweep(ctx, pool)
	for _, r := range removed {
		fmt.Println("removed", r)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "sweep: %v\n", err)
		os.Exit(1)
	}
}
