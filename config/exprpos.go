package config

import (
	"bytes"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/mcpchaos/mcpchaos/rules"
)

// ErrorAt returns an *[Error] located at a position inside the text of
// the scalar n: line is 1-based and col 0-based within the text, as
// expr-lang and text/template count. It is how a mistake inside an
// expression or a template is reported at its line and column.
func (n Node) ErrorAt(line, col int, sentinel error, format string, args ...any) *Error {
	e := n.Errorf(sentinel, format, args...)
	e.Line, e.Column = textPos(n, line, col)
	return e
}

// exprPos maps the position of a mistake inside a "when" expression to
// the file.
func exprPos(w Node, ee *rules.ExprError) (line, col int) { return textPos(w, ee.Line, ee.Column) }

// textPos maps (tl 1-based, tc 0-based) inside the text of w to the file.
// It is exact for plain and quoted one-line scalars and for literal
// blocks (|); for a folded multi-line scalar only the line is known, and
// the column is left out (0).
func textPos(w Node, tl, tc int) (line, col int) {
	line = w.Line()
	if !w.Present() || tl < 1 {
		return line, 0
	}
	switch v := w.n.(type) {
	case *ast.StringNode:
		tk := v.GetToken()
		if tl != 1 || tk == nil || tk.Position == nil {
			return line, 0
		}
		base := tk.Position.Column
		if tk.Type == token.DoubleQuoteType || tk.Type == token.SingleQuoteType {
			base++ // the opening quote
		}
		return line, base + tc
	case *ast.LiteralNode:
		// The block's content starts on the line after the indicator;
		// its indentation is that of its first non-blank line.
		return line + tl, blockIndent(w.d.src, line+1) + tc + 1
	}
	return line, 0
}

// blockIndent returns the indentation of the first non-blank line at or
// after the 1-based line l.
func blockIndent(src []byte, l int) int {
	for i := 1; i < l; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return 0
		}
		src = src[j+1:]
	}
	for len(src) > 0 {
		end := bytes.IndexByte(src, '\n')
		if end < 0 {
			end = len(src)
		}
		line := src[:end]
		if len(bytes.TrimSpace(line)) > 0 {
			return len(line) - len(bytes.TrimLeft(line, " "))
		}
		if end == len(src) {
			break
		}
		src = src[end+1:]
	}
	return 0
}
