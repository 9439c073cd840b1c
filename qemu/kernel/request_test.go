package kernel

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/debpkg"
	"github.com/fsbench/fsbench/internal/testenv"
)

func TestParseRequest(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Request
		bad  string
	}{
		{in: "", want: Request{}},
		{in: "linux-image-rt-amd64", want: Request{Package: "linux-image-rt-amd64"}},
		{in: "linux-image-amd64=6.1.176-1", want: Request{Package: "linux-image-amd64", Version: "6.1.176-1"}},
		{in: "=6.1.176-1", want: Request{Version: "6.1.176-1"}},
		{in: "linux-image-6.1.0-50-amd64=6.1.176-1", want: Request{Package: "linux-image-6.1.0-50-amd64", Version: "6.1.176-1"}},
		{in: "linux-image-amd64:amd64", bad: "no architecture suffix"},
		{in: "linux-headers-amd64", bad: "want a Debian kernel package"},
		{in: "linux-image-amd64=", bad: "is not a Debian version"},
		{in: "linux-image-amd64=6.1 ; reboot", bad: "is not a Debian version"},
		{in: "=latest", bad: "is not a Debian version"},
	} {
		got, err := ParseRequest(tc.in)
		switch {
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("ParseRequest(%q) = %+v, %v; want an error saying %q", tc.in, got, err, tc.bad)
		case tc.bad == "" && err != nil:
			t.Errorf("ParseRequest(%q): %v", tc.in, err)
		case tc.bad == "" && got != tc.want:
			t.Errorf("ParseRequest(%q) = %+v, want %+v", tc.in, got, tc.want)
		case tc.bad == "":
			if again, err := ParseRequest(got.String()); err != nil || again != got {
				t.Errorf("%+v.String() = %q, which reads back as %+v, %v", got, got.String(), again, err)
			}
		}
	}
}

// TestResolveRequest asks the host's apt for every version of the amd64
// metapackage, a flavour and a kernel package by name.
func TestResolveRequest(t *testing.T) {
	testenv.Tool(t, "apt-cache")
	ctx := context.Background()
	resolve := func(req Request) (Version, error) {
		return ResolveRequest(ctx, testLog(t), testCacheDir(), "x86_64", req)
	}
	def, err := resolve(Request{})
	if errors.Is(err, ErrUnreachable) {
		testenv.Missing(t, "the Debian mirror, for apt-get")
	}
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := Resolve(ctx, testLog(t), testCacheDir(), "x86_64"); err != nil || plain != def {
		t.Errorf("Resolve = %+v, %v; the zero request gave %+v", plain, err, def)
	}

	versions, err := debpkg.Versions(ctx, testCacheDir(), "linux-image-amd64:amd64")
	if err != nil || len(versions) == 0 {
		t.Fatalf("versions of linux-image-amd64: %v %v", versions, err)
	}
	t.Logf("apt has linux-image-amd64 %s", strings.Join(versions, ", "))
	pkgs := map[string]bool{}
	for _, ver := range versions {
		v, err := resolve(Request{Version: ver})
		if err != nil {
			t.Errorf("=%s: %v", ver, err)
			continue
		}
		t.Logf("=%s: %s", ver, v)
		if v.Metapackage != "linux-image-amd64" || !strings.HasPrefix(v.Package, "linux-image-") || v.PackageVersion != ver {
			t.Errorf("=%s resolved to %+v", ver, v)
		}
		pkgs[v.Package] = true
	}
	if len(pkgs) != len(versions) {
		t.Errorf("%d versions of the metapackage resolved to %d kernel packages", len(versions), len(pkgs))
	}

	byName, err := resolve(Request{Package: def.Package})
	if err != nil || byName.Package != def.Package || byName.PackageVersion != def.PackageVersion || byName.Metapackage != "" {
		t.Errorf("kernel package %s resolved to %+v, %v", def.Package, byName, err)
	}
	if rt, err := resolve(Request{Package: "linux-image-rt-amd64"}); err != nil || !strings.HasSuffix(rt.Package, "-rt-amd64") {
		t.Errorf("linux-image-rt-amd64 resolved to %+v, %v", rt, err)
	}

	for req, want := range map[Request]string{
		{Version: "0.1-1"}:             "apt has no version 0.1-1 of linux-image-amd64:amd64; it has " + versions[0],
		{Package: "linux-image-arm64"}: "not a kernel for x86_64",
	} {
		if v, err := resolve(req); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s resolved to %+v, %v; want an error with %q", req, v, err, want)
		}
	}
}
