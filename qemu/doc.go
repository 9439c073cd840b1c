// Package qemu runs fsbench's disk images in QEMU, the default virtual
// target: it turns a Machine (architecture, kernel, initramfs, command
// line, disks) into a qemu-system-x86_64 or qemu-system-aarch64 command,
// starts it, and hands the guest's serial console to the caller as a
// byte stream (for package capture's timestamps) and an input.
//
// The console is a unix socket chardev in a private temporary directory:
// the socket is listened on before QEMU starts and QEMU connects to it as a
// client, so no byte of the boot is lost and no port or fixed path is
// used. The directory is gone again once QEMU has connected.
//
// A guest reboot resets the machine and the console keeps flowing; a guest
// power-off makes QEMU exit, which is how bootinit ends a failed boot.
//
// Booting a Debian kernel into a disk image takes three pieces: the kernel
// file (BootKernel prefers the uncompressed one, twice as fast under TCG),
// an initramfs with bootinit as /init and the modules of the disks and the
// root filesystem (initramfs.Build with Machine.Modules), and a kernel
// command line naming the root (root=PARTUUID=... and so on, see
// bootinit.ParseCmdline).
//
// KVM is used only where it works: with Accel "auto" the first Start of a
// process boots the kernel briefly under KVM and keeps the verdict (see
// ProbeKVM). On the machines fsbench is developed on /dev/kvm opens, but
// under KVM QEMU aborts with -cpu host ("failed to set MSR 0x10a") and a
// Debian kernel hangs in its decompressor with the default CPU, so TCG is
// the rule there; the probe finds that out in a fraction of a second.
//
// What this package must never do:
//   - run a shell: QEMU is exec'ed with an explicit argument list;
//   - leave a QEMU behind: a VM is killed when its context ends and when
//     the test or program that started it dies (PR_SET_PDEATHSIG);
//   - write outside its temporary directory, or leave that directory.
package qemu
