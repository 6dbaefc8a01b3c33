package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
)

// newFlags returns a flag set whose usage text starts with the command's
// synopsis and description.
func newFlags(name, synopsis, description string, io stdio) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: mcpchaos %s %s\n\n%s\n\nFlags:\n", name, synopsis, strings.TrimSpace(description))
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args; it returns done=true with the exit code when the
// command must stop (help was asked for, or the flags are wrong).
func parse(fs *flag.FlagSet, args []string, io stdio) (done bool, code int) {
	// Help asked for goes to stdout, once; the flag package would print
	// it to stderr first, as it does for a usage error.
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "-help" || a == "--help" || a == "--h" {
			fs.SetOutput(io.out)
			fs.Usage()
			return true, exitOK
		}
	}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(io.out)
		fs.Usage()
		return true, exitOK
	}
	if err != nil {
		return true, exitUsage
	}
	return false, exitOK
}

// flagSet reports whether the named flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
