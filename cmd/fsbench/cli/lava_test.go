package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fsbench/fsbench/internal/testbin"
	"github.com/fsbench/fsbench/internal/testenv"
)

// lavaMain runs fsbench with the tests' runner and package cache.
func lavaMain(t *testing.T, extraEnv []string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := append([]string{"FSBENCH_RUNNER=" + testbin.Runner(t, ""), "FSBENCH_CACHE=" + testbin.CacheDir(), "FSBENCH_LOG=warn"}, extraEnv...)
	code := Main(args, strings.NewReader(""), &stdout, &stderr, env)
	return code, stdout.String(), stderr.String()
}

// 'fsbench lava jobs -submit' writes the jobs, sends each to the server
// as its REST API takes them, with the token from the environment, and
// records their ids; 'lava results' fetches them back. The server here is
// a stand-in of LAVA's API.
func TestLAVAJobsSubmit(t *testing.T) {
	for _, tool := range []string{"apt-get", "fakeroot", "mke2fs"} {
		testenv.Tool(t, tool)
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import lava_common.schemas").Run(); err != nil {
		testenv.Missing(t, "Debian's lava-common")
	}
	t.Parallel()
	var mu sync.Mutex
	var got []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get("Authorization") != "Token t0ken" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"detail": "Invalid token."}`)
			return
		}
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/api/v0.2/jobs/":
			var body struct{ Definition string }
			json.NewDecoder(r.Body).Decode(&body)
			got = append(got, body.Definition)
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(map[string]any{"message": "job(s) successfully submitted", "job_ids": []int{40 + len(got)}})
		case r.Method == http.MethodGet && (r.URL.Path == "/api/v0.2/jobs/41/" || r.URL.Path == "/api/v0.2/jobs/42/"):
			io.WriteString(w, `{"state": "Running", "health": "Unknown"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer api.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	spec := filepath.Join("..", "..", "..", "driver", "lava", "testdata", "lab.fsb.hcl")

	code, _, stderr := lavaMain(t, nil, "lava", "jobs", "-o", out, "-artifacts", "https://files.example.com/out", "-submit", api.URL, spec)
	if code != ExitUsage || !strings.Contains(stderr, "LAVA_TOKEN") {
		t.Errorf("without a token: exit %d, %s", code, stderr)
	}
	code, stdout, stderr := lavaMain(t, []string{"LAVA_TOKEN=t0ken"}, "lava", "jobs", "-o", out, "-artifacts", "https://files.example.com/out",
		"-repeat", "2", "-submit", api.URL, spec)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if len(got) != 2 || !strings.Contains(got[0], "device_type: qemu") || !strings.Contains(got[1], "fsbench.repetition: 2/2") {
		t.Fatalf("the server got %d jobs:\n%s", len(got), strings.Join(got, "\n---\n"))
	}
	if !strings.Contains(stdout, "ext4-1.yaml: job 41: "+api.URL+"/scheduler/job/41") || strings.Contains(stdout+stderr, "t0ken") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	for _, f := range []string{"ext4-1.yaml", "ext4-2.yaml", "submitted.json"} {
		if _, err := os.Stat(filepath.Join(out, "lava", f)); err != nil {
			t.Error(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "lava", "ext4-1.yaml"))
	if string(b) != got[0] {
		t.Error("the job submitted is not the job written")
	}
	// The jobs have not finished: results says so, and writes nothing
	// as if they had.
	code, _, stderr = lavaMain(t, []string{"LAVA_TOKEN=t0ken"}, "lava", "results", "-o", filepath.Join(dir, "res"), "-jobs", filepath.Join(out, "lava", "submitted.json"))
	if code != ExitIO || !strings.Contains(stderr, "job 41 is Running") || !strings.Contains(stderr, "job 42 is Running") {
		t.Errorf("results of running jobs: exit %d, %s", code, stderr)
	}
	// The token is refused: the server's answer, and where the token comes from.
	code, _, stderr = lavaMain(t, []string{"LAVA_TOKEN=wrong"}, "lava", "jobs", "-o", out, "-artifacts", "https://files.example.com/out", "-submit", api.URL, spec)
	if code != ExitBuild || !strings.Contains(stderr, "HTTP 401") || !strings.Contains(stderr, "$LAVA_TOKEN") {
		t.Errorf("a refused token: exit %d, %s", code, stderr)
	}
}
