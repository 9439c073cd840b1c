package debpkg

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/sirupsen/logrus"
	"github.com/sirupsen/logrus/hooks/test"
)

// TestFetchOnceForConcurrentCallers fetches one package from several
// goroutines at once: it is downloaded once, and every caller gets the
// same complete cache entry.
func TestFetchOnceForConcurrentCallers(t *testing.T) {
	testenv.Tool(t, "apt-get")
	da := hostArch(t)
	ctx := context.Background()
	log, hook := test.NewNullLogger()
	log.Out = io.Discard
	log.Level = logrus.DebugLevel
	p, err := Candidate(ctx, log, "", "zlib1g", da)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	const callers = 4
	dirs := make([]string, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dirs[i], errs[i] = Fetch(ctx, log, cache, p, nil)
		}()
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v", i, errs[i])
		}
		if dirs[i] != dirs[0] || !Cached(dirs[i], p) {
			t.Errorf("caller %d got %s, caller 0 %s", i, dirs[i], dirs[0])
		}
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "usr", "share", "doc", "zlib1g", "copyright")); err != nil {
		t.Errorf("zlib1g unpacked without its copyright file: %v", err)
	}
	downloads := 0
	for _, e := range hook.AllEntries() {
		if e.Message == "downloading "+p.String() {
			downloads++
		}
	}
	if downloads != 1 {
		t.Errorf("%d downloads of %s, want 1", downloads, p)
	}
	leftovers, _ := filepath.Glob(filepath.Join(cache, ".fetch-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary directories left in the cache: %v", leftovers)
	}
}
