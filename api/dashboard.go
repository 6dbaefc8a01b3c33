package api

import (
	"bytes"
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
)

// The game-day dashboard is a few static files compiled into the binary:
// plain HTML, CSS and JavaScript modules, no build step and nothing
// fetched from elsewhere, so it works on a staging host cut off from the
// internet. The page is a client of the API like any other: it asks for
// the token, keeps it in sessionStorage and sends it on every call.
//
// embed.FS is read-only, so this package-level variable is constant data,
// not shared mutable state.
//
//go:embed dashboard
var dashboardFS embed.FS

// dashboardPrefix is where the dashboard's files (other than the page
// itself, served at /) live.
const dashboardPrefix = "/dashboard/"

// dashboardCSP forbids the page from loading or contacting anything but
// this server: a compromised or careless change to the files cannot
// exfiltrate the token, and the browser enforces "no external assets".
const dashboardCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// isDashboardPath reports whether a request is for one of the dashboard's
// static files, which are served without the token. The router matches
// the same path, so a request let through here can only reach the
// dashboard's handlers ("/dashboard/../v1/faults" is a dashboard file
// that does not exist, not the faults).
func isDashboardPath(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	return r.URL.Path == "/" || strings.HasPrefix(r.URL.Path, dashboardPrefix)
}

// authenticateAPI is [Server.authenticate], except that with a token set
// the dashboard's files are served without one: the page must load before
// it can ask for the token. They are public data (the same for every
// server), so this discloses nothing. The cross-origin check still
// applies; without a token the loopback Host check does too, through
// authenticate, as for every route.
func (s *Server) authenticateAPI(next http.Handler) http.Handler {
	auth := s.authenticate(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Token == "" || !isDashboardPath(r) {
			auth.ServeHTTP(w, r)
			return
		}
		if err := checkOrigin(r); err != nil {
			s.fail(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// dashboardIndex serves GET /: the dashboard's page.
func (s *Server) dashboardIndex(w http.ResponseWriter, r *http.Request) {
	s.serveDashboardFile(w, r, "index.html")
}

// dashboardFile serves GET /dashboard/*: the page's scripts, style sheet
// and icon. Only files are served, never a directory listing.
func (s *Server) dashboardFile(w http.ResponseWriter, r *http.Request) {
	name := chi.URLParam(r, "*")
	if name == "" || name != path.Clean(name) || strings.Contains(name, "/") || name == "index.html" {
		s.fail(w, r, errorf(http.StatusNotFound, CodeNotFound, "no dashboard file %q", name))
		return
	}
	s.serveDashboardFile(w, r, name)
}

func (s *Server) serveDashboardFile(w http.ResponseWriter, r *http.Request, name string) {
	data, err := fs.ReadFile(dashboardFS, "dashboard/"+name)
	if err != nil {
		s.fail(w, r, errorf(http.StatusNotFound, CodeNotFound, "no dashboard file %q", name))
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", dashboardCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	// Revalidate every time: after an upgrade the page and its modules
	// must not mix versions. The files are small and served locally.
	h.Set("Cache-Control", "no-cache")
	// ServeContent sets Content-Type from the extension and handles HEAD
	// and ranges; the embedded files have no modification time.
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(data))
}
