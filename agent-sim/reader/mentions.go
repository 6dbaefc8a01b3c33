package reader

import "strings"

// readMentions is the language-independent reader of tool names in code
// quotes. A reply in a language no reader reads can still carry
// structure a model uses whatever the language: a listed tool's name in
// backticks ("`find_shipments`"). It reads only that — the tools so
// quoted, as next actions — and nothing from the words around them,
// which it cannot read; the signal is tentative. It leaves English text
// and JSON to their readers; a reply whose words hold no English
// evidence at all ("Paiement introuvable : voir `list_charges`.") is not
// taken for English here, even where the language rule lets it pass.
func readMentions(r Reply, ctx Context) Signals {
	var s Signals
	if r.Channel == Success || !strings.Contains(r.Text, "`") {
		return s
	}
	if _, _, ok := parseJSON(Reply{Text: r.Text}); ok {
		return s
	}
	text := bound(r.Text, maxGuide)
	if en, ok, evidence := judgeLanguage(asciiLower(text)); !ok || en && evidence {
		return s // English prose: the English reader's to read
	}
	for rest := text; len(s.Next.Tools) < maxTools; {
		i := strings.IndexByte(rest, '`')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+1:], '`')
		if j < 0 {
			break
		}
		name := strings.TrimSpace(rest[i+1 : i+1+j])
		rest = rest[i+1+j+1:]
		if name == ctx.Current.Name || contains(s.Next.Tools, name) || !listed(ctx, name) {
			continue
		}
		if len(s.Next.Tools) == 0 {
			s.Next.Evidence = Evidence{Source: Source{Kind: FromSentence, Quote: clip("`"+name+"`", maxQuote)}, Confidence: Tentative}
		}
		s.Next.Tools = append(s.Next.Tools, name)
	}
	s.Read = len(s.Next.Tools) > 0
	return s
}

// listed reports whether name is a tool from tools/list.
func listed(ctx Context, name string) bool {
	for _, t := range ctx.Tools {
		if t.Name == name && name != "" {
			return true
		}
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
