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
	err := parseInterspersed(fs, args)
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

// parseInterspersed parses flags wherever they are among the positional
// arguments ("run scenarios/ --format json"), which Go's flag package
// alone stops at; "--" ends the flags, and everything after it is
// positional (scan's server command keeps its own flags). fs.Args() is
// then the positional arguments, in order.
func parseInterspersed(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		// Parse stopped at "--" (which it consumes) or at a positional.
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			positional = append(positional, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	// Parsing "--" alone sets no flag and leaves fs.Args() as given.
	return fs.Parse(append([]string{"--"}, positional...))
}

// flagSet reports whether the named flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
