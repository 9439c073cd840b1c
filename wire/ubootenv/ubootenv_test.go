package ubootenv_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsbench/fsbench/internal/testenv"
	"github.com/fsbench/fsbench/wire/ubootenv"
)

const size = 0x4000

// TestAgainstLibubootenv: an environment Encode writes in two redundant
// copies is what fw_printenv reads; after fw_setenv, Parse and Current
// find the copy and the variables fw_printenv says, and mkenvimage's
// copy parses. The reference tools are Debian's libubootenv-tool and
// u-boot-tools.
func TestAgainstLibubootenv(t *testing.T) {
	testenv.Tools(t, "fw_printenv", "fw_setenv", "mkenvimage")
	dir := t.TempDir()
	img := filepath.Join(dir, "env.img")
	a, err := ubootenv.Encode(map[string]string{"BOOT_ORDER": "A B", "BOOT_A_LEFT": "3", "BOOT_B_LEFT": "3"}, size, true, 1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ubootenv.Encode(map[string]string{"BOOT_ORDER": "B A"}, size, true, 0)
	if err := os.WriteFile(img, append(a, b...), 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "fw_env.config")
	os.WriteFile(conf, []byte(img+" 0x0000 0x4000\n"+img+" 0x4000 0x4000\n"), 0o644)
	if got := testenv.Run(t, "", "fw_printenv", "-c", conf, "BOOT_ORDER"); strings.TrimSpace(got) != "BOOT_ORDER=A B" {
		t.Fatalf("fw_printenv read %q from Encode's copies, want the first (flags 1 over 0)", got)
	}
	testenv.Run(t, "", "fw_setenv", "-c", conf, "BOOT_ORDER", "B A")
	raw, _ := os.ReadFile(img)
	c0, c1 := ubootenv.Parse(raw[:size], true), ubootenv.Parse(raw[size:], true)
	cur, which := ubootenv.Current(c0, c1)
	if which != 1 || cur.Vars["BOOT_ORDER"] != "B A" || cur.Vars["BOOT_A_LEFT"] != "3" || c1.Flags != 2 {
		t.Errorf("after fw_setenv: copy %d (flags %d, %d), vars %v; want copy 1, flags 2, BOOT_ORDER=B A", which, c0.Flags, c1.Flags, cur.Vars)
	}
	// A torn copy: the other one is in charge.
	raw[size+100] ^= 0xff
	if cur, which = ubootenv.Current(ubootenv.Parse(raw[:size], true), ubootenv.Parse(raw[size:], true)); which != 0 || cur.Vars["BOOT_ORDER"] != "A B" {
		t.Errorf("with copy 1 torn: copy %d, %v", which, cur.Vars)
	}
	raw[100] ^= 0xff
	if _, which = ubootenv.Current(ubootenv.Parse(raw[:size], true), ubootenv.Parse(raw[size:], true)); which != -1 {
		t.Errorf("with both torn: copy %d, want none", which)
	}

	txt := filepath.Join(dir, "env.txt")
	os.WriteFile(txt, []byte("BOOT_ORDER=A B\nbootcmd=run x\n"), 0o644)
	out := filepath.Join(dir, "mk.bin")
	testenv.Run(t, "", "mkenvimage", "-r", "-s", "0x4000", "-o", out, txt)
	mk, _ := os.ReadFile(out)
	if c := ubootenv.Parse(mk, true); !c.Valid || c.Vars["bootcmd"] != "run x" || c.Flags != 1 {
		t.Errorf("mkenvimage -r: %+v", c)
	}
}

// TestCurrentWraps: flags count modulo 256, as U-Boot compares them.
func TestCurrentWraps(t *testing.T) {
	a := ubootenv.Copy{Valid: true, Flags: 255}
	b := ubootenv.Copy{Valid: true, Flags: 0}
	if _, w := ubootenv.Current(a, b); w != 1 {
		t.Errorf("255 then 0: copy %d, want 1", w)
	}
	if _, w := ubootenv.Current(b, a); w != 0 {
		t.Errorf("0 then 255: copy %d, want 0", w)
	}
	if _, err := ubootenv.Encode(map[string]string{"a=b": "c"}, 64, false, 0); err == nil {
		t.Error("a name with '=' was encoded")
	}
	single, _ := ubootenv.Encode(map[string]string{"x": "1"}, 64, false, 0)
	if c := ubootenv.Parse(single, false); !c.Valid || c.Vars["x"] != "1" {
		t.Errorf("single copy: %+v", c)
	}
}
