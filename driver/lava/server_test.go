package lava

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// labAPI is a stand-in for a LAVA server's REST API v0.2: jobs/ takes a
// definition from a user with the token, jobs/ID/ and jobs/ID/logs/ say
// how a job went.
type labAPI struct {
	token string
	mu    sync.Mutex
	defs  []string
	jobs  map[int]JobStatus
	logs  map[int]string
}

func (l *labAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.Header.Get("Authorization") != "Token "+l.token {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"detail": "Invalid token."}`)
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/api/v0.2/jobs/":
		var body struct{ Definition string }
		if r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&body) != nil {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"message": "malformed request"}`)
			return
		}
		if !strings.Contains(body.Definition, "device_type: ") {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"message": "Job submission failed: extra keys not allowed @ data['bogus']."}`)
			return
		}
		l.defs = append(l.defs, body.Definition)
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"message": "job(s) successfully submitted", "job_ids": []int{1000 + len(l.defs)}})
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/v0.2/jobs/"):
		rest := strings.TrimPrefix(r.URL.Path, "/api/v0.2/jobs/")
		for id, j := range l.jobs {
			switch rest {
			case strconv.Itoa(id) + "/":
				json.NewEncoder(w).Encode(j)
				return
			case strconv.Itoa(id) + "/logs/":
				io.WriteString(w, l.logs[id])
				return
			}
		}
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"detail": "Not found."}`)
	default:
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

func TestServerSubmitAndFetch(t *testing.T) {
	var server strings.Builder
	for _, l := range strings.SplitAfter(jobLog(t, 2, true, nil), "\n") {
		if l != "" {
			server.WriteString("- " + l)
		}
	}
	api := &labAPI{token: "s3cret", jobs: map[int]JobStatus{
		1001: {ID: 1001, State: "Finished", Health: "Complete", ActualDevice: "qemu-07", RequestedDeviceType: "qemu"},
		1002: {ID: 1002, State: "Running", Health: "Unknown"},
	}, logs: map[int]string{1001: server.String()}}
	ts := httptest.NewServer(api)
	defer ts.Close()
	ctx := context.Background()

	s, err := NewServer(ts.URL+"/", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := s.Submit(ctx, []byte("device_type: qemu\njob_name: x\n"))
	if err != nil || len(ids) != 1 || ids[0] != 1001 {
		t.Fatalf("Submit = %v, %v", ids, err)
	}
	if len(api.defs) != 1 || api.defs[0] != "device_type: qemu\njob_name: x\n" {
		t.Errorf("the server got %q", api.defs)
	}
	// The server's refusal is quoted.
	_, err = s.Submit(ctx, []byte("bogus: 1\n"))
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(err.Error(), "extra keys not allowed") {
		t.Errorf("Submit of a bad job: %v", err)
	}
	// A wrong token says where the token comes from, and never shows it.
	bad, _ := NewServer(ts.URL, "wrong")
	_, err = bad.Submit(ctx, []byte("device_type: qemu\n"))
	if err == nil || !strings.Contains(err.Error(), TokenEnv) || strings.Contains(err.Error(), "wrong") {
		t.Errorf("Submit with a wrong token: %v", err)
	}

	run, j, err := s.Fetch(ctx, 1001)
	if err != nil {
		t.Fatal(err)
	}
	if run.Device != "qemu-07" || run.JobID != "1001" || j.Health != "Complete" {
		t.Errorf("Fetch = %+v, %+v", run, j)
	}
	sum, err := Convert(ctx, run, ConvertOptions{})
	if err != nil || len(sum.Results) != 3 || sum.Results[0].Attrs["lava_device"] != "qemu-07" {
		t.Errorf("Convert of the fetched job: %v, %d results", err, len(sum.Results))
	}
	if _, _, err := s.Fetch(ctx, 1002); !errors.Is(err, ErrNotFinished) {
		t.Errorf("Fetch of a running job: %v, want ErrNotFinished", err)
	}
	if _, _, err := s.Fetch(ctx, 9999); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("Fetch of no job: %v", err)
	}
	for _, u := range []string{"lava.example.com", "ftp://lava.example.com", "https://user:pw@lava.example.com", "https://lava.example.com/?token=x"} {
		if _, err := NewServer(u, "t"); err == nil || strings.Contains(err.Error(), "pw") {
			t.Errorf("NewServer(%q): %v", u, err)
		}
	}
}
