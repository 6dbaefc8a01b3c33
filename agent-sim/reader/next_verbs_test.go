package reader

import (
	"slices"
	"testing"
)

// TestNextByLookVerbs: "peek at", "glance at" and "take a look at" a
// listed tool name it as the next step, as "look at" does; naming it as
// what already happened does not.
func TestNextByLookVerbs(t *testing.T) {
	ctx := Context{Current: Tool{Name: "transfer_quota", Params: []string{"tonnes"}},
		Tools: []Tool{{Name: "transfer_quota"}, {Name: "get_vessel_quota"}}}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Reel it in: set tonnes to 4.8 or less. Peek at get_vessel_quota any time to see how much catch you have left!", []string{"get_vessel_quota"}},
		{"Transfer refused. Take a look at get_vessel_quota before you try a smaller amount.", []string{"get_vessel_quota"}},
		{"Transfer refused: get_vessel_quota returned 0 t left for hake.", nil},
	} {
		if got := Read(Reply{Channel: ToolError, Text: tc.text}, ctx).Next.Tools; !slices.Equal(got, tc.want) {
			t.Errorf("%q: next %v, want %v", tc.text, got, tc.want)
		}
	}
}
