package rules

import (
	"errors"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
)

// ParseFault turns a fault spec into the value the data path uses. It is
// supplied by the caller (the inject package) so that this package stays
// ignorant of fault kinds. An error should be a *[FieldError] without its
// Rule set; Compile fills it in.
type ParseFault func(FaultSpec) (any, error)

// CompileExpr compiles a "when" expression against [Env]. It is exported
// so that callers (the API, the dashboard) can check an expression on its
// own; rule is used only to label errors. An expression over
// [MaxExprBytes] or nested deeper than [MaxExprDepth] is refused before
// expr-lang parses it.
func CompileExpr(rule, src string) (*vm.Program, error) {
	if strings.TrimSpace(src) == "" {
		return nil, nil
	}
	if err := checkExprLimits(rule, src); err != nil {
		return nil, err
	}
	prog, err := expr.Compile(src, expr.Env(Env{}), expr.AsBool())
	if err != nil {
		ee := &ExprError{Rule: rule, Expr: src, Line: 1, Msg: err.Error(), Err: err}
		var fe *file.Error
		if errors.As(err, &fe) {
			ee.Line, ee.Column, ee.Offset = max(fe.Line, 1), fe.Column, fe.From
			ee.Msg, ee.Snippet = fe.Message, fe.Snippet
		}
		return nil, ee
	}
	return prog, nil
}

func compileRule(r Rule, parse ParseFault) (*compiled, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	prog, err := CompileExpr(r.Name, r.When)
	if err != nil {
		return nil, err
	}
	var fault any
	if parse != nil {
		fault, err = parse(r.Fault)
		if err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				c := *fe
				c.Rule = r.Name
				if !strings.HasPrefix(c.Field, "fault") {
					c.Field = "fault." + c.Field
				}
				return nil, &c
			}
			return nil, &FieldError{Rule: r.Name, Field: "fault", Msg: err.Error(), Err: err}
		}
	}
	if err := checkWhen(r, prog, fault); err != nil {
		return nil, err
	}
	return &compiled{rule: r, prog: prog, fault: fault}, nil
}
