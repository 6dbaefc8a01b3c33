package reader

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// A model that made an ambiguous write and then called a list, search,
// find or get tool to check it reads the lookup's result for one thing:
// does it show the item, or does it say nothing matched? ReadLookup
// answers that from what the result states, and says when it cannot
// tell: a list of bare paths, a YAML dump, another language, a result
// that both lists items and says something was not found. It never
// guesses "found" from a text merely not saying "nothing".

// LookupState is what a lookup's result shows.
type LookupState string

// Lookup states.
const (
	LookupUnread  LookupState = ""        // cannot tell
	LookupFound   LookupState = "found"   // shows at least one item
	LookupNothing LookupState = "nothing" // states that nothing matched
)

// Lookup is what a successful lookup's result shows, with its source.
type Lookup struct {
	State LookupState `json:"state,omitempty"`
	Evidence
}

// ReadLookup reads the result of a lookup (a success: a failure shows
// nothing about the item and reads as unread). structuredContent is read
// first, then text that is JSON, then the English text.
func ReadLookup(r Reply) Lookup {
	if r.Channel != Success {
		return Lookup{}
	}
	if l := lookupJSON(r.Structured); l.State != LookupUnread {
		return l
	}
	text := strings.TrimSpace(r.Text)
	switch {
	case text == "" && len(r.Structured) == 0:
		// An empty result lists nothing; that it means "no match" rather
		// than "no output" is an inference.
		return lookup(LookupNothing, FromProtocol, "an empty result", Tentative)
	case text == "":
		return Lookup{}
	case text[0] == '[' || text[0] == '{' || text == "null":
		if l := lookupJSON([]byte(text)); l.State != LookupUnread {
			return l
		}
		if l, ok := lookupRepr(text); ok {
			return l
		}
	}
	return lookupText(text)
}

func lookup(st LookupState, kind SourceKind, quote string, c Confidence) Lookup {
	return Lookup{State: st, Evidence: Evidence{Source: Source{Kind: kind, Quote: clip(quote, maxQuote)}, Confidence: c}}
}

// lookupJSON reads a JSON result: null, [] and {} show nothing; a
// non-empty array shows items; an object is read by its counts, its
// lists and its id (see lookupObject).
func lookupJSON(b []byte) Lookup {
	b = bytes.TrimSpace(b)
	// Bounded in size and depth before decoding, as the structured reader is.
	if len(b) == 0 || len(b) > maxLeakIn || tooDeep(b, 32) {
		return Lookup{}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return Lookup{}
	}
	switch x := v.(type) {
	case nil:
		return lookup(LookupNothing, FromStructured, "null", Confident)
	case []any:
		if len(x) == 0 {
			return lookup(LookupNothing, FromStructured, "[]", Confident)
		}
		return lookup(LookupFound, FromStructured, fmt.Sprintf("a list of %d", len(x)), Confident)
	case map[string]any:
		return lookupObject(x)
	}
	return Lookup{}
}

// Keys an object's count, list and paging are given under. An object
// made only of lists and paging (a search's envelope) is read by its
// lists, whatever they are called; one with other fields is a record,
// and its lists (a record's tags) say nothing about whether it exists.
var (
	countKeys = []string{"total_count", "totalCount", "total", "count", "total_results", "totalResults",
		"totalItems", "total_items", "num_results"}
	listKeys = map[string]bool{"items": true, "results": true, "data": true, "entries": true, "records": true,
		"rows": true, "hits": true, "nodes": true, "edges": true, "matches": true, "values": true}
	pagingKeys = map[string]bool{"incomplete_results": true, "has_more": true, "hasMore": true, "next": true,
		"next_cursor": true, "nextCursor": true, "cursor": true, "page": true, "per_page": true, "page_size": true,
		"pageSize": true, "limit": true, "offset": true, "object": true, "type": true, "startAt": true,
		"maxResults": true, "isLast": true, "query": true}
	idKeyRE = regexp.MustCompile(`^(id|uuid|key|[A-Za-z]+_id|[a-z]+Id)$`)
)

// lookupObject reads an object: an error in it, unread; a count, by its
// value; an envelope of lists, by whether any holds an item; a record
// with an id, found; {} shows nothing.
func lookupObject(m map[string]any) Lookup {
	if len(m) == 0 {
		return lookup(LookupNothing, FromStructured, "{}", Confident)
	}
	for _, k := range []string{"error", "errors"} {
		if v, ok := m[k]; ok && v != nil && v != false {
			return Lookup{}
		}
	}
	for _, k := range countKeys {
		if n, ok := m[k].(json.Number); ok {
			if f, err := n.Float64(); err == nil {
				st := LookupFound
				if f == 0 {
					st = LookupNothing
				}
				return lookup(st, FromStructured, fmt.Sprintf("%q: %s", k, n), Confident)
			}
		}
	}
	keys := slices.Sorted(maps.Keys(m))
	var full, empty string
	lists, envelope, known := 0, true, false
	for _, k := range keys {
		known = known || listKeys[k]
		l, isList := m[k].([]any)
		switch {
		case isList:
			lists++
			if len(l) > 0 && full == "" {
				full = k
			} else if len(l) == 0 && empty == "" {
				empty = k
			}
		case !pagingKeys[k] && !slices.Contains(countKeys, k):
			envelope = false
		}
	}
	if lists > 0 && (envelope || known) {
		if full != "" {
			return lookup(LookupFound, FromStructured, fmt.Sprintf("%q: [%d items]", full, len(m[full].([]any))), Confident)
		}
		return lookup(LookupNothing, FromStructured, fmt.Sprintf("%q: []", empty), Confident)
	}
	for _, k := range keys {
		if idKeyRE.MatchString(k) && scalarSet(m[k]) {
			return lookup(LookupFound, FromStructured, fmt.Sprintf("%q: %v", k, m[k]), Confident)
		}
	}
	return Lookup{}
}

// scalarSet reports a non-empty string or a number.
func scalarSet(v any) bool {
	switch x := v.(type) {
	case string:
		return x != ""
	case json.Number:
		return true
	}
	return false
}

// reprRE is a Python list's repr with at least one element ("[{'name':
// 'users'}]", "['a', 'b']"): a list printed with str(), not JSON.
var reprRE = regexp.MustCompile(`^\[\s*[{('"\d]`)

// lookupRepr reads a non-JSON list literal as a list with items.
func lookupRepr(text string) (Lookup, bool) {
	if !reprRE.MatchString(text) || !strings.HasSuffix(text, "]") {
		return Lookup{}, false
	}
	return lookup(LookupFound, FromSentence, text, Tentative), true
}
