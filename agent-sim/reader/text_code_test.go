package reader

import "testing"

// Code quoted in a reply is the caller's or the upstream's, never
// guidance; prose lines after a colon are read.
func TestCodeBlocksAreNotGuidance(t *testing.T) {
	ctx := Context{Current: Tool{Name: "edit_file", Params: []string{"path", "edits"}}, Tools: []Tool{{Name: "edit_file"}, {Name: "read_file"}}}
	tests := []struct {
		name  string
		text  string
		retry RetryKind
	}{
		{"indented code after a colon", "Could not find exact match for edit:\n    if attempts < 3 {\n        // retry once more after a short delay\n        sleep(2);", RetryNone},
		{"a fenced block", "The edit did not apply. Your text:\n```\n// do not retry\nx := 1\n```", RetryNone},
		{"indented prose after a colon is read", "What to do:\n    Do not retry this edit\n    Read the file again first", DoNotRetry},
		{"guidance outside the block is read", "No match for:\n    x := f();\nDo not retry: the file changed.", DoNotRetry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Read(Reply{Channel: ToolError, Text: tt.text}, ctx).Retry.Kind; got != tt.retry {
				t.Errorf("retry = %q, want %q", got, tt.retry)
			}
		})
	}
}

// A key: value error that lists the values allowed after the one given
// asks for that argument, without one value.
func TestChoicesArgs(t *testing.T) {
	ctx := Context{Current: Tool{Name: "send_command", Params: []string{"vehicle", "command"}}, Tools: []Tool{{Name: "send_command"}}}
	tests := []struct {
		text string
		want string // "" = none
	}{
		{"error: unsupported_command, vehicle: VAN-1190, command: remote_start, supported: [lock_doors, horn], sent: no", "command"},
		{"command=honk allowed values: lock, unlock", "command"},
		{"command: remote_start was sent to vehicle VAN-1190", ""},
	}
	for _, tt := range tests {
		s := Read(Reply{Channel: ToolError, Text: tt.text}, ctx)
		got := ""
		for _, a := range s.Args {
			got = a.Name
		}
		if got != tt.want {
			t.Errorf("%q: args %v, want %q", tt.text, s.Args, tt.want)
		}
	}
}
