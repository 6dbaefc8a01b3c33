package api

import (
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/go-chi/chi/v5/middleware"
	"github.com/rs/zerolog"

	agentsim "github.com/mcpchaos/mcpchaos/agent-sim"
	"github.com/mcpchaos/mcpchaos/config"
	"github.com/mcpchaos/mcpchaos/inject"
	"github.com/mcpchaos/mcpchaos/rules"
)

// Error codes: the "code" of an error response, stable for scripts.
const (
	CodeInvalidJSON       = "invalid_json"
	CodeInvalidField      = "invalid_field"
	CodeInvalidExpression = "invalid_expression"
	CodeInvalidScenario   = "invalid_scenario"
	CodeNotFound          = "not_found"
	CodeConflict          = "conflict"
	CodeBodyTooLarge      = "body_too_large"
	CodeUnsupportedMedia  = "unsupported_media_type"
	CodeUnauthorized      = "unauthorized"
	CodeForbidden         = "forbidden"
	CodeMethodNotAllowed  = "method_not_allowed"
	CodeTooManyRuns       = "too_many_runs"
	CodeRunsDisabled      = "runs_disabled"
	CodeUnavailable       = "unavailable"
	CodeInternal          = "internal"
)

// Error is the body of every error response, {"error": {...}}, and the
// error [Client] methods return for one.
type Error struct {
	// Status is the HTTP status; it is not part of the JSON body.
	Status int `json:"-"`
	// Code is one of the Code constants.
	Code string `json:"code"`
	// Message says what is wrong, for a person.
	Message string `json:"message"`
	// Field is the offending field's path ("fault.delay", "ttl"), when
	// one is to blame.
	Field string `json:"field,omitempty"`
	// Line and Column locate the mistake inside the field (a "when"
	// expression) or inside the body (a scenario, malformed JSON); both
	// are 1-based.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
	if e.Field != "" {
		msg += " (field " + e.Field
		if e.Line > 0 {
			msg += fmt.Sprintf(", line %d, column %d", e.Line, e.Column)
		}
		msg += ")"
	}
	return msg
}

// errorBody is the JSON envelope of an error.
type errorBody struct {
	Error *Error `json:"error"`
}

func errorf(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// fail writes err as an error response. It is the one place errors become
// responses: the client gets a message written for it, the log gets the
// full error (at debug level for a client's mistake, error level for
// ours). A 500 is only for errors this function does not know, which are
// bugs.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	e := classify(err)
	lvl := zerolog.DebugLevel
	if e.Status >= 500 {
		lvl = zerolog.ErrorLevel
	}
	s.log.WithLevel(lvl).Err(err).Str("method", r.Method).Str("path", r.URL.Path).
		Int("status", e.Status).Str("request_id", middleware.GetReqID(r.Context())).Msg("request failed")
	if e.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="mcpchaos"`)
	}
	if e.Status >= 500 && e.Code == CodeInternal {
		e.Message = "internal error (request id " + middleware.GetReqID(r.Context()) + ")"
	}
	writeJSON(w, e.Status, errorBody{Error: e})
}

// classify maps an error to its response. The order matters: a scenario's
// *config.Error wraps the rules error it located, and must win over it.
func classify(err error) *Error {
	var (
		ae *Error
		mb *http.MaxBytesError
		ce *config.Error
		ee *rules.ExprError
		fe *rules.FieldError
		se *inject.SpecError
		oe *net.OpError
		de *net.DNSError
	)
	switch {
	case errors.As(err, &ae):
		c := *ae
		return &c
	case errors.As(err, &mb):
		return errorf(http.StatusRequestEntityTooLarge, CodeBodyTooLarge, "the body is larger than %d bytes", mb.Limit)
	case errors.As(err, &ce):
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidScenario, Message: ce.Msg,
			Field: ce.Field, Line: ce.Line, Column: ce.Column}
	case errors.As(err, &ee):
		// expr-lang counts columns from 0; the API, like editors, from 1.
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidExpression, Message: ee.Msg,
			Field: "when", Line: ee.Line, Column: ee.Column + 1}
	case errors.As(err, &fe) && errors.Is(err, rules.ErrDuplicate):
		return &Error{Status: http.StatusConflict, Code: CodeConflict, Message: fe.Error(), Field: fe.Field}
	case errors.As(err, &fe):
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Message: fe.Field + " " + fe.Msg, Field: fe.Field}
	case errors.As(err, &se):
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Message: se.Field + " " + se.Msg, Field: se.Field}
	case errors.Is(err, rules.ErrNotFound), errors.Is(err, inject.ErrUnknownUpstream):
		return errorf(http.StatusNotFound, CodeNotFound, "%s", err.Error())
	case errors.Is(err, rules.ErrDuplicate), errors.Is(err, inject.ErrUpstreamExists):
		return errorf(http.StatusConflict, CodeConflict, "%s", err.Error())
	case errors.Is(err, agentsim.ErrUsage):
		return errorf(http.StatusBadRequest, CodeInvalidScenario, "%s", err.Error())
	case errors.As(err, &oe) && oe.Op == "listen" && !errors.As(err, &de):
		// The error names the address asked for; oe.Addr is nil when
		// the bind never got that far.
		return &Error{Status: http.StatusConflict, Code: CodeConflict, Field: "listen",
			Message: fmt.Sprintf("cannot listen: %v", err)}
	case errors.Is(err, ErrRunsDisabled):
		return errorf(http.StatusForbidden, CodeRunsDisabled, "%s", err.Error())
	case errors.As(err, &de):
		// A listen host that does not resolve is the request's mistake.
		return &Error{Status: http.StatusBadRequest, Code: CodeInvalidField, Field: "listen",
			Message: fmt.Sprintf("listen: %v", de)}
	case errors.Is(err, inject.ErrClosed):
		return errorf(http.StatusServiceUnavailable, CodeUnavailable, "the server is shutting down")
	}
	return errorf(http.StatusInternalServerError, CodeInternal, "internal error")
}
