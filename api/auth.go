package api

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"
	"unicode"
)

// ActorHeader names, optionally, the person or script behind a request
// ("alice", "runbook step 4"). It is recorded in the audit trail next to
// the authenticated identity; it proves nothing by itself.
const ActorHeader = "X-Mcpchaos-Actor"

// who is the identity a change is audited under.
type who struct {
	// ID is "token" when the request carried the server's token,
	// "anonymous" when the server has none.
	ID     string
	Remote string
	Actor  string
}

type whoKey struct{}

func whoFrom(ctx context.Context) who {
	w, _ := ctx.Value(whoKey{}).(who)
	return w
}

// authenticate enforces the token and, without one, the loopback-only
// checks that keep a web page from reaching the API through a browser.
// /healthz is open so that a supervisor can probe without the token.
func (s *Server) authenticate(next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(s.opts.Token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := "anonymous"
		if err := checkOrigin(r); err != nil {
			s.fail(w, r, err)
			return
		}
		switch {
		case r.URL.Path == "/healthz":
		case s.opts.Token != "":
			got, ok := bearer(r)
			// Hashing first makes the comparison constant-time in the
			// token's length too, which ConstantTimeCompare alone is not.
			gh := sha256.Sum256([]byte(got))
			if !ok || subtle.ConstantTimeCompare(gh[:], want[:]) != 1 {
				s.log.Warn().Str("remote", r.RemoteAddr).Str("path", r.URL.Path).Bool("bearer", ok).Msg("unauthorized request")
				s.fail(w, r, errorf(http.StatusUnauthorized, CodeUnauthorized, "send the API token as Authorization: Bearer TOKEN"))
				return
			}
			id = "token"
		default:
			// No token: the API trusts whoever can reach loopback. A DNS
			// rebinding page reaches it under its own host name, so only
			// loopback Host headers are served.
			host := r.Host
			if h, _, err := net.SplitHostPort(host); err == nil {
				host = h
			}
			if !isLoopbackHost(strings.Trim(host, "[]")) {
				s.fail(w, r, errorf(http.StatusForbidden, CodeForbidden,
					"Host %q is not a loopback address; without a token only loopback requests are served", r.Host))
				return
			}
		}
		actor := strings.Map(func(r rune) rune {
			if unicode.IsPrint(r) {
				return r
			}
			return -1
		}, r.Header.Get(ActorHeader))
		if rs := []rune(actor); len(rs) > 64 {
			actor = string(rs[:64])
		}
		ctx := context.WithValue(r.Context(), whoKey{}, who{ID: id, Remote: r.RemoteAddr, Actor: actor})
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// bearer returns the request's bearer token.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != ""
}

// checkOrigin refuses a request a browser sent on behalf of another
// site: browsers add Origin to cross-origin requests, scripts and curl do
// not.
func checkOrigin(r *http.Request) error {
	o := r.Header.Get("Origin")
	if o == "" {
		return nil
	}
	u, err := url.Parse(o)
	if err == nil && strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	return errorf(http.StatusForbidden, CodeForbidden, "cross-origin requests are refused (Origin %q)", o)
}
