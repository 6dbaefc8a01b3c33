package reader

import "testing"

// TestListedArgs: values listed under an argument's name, singular or
// plural, ask the model to pick one: the argument, no value.
func TestListedArgs(t *testing.T) {
	ctx := Context{Current: Tool{Name: "search_objects", Params: []string{"schema", "status", "limit"}}}
	for _, tc := range []struct {
		text, want string
	}{
		{"Schema 'analytics' does not exist. Available schemas: billing, public, reporting", "schema"},
		{"Unknown status. Valid statuses are: open, closed.", "status"},
		{"Available tools: search_objects, list_tables.", ""},
	} {
		got := ""
		for _, a := range Read(Reply{Channel: ToolError, Text: tc.text}, ctx).Args {
			if a.Value != nil {
				t.Errorf("%q: %s has value %v, want none", tc.text, a.Name, a.Value)
			}
			got = a.Name
		}
		if got != tc.want {
			t.Errorf("%q: argument %q, want %q", tc.text, got, tc.want)
		}
	}
}
