package api

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// LiveReport fetches GET /v1/live/report (since and format as the API
// takes them; empty means its default) and copies the report to w.
func (c *Client) LiveReport(ctx context.Context, since, format string, w io.Writer) error {
	q := url.Values{}
	if since != "" {
		q.Set("since", since)
	}
	if format != "" {
		q.Set("format", format)
	}
	rel := "/v1/live/report"
	if len(q) > 0 {
		rel += "?" + q.Encode()
	}
	req, err := c.request(ctx, http.MethodGet, rel, nil, "")
	if err != nil {
		return fmt.Errorf("GET %s: %w", rel, err)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", rel, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return responseError(resp)
	}
	if _, err := io.Copy(w, resp.Body); err != nil {
		return fmt.Errorf("GET %s: reading the report: %w", rel, err)
	}
	return nil
}
