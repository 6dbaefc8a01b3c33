package rules

import (
	"sync"

	"github.com/expr-lang/expr/ast"
)

// uses records which [Env] fields a set's expressions read, worked out
// once per set from the compiled programs' syntax trees, so that the data
// path can skip work no rule needs (reading a chunked body ahead to learn
// body_size, for one).
type uses struct {
	once   sync.Once
	all    bool            // an expression reads $env as a whole
	fields map[string]bool // identifiers, by their expr name
}

// Reads reports whether some rule's `when` of the set reads the Env field
// named field (its expr name, like "body_size"). An expression that
// reaches the environment as a whole ($env) counts as reading every field.
func (s *Set) Reads(field string) bool {
	u := &s.uses
	u.once.Do(func() {
		u.fields = map[string]bool{}
		for _, c := range s.rules {
			if c.prog == nil {
				continue
			}
			n := c.prog.Node()
			ast.Walk(&n, u)
		}
	})
	return u.all || u.fields[field]
}

// Visit implements ast.Visitor.
func (u *uses) Visit(n *ast.Node) {
	id, ok := (*n).(*ast.IdentifierNode)
	if !ok {
		return
	}
	if id.Value == "$env" {
		u.all = true
	}
	u.fields[id.Value] = true
}
