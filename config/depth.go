package config

import (
	"fmt"

	"github.com/goccy/go-yaml/token"
)

// MaxDepth bounds the nesting of a YAML document. The YAML parser
// recurses once per level and its cost grows with the square of the
// depth (100,000 nested flow sequences took minutes and a 128 MiB stack;
// the 2,000,000 a 4 MiB file can hold overflow the stack and kill the
// process). A config file or a scenario is a few levels deep.
const MaxDepth = 100

// checkDepth returns an *Error at the first token of tokens that nests
// deeper than MaxDepth, or nil. It runs on the lexer's tokens, before the
// parser: flow collections ([ and {) count by their brackets, block
// collections by the columns their entries start at. A line that starts
// further right than every open block, or a compact entry ("- - x"),
// opens a level; one that starts at or left of an open block closes it,
// except that a sequence may sit at its parent key's column.
// Over-counting a little (a plain multi-line value) is harmless at this
// limit; what matters is that no real level goes uncounted.
func checkDepth(name string, tokens token.Tokens) error {
	var (
		flow     int
		blocks   []level // the open block levels, by increasing column
		lastLine int
	)
	for _, tk := range tokens {
		if tk == nil || tk.Position == nil || tk.Type == token.CommentType {
			continue
		}
		first := tk.Position.Line != lastLine
		lastLine = tk.Position.Line
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			flow++
		case token.SequenceEndType, token.MappingEndType:
			flow = max(flow-1, 0)
		}
		seq := tk.Type == token.SequenceEntryType
		if flow == 0 && (first || seq || tk.Type == token.MappingKeyType) {
			col := tk.Position.Column
			for len(blocks) > 0 {
				top := blocks[len(blocks)-1]
				if top.col < col || (top.col == col && seq && !top.seq) {
					break
				}
				blocks = blocks[:len(blocks)-1]
			}
			blocks = append(blocks, level{col: col, seq: seq})
		}
		if flow+len(blocks) > MaxDepth {
			return &Error{File: name, Line: tk.Position.Line, Column: tk.Position.Column, Err: ErrInvalid,
				Msg: fmt.Sprintf("nesting deeper than %d levels (the limit)", MaxDepth)}
		}
	}
	return nil
}

// level is an open block collection: the column its entries start at,
// and whether it is a sequence ("-" entries).
type level struct {
	col int
	seq bool
}
