// Package flagx holds the flag type the benchmark's proxies share.
package flagx

import (
	"fmt"
	"strings"
)

// Pairs is a repeatable "-flag name=value" flag, in the order given.
type Pairs [][2]string

// String implements flag.Value.
func (p *Pairs) String() string {
	parts := make([]string, len(*p))
	for i, kv := range *p {
		parts[i] = kv[0] + "=" + kv[1]
	}
	return strings.Join(parts, ",")
}

// Set implements flag.Value.
func (p *Pairs) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" || v == "" {
		return fmt.Errorf("want name=value, not %q", s)
	}
	*p = append(*p, [2]string{k, v})
	return nil
}
