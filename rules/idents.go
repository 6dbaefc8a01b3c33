package rules

import (
	"reflect"
	"slices"
	"time"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
)

// Fields returns the [Env] fields (by their expression names, such as
// "method") that a compiled "when" program reads, sorted; nil for no
// program. It walks the program's syntax tree, so a field counts as read
// wherever it appears, even in a branch that is never taken. `$env` read
// with a key that is not a constant counts as reading every field.
func Fields(prog *vm.Program) []string {
	if prog == nil {
		return nil
	}
	names := envNames()
	seen := map[string]bool{}
	root := prog.Node()
	ast.Walk(&root, fieldVisitor(func(n ast.Node) {
		switch n := n.(type) {
		case *ast.IdentifierNode:
			if slices.Contains(names, n.Value) {
				seen[n.Value] = true
			}
		case *ast.MemberNode:
			id, ok := n.Node.(*ast.IdentifierNode)
			if !ok || id.Value != "$env" {
				return
			}
			if s, ok := n.Property.(*ast.StringNode); ok {
				if slices.Contains(names, s.Value) {
					seen[s.Value] = true
				}
				return
			}
			for _, name := range names {
				seen[name] = true
			}
		}
	}))
	out := make([]string, 0, len(seen))
	for name := range seen {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

type fieldVisitor func(ast.Node)

func (f fieldVisitor) Visit(n *ast.Node) { f(*n) }

// envNames lists the expression names of Env's fields.
func envNames() []string {
	t := reflect.TypeFor[Env]()
	out := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		if name := t.Field(i).Tag.Get("expr"); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// WhenChecker is implemented by a parsed fault that restricts what its
// rule's "when" may read (a fault acting before any request exists cannot
// use the request's fields). CheckWhen gets the fields the expression
// reads, as [Fields] returns them; its error becomes a [FieldError] on
// the rule's "when".
type WhenChecker interface {
	CheckWhen(fields []string) error
}

// checkWhen applies fault's WhenChecker, if it has one, to prog.
func checkWhen(r Rule, prog *vm.Program, fault any) error {
	wc, ok := fault.(WhenChecker)
	if !ok {
		return nil
	}
	if err := wc.CheckWhen(Fields(prog)); err != nil {
		return &FieldError{Rule: r.Name, Field: "when", Msg: err.Error(), Err: err}
	}
	return nil
}

// Fields returns the Env fields that the ith rule's "when" reads.
func (s *Set) Fields(i int) []string { return Fields(s.rules[i].prog) }

// Fault returns what the table's ParseFault made of the ith rule's fault.
func (s *Set) Fault(i int) any { return s.rules[i].fault }

// Live reports whether the ith rule could apply to the upstream at now:
// enabled, for that upstream, unexpired, not exhausted and not at
// probability 0 (see [Set.Active]).
func (s *Set) Live(i int, upstream string, now time.Time) bool {
	return s.rules[i].live(upstream, now)
}
