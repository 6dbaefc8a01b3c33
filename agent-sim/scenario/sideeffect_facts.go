package scenario

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"

	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/inject"
)

// removedStatus refuses a matcher that reads `status`, with the fix. The
// name was removed rather than kept as an alias: `status < 300`, the
// idiom it invited, is true for a request the upstream never answered
// (status 0), so a fault that stopped a write counted as a committed one.
func removedStatus(n config.Node, src string) error {
	prog, err := expr.Compile(src) // no environment: any name compiles
	if err != nil {
		return nil // compileExpr reports it, at its line and column
	}
	if !slices.Contains(identifiers(prog.Node()), "status") {
		return nil
	}
	return n.Errorf(config.ErrInvalid, "`status` was removed: it read 0 for a request the upstream never answered, "+
		"so `status < 300` counted it; use upstream_status (0: no answer), e.g. `upstream_status >= 200 && upstream_status < 300`, "+
		"or client_status for what the server got")
}

// identifiers lists the names an expression reads, and the string
// literals it holds, in the order met.
func identifiers(root ast.Node) []string {
	ids, _ := walkExpr(root)
	return ids
}

func walkExpr(root ast.Node) (ids, literals []string) {
	ast.Walk(&root, visitor(func(n ast.Node) {
		switch n := n.(type) {
		case *ast.IdentifierNode:
			ids = append(ids, n.Value)
		case *ast.StringNode:
			literals = append(literals, n.Value)
		}
	}))
	return ids, literals
}

type visitor func(ast.Node)

func (f visitor) Visit(n *ast.Node) { f(*n) }

// unansweredWarning says whether s's matcher can count a request the
// upstream never answered, which a side effect never is. The method is
// evaluation on synthetic exchanges: for every method, path and tool
// among the matcher's string literals (and a default of each), on s's
// upstream, an exchange with upstream_status 0 — not reached, or reached
// and never answered — with what a server gets then (nothing, a proxy's
// 502, a fault's 500 or 503). A matcher that tests upstream_status or
// committed never matches one; `status < 300` and a bare
// `method == "POST" && path == "/x"` do. It is a check of the idiom, not
// a proof: a matcher that only matches paths built otherwise (a regular
// expression) is not exercised.
func unansweredWarning(s *SideEffectSpec) string {
	if s.prog == nil {
		return ""
	}
	_, lits := walkExpr(s.prog.Node())
	methods := []string{http.MethodPost}
	paths, tools := []string{"/"}, []string{""}
	for _, l := range lits {
		if isHTTPMethod(l) {
			methods = append(methods, l)
		} else {
			paths = append(paths, l)
			tools = append(tools, l)
		}
	}
	for _, m := range methods {
		for _, p := range paths {
			for _, tool := range tools {
				for _, reached := range []bool{false, true} {
					for _, client := range []int{0, http.StatusBadGateway, http.StatusInternalServerError, http.StatusServiceUnavailable} {
						env := ExchangeEnv{Upstream: s.Upstream, Method: m, Path: p, Reached: reached,
							ClientStatus: client, Tool: tool, Call: 1, Attempt: 1}
						if s.matchEnv(env) {
							return fmt.Sprintf("the matcher counts a request the upstream never answered "+
								"(%s %s, upstream_status 0, client_status %d); a fault that stops the write would count as a side effect: "+
								"add `upstream_status >= 200 && upstream_status < 300`", m, p, client)
						}
					}
				}
			}
		}
	}
	return ""
}

func isHTTPMethod(s string) bool {
	switch s {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return true
	}
	return false
}

// decodeCount reads a side effect's count field; a probe counts state,
// so the field does not apply to it.
func decodeCount(n config.Node, probe bool) (string, error) {
	if !n.Present() {
		return CountEffects, nil
	}
	if probe {
		return "", n.Errorf(config.ErrInvalid, "applies to match only: a probe counts the upstream's state")
	}
	v, err := n.String()
	if err != nil {
		return "", err
	}
	if v != CountEffects && v != CountRequests {
		return "", n.Errorf(config.ErrInvalid, "must be %q or %q, not %q", CountEffects, CountRequests, v)
	}
	return v, nil
}

// foldKey identifies an exchange whose identical repeats are one effect:
// a PUT, PATCH or DELETE of the same path on the same upstream with the
// same body. Other requests have no key: each is an effect.
func foldKey(e inject.Event) (string, bool) {
	switch e.Method {
	case http.MethodPut, http.MethodPatch, http.MethodDelete:
		return e.Upstream + "\x00" + e.Method + "\x00" + e.Path + "\x00" + e.BodyHash, true
	}
	return "", false
}

// CountMatches counts s's side effects over a run's exchanges: every
// matching request, less the identical idempotent repeats when s counts
// effects. It returns the count and the number of requests folded.
func CountMatches(s *SideEffectSpec, evs []inject.Event) (n, folded int) {
	seen := map[string]bool{}
	for _, e := range evs {
		if !s.Matches(e) {
			continue
		}
		if k, ok := foldKey(e); ok && s.Count != CountRequests {
			if seen[k] {
				folded++
				continue
			}
			seen[k] = true
		}
		n++
	}
	return n, folded
}

// Warnings are what the scenario itself gets wrong without being invalid:
// side-effect matchers that can count a request the upstream never
// answered. `mcpchaos run` prints them, and each run's report carries
// them.
func (sc *Scenario) Warnings() []string {
	var out []string
	for _, s := range sc.SideEffects {
		if s.Warning != "" {
			out = append(out, s.Warning)
		}
	}
	return out
}
