package persona

import (
	"github.com/mcpchaos/mcpchaos/agent-sim/transcript"
	"strings"
)

// maxPhrase bounds a quoted phrase, so a decision or a finding quotes a
// sentence rather than a whole page.
const maxPhrase = 200

// quote returns s trimmed to maxPhrase bytes.
func quote(s string) string {
	return transcript.ClipBytes(strings.TrimSpace(s), maxPhrase, "…")
}

// paramsOf returns the schema parameter names of the named tool.
func paramsOf(tools []transcript.Tool, name string) []string {
	for _, t := range tools {
		if t.Name == name {
			return t.Params
		}
	}
	return nil
}
