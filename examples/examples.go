// Package examples embeds the scenario files that ship with mcpchaos, so
// that `mcpchaos demo` needs nothing but the binary.
package examples

import "embed"

// Demo holds demo/*.yaml: the demo matrix, one file per server variant and
// fault.
//
//go:embed demo/*.yaml
var Demo embed.FS
