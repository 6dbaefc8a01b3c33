package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ErrDropped is returned by [Client.Events] when the server closed the
// stream because the client fell behind. Calling Events again with
// EventsOptions.LastEventID set to the last Seq seen resumes.
var ErrDropped = errors.New("event stream dropped by the server: the client fell behind")

// EventsOptions selects events for [Client.Events].
type EventsOptions struct {
	// Types and Upstreams filter; empty keeps all.
	Types, Upstreams []string
	// Replay first sends the last Replay remembered events.
	Replay int
	// LastEventID resumes after that event.
	LastEventID uint64
	// NoFollow ends the stream after the replay.
	NoFollow bool
}

// Events streams events to fn until ctx is done (nil is returned), the
// stream ends (nil), the server drops the client ([ErrDropped]) or fn
// returns an error (returned).
func (c *Client) Events(ctx context.Context, o EventsOptions, fn func(Event) error) error {
	q := url.Values{}
	if len(o.Types) > 0 {
		q.Set("type", strings.Join(o.Types, ","))
	}
	if len(o.Upstreams) > 0 {
		q.Set("upstream", strings.Join(o.Upstreams, ","))
	}
	if o.Replay > 0 {
		q.Set("replay", strconv.Itoa(o.Replay))
	}
	if o.NoFollow {
		q.Set("follow", "false")
	}
	req, err := c.request(ctx, http.MethodGet, "/v1/events?"+q.Encode(), nil, "")
	if err != nil {
		return err
	}
	if o.LastEventID > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatUint(o.LastEventID, 10))
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("GET /v1/events: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return responseError(resp)
	}
	err = readSSE(bufio.NewReader(resp.Body), fn)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// readSSE parses frames ("event:", "data:", blank line) and hands each
// data payload to fn.
func readSSE(r *bufio.Reader, fn func(Event) error) error {
	var typ string
	var data bytes.Buffer
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil // the server ended the stream
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if data.Len() > 0 {
				if typ == EventDropped {
					return ErrDropped
				}
				var e Event
				if err := json.Unmarshal(data.Bytes(), &e); err != nil {
					return fmt.Errorf("event stream: %w", err)
				}
				if err := fn(e); err != nil {
					return err
				}
			}
			typ = ""
			data.Reset()
		case strings.HasPrefix(line, ":"):
		case strings.HasPrefix(line, "event:"):
			typ = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
		case strings.HasPrefix(line, "data:"):
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
}

// RunParams are the query of POST /v1/runs.
type RunParams struct {
	// Name is the document's name in error messages ("shipping.yaml").
	Name string
	// Seed, when not zero, is the run's seed.
	Seed uint64
	// Personas and Hosts override the scenario's.
	Personas, Hosts []string
}

// StartRun starts a run of scenario (a YAML or JSON document).
func (c *Client) StartRun(ctx context.Context, scenario []byte, p RunParams) (Run, error) {
	q := url.Values{}
	if p.Name != "" {
		q.Set("name", p.Name)
	}
	if p.Seed != 0 {
		q.Set("seed", strconv.FormatUint(p.Seed, 10))
	}
	if len(p.Personas) > 0 {
		q.Set("persona", strings.Join(p.Personas, ","))
	}
	if len(p.Hosts) > 0 {
		q.Set("host", strings.Join(p.Hosts, ","))
	}
	var run Run
	_, err := c.send(ctx, http.MethodPost, "/v1/runs?"+q.Encode(), bytes.NewReader(scenario), "application/yaml", &run)
	return run, err
}

// Run returns a run, waiting up to wait for it to finish (0: no wait).
func (c *Client) Run(ctx context.Context, id string, wait time.Duration) (Run, error) {
	rel := urlPath("v1", "runs", id)
	if wait > 0 {
		rel += "?wait=" + url.QueryEscape(wait.String())
	}
	var run Run
	_, err := c.do(ctx, http.MethodGet, rel, nil, &run)
	return run, err
}

// WaitRun long-polls a run until it is no longer running.
func (c *Client) WaitRun(ctx context.Context, id string) (Run, error) {
	for {
		run, err := c.Run(ctx, id, maxWait)
		if err != nil || run.Status != RunRunning {
			return run, err
		}
	}
}

// Runs lists runs (without reports).
func (c *Client) Runs(ctx context.Context) ([]Run, error) {
	var l RunList
	_, err := c.do(ctx, http.MethodGet, "/v1/runs", nil, &l)
	return l.Runs, err
}

// CancelRun cancels a running run, or forgets a finished one.
func (c *Client) CancelRun(ctx context.Context, id string) error {
	_, err := c.do(ctx, http.MethodDelete, urlPath("v1", "runs", id), nil, nil)
	return err
}
