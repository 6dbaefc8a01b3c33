package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// doc is what every node of one document shares.
type doc struct {
	file    string
	src     []byte
	anchors map[string]ast.Node
}

// Node is a value in a YAML document together with its field path and
// position, so that whatever decodes it can report errors that name the
// file, the line and the field. The zero Node is absent.
type Node struct {
	d    *doc
	path string
	n    ast.Node // nil when the field is absent
	line int      // of n, or of the closest present ancestor
	col  int
}

// maxAliasDepth bounds alias and tag indirection, so that a hostile
// document cannot make the decoder loop.
const maxAliasDepth = 32

// Document parses data, the content of the file called name, and returns
// its root. An empty document is an absent root (decoded as an empty
// mapping). Only one YAML document per file is accepted.
func Document(name string, data []byte) (Node, error) {
	// Tokenize and parse separately, as parser.ParseBytes does, so that
	// the depth is checked before the parser recurses.
	tokens := lexer.Tokenize(string(data))
	if tk := tokens.InvalidToken(); tk == nil {
		if err := checkDepth(name, tokens); err != nil {
			return Node{}, err
		}
	}
	f, err := parser.Parse(tokens, 0)
	if err != nil {
		e := &Error{File: name, Msg: err.Error(), Err: fmt.Errorf("%w: %w", ErrSyntax, err)}
		var se *yaml.SyntaxError
		if errors.As(err, &se) {
			e.Msg = se.Message
			if se.Token != nil {
				e.Line = se.Token.Position.Line
			}
		}
		return Node{}, e
	}
	d := &doc{file: name, src: data, anchors: map[string]ast.Node{}}
	root := Node{d: d, line: 1}
	var bodies []ast.Node
	for _, dn := range f.Docs {
		if dn != nil && dn.Body != nil {
			bodies = append(bodies, dn.Body)
		}
	}
	if len(bodies) > 1 {
		tk := bodies[1].GetToken()
		return Node{}, &Error{File: name, Line: tk.Position.Line, Msg: "only one YAML document per file (remove the second ---)", Err: ErrSyntax}
	}
	if len(bodies) == 1 {
		collectAnchors(bodies[0], d.anchors, 0)
		root = root.with(bodies[0])
	}
	return root, nil
}

func collectAnchors(n ast.Node, into map[string]ast.Node, depth int) {
	if n == nil || depth > 10_000 {
		return
	}
	switch v := n.(type) {
	case *ast.AnchorNode:
		if v.Name != nil {
			into[v.Name.GetToken().Value] = v.Value
		}
		collectAnchors(v.Value, into, depth+1)
	case *ast.TagNode:
		collectAnchors(v.Value, into, depth+1)
	case *ast.MappingNode:
		for _, mv := range v.Values {
			collectAnchors(mv.Value, into, depth+1)
		}
	case *ast.MappingValueNode:
		collectAnchors(v.Value, into, depth+1)
	case *ast.SequenceNode:
		for _, x := range v.Values {
			collectAnchors(x, into, depth+1)
		}
	}
}

// with returns a node for n (at the same path), resolving anchors and
// aliases, and taking n's position when it has one.
func (n Node) with(an ast.Node) Node {
	out := Node{d: n.d, path: n.path, line: n.line, col: n.col}
	for i := 0; an != nil && i < maxAliasDepth; i++ {
		switch v := an.(type) {
		case *ast.AnchorNode:
			an = v.Value
			continue
		case *ast.AliasNode:
			name := ""
			if v.Value != nil {
				name = v.Value.GetToken().Value
			}
			an = n.d.anchors[name]
			continue
		case *ast.TagNode:
			// The tag itself is ignored; the tagged value is read as
			// written.
			an = v.Value
			continue
		}
		break
	}
	if an != nil {
		if tk := an.GetToken(); tk != nil && tk.Position != nil {
			out.line, out.col = tk.Position.Line, tk.Position.Column
		}
	}
	out.n = an
	return out
}

// Path is the node's field path: "rules[0].fault.delay".
func (n Node) Path() string { return n.path }

// Line is the node's line, or its closest present ancestor's.
func (n Node) Line() int { return n.line }

// File is the name of the document the node belongs to.
func (n Node) File() string {
	if n.d == nil {
		return ""
	}
	return n.d.file
}

