package qemu

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/fsbench/fsbench/wire/arch"
)

// ProbeTimeout bounds the KVM probe boot. A Debian kernel that works under
// KVM prints the probe's line within about a second; one that does not
// never prints it.
const ProbeTimeout = 5 * time.Second

// probeLine is printed by every kernel just before it starts init; the
// probe boots without a root filesystem, so a panic comes right after.
var probeLine = regexp.MustCompile(`Freeing unused kernel|Kernel panic`)

var kvmVerdicts struct {
	mu sync.Mutex
	m  map[arch.Arch]*verdict // by guest architecture
}

type verdict struct {
	mu   sync.Mutex // held during the probe: concurrent callers wait
	done bool
	ok   bool
	why  string
}

// ProbeKVM reports whether KVM can run m's architecture on this host, and
// why. /dev/kvm opening is not enough: on some hosts (nested
// virtualization) it opens and a Debian kernel then hangs. So the probe
// boots m.Kernel under KVM with no disk and no initramfs and waits up to
// ProbeTimeout for the kernel's "Freeing unused kernel" line. The verdict
// is kept for the life of the process; concurrent callers wait for the
// first one's probe.
func ProbeKVM(ctx context.Context, m Machine, log logrus.FieldLogger) (bool, string) {
	m, err := m.normalized()
	if err != nil {
		return false, err.Error()
	}
	kvmVerdicts.mu.Lock()
	if kvmVerdicts.m == nil {
		kvmVerdicts.m = map[arch.Arch]*verdict{}
	}
	v := kvmVerdicts.m[m.Arch]
	if v == nil {
		v = &verdict{}
		kvmVerdicts.m[m.Arch] = v
	}
	kvmVerdicts.mu.Unlock()
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.done {
		v.ok, v.why = probeKVM(ctx, m, log)
		// A probe cut short by the caller's context says nothing about
		// KVM; the next caller probes again.
		v.done = ctx.Err() == nil
		log.Infof("qemu: KVM probe for %s guests: usable=%v, %s", m.Arch, v.ok, v.why)
	}
	return v.ok, "KVM probe: " + v.why
}

func probeKVM(ctx context.Context, m Machine, log logrus.FieldLogger) (bool, string) {
	if host, ok := arch.Host(); !ok || host != m.Arch {
		name := runtime.GOARCH
		if ok {
			name = host.QEMU()
		}
		return false, fmt.Sprintf("no KVM for %s guests on a %s host", m.Arch.QEMU(), name)
	}
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		return false, fmt.Sprintf("no usable /dev/kvm: %v", err)
	}
	f.Close()

	probe := Machine{Arch: m.Arch, Kernel: m.Kernel, Append: []string{"panic=-1"}, MemoryMiB: 256, Accel: "kvm", NoReboot: true}
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	began := time.Now()
	vm, err := start(ctx, probe, log, logrus.DebugLevel)
	if err != nil {
		return false, fmt.Sprintf("QEMU would not start under KVM: %v", err)
	}
	defer vm.Close()
	// The context kills QEMU at the deadline, which ends the scan.
	sc := bufio.NewScanner(vm.Console())
	last := ""
	for sc.Scan() {
		line := strings.TrimSpace(strings.ReplaceAll(sc.Text(), "\r", ""))
		if probeLine.MatchString(line) {
			return true, fmt.Sprintf("a kernel booted under KVM in %v", time.Since(began).Round(time.Millisecond))
		}
		if line != "" {
			last = line
		}
	}
	if ctx.Err() == nil { // QEMU ended by itself, before the deadline
		why := strings.ReplaceAll(fmt.Sprint(vm.Wait()), "\n", " | ")
		return false, fmt.Sprintf("QEMU failed under KVM after %v, before the kernel's %q line: %s",
			time.Since(began).Round(time.Millisecond), "Freeing unused kernel", why)
	}
	return false, fmt.Sprintf("the kernel printed no %q line within %v under KVM (last line: %q): KVM hangs it here",
		"Freeing unused kernel", ProbeTimeout, last)
}
