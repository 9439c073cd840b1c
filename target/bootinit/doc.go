// Package bootinit is the init of the initramfs that fsbench boots Debian
// kernels with under QEMU. The kernel's disk and filesystem drivers are
// modules, so something has to load them before the root filesystem can be
// mounted; bootinit does that and nothing more, then hands PID 1 to the
// root filesystem's init the way switch_root does.
//
// Main, run by the kernel as /init, does in order:
//
//  1. mount devtmpfs on /dev, proc on /proc, sysfs on /sys;
//  2. load the module files listed in /etc/fsbench/modules (one path per
//     line, in load order, written by the host's initramfs builder) with
//     finit_module(2);
//  3. read the root= rootfstype= rootflags= ro rw rootwait rootdelay= init=
//     parameters from /proc/cmdline (see ParseCmdline);
//  4. find the root device, reading partition tables (GPT and MBR, see
//     ReadTable) and filesystem superblocks itself because there is no
//     udev or blkid in the initramfs;
//  5. mount it on /newroot and write "fsbench-init: Mounted root (<type>
//     filesystem) on <dev>" to /dev/kmsg, the milestone the host's serial
//     capture looks for;
//  6. move /dev, /proc and /sys into the new root, delete the initramfs
//     files, make the new root "/" and exec its init.
//
// Every step that can fail ends with a message on /dev/kmsg and the console
// saying what was looked for and what was found, and then powers the
// machine off: a failed boot makes QEMU exit at once instead of leaving the
// host waiting for a timeout.
//
// What this package must never do:
//   - act outside an initramfs: Main refuses to run unless it is PID 1 and
//     "/" is the kernel's rootfs (ramfs or tmpfs), because it mounts, deletes
//     files and powers off;
//   - hang: every wait is bounded (rootwait included, see Cmdline.Wait);
//   - depend on anything but the standard library and golang.org/x/sys/unix:
//     it is linked into the static target runner.
package bootinit
