package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// writeJSON writes v with status. An encoding error cannot be reported to
// the client any more (the status is sent); API types always encode.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

// mediaType returns the request's media type, lower case, without
// parameters ("" when there is no Content-Type).
func mediaType(r *http.Request) string {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return mt
}

// requireMedia refuses a body whose Content-Type is not one of allowed.
// Besides telling a client its mistake, it stops a web page from posting
// to the API with a form or text/plain (which browsers send cross-origin
// without asking), since application/json needs a CORS preflight that
// this API never grants.
func requireMedia(r *http.Request, allowed ...string) error {
	mt := mediaType(r)
	for _, a := range allowed {
		if mt == a {
			return nil
		}
	}
	if mt == "" {
		mt = "none"
	}
	return errorf(http.StatusUnsupportedMediaType, CodeUnsupportedMedia,
		"Content-Type %s is not accepted here; send %s", mt, strings.Join(allowed, " or "))
}

// readBody reads the whole body, refusing more than limit bytes.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return nil, err
		}
		return nil, errorf(http.StatusBadRequest, CodeInvalidJSON, "reading the body: %v", err)
	}
	return data, nil
}

// decodeJSON reads one JSON value into dst: unknown fields are refused (a
// typo must not silently drop a setting), numbers in free-form maps stay
// exact, and a mistake is reported with its field or position.
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	if err := requireMedia(r, "application/json"); err != nil {
		return err
	}
	data, err := readBody(w, r, s.opts.MaxBodyBytes)
	if err != nil {
		return err
	}
	return unmarshalStrict(data, dst)
}

// unmarshalStrict is the decoding half of decodeJSON.
func unmarshalStrict(data []byte, dst any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errorf(http.StatusBadRequest, CodeInvalidJSON, "the body is empty; send a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return jsonError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		line, col := position(data, dec.InputOffset())
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidJSON, Line: line, Column: col,
			Message: "unexpected data after the JSON value"}
	}
	return nil
}

// jsonError turns a decoding error into a 400 naming the field (a wrong
// type, an unknown field) or the position (a syntax error).
func jsonError(data []byte, err error) error {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
		ae  *Error
	)
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &syn):
		// Offset counts the offending byte as read; point at it.
		line, col := position(data, syn.Offset-1)
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidJSON, Line: line, Column: col,
			Message: "malformed JSON: " + strings.TrimPrefix(syn.Error(), "json: ")}
	case errors.Is(err, io.ErrUnexpectedEOF):
		line, col := position(data, int64(len(data)))
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidJSON, Line: line, Column: col,
			Message: "malformed JSON: the body ends early"}
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			return errorf(http.StatusBadRequest, CodeInvalidJSON, "the body must be a JSON %s, not %s", typ.Type.Kind(), typ.Value)
		}
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: field,
			Message: fmt.Sprintf("%s must be %s, not %s", field, jsonKind(typ.Type.Kind().String()), typ.Value)}
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if name, ok := strings.CutPrefix(msg, "unknown field "); ok {
		name = strings.Trim(name, `"`)
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: name,
			Message: fmt.Sprintf("%s is not a field of this object", name)}
	}
	return errorf(http.StatusBadRequest, CodeInvalidJSON, "%s", msg)
}

// jsonKind names a Go kind the way a JSON author thinks of it.
func jsonKind(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"):
		return "an integer"
	case strings.HasPrefix(k, "float"):
		return "a number"
	case k == "bool":
		return "true or false"
	case k == "string":
		return "a string"
	case k == "slice":
		return "a list"
	case k == "map", k == "struct":
		return "an object"
	}
	return "a " + k
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
	return line, col
}
