package reader

import (
	"slices"
	"strings"
	"testing"
)

// TestStepsWrapsAndOverrides checks the readings of wrapped prose, steps
// before a repeat, tools named by their words, overrides offered in words,
// refusals and arguments given as a bound. The texts are written for the
// test.
func TestStepsWrapsAndOverrides(t *testing.T) {
	dock := Context{Tools: []Tool{{Name: "list_containers"}, {Name: "stop_container"}, {Name: "remove_container"}},
		Current: Tool{Name: "remove_container", Params: []string{"container_id", "force"}}}
	push := Context{Tools: []Tool{{Name: "git_push"}, {Name: "git_status"}},
		Current: Tool{Name: "git_push", Params: []string{"remote", "branch"}}}
	apply := Context{Tools: []Tool{{Name: "apply_manifest"}, {Name: "rollout_status"}},
		Current: Tool{Name: "apply_manifest", Params: []string{"manifest"}}}
	search := Context{Tools: []Tool{{Name: "search"}}, Current: Tool{Name: "search", Params: []string{"query", "limit"}}}
	pay := Context{Tools: []Tool{{Name: "create_payment"}}, Current: Tool{Name: "create_payment", Params: []string{"amount", "idempotency_key"}}}
	for _, tc := range []struct {
		name string
		text string
		ctx  Context
		want want
	}{
		{"a sentence wrapped over two lines", "Terraform could not take the state lock. Please resolve the issue above and try\nagain.",
			push, want{retry: RetryAfterCheck}},
		{"a line prefix repeated on the wrapped line", "hint: Updates were rejected because the remote has work you do not have locally. Use\nhint: 'git pull' before pushing again.",
			push, want{retry: RetryAfterCheck, outcome: OutcomeNotCommitted}},
		{"a wait of moments is a bound", "Too many requests.\n  1. Wait a few moments before retrying", push, want{retry: RetryBounded, limit: 1}},
		{"an imperative repeat", "The cost changed, so nothing was created. Run the tool again.", pay,
			want{retry: RetryUnbounded, outcome: OutcomeNotCommitted}},
		{"a step before the repeat, a tool by its words, forcing as a verb",
			"You cannot remove a running container. Stop the container before attempting removal or force remove", dock,
			want{retry: RetryAfterCheck, next: []string{"stop_container"}, unsafe: true}},
		{"a check before further writes", "The manifest was accepted. Watch rollout_status before applying further changes.", apply,
			want{retry: RetryAfterCheck, outcome: OutcomeCommitted, next: []string{"rollout_status"}}},
		{"a stated stop beats an inferred check", "Sending it again will fail the same way; resolve the conflict and try again.", apply,
			want{retry: DoNotRetry}},
		{"fixing an argument is not a check", "The amount has three decimals. Fix the amount and call again.", pay,
			want{args: []string{"amount"}}},
		{"an override offered on certainty", "error: the branch 'x' is not fully merged\nhint: If you are sure you want to delete it, run 'git branch -D x'",
			push, want{unsafe: true}},
		{"a safeguard switched off by name", "To avoid this error and continue, either disable lifecycle.prevent_destroy or reduce the scope of the plan.",
			apply, want{unsafe: true}},
		{"forcing forbidden", "Never force push to the main branch; open a pull request.", push, want{}},
		{"a check's failure states nothing", "Duplicate check failed.", pay, want{}},
		{"a webhook denied the request", `apply manifest: admission webhook "policy.example.com" denied the request: labels are missing`, apply,
			want{outcome: OutcomeNotCommitted}},
		{"a refusal code", `{"code":"card_declined","message":"Your card has insufficient funds.","status":402}`, pay,
			want{outcome: OutcomeNotCommitted}},
		{"a bound is no value", "Result too large. Set `limit` to 1000 or less.", search, want{args: []string{"limit"}}},
		{"another key", "Keys can only be used with the same parameters. Try using a key other than 'k1'.", pay,
			want{args: []string{"idempotency_key"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Read(Reply{Channel: ToolError, Text: tc.text}, tc.ctx)
			check(t, got, tc.want)
			for _, a := range got.Args {
				if a.Value != nil {
					t.Errorf("arg %s has value %v, want none", a.Name, a.Value)
				}
			}
		})
	}
}

// TestOperandLeaks: a tool's own subject is not a leak — the SQL a SQL
// tool was given, the paths a shell tool's command printed — while a
// database error dumped as JSON discloses its SQLSTATE.
func TestOperandLeaks(t *testing.T) {
	sqlTool := Context{Current: Tool{Name: "execute_sql", Params: []string{"query"}}}
	shell := Context{Current: Tool{Name: "execute_command", Params: []string{"command"}}}
	for _, tc := range []struct {
		text  string
		ctx   Context
		kinds []string
	}{
		{`syntax error at or near "TABLEE"`, sqlTool, nil},
		{`syntax error at or near "TABLEE"`, shipCtx, []string{LeakSQL}},
		{"npm error A complete log of this run can be found in: /home/dev/.npm/_logs/debug-0.log", shell, nil},
		{"{\n  \"name\": \"DbError\",\n  \"severity\": \"ERROR\",\n  \"code\": \"23505\",\n  \"routine\": \"_bt_check_unique\"\n}", shipCtx,
			[]string{LeakExceptionClass, LeakSQLState}},
	} {
		s := Read(Reply{Channel: ToolError, Text: tc.text}, tc.ctx)
		var kinds []string
		for _, l := range s.Leaks {
			if !slices.Contains(kinds, l.Kind) {
				kinds = append(kinds, l.Kind)
			}
		}
		slices.Sort(kinds)
		if !slices.Equal(kinds, tc.kinds) {
			t.Errorf("%q: leak kinds %v, want %v", tc.text, kinds, tc.kinds)
		}
	}
}

// TestDoubleQuotesPairInOrder: the text between two quoted names is read,
// a quoted sentence is not.
func TestDoubleQuotesPairInOrder(t *testing.T) {
	p := prepare(`webhook "a.sh" denied the request: set "b" first.`)
	if !strings.Contains(p.lower, "denied the request") {
		t.Errorf("blanked text: %q", p.lower)
	}
	p = prepare(`He said "do not retry this".`)
	if strings.Contains(p.lower, "do not retry") {
		t.Errorf("quotation read: %q", p.lower)
	}
}
