package arch

import (
	"debug/elf"
	"testing"
)

// Every spelling of an architecture reads back as that architecture, and
// no spelling names two of them.
func TestEverySpellingParses(t *testing.T) {
	owner := map[string]Arch{}
	for _, a := range All() {
		sp := spellings[a]
		names := append([]string{string(a), sp.goarch, sp.debian, sp.qemu, sp.uname}, sp.aliases...)
		for _, n := range names {
			got, err := Parse(n)
			if err != nil || got != a {
				t.Errorf("Parse(%q) = %q, %v; want %q", n, got, err, a)
			}
			if o, ok := owner[n]; ok && o != a {
				t.Errorf("%q names both %s and %s", n, o, a)
			}
			owner[n] = a
		}
	}
	for other, name := range Spellings() {
		if a, err := Parse(other); err != nil || string(a) != name {
			t.Errorf("Spellings: %q -> %q, but Parse gives %q, %v", other, name, a, err)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, s := range []string{"", "x86", "mips", "ppc64le", "arm6"} {
		if a, err := Parse(s); err == nil {
			t.Errorf("Parse(%q) = %q, want an error", s, a)
		}
	}
}

// The spellings that other tools hold us to.
func TestSpellings(t *testing.T) {
	cases := []struct {
		a                                       Arch
		goarch, deb, qemu, kernel, uname, image string
		machine                                 elf.Machine
	}{
		{X86_64, "amd64", "amd64", "x86_64", "x86", "x86_64", "bzImage", elf.EM_X86_64},
		{ARM64, "arm64", "arm64", "aarch64", "arm64", "aarch64", "Image", elf.EM_AARCH64},
		{ARM, "arm", "armhf", "arm", "arm", "armv7l", "zImage", elf.EM_ARM},
		{RISCV64, "riscv64", "riscv64", "riscv64", "riscv", "riscv64", "Image", elf.EM_RISCV},
	}
	for _, c := range cases {
		m, class := c.a.ELF()
		if want := map[bool]elf.Class{true: elf.ELFCLASS32, false: elf.ELFCLASS64}[c.a == ARM]; elf.Class(class) != want {
			t.Errorf("%s: ELF class %v, want %v", c.a, elf.Class(class), want)
		}
		got := []string{c.a.GOARCH(), c.a.Debian(), c.a.QEMU(), c.a.Kernel(), c.a.Uname(), c.a.KernelImage()}
		want := []string{c.goarch, c.deb, c.qemu, c.kernel, c.uname, c.image}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: spelling %d is %q, want %q", c.a, i, got[i], want[i])
			}
		}
		if elf.Machine(m) != c.machine {
			t.Errorf("%s: ELF machine %v, want %v", c.a, m, c.machine)
		}
		if g, err := FromGo(c.goarch); err != nil || g != c.a {
			t.Errorf("FromGo(%q) = %q, %v", c.goarch, g, err)
		}
	}
	if ARM.GOARM() != "7" || X86_64.GOARM() != "" {
		t.Errorf("GOARM: arm %q, x86_64 %q", ARM.GOARM(), X86_64.GOARM())
	}
	if Arch("sparc").Valid() || !ARM.Valid() {
		t.Error("Valid")
	}
}
