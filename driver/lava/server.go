package lava

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// TokenEnv names the environment variable that holds the LAVA API token.
// A token is never read from a spec or a flag, and never logged.
const TokenEnv = "LAVA_TOKEN"

// Server is a LAVA server's REST API (v0.2).
type Server struct {
	// URL is the server's root, such as https://lava.example.com.
	URL string
	// Token authenticates as a LAVA user ("Authorization: Token ...").
	Token string
	// Client is the HTTP client; nil is one with a minute's timeout.
	Client *http.Client
}

// NewServer checks the server's URL.
func NewServer(raw, token string) (*Server, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("LAVA server %q: want the server's http:// or https:// URL, such as https://lava.example.com", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("LAVA server %q: give the server's URL alone (the token comes from $%s)", u.Redacted(), TokenEnv)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return &Server{URL: u.String(), Token: token}, nil
}

// APIError is an answer of the server other than success.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string {
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Sprintf("the LAVA server refused the request (HTTP %d: %s): set $%s to a token of a user allowed to submit jobs", e.Status, e.Message, TokenEnv)
	}
	return fmt.Sprintf("the LAVA server answered HTTP %d: %s", e.Status, e.Message)
}

func (s *Server) do(ctx context.Context, method, path string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.URL+"/api/v0.2/"+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if s.Token != "" {
		req.Header.Set("Authorization", "Token "+s.Token)
	}
	c := s.Client
	if c == nil {
		c = &http.Client{Timeout: time.Minute}
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("LAVA server: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("LAVA server: %s %s: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &APIError{Status: resp.StatusCode, Message: apiMessage(b)}
	}
	if w, ok := out.(*[]byte); ok {
		*w = b
		return nil
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("LAVA server: %s %s: the answer is not the API's JSON: %v", method, path, err)
		}
	}
	return nil
}

// apiMessage is the server's explanation in an error answer: its
// "message" or "detail", else the start of the body.
func apiMessage(b []byte) string {
	var m map[string]any
	if json.Unmarshal(b, &m) == nil {
		for _, k := range []string{"message", "detail", "error"} {
			if s, ok := m[k].(string); ok && s != "" {
				return s
			}
		}
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	if s == "" {
		s = "(no message)"
	}
	return s
}

// Submit submits one job definition and returns the ids the server gave
// it (one, or one per node of a multinode job).
func (s *Server) Submit(ctx context.Context, definition []byte) ([]int, error) {
	var out struct {
		Message string `json:"message"`
		JobIDs  []int  `json:"job_ids"`
	}
	if err := s.do(ctx, http.MethodPost, "jobs/", map[string]string{"definition": string(definition)}, &out); err != nil {
		return nil, err
	}
	if len(out.JobIDs) == 0 {
		return nil, fmt.Errorf("the LAVA server took the job but gave no job id (%q)", out.Message)
	}
	return out.JobIDs, nil
}

// JobStatus is what the server says of a job.
type JobStatus struct {
	ID                  int    `json:"id"`
	State               string `json:"state"`  // Submitted, Scheduling, Scheduled, Running, Canceling, Finished
	Health              string `json:"health"` // Unknown, Complete, Incomplete, Canceled
	ActualDevice        string `json:"actual_device"`
	RequestedDeviceType string `json:"requested_device_type"`
	FailureComment      string `json:"failure_comment"`
}

// Finished reports whether the job has ended, one way or another.
func (j JobStatus) Finished() bool { return j.State == "Finished" }

// Job returns the job's status.
func (s *Server) Job(ctx context.Context, id int) (JobStatus, error) {
	var j JobStatus
	err := s.do(ctx, http.MethodGet, "jobs/"+strconv.Itoa(id)+"/", nil, &j)
	return j, err
}

// Log returns the job's log.
func (s *Server) Log(ctx context.Context, id int) ([]Entry, error) {
	var b []byte
	if err := s.do(ctx, http.MethodGet, "jobs/"+strconv.Itoa(id)+"/logs/", nil, &b); err != nil {
		return nil, err
	}
	return ReadLog(bytes.NewReader(b))
}

// ErrNotFinished is Fetch's error for a job still queued or running.
var ErrNotFinished = errors.New("the job has not finished")

// Fetch returns a finished job as a Run, with the device it ran on.
func (s *Server) Fetch(ctx context.Context, id int) (Run, JobStatus, error) {
	j, err := s.Job(ctx, id)
	if err != nil {
		return Run{}, j, err
	}
	if !j.Finished() {
		return Run{}, j, fmt.Errorf("job %d is %s: %w", id, j.State, ErrNotFinished)
	}
	entries, err := s.Log(ctx, id)
	if err != nil {
		return Run{}, j, fmt.Errorf("job %d's log: %w", id, err)
	}
	return Run{JobID: strconv.Itoa(id), Device: j.ActualDevice, DeviceType: j.RequestedDeviceType, Entries: entries}, j, nil
}
