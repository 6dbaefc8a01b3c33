package reader

import (
	"strconv"
	"strings"
)

// Arguments named by reference: a pronoun for the arguments named before,
// an argument given to another tool, and a value's Go form.

// forOtherTool reports an argument given to another listed tool: "call
// list_invoices with customer_id=cus_1", "get_order(order_id=…)". The
// name is looked up after the last listed tool named before it in its
// sentence; a tool other than the current one owns it.
func forOtherTool(low string, a Arg, name string, ctx Context) bool {
	pos := strings.Index(low, asciiLower(name))
	if pos < 0 {
		return false
	}
	owner, at := "", -1
	for _, t := range ctx.Tools {
		if t.Name == "" {
			continue
		}
		if k := strings.LastIndex(low[:pos], asciiLower(t.Name)); k > at && wordAt(low, k, k+len(t.Name)) {
			owner, at = t.Name, k
		}
	}
	if owner == "" || owner == ctx.Current.Name || pos-at > 60 {
		return false
	}
	between := low[at+len(owner) : pos]
	return strings.Contains(between, "with") || strings.Contains(between, "(") || strings.Contains(between, "using") ||
		strings.Contains(between, "for")
}

// pronounArgs adds, for a sentence whose change verb takes a pronoun, the
// identifier-like schema arguments named in the sentence before.
func pronounArgs(p *prepared, i int, params []string, out []Arg) []Arg {
	ts := p.tokens(i)
	found := false
	for k := 0; k+1 < len(ts.toks) && !found; k++ {
		found = pronounChangeVerbs[ts.toks[k].w] && pronouns[ts.toks[k+1].w]
	}
	if !found {
		return out
	}
	prev := p.low(p.sents[i-1])
	for _, name := range params {
		if plainWord(name) || hasArg(out, name) || len(out) >= maxArgs {
			continue
		}
		ln := asciiLower(name)
		if k := strings.Index(prev, ln); k >= 0 && wordAt(prev, k, k+len(ln)) {
			out = append(out, Arg{Name: name, Evidence: Evidence{Source: p.quote(p.sents[i]), Confidence: Tentative}})
		}
	}
	return out
}

// literal turns an assignment's value into a Go value.
func literal(v string) any {
	switch strings.ToLower(v) {
	case "true":
		return true
	case "false":
		return false
	case "null":
		return nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f
	}
	if len(v) >= 2 && strings.ContainsRune("\"'`", rune(v[0])) && v[len(v)-1] == v[0] {
		return v[1 : len(v)-1]
	}
	return v
}

func hasArg(args []Arg, name string) bool {
	for _, a := range args {
		if a.Name == name {
			return true
		}
	}
	return false
}

func argIndex(args []Arg, name string) int {
	for i, a := range args {
		if a.Name == name {
			return i
		}
	}
	return -1
}
