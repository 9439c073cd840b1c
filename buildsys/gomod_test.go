package buildsys

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const sampleGoSum = `github.com/BurntSushi/toml v1.4.0 h1:kuoIxZQy2WRRk1pttg9asf+WVv6tWQuBNVmK4+nh1qI=
github.com/BurntSushi/toml v1.4.0/go.mod h1:ukJfTF/6rtPPRCnwkur4qwRxa8vTRFBF0uk2lLoLwho=
golang.org/x/sys v0.47.0/go.mod h1:4GL1E5IUh+htKOUEOaiffhrAeqysfVGipDYzABqnCmw=
`

func TestReadGoSum(t *testing.T) {
	got, err := ReadGoSum(strings.NewReader(sampleGoSum))
	if err != nil {
		t.Fatal(err)
	}
	want := []GoModule{
		{Path: "github.com/BurntSushi/toml", Version: "v1.4.0", Zip: true},
		{Path: "golang.org/x/sys", Version: "v0.47.0", Zip: false}, // only its go.mod is needed
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if _, err := ReadGoSum(strings.NewReader("golang.org/x/sys v0.47.0\n")); err == nil {
		t.Fatal("a line without a hash was accepted")
	}
}

func TestGomodURIsFromCache(t *testing.T) {
	mods, err := ReadGoSum(strings.NewReader(sampleGoSum))
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	// The module cache escapes upper case, as proxies do.
	zip := filepath.Join(cache, "cache/download/github.com/!burnt!sushi/toml/@v/v1.4.0.zip")
	mod := filepath.Join(cache, "cache/download/golang.org/x/sys/@v/v0.47.0.mod")
	if got := CacheFile(cache, "github.com/BurntSushi/toml", "v1.4.0", ".zip"); got != zip {
		t.Fatalf("CacheFile = %s, want %s", got, zip)
	}
	if _, err := GomodURIs(mods, cache); err == nil || !strings.Contains(err.Error(), "go mod download github.com/BurntSushi/toml@v1.4.0") {
		t.Fatalf("missing file: err = %v, want how to download it", err)
	}
	for path, data := range map[string]string{zip: "zip bytes", mod: "module golang.org/x/sys\n"} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	uris, err := GomodURIs(mods, cache)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	want := []string{
		"gomod://github.com/BurntSushi/toml;version=v1.4.0;sha256sum=" + sum("zip bytes"),
		"gomod://golang.org/x/sys;version=v0.47.0;mod=1;sha256sum=" + sum("module golang.org/x/sys\n"),
	}
	for i, u := range uris {
		if u.String() != want[i] {
			t.Errorf("entry %d = %s, want %s", i, u, want[i])
		}
	}

	var inc bytes.Buffer
	if err := WriteGomodInc(&inc, uris); err != nil {
		t.Fatal(err)
	}
	back, err := ReadGomodInc(&inc)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, uris) {
		t.Fatalf("read back %+v, wrote %+v", back, uris)
	}
	if _, err := ReadGomodInc(strings.NewReader(`SRC_URI += "gomod://x;version=v1;sha256sum=bad"`)); err == nil {
		t.Fatal("a malformed entry was accepted")
	}
}
