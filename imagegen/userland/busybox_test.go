package userland

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/internal/debpkg"
	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/arch"
)

// fetch returns the host architecture's busybox-static from the test cache,
// or skips when apt cannot provide it.
func fetch(t *testing.T) *Busybox {
	t.Helper()
	testenv.Tool(t, "apt-get")
	cache := os.Getenv("FSBENCH_CACHE")
	if cache == "" {
		cache = os.TempDir() + "/fsbench-test-cache"
	}
	host, _ := arch.Host()
	log := logrus.New()
	log.Out = io.Discard
	bb, err := FetchBusybox(context.Background(), log, cache, host)
	if errors.Is(err, debpkg.ErrUnreachable) {
		testenv.Missing(t, "the Debian mirror: "+err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	return bb
}

func TestBusyboxHasEveryApplet(t *testing.T) {
	bb := fetch(t)
	out, err := exec.Command(bb.Binary, "--list").Output()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, a := range strings.Fields(string(out)) {
		have[a] = true
	}
	for dir, names := range Applets {
		for _, n := range names {
			if !have[n] {
				t.Errorf("%s/%s: busybox %s has no such applet", dir, n, bb.Package.Version)
			}
		}
	}
}

func TestUserlandTarball(t *testing.T) {
	bb := fetch(t)
	opt := Options{Console: "ttyAMA0,38400n8", Hostname: "board", RootFlags: []string{"noatime"}, Epoch: 315532800}
	var a, b bytes.Buffer
	if err := bb.WriteTar(&a, opt); err != nil {
		t.Fatal(err)
	}
	bb.WriteTar(&b, opt)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two tarballs of one userland differ")
	}
	files := map[string]string{}
	links := map[string]string{}
	tr := tar.NewReader(&a)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.ModTime.Unix() != opt.Epoch || h.Uid != 0 {
			t.Errorf("%s: mtime %v uid %d", h.Name, h.ModTime, h.Uid)
		}
		switch h.Typeflag {
		case tar.TypeSymlink:
			links[h.Name] = h.Linkname
		case tar.TypeReg:
			body, _ := io.ReadAll(tr)
			files[h.Name] = string(body)
		}
	}
	if links["etc/mtab"] != "../proc/self/mounts" {
		t.Errorf("etc/mtab -> %q", links["etc/mtab"])
	}
	if links["sbin/init"] != "../bin/busybox" || links["bin/sh"] != "busybox" {
		t.Errorf("init -> %q, sh -> %q", links["sbin/init"], links["bin/sh"])
	}
	if !strings.Contains(files["etc/inittab"], "ttyAMA0::respawn:/sbin/getty -L 38400 ttyAMA0") {
		t.Errorf("inittab has no getty on the console:\n%s", files["etc/inittab"])
	}
	if rc := files["etc/init.d/rcS"]; !strings.Contains(rc, "mount -o remount,noatime /\n") || !strings.Contains(rc, "/etc/init.d/S??*") {
		t.Errorf("rcS does not remount / with noatime or run the start scripts:\n%s", rc)
	}
	if files["etc/hostname"] != "board\n" {
		t.Errorf("hostname %q, rcS:\n%s", files["etc/hostname"], files["etc/init.d/rcS"])
	}
}
