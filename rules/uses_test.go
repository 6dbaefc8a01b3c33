package rules

import "testing"

func TestSetReads(t *testing.T) {
	for _, tc := range []struct {
		name  string
		when  []string
		field string
		want  bool
	}{
		{"no rules", nil, "body_size", false},
		{"no expression", []string{""}, "body_size", false},
		{"other fields", []string{`method == "POST" && path startsWith "/x"`}, "body_size", false},
		{"the field", []string{`method == "POST" && body_size > 1000`}, "body_size", true},
		{"in a second rule", []string{`conn == 1`, `body_size < 10 || seq > 2`}, "body_size", true},
		{"nested in a call", []string{`len(string(body_size)) > 2`}, "body_size", true},
		{"a string is not a read", []string{`path == "body_size"`}, "body_size", false},
		{"the whole environment", []string{`$env.body_size > 1`}, "body_size", true},
		{"the whole environment by key", []string{`$env["method"] == "GET"`}, "body_size", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := NewTable(TableOptions{Clock: SystemClock{}})
			var rs []Rule
			for i, w := range tc.when {
				rs = append(rs, Rule{Name: string(rune('a' + i)), When: w, Fault: FaultSpec{Kind: "k"}})
			}
			if err := tb.Replace(rs); err != nil {
				t.Fatal(err)
			}
			s := tb.Load()
			if got := s.Reads(tc.field); got != tc.want {
				t.Errorf("Reads(%q) = %v, want %v", tc.field, got, tc.want)
			}
			if got := s.Reads(tc.field); got != tc.want { // computed once, same answer
				t.Errorf("second Reads(%q) = %v", tc.field, got)
			}
		})
	}
}
