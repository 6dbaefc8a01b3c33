package api

import (
	"fmt"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// routes builds the router. The OpenAPI document (openapi.go) describes
// every API route registered here; TestOpenAPICoversRoutes keeps them in
// step. The dashboard's static files (/ and /dashboard/*) are not API and
// are left out of it.
func (s *Server) routes() chi.Router {
	r := chi.NewRouter()
	r.Use(middleware.RequestID, s.recoverer, s.observe, s.authenticateAPI)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, errorf(http.StatusNotFound, CodeNotFound, "no route %s %s (see GET /openapi.json)", r.Method, r.URL.Path))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, r, errorf(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "%s is not allowed on %s", r.Method, r.URL.Path))
	})

	r.Get("/healthz", s.health)
	r.Method(http.MethodGet, "/metrics", s.metrics.handler())
	r.Get("/openapi.json", s.openapi)
	r.Get("/", s.dashboardIndex)
	r.Get(dashboardPrefix+"*", s.dashboardFile)

	r.Route("/v1", func(r chi.Router) {
		r.Route("/upstreams", func(r chi.Router) {
			r.Get("/", s.listUpstreams)
			r.Post("/", s.createUpstream)
			r.Route("/{name}", func(r chi.Router) {
				r.Get("/", s.getUpstream)
				r.Put("/", s.updateUpstream(false))
				r.Patch("/", s.updateUpstream(true))
				r.Delete("/", s.deleteUpstream)
				r.Post("/enable", s.enableUpstream)
				r.Post("/disable", s.disableUpstream)
				r.Get("/faults", s.listFaults(true))
				r.Post("/faults", s.createFault(true))
				r.Get("/faults/{fault}", s.getFault(true))
				r.Put("/faults/{fault}", s.replaceFault(true))
				r.Patch("/faults/{fault}", s.patchFault(true))
				r.Delete("/faults/{fault}", s.deleteFault(true))
				r.Post("/faults/{fault}/extend", s.extendFault(true))
				r.Post("/faults/{fault}/reset", s.resetFault(true))
			})
		})
		r.Route("/faults", func(r chi.Router) {
			r.Get("/", s.listFaults(false))
			r.Post("/", s.createFault(false))
			r.Put("/", s.replaceFaults)
			r.Get("/{name}", s.getFault(false))
			r.Put("/{name}", s.replaceFault(false))
			r.Patch("/{name}", s.patchFault(false))
			r.Delete("/{name}", s.deleteFault(false))
			r.Post("/{name}/extend", s.extendFault(false))
			r.Post("/{name}/reset", s.resetFault(false))
		})
		r.Post("/halt", s.halt)
		r.Get("/events", s.events)
		r.Get("/runs", s.listRuns)
		r.Post("/runs", s.startRun)
		r.Get("/runs/{id}", s.getRun)
		r.Delete("/runs/{id}", s.deleteRun)
		r.Get("/audit", s.getAudit)
		r.Get("/kinds", s.listKinds)
		r.Get("/examples", s.listExamples)
		r.Get("/examples/{name}", s.getExample)
		r.Route("/live", func(r chi.Router) {
			r.Post("/reports", s.liveReports)
			r.Get("/sessions", s.liveSessions)
			r.Get("/calls", s.liveCalls)
			r.Get("/report", s.liveReport)
		})
	})
	return r
}

// health serves GET /healthz.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, Health{Status: "ok", Upstreams: len(s.reg.Upstreams()), Faults: s.reg.Table().Load().Len(),
		Runs: s.opts.EnableRuns})
}

// recoverer turns a handler's panic into a 500: a bug, logged with its
// stack, never a crash of the process that holds the faults.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error().Str("stack", string(debug.Stack())).Msg("handler panic")
			s.fail(w, r, fmt.Errorf("panic: %v", v))
		}()
		next.ServeHTTP(w, r)
	})
}

// observe times requests into mcpchaos_api_request_duration_seconds and
// logs them at debug level (never their headers: the token is one).
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		route := chi.RouteContext(r.Context()).RoutePattern()
		if route == "" {
			route = "unmatched"
		}
		d := time.Since(start)
		s.metrics.requests.WithLabelValues(route, r.Method, strconv.Itoa(ww.Status())).Observe(d.Seconds())
		s.log.Debug().Str("method", r.Method).Str("route", route).Int("status", ww.Status()).
			Dur("took", d).Str("remote", r.RemoteAddr).Msg("request")
	})
}