// Present reports whether the field was given a non-null value.
func (n Node) Present() bool {
	if n.n == nil {
		return false
	}
	_, null := n.n.(*ast.NullNode)
	return !null
}

// Errorf returns an *[Error] located at n, wrapping sentinel.
func (n Node) Errorf(sentinel error, format string, args ...any) *Error {
	return &Error{File: n.File(), Line: n.line, Field: n.path, Msg: fmt.Sprintf(format, args...), Err: sentinel}
}

// Key returns the path of a child of n.
func (n Node) Key(key string) string {
	if n.path == "" {
		return key
	}
	return n.path + "." + key
}

func (n Node) kind() string {
	switch v := n.n.(type) {
	case nil, *ast.NullNode:
		return "nothing"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number (" + v.GetToken().Value + ")"
	case *ast.BoolNode:
		return "a boolean"
	}
	return "a " + strings.ToLower(n.n.Type().String())
}

// Items returns the elements of a list; an absent or null node is an
// empty list.
func (n Node) Items() ([]Node, error) {
	if !n.Present() {
		return nil, nil
	}
	seq, ok := n.n.(*ast.SequenceNode)
	if !ok {
		return nil, n.Errorf(ErrType, "must be a list, not %s", n.kind())
	}
	out := make([]Node, 0, len(seq.Values))
	for i, v := range seq.Values {
		c := Node{d: n.d, path: n.path + "[" + strconv.Itoa(i) + "]", line: n.line, col: n.col}
		out = append(out, c.with(v))
	}
	return out, nil
}

// Mapping is a decoded YAML mapping: its entries by key, in document order.
type Mapping struct {
	node Node
	keys []string
	vals map[string]Node
}

// Node returns the mapping itself.
func (m Mapping) Node() Node { return m.node }

// Keys returns the keys in document order.
func (m Mapping) Keys() []string { return m.keys }

// Get returns the value of key; an absent key gives an absent node that
// still carries the path and the mapping's position.
func (m Mapping) Get(key string) Node {
	if v, ok := m.vals[key]; ok {
		return v
	}
	return Node{d: m.node.d, path: m.node.Key(key), line: m.node.line, col: m.node.col}
}

// Has reports whether key was given (even as null).
func (m Mapping) Has(key string) bool { _, ok := m.vals[key]; return ok }

// Mapping reads n as a mapping. When known is not empty, any other key is
// an error at the key's line. An absent or null node is an empty mapping.
func (n Node) Mapping(known ...string) (Mapping, error) {
	m := Mapping{node: n, vals: map[string]Node{}}
	if !n.Present() {
		return m, nil
	}
	var pairs []*ast.MappingValueNode
	switch v := n.n.(type) {
	case *ast.MappingNode:
		pairs = v.Values
	case *ast.MappingValueNode:
		pairs = []*ast.MappingValueNode{v}
	default:
		return m, n.Errorf(ErrType, "must be a mapping (key: value), not %s", n.kind())
	}
	for _, p := range pairs {
		if p == nil || p.Key == nil {
			continue
		}
		kt := p.Key.GetToken()
		at := Node{d: n.d, path: n.path, line: n.line}
		if kt != nil && kt.Position != nil {
			at.line = kt.Position.Line
		}
		if _, merge := p.Key.(*ast.MergeKeyNode); merge {
			return m, at.Errorf(ErrUnknownField, "merge keys (<<) are not supported; repeat the fields")
		}
		key := keyText(p.Key, kt)
		at.path = n.Key(key)
		if len(known) > 0 && !contains(known, key) {
			msg := fmt.Sprintf("unknown field %q", key)
			if s := suggest(key, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else {
				msg += " (known: " + strings.Join(known, ", ") + ")"
			}
			return m, &Error{File: n.File(), Line: at.line, Field: at.path, Msg: msg, Err: ErrUnknownField}
		}
		if _, dup := m.vals[key]; dup {
			return m, at.Errorf(ErrDuplicate, "is given twice")
		}
		m.keys = append(m.keys, key)
		m.vals[key] = at.with(p.Value)
	}
	return m, nil
}

func keyText(k ast.MapKeyNode, tk *token.Token) string {
	if s, ok := k.(*ast.StringNode); ok {
		return s.Value
	}
	if tk != nil {
		return tk.Value
	}
	return k.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
